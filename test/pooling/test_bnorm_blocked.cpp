// Batch normalization forward on blocked nChw16c / nChw8c and on nhwc
// tensors (the channel-in-lanes statistics and the per-block runs of
// vec:blocked / vec:nspc), f32 and bf16, inference with given statistics
// and training computing them, with every combination of use_scale,
// use_shift and the fused relu (whose training workspace is checked),
// channel tails, 1 and 2 threads, against a naive reference in double
// written here (all offsets computed here). test_isa_caps.sh runs it capped
// too.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/kt_test.hpp"

namespace {

long rnd(long v, long b) { return (v + b - 1) / b * b; }
// B = 16 or 8: nChw16c / nChw8c; B = 0: nhwc.
long off(long B, long C, long H, long W, long n, long c, long h, long w) {
    if (B == 0) return ((n * H + h) * W + w) * C + c;
    return (((n * (rnd(C, B) / B) + c / B) * H + h) * W + w) * B + c % B;
}

// bf16 storage, rounded to nearest even (values here are finite).
float bf16_round(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    b += 0x7fffu + ((b >> 16) & 1u);
    b &= 0xffff0000u;
    std::memcpy(&f, &b, 4);
    return f;
}

void check(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, long B, long N, long C, long H, long W,
        bool train, bool relu, int threads, bool use_scale = true, bool use_shift = true, bool bf = false,
        bool dst_aligned = false) {
    dnnl_dims_t d = {N, C, H, W}, cd = {C};
    dnnl_memory_desc_t md, cmd;
    const dnnl_format_tag_t tag = B == 16 ? dnnl_nChw16c : B == 8 ? dnnl_nChw8c : dnnl_nhwc;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, 4, d, bf ? dnnl_bf16 : dnnl_f32, tag));
    KT_OK(dnnl_memory_desc_create_with_tag(&cmd, 1, cd, dnnl_f32, dnnl_a));
    unsigned flags = (use_scale ? (unsigned)dnnl_use_scale : 0u) | (use_shift ? (unsigned)dnnl_use_shift : 0u)
            | (train ? 0u : (unsigned)dnnl_use_global_stats) | (relu ? (unsigned)dnnl_fuse_norm_relu : 0u);
    const float eps = 1e-3f;
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_batch_normalization_forward_primitive_desc_create(&pd, eng,
            train ? dnnl_forward_training : dnnl_forward_inference, md, md, eps, flags, nullptr));
    const size_t sz = dnnl_memory_desc_get_size(md) / (bf ? 2 : 4);
    // dst starts 64 bytes aligned or 16 bytes past that (the non-temporal
    // stores of large aligned nChw16c f32 tensors, or the plain ones).
    std::vector<float> x(sz, 0.f), ystore(sz + 32, 9.f), mean(C), var(C), g(C), sh(C);
    float *y = ystore.data() + (64 - reinterpret_cast<uintptr_t>(ystore.data()) % 64) % 64 / 4 + (dst_aligned ? 0 : 4);
    kt::rng_t r(B * 100 + C + train * 7 + relu);
    for (long n = 0; n < N; ++n)
        for (long c = 0; c < C; ++c)
            for (long h = 0; h < H; ++h)
                for (long w = 0; w < W; ++w) {
                    const float v = r.uniform(-1.f, 1.f) + 0.1f * c;
                    x[off(B, C, H, W, n, c, h, w)] = bf ? bf16_round(v) : v;
                }
    // bf16 storage: the top halves of the f32 values.
    std::vector<uint16_t> xb(sz), yb(sz, 0x4110);
    for (size_t i = 0; i < sz; ++i) {
        uint32_t u;
        std::memcpy(&u, &x[i], 4);
        xb[i] = (uint16_t)(u >> 16);
    }
    for (long c = 0; c < C; ++c) {
        mean[c] = train ? 0.f : r.uniform(-0.5f, 0.5f);
        var[c] = train ? 0.f : r.uniform(0.1f, 2.f);
        g[c] = r.uniform(-2.f, 2.f);
        sh[c] = r.uniform(-1.f, 1.f);
    }
    // The naive statistics (training) in double.
    const long cnt = N * H * W;
    std::vector<double> rm(C), rv(C);
    for (long c = 0; c < C; ++c) {
        double s = 0, q = 0;
        if (train) {
            for (long n = 0; n < N; ++n)
                for (long h = 0; h < H; ++h)
                    for (long w = 0; w < W; ++w) s += x[off(B, C, H, W, n, c, h, w)];
            s /= cnt;
            for (long n = 0; n < N; ++n)
                for (long h = 0; h < H; ++h)
                    for (long w = 0; w < W; ++w) {
                        const double e = x[off(B, C, H, W, n, c, h, w)] - s;
                        q += e * e;
                    }
            q /= cnt;
        } else {
            s = mean[c], q = var[c];
        }
        rm[c] = s, rv[c] = q;
    }
    dnnl_memory_t mx, my, mm, mv, mg, ms;
    KT_OK(dnnl_memory_create(&mx, md, eng, bf ? (void *)xb.data() : (void *)x.data()));
    KT_OK(dnnl_memory_create(&my, md, eng, bf ? (void *)yb.data() : (void *)y));
    KT_OK(dnnl_memory_create(&mm, cmd, eng, mean.data()));
    KT_OK(dnnl_memory_create(&mv, cmd, eng, var.data()));
    KT_OK(dnnl_memory_create(&mg, cmd, eng, g.data()));
    KT_OK(dnnl_memory_create(&ms, cmd, eng, sh.data()));
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DST, my}, {DNNL_ARG_MEAN, mm},
            {DNNL_ARG_VARIANCE, mv}, {DNNL_ARG_SCALE, mg}, {DNNL_ARG_SHIFT, ms}};
    std::vector<char> ws;
    dnnl_memory_t mws = nullptr;
    if (train && relu) {
        const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
        ws.assign(dnnl_memory_desc_get_size(wmd) + 1, 0);
        KT_OK(dnnl_memory_create(&mws, wmd, eng, ws.data()));
        args.push_back({DNNL_ARG_WORKSPACE, mws});
    }
    dnnl_primitive_t p;
    KT_OK(dnnl_primitive_create(&p, pd));
    KT_OK(dnnl_primitive_execute(p, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));
    if (bf)
        for (size_t i = 0; i < sz; ++i) {
            const uint32_t u = (uint32_t)yb[i] << 16;
            std::memcpy(&y[i], &u, 4);
        }

    // f32 error budget, in units of u = 2^-24: statistics summed over cnt
    // points (mean within cnt u of max|x|, variance within ~2 cnt u of its
    // terms), a = g / sqrt(v + eps) a few roundings (4 u), then (x - m) a + b
    // two roundings: (2 cnt + 16) u times the magnitudes |x - m| |a| + |b|
    // plus |a| |m|.
    const double u = std::ldexp(1.0, -24);
    long bad = 0, ws_bad = 0;
    bool stats_ok = true, pad_ok = true;
    for (long c = 0; c < C; ++c) {
        const double gc = use_scale ? g[c] : 1.0, bc = use_shift ? sh[c] : 0.0;
        const double a = gc / std::sqrt(rv[c] + eps);
        if (train) {
            stats_ok = stats_ok && std::fabs(mean[c] - rm[c]) <= (cnt + 4) * u * (1.1 + 0.1 * c)
                    && std::fabs(var[c] - rv[c]) <= (2 * cnt + 8) * u * (rv[c] + std::pow(1.1 + 0.1 * c, 2) * 0.01);
        }
        for (long n = 0; n < N; ++n)
            for (long h = 0; h < H; ++h)
                for (long w = 0; w < W; ++w) {
                    const double xv = x[off(B, C, H, W, n, c, h, w)];
                    double want = (xv - rm[c]) * a + bc;
                    if (relu && want < 0) want = 0;
                    const double mag = std::fabs(xv - rm[c]) * std::fabs(a) + std::fabs(bc) + std::fabs(a * rm[c]);
                    // bf16 dst: one more rounding, half a bf16 ulp (2^-9
                    // relative) of a value within the f32 budget.
                    const double tol = (2 * cnt + 16) * u * mag + (bf ? std::ldexp(1.0, -8) * (std::fabs(want) + (2 * cnt + 16) * u * mag) : 0.0);
                    const float yv = y[off(B, C, H, W, n, c, h, w)];
                    if (!(std::fabs(yv - want) <= tol)) ++bad;
                    // The mask is 1 exactly where the pre-relu value is > 0.
                    if (!ws.empty() && ws[off(B, C, H, W, n, c, h, w)] != (yv > 0.f ? 1 : 0)) ++ws_bad;
                }
    }
    for (long n = 0; n < N; ++n)
        for (long c = C; B && c < rnd(C, B); ++c)
            for (long h = 0; h < H; ++h)
                for (long w = 0; w < W; ++w) pad_ok = pad_ok && y[off(B, C, H, W, n, c, h, w)] == 0.f;
    char what[240];
    const std::string impl = kt::impl_name(pd);
    std::snprintf(what, sizeof(what), "bnorm %s%s%s%s %s %s %ldx%ldx%ldx%ld%s %d thr (%s): %ld off, ws %ld off",
            train ? "training" : "inference", relu ? " + relu" : "", use_scale ? " scale" : "",
            use_shift ? " shift" : "", B == 16 ? "nChw16c" : B == 8 ? "nChw8c" : "nhwc", bf ? "bf16" : "f32", N, C,
            H, W, dst_aligned ? " aligned dst" : "", threads, impl.c_str(), bad, ws_bad);
    t.check(bad == 0 && ws_bad == 0, what);
    // The vectorised path serves all but the relu mask of a bf16 dst.
    const char *want_impl = train && relu && bf ? "ref:any" : B ? "vec:blocked" : "vec:nspc";
    t.check(impl == want_impl, what);
    if (train) t.check(stats_ok, "bnorm training: mean and variance vs the naive statistics");
    t.check(pad_ok, "bnorm leaves padded channels zero");
    dnnl_primitive_destroy(p);
    for (auto m : {mx, my, mm, mv, mg, ms}) dnnl_memory_destroy(m);
    if (mws) dnnl_memory_destroy(mws);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(md);
    dnnl_memory_desc_destroy(cmd);
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    dnnl_stream_t strm;
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    const long blocks[] = {16, 8, 0}, channels[] = {16, 20, 37}; // B = 0: nhwc
    for (int threads = 1; threads <= 2; ++threads)
        kt::with_threads(threads, [&] {
            for (long B : blocks)
                for (long C : channels)
                    for (int mode = 0; mode < 4; ++mode) {
                        const bool train = mode & 1, relu = mode & 2;
                        for (int sc = 0; sc < 4; ++sc) // use_scale, use_shift
                            check(t, eng, strm, B, 2, C, 5, 7, train, relu, threads, sc & 1, sc & 2);
                        check(t, eng, strm, B, 1, C, 3, 700, train, relu, threads); // SP > one run of 512
                        check(t, eng, strm, B, 2, C, 5, 7, train, relu, threads, true, true, true); // bf16
                    }
            // f32 nChw16c dst of 4 MiB or more, 64-byte aligned: the
            // non-temporal stores (not with the training workspace), with
            // a channel tail and a run tail (SP = 11100 = 21 * 512 + 348).
            for (int mode = 0; mode < 4; ++mode)
                check(t, eng, strm, 16, 2, 37, 3, 3700, mode & 1, mode & 2, threads, true, true, false, true);
        });
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
