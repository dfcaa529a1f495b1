// Pooling forward on channel-innermost layouts (nhwc and nChw16c / nChw8c
// in 1D, 2D and 3D: the register kernels chan_row_avx512 / chan_row_avx2,
// and the vec_ops path with the ISA capped below AVX2) against a naive
// reference written here: max, avg including and excluding padding, f32
// and bf16, channel counts that are not a multiple of the block or vector,
// padding on every side, windows partly or wholly outside src, strides 1,
// 2 and 3 (3x3 stride 2 also through the row-pair kernel: odd row counts,
// pairs at the padded edges, short and long interiors), dilation, 1 and 2
// threads. Max pooling trains with a workspace which the backward then
// reads: the gradient must land on the reference's
// first maximum; max inference (no workspace) gets NaN, -0 and +0 among
// its inputs and must match the reference's strict > bit for bit (a NaN
// never wins, the first of -0 and +0 stays). Offsets are computed in this file; nothing of the library
// but the code under test is used.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/kt_test.hpp"

namespace {

enum layout_t { nspc, blk16, blk8 };

struct prob_t {
    int ns; // spatial dims, 1..3
    long N, C, I[3], K[3], S[3], Dl[3], pl[3], pr[3]; // d, h, w (unused leading dims: 1, 0)
    long O(int i) const { return (I[i] + pl[i] + pr[i] - ((K[i] - 1) * (Dl[i] + 1) + 1)) / S[i] + 1; }
};

long blk_of(layout_t l) { return l == blk16 ? 16 : l == blk8 ? 8 : 1; }

// Element offset of (n, c, d, h, w) in a tensor of C channels, spatial
// sizes D x H x W, laid out as l (blocked ones padded to the block).
long off(layout_t l, long C, long D, long H, long W, long n, long c, long d, long h, long w) {
    if (l == nspc) return (((n * D + d) * H + h) * W + w) * C + c;
    const long B = blk_of(l), CB = (C + B - 1) / B;
    return ((((n * CB + c / B) * D + d) * H + h) * W + w) * B + c % B;
}
long size_of(layout_t l, long N, long C, long D, long H, long W) {
    const long B = blk_of(l);
    return N * ((C + B - 1) / B * B) * D * H * W;
}

dnnl_format_tag_t tag_of(layout_t l, int ns) {
    const dnnl_format_tag_t t[3][3] = {{dnnl_acb, dnnl_aBc16b, dnnl_aBc8b},
            {dnnl_acdb, dnnl_aBcd16b, dnnl_aBcd8b}, {dnnl_acdeb, dnnl_aBcde16b, dnnl_aBcde8b}};
    return t[ns - 1][l];
}

// bf16 with rounding to nearest even (all values here are finite).
uint16_t to_bf16(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    b += 0x7fffu + ((b >> 16) & 1u);
    return (uint16_t)(b >> 16);
}
float from_bf16(uint16_t h) {
    const uint32_t b = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// A tensor's bytes, f32 or bf16, starting 64 bytes aligned (aligned) or
// 16 bytes past that (the pair kernel's non-temporal stores need the former).
struct buf_t {
    bool bf;
    std::vector<char> bytes;
    char *p;
    buf_t(bool bf_, long n, float fill, bool aligned = false) : bf(bf_), bytes(n * (bf_ ? 2 : 4) + 192) {
        p = bytes.data() + (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64) % 64 + (aligned ? 0 : 16);
        for (long i = 0; i < n; ++i) set(i, fill);
    }
    void set(long i, float v) {
        if (bf) {
            const uint16_t h = to_bf16(v);
            std::memcpy(p + 2 * i, &h, 2);
        } else {
            std::memcpy(p + 4 * i, &v, 4);
        }
    }
    float get(long i) const {
        if (bf) {
            uint16_t h;
            std::memcpy(&h, p + 2 * i, 2);
            return from_bf16(h);
        }
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        return v;
    }
};

struct env_t {
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    env_t() {
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    }
    ~env_t() {
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
};

// The register kernel the library must pick: AVX-512 when the CPU has it
// and no cap is set, AVX2 under ONEDNN_MAX_CPU_ISA=AVX2 (bf16 only for
// whole 8-channel vectors), none below.
std::string expected_kernel(bool bf, long run) {
    const char *cap = std::getenv("ONEDNN_MAX_CPU_ISA");
    if (!cap) cap = std::getenv("DNNL_MAX_CPU_ISA");
    __builtin_cpu_init();
    const bool has512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
            && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    const bool has2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const std::string c = cap ? cap : "";
    if (has512 && (c.empty() || c.rfind("AVX512", 0) == 0 || c == "ALL" || c.rfind("AVX10", 0) == 0)) return ":avx512";
    if (has2 && (c.empty() || c.rfind("AVX2", 0) == 0 || c.rfind("AVX512", 0) == 0 || c == "ALL")
            && (!bf || run % 8 == 0))
        return ":avx2";
    return "";
}

int fast_cases = 0;

void check(kt::tally_t &t, env_t &e, const prob_t &p, layout_t l, bool bf, dnnl_alg_kind_t alg, int threads,
        bool train, bool dst_aligned = false) {
    const long D = p.I[0], H = p.I[1], W = p.I[2], OD = p.O(0), OH = p.O(1), OW = p.O(2);
    const int nd = p.ns + 2;
    dnnl_dims_t sdims = {p.N, p.C}, ddims = {p.N, p.C}, st, k, dil, pl, pr;
    for (int i = 0; i < p.ns; ++i) {
        const int j = 3 - p.ns + i;
        sdims[2 + i] = p.I[j];
        ddims[2 + i] = p.O(j);
        st[i] = p.S[j], k[i] = p.K[j], dil[i] = p.Dl[j], pl[i] = p.pl[j], pr[i] = p.pr[j];
    }
    const dnnl_data_type_t dt = bf ? dnnl_bf16 : dnnl_f32;
    dnnl_memory_desc_t sd, dd;
    KT_OK(dnnl_memory_desc_create_with_tag(&sd, nd, sdims, dt, tag_of(l, p.ns)));
    KT_OK(dnnl_memory_desc_create_with_tag(&dd, nd, ddims, dt, tag_of(l, p.ns)));
    const bool max = alg == dnnl_pooling_max;
    const bool specials = max && !train; // NaN, -0 and +0 among the inputs
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_pooling_forward_primitive_desc_create(&pd, e.eng,
            train ? dnnl_forward_training : dnnl_forward_inference, alg, sd, dd, st, k, dil, pl, pr, nullptr));
    const std::string name = kt::impl_name(pd);
    const std::string want = std::string(l == nspc ? "vec:nspc" : "vec:blocked")
            + expected_kernel(bf, l == nspc ? p.C : blk_of(l));
    fast_cases += name != "vec:nspc" && name != "vec:blocked";
    char what[300];
    const char *an = max ? "max" : alg == dnnl_pooling_avg_include_padding ? "avg_incl" : "avg_excl";
    const char *ln = l == nspc ? "nspc" : l == blk16 ? "blk16" : "blk8";
    std::snprintf(what, sizeof(what),
            "pooling %s%s %s %s %dD C=%ld %ldx%ldx%ld k%ldx%ldx%ld s%ldx%ldx%ld%s %d thr (%s)", an,
            specials ? " (inference, NaN/-0/+0 inputs)" : "", ln,
            bf ? "bf16" : "f32", p.ns, p.C, D, H, W, p.K[0], p.K[1], p.K[2], p.S[0], p.S[1], p.S[2],
            dst_aligned ? " aligned dst" : "", threads,
            name.c_str());
    t.check(name == want, what);

    const long ssz = size_of(l, p.N, p.C, D, H, W), dsz = size_of(l, p.N, p.C, OD, OH, OW);
    buf_t x(bf, ssz, 0.f), y(bf, dsz, 7.f, dst_aligned);
    kt::rng_t r(p.C * 977 + W * 31 + p.S[2] * 7 + l + bf * 3);
    // Quarter integers: ties (the first must win), sums exact in f32.
    std::vector<float> xv(p.N * p.C * D * H * W);
    for (long n = 0, i = 0; n < p.N; ++n)
        for (long c = 0; c < p.C; ++c)
            for (long d = 0; d < D; ++d)
                for (long h = 0; h < H; ++h)
                    for (long w = 0; w < W; ++w, ++i) {
                        xv[i] = r.small_int(-6, 6) * 0.25f;
                        if (specials) {
                            const int k = r.small_int(0, 7);
                            if (k == 0) xv[i] = std::nanf("");
                            if (k == 1) xv[i] = -0.f;
                            if (k == 2) xv[i] = 0.f;
                        }
                        x.set(off(l, p.C, D, H, W, n, c, d, h, w), xv[i]);
                    }
    // The reference, logical ncdhw order; argmax as the logical src index.
    std::vector<float> ry(p.N * p.C * OD * OH * OW);
    std::vector<long> am(ry.size(), -1);
    for (long n = 0, o = 0; n < p.N; ++n)
        for (long c = 0; c < p.C; ++c)
            for (long od = 0; od < OD; ++od)
                for (long oh = 0; oh < OH; ++oh)
                    for (long ow = 0; ow < OW; ++ow, ++o) {
                        float m = -FLT_MAX, sum = 0.f;
                        long cnt = 0;
                        for (long kd = 0; kd < p.K[0]; ++kd)
                            for (long kh = 0; kh < p.K[1]; ++kh)
                                for (long kw = 0; kw < p.K[2]; ++kw) {
                                    const long id = od * p.S[0] - p.pl[0] + kd * (p.Dl[0] + 1);
                                    const long ih = oh * p.S[1] - p.pl[1] + kh * (p.Dl[1] + 1);
                                    const long iw = ow * p.S[2] - p.pl[2] + kw * (p.Dl[2] + 1);
                                    if (id < 0 || id >= D || ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                    const long i = (((n * p.C + c) * D + id) * H + ih) * W + iw;
                                    if (xv[i] > m) {
                                        m = xv[i];
                                        am[o] = i;
                                    }
                                    sum += xv[i];
                                    ++cnt;
                                }
                        if (max) {
                            ry[o] = m;
                        } else {
                            const long div = alg == dnnl_pooling_avg_include_padding ? p.K[0] * p.K[1] * p.K[2] : cnt;
                            ry[o] = div ? sum / (float)div : 0.f;
                        }
                        // A window wholly outside src (or of NaNs only)
                        // gives the lowest value of the dst type (-FLT_MAX
                        // would round to -inf in bf16).
                        if (bf) ry[o] = max && am[o] < 0 ? from_bf16(0xff7f) : from_bf16(to_bf16(ry[o]));
                    }

    dnnl_memory_t ms, mdst, mws = nullptr;
    KT_OK(dnnl_memory_create(&ms, sd, e.eng, x.p));
    KT_OK(dnnl_memory_create(&mdst, dd, e.eng, y.p));
    std::vector<char> ws;
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mdst}};
    if (train) {
        const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
        ws.assign(dnnl_memory_desc_get_size(wmd), 0);
        KT_OK(dnnl_memory_create(&mws, wmd, e.eng, ws.data()));
        args.push_back({DNNL_ARG_WORKSPACE, mws});
    }
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    KT_OK(dnnl_primitive_execute(prim, e.strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(e.strm));
    // f32: quarter-integer sums are exact and divided once, as here, so
    // every value must be equal; bf16 rounds that quotient once, as here.
    long bad = 0, pad_bad = 0;
    for (long n = 0, o = 0; n < p.N; ++n)
        for (long c = 0; c < p.C; ++c)
            for (long od = 0; od < OD; ++od)
                for (long oh = 0; oh < OH; ++oh)
                    for (long ow = 0; ow < OW; ++ow, ++o) {
                        // Bit for bit (the sign of a zero counts).
                        const float v = y.get(off(l, p.C, OD, OH, OW, n, c, od, oh, ow));
                        uint32_t vb, rb;
                        std::memcpy(&vb, &v, 4);
                        std::memcpy(&rb, &ry[o], 4);
                        if (vb != rb) ++bad;
                    }
    // A blocked dst's padded channels are zero.
    const long CP = (p.C + blk_of(l) - 1) / blk_of(l) * blk_of(l);
    for (long n = 0; n < p.N; ++n)
        for (long c = p.C; c < CP; ++c)
            for (long s = 0; s < OD * OH * OW; ++s)
                if (y.get(off(l, p.C, 1, 1, OD * OH * OW, n, c, 0, 0, s)) != 0.f) ++pad_bad;
    char msg[400];
    std::snprintf(msg, sizeof(msg), "%s: dst equals the reference (%ld off, %ld padding)", what, bad, pad_bad);
    t.check(bad == 0 && pad_bad == 0, msg);

    if (train) {
        // Backward with the workspace: each diff_dst value goes to the
        // reference's first maximum (small integer sums are exact).
        dnnl_primitive_desc_t bpd = nullptr;
        KT_OK(dnnl_pooling_backward_primitive_desc_create(&bpd, e.eng, alg, sd, dd, st, k, dil, pl, pr, pd, nullptr));
        buf_t dy(bf, dsz, 0.f), dx(bf, ssz, 5.f);
        std::vector<float> rdx(xv.size(), 0.f);
        for (long n = 0, o = 0; n < p.N; ++n)
            for (long c = 0; c < p.C; ++c)
                for (long od = 0; od < OD; ++od)
                    for (long oh = 0; oh < OH; ++oh)
                        for (long ow = 0; ow < OW; ++ow, ++o) {
                            const float v = (float)r.small_int(-8, 8);
                            dy.set(off(l, p.C, OD, OH, OW, n, c, od, oh, ow), v);
                            if (am[o] >= 0) rdx[am[o]] += v;
                        }
        dnnl_memory_t mdy, mdx;
        KT_OK(dnnl_memory_create(&mdy, dd, e.eng, dy.p));
        KT_OK(dnnl_memory_create(&mdx, sd, e.eng, dx.p));
        dnnl_primitive_t bp = nullptr;
        KT_OK(dnnl_primitive_create(&bp, bpd));
        dnnl_exec_arg_t bargs[] = {{DNNL_ARG_DIFF_DST, mdy}, {DNNL_ARG_WORKSPACE, mws}, {DNNL_ARG_DIFF_SRC, mdx}};
        KT_OK(dnnl_primitive_execute(bp, e.strm, 3, bargs));
        KT_OK(dnnl_stream_wait(e.strm));
        long bbad = 0;
        for (long n = 0, i = 0; n < p.N; ++n)
            for (long c = 0; c < p.C; ++c)
                for (long d = 0; d < D; ++d)
                    for (long h = 0; h < H; ++h)
                        for (long w = 0; w < W; ++w, ++i)
                            if (dx.get(off(l, p.C, D, H, W, n, c, d, h, w)) != rdx[i]) ++bbad;
        std::snprintf(msg, sizeof(msg), "%s: backward through the workspace routes to the first maximum (%ld off)",
                what, bbad);
        t.check(bbad == 0, msg);
        dnnl_primitive_destroy(bp);
        dnnl_memory_destroy(mdy);
        dnnl_memory_destroy(mdx);
        dnnl_primitive_desc_destroy(bpd);
    }
    dnnl_primitive_destroy(prim);
    if (mws) dnnl_memory_destroy(mws);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdst);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(sd);
    dnnl_memory_desc_destroy(dd);
}

} // namespace

int main() {
    kt::tally_t t;
    env_t e;
    // C is set per case. Leading unused dims: size 1, kernel 1, stride 1.
    const prob_t probs[] = {
            // ns N C  {D,H,W}      {KD,KH,KW} {SD,SH,SW} {dil}     {pad l}    {pad r}
            {2, 2, 0, {1, 13, 29}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}}, // 3x3 s2 p1
            // 3x3 s2 (AVX-512, no workspace: output rows in pairs): fewer
            // than 8 interior columns; no padding, every pair whole, two
            // blocks of 8 columns and a remainder (the last 8 again).
            {2, 1, 0, {1, 8, 11}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}},
            {2, 1, 0, {1, 9, 40}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
            {2, 1, 0, {1, 6, 19}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}}, // stride 1
            {2, 1, 0, {1, 9, 23}, {1, 4, 5}, {1, 3, 3}, {0, 0, 0}, {0, 2, 3}, {0, 1, 0}}, // stride 3, asymmetric
            {2, 1, 0, {1, 7, 12}, {1, 2, 3}, {1, 1, 2}, {0, 1, 1}, {0, 0, 2}, {0, 1, 1}}, // dilation
            {2, 1, 0, {1, 4, 4}, {1, 2, 2}, {1, 3, 3}, {0, 0, 0}, {0, 3, 3}, {0, 3, 2}}, // windows wholly outside
            {1, 2, 0, {1, 1, 40}, {1, 1, 5}, {1, 1, 3}, {0, 0, 1}, {0, 0, 4}, {0, 0, 3}}, // 1D
            {3, 1, 0, {4, 5, 6}, {2, 3, 2}, {2, 1, 2}, {0, 0, 0}, {1, 1, 0}, {0, 1, 1}}, // 3D
            {2, 1, 0, {1, 16, 24}, {1, 16, 16}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, // s32 workspace
    };
    const long Cs[] = {3, 16, 17, 35};
    for (int threads : {1, 2})
        kt::with_threads(threads, [&] {
            for (prob_t p : probs)
                for (long C : Cs) {
                    if (p.K[1] == 16 && C != 17) continue; // keep the big window cheap
                    p.C = C;
                    for (layout_t l : {nspc, blk16, blk8})
                        for (bool bf : {false, true})
                            for (dnnl_alg_kind_t alg : {dnnl_pooling_max, dnnl_pooling_avg_include_padding,
                                         dnnl_pooling_avg_exclude_padding}) {
                                check(t, e, p, l, bf, alg, threads, alg == dnnl_pooling_max);
                                if (alg == dnnl_pooling_max) check(t, e, p, l, bf, alg, threads, false);
                            }
                }
            // 3x3 s2 pairs into an aligned f32 nChw16c dst of 4 MiB or more
            // (the non-temporal stores), with a channel tail and an odd
            // row count: 1x35x297x296 -> 149x148 (3 blocks: 4.04 MiB).
            prob_t big = {2, 1, 35, {1, 297, 296}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}};
            for (dnnl_alg_kind_t alg : {dnnl_pooling_max, dnnl_pooling_avg_exclude_padding})
                check(t, e, big, blk16, false, alg, threads, false, true);
            // The same into an aligned dense nhwc dst: 48 channels (three
            // whole slices a point: non-temporal stores, 4.04 MiB) and 35
            // (a tail slice: plain stores), every slice of a block of
            // columns before the next block.
            prob_t big48 = big;
            big48.C = 48;
            for (dnnl_alg_kind_t alg : {dnnl_pooling_max, dnnl_pooling_avg_exclude_padding}) {
                check(t, e, big48, nspc, false, alg, threads, false, true);
                check(t, e, big, nspc, false, alg, threads, false, true);
            }
        });
    t.check(expected_kernel(false, 16).empty() == (fast_cases == 0), "the register kernels served when expected");
    return t.finish();
}
