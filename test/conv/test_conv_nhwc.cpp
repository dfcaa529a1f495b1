// f32 convolution forward on plain data through the direct kernels:
// channels-last (nwc, nhwc, ndhwc: direct:avx512:nhwc, or direct:avx2:nhwc
// with the ISA capped at AVX2) and channels-first (ncw, nchw, ncdhw:
// direct:avx512:nchw / direct:avx2:nchw, except a unit-stride unpadded 1x1,
// which the GEMM path reads in place). Below AVX2 the GEMM path serves and
// only the numbers are checked. Every shape is checked against a naive loop in double written
// here, offsets computed here too (the blocked weights a `any` request
// gets are read through the strides and blocks the descriptor reports).
// Shapes reach the kernels' branches: channel tails of 16 and 8 in and out,
// unequal padding, stride, dilation, 1x1 (flattened rows), 7x7 s2 with 3
// input channels (weights without ic blocking), groups, 1D and 3D, enough
// input channels for partial sums between passes (over one row or a block
// of rows; an oc group's weights must exceed 1 MiB for that), bias, relu in registers, sum + relu in the epilogue; plain
// (oihw-like and hwio-like) and `any` weights; 1 and 2 threads.
// test_conv_nhwc_isa.sh reruns it capped at AVX2 and SSE41.
#include <cmath>
#include <string>
#include <vector>

#include "common/kt_test.hpp"

namespace {

enum wei_kind_t { w_oix, w_xio, w_any };
enum post_kind_t { p_none, p_relu, p_sum_relu };

struct prb_t {
    int nd; // 3, 4 or 5
    long N, G, ICg, OCg;
    long I[3], K[3], S[3], D[3], PL[3], PR[3]; // d, h, w (unused leading ones 1 / 0)
    bool bias;
    post_kind_t post;
    wei_kind_t wei;
    long O(int i) const { return (I[i] + PL[i] + PR[i] - ((K[i] - 1) * (D[i] + 1) + 1)) / S[i] + 1; }
    long IC() const { return G * ICg; }
    long OC() const { return G * OCg; }
};

// Offsets of channels-last data, ((n, d, h, w), c), or of channels-first
// data, ((n, c), (d, h, w)).
long data_off(bool ncx, long C, const long *sp, long n, long c, long d, long h, long w) {
    if (ncx) return (((n * C + c) * sp[0] + d) * sp[1] + h) * sp[2] + w;
    return (((n * sp[0] + d) * sp[1] + h) * sp[2] + w) * C + c;
}

// A blocked layout as a memory descriptor reports it, read independently
// of the library: outer strides plus inner blocks, innermost last.
struct layout_t {
    int nd = 0;
    long strides[12] = {}, blks[12] = {};
    int idxs[12] = {}, nblks = 0;
    explicit layout_t(const_dnnl_memory_desc_t md) {
        const dnnl_dims_t *st, *bl, *ix;
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_strides, &st));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_inner_blks, &bl));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &ix));
        for (int d = 0; d < nd; ++d) strides[d] = (*st)[d];
        for (int i = 0; i < nblks; ++i) blks[i] = (*bl)[i], idxs[i] = (int)(*ix)[i];
    }
    long off(const long *pos) const {
        long whole[12], div[12];
        for (int d = 0; d < nd; ++d) whole[d] = 1, div[d] = 1;
        for (int i = 0; i < nblks; ++i) whole[idxs[i]] *= blks[i];
        long o = 0;
        for (int d = 0; d < nd; ++d) o += pos[d] / whole[d] * strides[d];
        long mult = 1;
        for (int i = nblks - 1; i >= 0; --i) {
            const int d = idxs[i];
            o += pos[d] / div[d] % blks[i] * mult;
            div[d] *= blks[i];
            mult *= blks[i];
        }
        return o;
    }
};

std::string want_impl(bool ncx, const prb_t &p) {
    bool unit_1x1 = true;
    for (int i = 0; i < 3; ++i) unit_1x1 = unit_1x1 && p.K[i] == 1 && p.S[i] == 1 && p.PL[i] == 0 && p.PR[i] == 0;
    if (ncx && unit_1x1) return ""; // GEMM in place
    const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    const std::string layout = ncx ? "nchw" : "nhwc";
    if ((isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core) return "direct:avx512:" + layout;
    if ((isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2) return "direct:avx2:" + layout;
    return ""; // any but these
}

void check(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const prb_t &p, bool ncx, int threads) {
    const int nsp = p.nd - 2, sp0 = 3 - nsp; // spatial dims used: [sp0, 3)
    const long isp[3] = {p.I[0], p.I[1], p.I[2]}, osp[3] = {p.O(0), p.O(1), p.O(2)};
    dnnl_dims_t sd, dd, wd, st, dil, pl, pr;
    sd[0] = dd[0] = p.N, sd[1] = p.IC(), dd[1] = p.OC();
    const bool grp = p.G > 1;
    int wn = 0;
    if (grp) wd[wn++] = p.G;
    wd[wn++] = p.OCg, wd[wn++] = p.ICg;
    for (int i = sp0; i < 3; ++i) {
        sd[2 + i - sp0] = p.I[i], dd[2 + i - sp0] = osp[i], wd[wn++] = p.K[i];
        st[i - sp0] = p.S[i], dil[i - sp0] = p.D[i], pl[i - sp0] = p.PL[i], pr[i - sp0] = p.PR[i];
    }
    const dnnl_format_tag_t dtag = ncx ? (p.nd == 3 ? dnnl_ncw : p.nd == 4 ? dnnl_nchw : dnnl_ncdhw)
                                       : (p.nd == 3 ? dnnl_nwc : p.nd == 4 ? dnnl_nhwc : dnnl_ndhwc);
    dnnl_memory_desc_t smd, dmd, wmd_user, bmd;
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, p.nd, sd, dnnl_f32, dtag));
    KT_OK(dnnl_memory_desc_create_with_tag(&dmd, p.nd, dd, dnnl_f32, dtag));
    if (p.wei == w_any) {
        KT_OK(dnnl_memory_desc_create_with_tag(&wmd_user, wn, wd, dnnl_f32, dnnl_format_tag_any));
    } else {
        // Strides of [g] o i x... (w_oix) or [g] x... i o (w_xio).
        dnnl_dims_t ws;
        long s = 1;
        const int o = grp ? 1 : 0;
        if (p.wei == w_oix) {
            for (int d = wn - 1; d >= 0; --d) ws[d] = s, s *= wd[d];
        } else {
            ws[o] = s, s *= wd[o];
            ws[o + 1] = s, s *= wd[o + 1];
            for (int d = wn - 1; d >= o + 2; --d) ws[d] = s, s *= wd[d];
            if (grp) ws[0] = s;
        }
        KT_OK(dnnl_memory_desc_create_with_strides(&wmd_user, wn, wd, dnnl_f32, ws));
    }
    dnnl_dims_t bd = {p.OC()};
    KT_OK(dnnl_memory_desc_create_with_tag(&bmd, 1, bd, dnnl_f32, dnnl_a));

    dnnl_post_ops_t ops;
    KT_OK(dnnl_post_ops_create(&ops));
    const float sum_scale = 0.75f;
    if (p.post == p_sum_relu) KT_OK(dnnl_post_ops_append_sum(ops, sum_scale, 0, dnnl_data_type_undef));
    if (p.post != p_none) KT_OK(dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_relu, 0.f, 0.f));
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, ops));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dnnl_convolution_direct,
            smd, wmd_user, p.bias ? bmd : nullptr, dmd, st, dil, pl, pr, attr));
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const layout_t wl(wmd);

    // dst gets a guard of 64 floats after its end: nothing may be written there.
    const long ssize = (long)(dnnl_memory_desc_get_size(smd) / 4), dsize = (long)(dnnl_memory_desc_get_size(dmd) / 4);
    const long guard = 64;
    std::vector<float> x(ssize), w(dnnl_memory_desc_get_size(wmd) / 4, 0.f), b(p.OC()), y(dsize + guard), y0;
    kt::rng_t r((uint64_t)(p.ICg * 131 + p.OCg * 7 + p.G + p.nd + p.K[2] * 1000 + p.S[2] * 17));
    for (auto &v : x) v = r.uniform(-1.f, 1.f);
    for (auto &v : b) v = r.uniform(-1.f, 1.f);
    for (auto &v : y) v = r.uniform(-1.f, 1.f);
    y0 = y;
    // Weights by logical index (g, oc, ic, kd, kh, kw) through the layout.
    auto wpos = [&](long *pos, long g, long oc, long ic, long kd, long kh, long kw) {
        int k = 0;
        if (grp) pos[k++] = g;
        pos[k++] = oc, pos[k++] = ic;
        const long kk[3] = {kd, kh, kw};
        for (int i = sp0; i < 3; ++i) pos[k++] = kk[i];
    };
    long pos[12];
    for (long g = 0; g < p.G; ++g)
        for (long oc = 0; oc < p.OCg; ++oc)
            for (long ic = 0; ic < p.ICg; ++ic)
                for (long kd = 0; kd < p.K[0]; ++kd)
                    for (long kh = 0; kh < p.K[1]; ++kh)
                        for (long kw = 0; kw < p.K[2]; ++kw) {
                            wpos(pos, g, oc, ic, kd, kh, kw);
                            w[wl.off(pos)] = r.uniform(-1.f, 1.f);
                        }

    dnnl_memory_t ms, mw, mb, md;
    KT_OK(dnnl_memory_create(&ms, smd, eng, x.data()));
    KT_OK(dnnl_memory_create(&mw, wmd, eng, w.data()));
    KT_OK(dnnl_memory_create(&mb, bmd, eng, b.data()));
    KT_OK(dnnl_memory_create(&md, dmd, eng, y.data()));
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    if (p.bias) args.push_back({DNNL_ARG_BIAS, mb});
    KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));

    // Each result is a dot product of K = ICg * KD * KH * KW terms plus the
    // bias, summed in f32 in some order (FMA or not): within (K + 1) u of
    // sum |terms| (u = 2^-24). The sum post-op adds one rounding of the
    // result and the scaled previous value; relu is 1-Lipschitz.
    const double u = std::ldexp(1.0, -24);
    const double nk = (double)p.ICg * p.K[0] * p.K[1] * p.K[2];
    long bad = 0;
    double worst = 0;
    for (long n = 0; n < p.N; ++n)
        for (long g = 0; g < p.G; ++g)
            for (long oc = 0; oc < p.OCg; ++oc)
                for (long od = 0; od < osp[0]; ++od)
                    for (long oh = 0; oh < osp[1]; ++oh)
                        for (long ow = 0; ow < osp[2]; ++ow) {
                            const long c = g * p.OCg + oc;
                            double acc = p.bias ? b[c] : 0.0, mag = std::fabs(acc);
                            for (long ic = 0; ic < p.ICg; ++ic)
                                for (long kd = 0; kd < p.K[0]; ++kd)
                                    for (long kh = 0; kh < p.K[1]; ++kh)
                                        for (long kw = 0; kw < p.K[2]; ++kw) {
                                            const long id = od * p.S[0] - p.PL[0] + kd * (p.D[0] + 1);
                                            const long ih = oh * p.S[1] - p.PL[1] + kh * (p.D[1] + 1);
                                            const long iw = ow * p.S[2] - p.PL[2] + kw * (p.D[2] + 1);
                                            if (id < 0 || id >= isp[0] || ih < 0 || ih >= isp[1] || iw < 0
                                                    || iw >= isp[2])
                                                continue;
                                            wpos(pos, g, oc, ic, kd, kh, kw);
                                            const double pr = (double)x[data_off(ncx, p.IC(), isp, n, g * p.ICg + ic,
                                                                      id, ih, iw)]
                                                    * w[wl.off(pos)];
                                            acc += pr;
                                            mag += std::fabs(pr);
                                        }
                            const long o = data_off(ncx, p.OC(), osp, n, c, od, oh, ow);
                            double tol = (nk + 2) * u * mag;
                            if (p.post == p_sum_relu) {
                                const double prev = sum_scale * (double)y0[o];
                                acc += prev;
                                tol += 2 * u * (mag + std::fabs(prev));
                            }
                            if (p.post != p_none) acc = acc > 0 ? acc : 0.0;
                            const double err = std::fabs((double)y[o] - acc);
                            if (!(err <= tol)) ++bad;
                            if (err > worst) worst = err;
                        }
    bool guard_ok = true;
    for (long i = dsize; i < dsize + guard; ++i) guard_ok = guard_ok && y[i] == y0[i];
    const std::string impl = kt::impl_name(pd), want = want_impl(ncx, p);
    const bool impl_ok = want.empty() ? impl.compare(0, 7, "direct:") != 0 : impl == want;

    static const char *wname[] = {"oix", "xio", "any"}, *pname[] = {"", " + relu", " + sum + relu"};
    char what[320];
    std::snprintf(what, sizeof(what),
            "conv %dD %s g%ld %ld->%ld in %ldx%ldx%ld k %ldx%ldx%ld s %ldx%ldx%ld dil %ld%ld%ld pad %ld%ld%ld/%ld%ld%ld"
            " %s weights%s%s, %d thr (%s): %ld of %ld off, worst %.3g",
            p.nd - 2, ncx ? "ncx" : "nxc", p.G, p.IC(), p.OC(), p.I[0], p.I[1], p.I[2], p.K[0], p.K[1], p.K[2], p.S[0], p.S[1], p.S[2],
            p.D[0], p.D[1], p.D[2], p.PL[0], p.PL[1], p.PL[2], p.PR[0], p.PR[1], p.PR[2], wname[p.wei],
            p.bias ? " bias" : "", pname[p.post], threads, impl.c_str(), bad, dsize, worst);
    t.check(bad == 0, what);
    std::snprintf(what, sizeof(what), "%s: nothing written past dst", impl.c_str());
    t.check(guard_ok, what);
    std::snprintf(what, sizeof(what), "impl is %s, want %s", impl.c_str(), want.empty() ? "not direct" : want.c_str());
    t.check(impl_ok, what);

    dnnl_primitive_destroy(prim);
    for (auto m : {ms, mw, mb, md}) dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_post_ops_destroy(ops);
    for (auto m : {smd, dmd, wmd_user, bmd}) dnnl_memory_desc_destroy(m);
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    // nd, N, G, ICg, OCg, I{d,h,w}, K, S, D, PL, PR, bias, post, weights
    const prb_t probs[] = {
            // Many input channels, summed in one pass (an oc group's
            // weights under 1 MiB); OC fills the blocks, so results leave
            // the registers directly.
            {4, 2, 1, 96, 64, {1, 9, 13}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, false, p_none, w_oix},
            {4, 1, 1, 240, 64, {1, 7, 5}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, true, p_relu,
                    w_oix},
            {4, 1, 1, 240, 64, {1, 9, 9}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, false, p_none,
                    w_any},
            // AVX2: 1230 channels into 3 oc blocks of 8 (6912 bytes of
            // weights per ic block): passes of 151 blocks then 3 (the tail
            // of 6 in the last); AVX-512: 2 oc blocks of 16 (tail 8),
            // passes of 56 then 21 (tail 14). Over blocks of rows (an oc
            // group's weights over 512 KiB): 4 rows, one block with 1
            // thread, 2 + 2 with 2; padding on both edges, epilogue
            // through the tile buffer (OC tail).
            {4, 1, 1, 1230, 24, {1, 4, 8}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, true, p_relu,
                    w_any},
            // AVX-512: an oc group's weights over 1 MiB (30 ic blocks of
            // 36 KiB) take two passes, 28 blocks then 2 (the tail of 6 in
            // the last), over blocks of rows (5 rows: one block with 1
            // thread, 3 + 2 with 2); channels-first data through the window.
            {4, 1, 1, 470, 64, {1, 5, 3}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, true, p_relu,
                    w_any},
            // Tails of 16 and 8 in and out; bias and relu through the epilogue.
            {4, 1, 1, 20, 24, {1, 7, 30}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, true, p_relu, w_xio},
            {4, 2, 1, 19, 37, {1, 8, 11}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 2, 0}, {0, 1, 2}, false, p_sum_relu,
                    w_oix},
            // relu in registers (OC fills the blocks, no bias).
            {4, 1, 1, 32, 32, {1, 6, 29}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, false, p_relu, w_any},
            // Stride 2, odd sizes; `any` weights with tails.
            {4, 1, 1, 24, 40, {1, 15, 17}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, true, p_none, w_any},
            // Rows the default tile cuts badly (tile of least estimated
            // cost): 7 columns, 5 oc blocks (3 x 7, ragged group of 2);
            // 13 columns at stride 2 with 4 blocks (2 x 13); 25 columns
            // of one block with a tail (18 + 7). Padding on both edges.
            {4, 1, 1, 20, 80, {1, 7, 7}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, true, p_relu, w_xio},
            {4, 2, 1, 24, 64, {1, 9, 26}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {0, 1, 1}, {0, 0, 1}, false, p_none, w_any},
            {4, 1, 1, 16, 12, {1, 4, 25}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, false, p_sum_relu,
                    w_oix},
            // More oc blocks than a tile holds at minibatch 3 and 2: each
            // output row runs every oc group in turn. 72 channels: 5 blocks
            // of 16 (tail 8, ragged groups) or 9 of 8, epilogue through the
            // tile buffer; 80: relu in registers. Stride 2, padding on
            // one or both edges; with 2 threads the split falls inside a
            // row's oc groups.
            {4, 3, 1, 20, 72, {1, 11, 13}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {0, 1, 1}, {0, 0, 1}, true, p_sum_relu,
                    w_any},
            {4, 2, 1, 17, 80, {1, 9, 10}, {1, 3, 3}, {1, 2, 2}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, false, p_relu, w_oix},
            // Dilation.
            {4, 1, 1, 16, 16, {1, 9, 12}, {1, 3, 3}, {1, 1, 1}, {0, 1, 2}, {0, 2, 2}, {0, 2, 2}, false, p_sum_relu,
                    w_xio},
            // 1x1: flattened rows (stride 1), and strided.
            {4, 2, 1, 64, 40, {1, 7, 9}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, true, p_sum_relu,
                    w_oix},
            {4, 1, 1, 48, 64, {1, 7, 9}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, false, p_none, w_any},
            {4, 1, 1, 32, 24, {1, 8, 11}, {1, 1, 1}, {1, 2, 2}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, false, p_relu, w_xio},
            // The first convolution of a ResNet: 7x7 s2, 3 input channels.
            {4, 1, 1, 3, 64, {1, 23, 25}, {1, 7, 7}, {1, 2, 2}, {0, 0, 0}, {0, 3, 3}, {0, 3, 3}, true, p_relu, w_xio},
            // Fewer input channels than a block with `any` weights: the
            // layout without input channel blocking (Ohwi16o / gOhwi16o),
            // and plain ones copied into it (above and below).
            {4, 2, 1, 3, 64, {1, 23, 25}, {1, 7, 7}, {1, 2, 2}, {0, 0, 0}, {0, 3, 3}, {0, 3, 3}, false, p_none, w_any},
            {4, 1, 2, 12, 20, {1, 6, 9}, {1, 3, 3}, {1, 1, 2}, {0, 0, 0}, {0, 1, 1}, {0, 1, 0}, true, p_relu, w_any},
            // Groups: channels that fill blocks, and channels with tails.
            {4, 1, 4, 16, 16, {1, 6, 10}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, true, p_none, w_any},
            {4, 2, 2, 24, 20, {1, 5, 9}, {1, 3, 3}, {1, 1, 1}, {0, 0, 0}, {0, 1, 1}, {0, 1, 1}, true, p_sum_relu,
                    w_oix},
            {4, 1, 3, 5, 6, {1, 6, 7}, {1, 3, 3}, {1, 2, 1}, {0, 0, 0}, {0, 1, 0}, {0, 0, 1}, false, p_relu, w_xio},
            // 1D.
            {3, 2, 1, 12, 33, {1, 1, 40}, {1, 1, 5}, {1, 1, 1}, {0, 0, 0}, {0, 0, 2}, {0, 0, 2}, true, p_relu, w_oix},
            {3, 1, 2, 16, 16, {1, 1, 31}, {1, 1, 3}, {1, 1, 2}, {0, 0, 1}, {0, 0, 1}, {0, 0, 0}, false, p_none, w_any},
            // 3D.
            {5, 1, 1, 8, 20, {5, 6, 7}, {3, 3, 3}, {1, 2, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, true, p_sum_relu, w_xio},
            {5, 2, 1, 16, 32, {4, 5, 6}, {2, 1, 3}, {2, 1, 1}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}, false, p_relu, w_any},
    };
    for (int threads : {1, 2})
        kt::with_threads(threads, [&] {
            for (bool ncx : {false, true})
                for (const auto &p : probs) check(t, eng, strm, p, ncx, threads);
        });
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
