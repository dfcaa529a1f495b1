// f32 depthwise convolution forward (groups = channels, one channel per
// group) through dw:avx512:nCx16c / dw:avx512:nhwc and dw:avx2:nCx8c /
// dw:avx2:nhwc, against a naive loop in double written here. The
// implementation expected depends on the ISA (test_conv_dw_isa.sh caps it
// at AVX2, where nhwc and nChw8c take the AVX2 kernels and nChw16c another
// implementation, and at SSE41, where none of them is dw).
// Shapes reach every branch: 3x3 stride-1 row pairs (odd row counts,
// pairs at the padded edges, nhwc column chunks over channel-block groups),
// channel counts with a tail of the 16- and 8-lane
// blocks (and fewer than 8), columns at both edges (padding 0, 1, 2 and
// asymmetric, windows wider than the row), stride 2, dilation, interior
// runs of 8 (AVX-512) and 4 (AVX2) columns and their remainder, 1x1 and 5x5 kernels; weights in
// `any` (Goihw16g / Goihw8g) and plain goihw; bias; relu, clip, linear in registers.
// Blocked src gets NaN in its padded channels (they must not leak), a
// blocked dst's padded channels must come out zero, and nothing may be
// written past dst. 1 and 2 threads.
#include <cmath>
#include <string>
#include <vector>

#include "common/kt_test.hpp"

namespace {

// p_sum (a sum post-op) is not fused by the dw kernels: another
// implementation must serve it.
enum post_t { p_none, p_relu, p_clip, p_linear, p_sum };

struct prb_t {
    long N, C, IH, IW, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR;
    bool bias;
    post_t post;
    long OH() const { return (IH + PT + PB - ((KH - 1) * (DH + 1) + 1)) / SH + 1; }
    long OW() const { return (IW + PL + PR - ((KW - 1) * (DW + 1) + 1)) / SW + 1; }
};

// Data layouts: nhwc (blk 0), nChw16c and nChw8c (channels padded to blk).
long data_off(int blk, long C, long H, long W, long n, long c, long h, long w) {
    if (blk == 0) return ((n * H + h) * W + w) * C + c;
    const long CB = (C + blk - 1) / blk;
    return (((n * CB + c / blk) * H + h) * W + w) * blk + c % blk;
}
long data_size(int blk, long N, long C, long H, long W) {
    return N * (blk == 0 ? C : (C + blk - 1) / blk * blk) * H * W;
}

std::string want_impl(int blk) {
    const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    if ((isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core)
        return blk == 0 ? "dw:avx512:nhwc" : blk == 16 ? "dw:avx512:nCx16c" : "dw:avx2:nCx8c";
    if ((isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2)
        return blk == 0 ? "dw:avx2:nhwc" : blk == 8 ? "dw:avx2:nCx8c" : "";
    return "";
}

void check(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const prb_t &p, int blk, bool any_wei,
        int threads) {
    const long OH = p.OH(), OW = p.OW();
    dnnl_dims_t sd = {p.N, p.C, p.IH, p.IW}, dd = {p.N, p.C, OH, OW}, wd = {p.C, 1, 1, p.KH, p.KW};
    dnnl_dims_t st = {p.SH, p.SW}, dil = {p.DH, p.DW}, pl = {p.PT, p.PL}, pr = {p.PB, p.PR}, bd = {p.C};
    const bool nxc = blk == 0;
    const dnnl_format_tag_t dtag = nxc ? dnnl_nhwc : blk == 16 ? dnnl_nChw16c : dnnl_nChw8c;
    dnnl_memory_desc_t smd, dmd, wmd_user, bmd;
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, 4, sd, dnnl_f32, dtag));
    KT_OK(dnnl_memory_desc_create_with_tag(&dmd, 4, dd, dnnl_f32, dtag));
    KT_OK(dnnl_memory_desc_create_with_tag(&wmd_user, 5, wd, dnnl_f32, any_wei ? dnnl_format_tag_any : dnnl_goihw));
    KT_OK(dnnl_memory_desc_create_with_tag(&bmd, 1, bd, dnnl_f32, dnnl_a));
    dnnl_post_ops_t ops;
    KT_OK(dnnl_post_ops_create(&ops));
    const float a = p.post == p_clip ? -0.5f : p.post == p_linear ? 1.5f : 0.25f;
    const float b = p.post == p_clip ? 0.75f : p.post == p_linear ? -0.25f : 0.f;
    if (p.post == p_sum) KT_OK(dnnl_post_ops_append_sum(ops, 1.f, 0, dnnl_data_type_undef));
    if (p.post != p_none && p.post != p_sum)
        KT_OK(dnnl_post_ops_append_eltwise(ops,
                p.post == p_relu ? dnnl_eltwise_relu : p.post == p_clip ? dnnl_eltwise_clip : dnnl_eltwise_linear, a, b));
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, ops));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dnnl_convolution_direct,
            smd, wmd_user, p.bias ? bmd : nullptr, dmd, st, dil, pl, pr, attr));
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    // Weights by (c, kh, kw) in the reported layout: Goihw16g / Goihw8g
    // (what `any` must give the AVX-512 / AVX2 dw kernels) or plain goihw
    // (what another implementation may choose under an ISA cap).
    const std::string want = p.post == p_sum ? "" : want_impl(blk);
    int wblk = -1; // 16, 8, or 1 for goihw
    for (dnnl_format_tag_t tag : {dnnl_Goihw16g, dnnl_Goihw8g, dnnl_goihw}) {
        dnnl_memory_desc_t m;
        KT_OK(dnnl_memory_desc_create_with_tag(&m, 5, wd, dnnl_f32, tag));
        if (dnnl_memory_desc_equal(m, wmd)) wblk = tag == dnnl_Goihw16g ? 16 : tag == dnnl_Goihw8g ? 8 : 1;
        dnnl_memory_desc_destroy(m);
    }
    auto woff = [&](long c, long kh, long kw) {
        return ((c / wblk * p.KH + kh) * p.KW + kw) * wblk + c % wblk;
    };
    const int want_wblk = want.empty() ? 0 : want.compare(0, 9, "dw:avx512") == 0 ? 16 : 8;
    const bool wtag_ok = wblk > 0 && (!any_wei || want_wblk == 0 || wblk == want_wblk);
    if (wblk < 0) wblk = 1; // reported and counted as a failure below

    const long ssize = data_size(blk, p.N, p.C, p.IH, p.IW), dsize = data_size(blk, p.N, p.C, OH, OW);
    const long guard = 64;
    std::vector<float> x(ssize, std::nanf("")), w(dnnl_memory_desc_get_size(wmd) / 4, 0.f), bv(p.C),
            y(dsize + guard), y0;
    kt::rng_t r((uint64_t)(p.C * 131 + p.IW * 7 + p.KW * 1000 + p.SW * 17 + nxc));
    for (long n = 0; n < p.N; ++n)
        for (long c = 0; c < p.C; ++c)
            for (long h = 0; h < p.IH; ++h)
                for (long ww = 0; ww < p.IW; ++ww) x[data_off(blk, p.C, p.IH, p.IW, n, c, h, ww)] = r.uniform(-1.f, 1.f);
    for (long c = 0; c < p.C; ++c)
        for (long kh = 0; kh < p.KH; ++kh)
            for (long kw = 0; kw < p.KW; ++kw) w[woff(c, kh, kw)] = r.uniform(-1.f, 1.f);
    for (auto &v : bv) v = r.uniform(-1.f, 1.f);
    for (auto &v : y) v = r.uniform(-1.f, 1.f);
    // Under a sum post-op dst is an input: its padded channels zero, as
    // valid blocked data has them.
    if (p.post == p_sum && !nxc)
        for (long n = 0; n < p.N; ++n)
            for (long c = p.C; c < (p.C + blk - 1) / blk * blk; ++c)
                for (long oh = 0; oh < OH; ++oh)
                    for (long ow = 0; ow < OW; ++ow) y[data_off(blk, p.C, OH, OW, n, c, oh, ow)] = 0.f;
    y0 = y;

    dnnl_memory_t ms, mw, mb, md;
    KT_OK(dnnl_memory_create(&ms, smd, eng, x.data()));
    KT_OK(dnnl_memory_create(&mw, wmd, eng, w.data()));
    KT_OK(dnnl_memory_create(&mb, bmd, eng, bv.data()));
    KT_OK(dnnl_memory_create(&md, dmd, eng, y.data()));
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    if (p.bias) args.push_back({DNNL_ARG_BIAS, mb});
    KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));

    // bias + at most KH * KW products summed in f32 in some order: within
    // (KH KW + 2) u of sum |terms|; the eltwise is 1-Lipschitz (linear:
    // |a| times, plus one rounding of its own).
    const double u = std::ldexp(1.0, -24), nk = (double)p.KH * p.KW;
    long bad = 0, pad_bad = 0;
    double worst = 0;
    for (long n = 0; n < p.N; ++n)
        for (long c = 0; c < p.C; ++c)
            for (long oh = 0; oh < OH; ++oh)
                for (long ow = 0; ow < OW; ++ow) {
                    double acc = p.bias ? bv[c] : 0.0, mag = std::fabs(acc);
                    for (long kh = 0; kh < p.KH; ++kh)
                        for (long kw = 0; kw < p.KW; ++kw) {
                            const long ih = oh * p.SH - p.PT + kh * (p.DH + 1);
                            const long iw = ow * p.SW - p.PL + kw * (p.DW + 1);
                            if (ih < 0 || ih >= p.IH || iw < 0 || iw >= p.IW) continue;
                            const double pr_ = (double)x[data_off(blk, p.C, p.IH, p.IW, n, c, ih, iw)] * w[woff(c, kh, kw)];
                            acc += pr_;
                            mag += std::fabs(pr_);
                        }
                    const long yo = data_off(blk, p.C, OH, OW, n, c, oh, ow);
                    if (p.post == p_sum) {
                        acc += y0[yo];
                        mag += std::fabs(y0[yo]);
                    }
                    double tol = (nk + (p.post == p_sum ? 3 : 2)) * u * mag;
                    if (p.post == p_relu) acc = acc > 0 ? acc : a * acc;
                    if (p.post == p_clip) acc = acc < a ? a : acc > b ? b : acc;
                    if (p.post == p_linear) {
                        acc = a * acc + b;
                        tol = std::fabs(a) * tol + 2 * u * std::fabs(acc);
                    }
                    const double err = std::fabs((double)y[data_off(blk, p.C, OH, OW, n, c, oh, ow)] - acc);
                    if (!(err <= tol)) ++bad;
                    if (err > worst) worst = err;
                }
    if (!nxc)
        for (long n = 0; n < p.N; ++n)
            for (long c = p.C; c < (p.C + blk - 1) / blk * blk; ++c)
                for (long oh = 0; oh < OH; ++oh)
                    for (long ow = 0; ow < OW; ++ow)
                        if (y[data_off(blk, p.C, OH, OW, n, c, oh, ow)] != 0.f) ++pad_bad;
    bool guard_ok = true;
    for (long i = dsize; i < dsize + guard; ++i) guard_ok = guard_ok && y[i] == y0[i];
    const std::string impl = kt::impl_name(pd);
    const bool impl_ok = want.empty() ? impl.compare(0, 3, "dw:") != 0 : impl == want;

    static const char *pname[] = {"", " + relu", " + clip", " + linear", " + sum"};
    char what[320];
    std::snprintf(what, sizeof(what),
            "dw conv %s C%ld mb%ld %ldx%ld k%ldx%ld s%ld%ld dil%ld%ld pad %ld%ld/%ld%ld %s weights%s%s, %d thr (%s): "
            "%ld of %ld off (worst %.3g), %ld padded channels not zero",
            nxc ? "nhwc" : blk == 16 ? "nChw16c" : "nChw8c", p.C, p.N, p.IH, p.IW, p.KH, p.KW, p.SH, p.SW, p.DH, p.DW, p.PT, p.PL, p.PB,
            p.PR, any_wei ? "any" : "goihw", p.bias ? " bias" : "", pname[p.post], threads, impl.c_str(), bad,
            p.N * p.C * OH * OW, worst, pad_bad);
    t.check(bad == 0 && pad_bad == 0, what);
    std::snprintf(what, sizeof(what), "%s: nothing written past dst", impl.c_str());
    t.check(guard_ok, what);
    std::snprintf(what, sizeof(what), "impl is %s, want %s; weights Goihw16g/8g (as `any` must give dw) or goihw: %s",
            impl.c_str(), want.empty() ? "not dw" : want.c_str(), wtag_ok ? "yes" : "no");
    t.check(impl_ok && wtag_ok, what);

    dnnl_primitive_destroy(prim);
    for (auto m : {ms, mw, mb, md}) dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_post_ops_destroy(ops);
    for (auto m : {smd, dmd, wmd_user, bmd}) dnnl_memory_desc_destroy(m);
}

// Data and weights in format `any`: the layouts the ISA's dw kernel runs
// on (nChw16c / Goihw16g with AVX-512, nChw8c / Goihw8g at the AVX2 cap),
// or no dw implementation below AVX2.
void check_any(kt::tally_t &t, dnnl_engine_t eng) {
    dnnl_dims_t sd = {1, 32, 12, 12}, wd = {32, 1, 1, 3, 3}, st = {1, 1}, dil = {0, 0}, pad = {1, 1};
    dnnl_memory_desc_t smd, dmd, wmd;
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, 4, sd, dnnl_f32, dnnl_format_tag_any));
    KT_OK(dnnl_memory_desc_create_with_tag(&dmd, 4, sd, dnnl_f32, dnnl_format_tag_any));
    KT_OK(dnnl_memory_desc_create_with_tag(&wmd, 5, wd, dnnl_f32, dnnl_format_tag_any));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dnnl_convolution_direct,
            smd, wmd, nullptr, dmd, st, dil, pad, pad, nullptr));
    const std::string want = want_impl(16).empty() ? want_impl(8) : want_impl(16), impl = kt::impl_name(pd);
    const int blk = want.empty() ? 0 : want.compare(0, 9, "dw:avx512") == 0 ? 16 : 8;
    bool layouts = true;
    if (blk) {
        dnnl_memory_desc_t ms, mw;
        KT_OK(dnnl_memory_desc_create_with_tag(&ms, 4, sd, dnnl_f32, blk == 16 ? dnnl_nChw16c : dnnl_nChw8c));
        KT_OK(dnnl_memory_desc_create_with_tag(&mw, 5, wd, dnnl_f32, blk == 16 ? dnnl_Goihw16g : dnnl_Goihw8g));
        layouts = dnnl_memory_desc_equal(ms, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0))
                && dnnl_memory_desc_equal(ms, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0))
                && dnnl_memory_desc_equal(mw, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0));
        dnnl_memory_desc_destroy(ms);
        dnnl_memory_desc_destroy(mw);
    }
    const bool impl_ok = want.empty() ? impl.compare(0, 3, "dw:") != 0 : impl == want;
    char what[200];
    std::snprintf(what, sizeof(what), "format any: impl %s (want %s), layouts nChw%dc / Goihw%dg: %s", impl.c_str(),
            want.empty() ? "not dw" : want.c_str(), blk, blk, layouts ? "yes" : "no");
    t.check(impl_ok && layouts, what);
    dnnl_primitive_desc_destroy(pd);
    for (auto m : {smd, dmd, wmd}) dnnl_memory_desc_destroy(m);
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    // N C IH IW KH KW SH SW DH DW PT PL PB PR bias post
    const prb_t probs[] = {
            {2, 32, 9, 29, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, true, p_relu}, // MobileNet-like, 8-column runs + rest
            {1, 20, 7, 12, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, false, p_none}, // channel tail, stride 2
            {1, 5, 6, 9, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, true, p_clip}, // fewer than 16 channels, no padding
            {2, 17, 8, 21, 5, 5, 1, 2, 1, 0, 2, 3, 1, 2, true, p_linear}, // 5x5, dilation, asymmetric padding
            {1, 48, 5, 4, 3, 3, 1, 1, 0, 1, 1, 2, 1, 2, false, p_relu}, // window wider than the row
            {1, 33, 4, 19, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, true, p_none}, // 1x1
            {1, 16, 10, 40, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, false, p_clip}, // stride 2, right padding only
            // 3x3 stride 1: output rows in pairs. Channel tail, no padding,
            // an odd row count (the last row alone), fewer than 8 interior
            // columns (the row-by-row remainder).
            {1, 20, 7, 9, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, true, p_relu},
            // nhwc column chunks of 32 over groups of channel blocks (the last
            // group short, a channel tail): a chunk's remainder recomputes its
            // last 8 interior columns; pairs at the top and bottom edges fall
            // back to single rows.
            {2, 40, 12, 45, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, true, p_linear},
            // Padding 2 over 3 rows: rows whose windows start or end outside,
            // one interior row.
            {1, 16, 3, 40, 3, 3, 1, 1, 0, 0, 2, 1, 2, 1, false, p_none},
            // Tails of the 8-lane block: 3 channels (one tail block), 13
            // (8 + 5) and 21 (16 + 5, 8 + 8 + 5); 5 interior columns (one
            // step of 4 and the remainder recomputed), a 5x5 with stride 2
            // down only.
            {1, 3, 6, 7, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, true, p_relu},
            {2, 13, 9, 14, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, false, p_clip},
            {1, 21, 8, 11, 5, 5, 2, 1, 0, 0, 2, 2, 2, 2, true, p_none},
            // A post-op the kernels do not fuse: another implementation.
            {1, 13, 6, 10, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, true, p_sum},
    };
    for (int threads : {1, 2})
        kt::with_threads(threads, [&] {
            for (int blk : {16, 8, 0})
                for (bool any_wei : {true, false})
                    for (const auto &p : probs) check(t, eng, strm, p, blk, any_wei, threads);
        });
    check_any(t, eng);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
