// The direct bf16 convolution (direct:avx512_bf16:nhwc: channels-last bf16
// src, bf16 weights in [g]OIhw8i16o2i, which `any` weights must resolve
// to, f32 or bf16 dst) against a naive double loop written here. Shapes
// cover input channels 3/5/17/32 (a last pair with one channel), output
// channel tails, padding, stride 2, dilation, 1x1 (flattened and strided),
// 3x3, 7x7 stride 2, mb 1 and 2, groups, short rows (tiles across output
// rows) and wide rows with odd channel counts (folded kernel rows),
// several oc groups (run inside rows) at mb 2 and 3, images over 1 MiB
// (the tiles prefetch the next tile's lines); no / f32 / bf16 bias; relu,
// leaky relu, linear, clip, sum and sum + relu post-ops, per-oc weights
// scales (the epilogue from the tile buffer). Each case runs with 1 and 2
// threads, then through ref:any.
//
// Tolerance, from the arithmetic: the f32 sum of K = ICg * KH * KW
// products (vdpbf16ps adds them in pairs, then to the accumulator; each
// step rounds once) plus the bias is within (K + 2) * 2^-24 * (sum of the
// |terms|) of the exact value; a linear or sum step adds one f32 rounding
// of its result (2^-24 relative) and scales the earlier bound by |alpha|;
// relu / clip do not widen it; a bf16 dst adds half a bf16 ulp of the
// result (at most 2^-8 of it). Data: bf16 values of magnitude 2^-8 or
// more (or zero), so products are multiples of 2^-30 and no sum or
// product is a denormal (vdpbf16ps treats denormals as zero).
//
// Below AVX512-BF16 (ONEDNN_MAX_CPU_ISA=AVX512_CORE / AVX2, see
// test_conv_bf16_direct_isa.sh) the same cases must be served by the GEMM
// route (gemm:1x1 for a unit 1x1, else gemm:im2col) with plain weights.
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "common/kt_s8.hpp"
#include "conv/bf16_values.hpp"

namespace {

using dim = int64_t;

enum post_t { p_none, p_relu, p_leaky, p_linear, p_clip, p_sum, p_sum_relu, p_scales };

struct prb_t {
    dim mb, g, icg, ocg, ih, iw, kh, kw, sh, sw, ph, pw, prh, prw, dh, dw;
    dnnl_data_type_t ddt, bdt; // bdt undef: no bias
    post_t post;
    dim oh() const { return (ih + ph + prh - ((kh - 1) * (dh + 1) + 1)) / sh + 1; }
    dim ow() const { return (iw + pw + prw - ((kw - 1) * (dw + 1) + 1)) / sw + 1; }
    bool unit_1x1() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && prh == 0 && prw == 0; }
};

bool have_bf16() {
    if (dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_prefer_ymm) return false;
    const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    return isa == dnnl_cpu_isa_avx512_core_bf16 || isa == dnnl_cpu_isa_avx512_core_fp16
            || isa == dnnl_cpu_isa_avx512_core_amx || isa == dnnl_cpu_isa_avx512_core_amx_fp16;
}

const char *want_impl(const prb_t &p) {
    if (have_bf16()) return "direct:avx512_bf16:nhwc";
    return p.unit_1x1() ? "gemm:1x1" : "gemm:im2col";
}

// A bf16 value in (-1, 1), zero or of magnitude at least 2^-8.
float rnd_bf16(kt::rng_t &r) {
    const float v = ktbf::from_bf16(ktbf::to_bf16(r.uniform(-1.f, 1.f)));
    return std::fabs(v) < 1.f / 256 ? 0.f : v;
}

struct data_t {
    std::vector<float> src, wei, bias, dst_old, wscale; // src [n][h][w][c], wei [g][o][i][kh][kw], dst nhwc
};

data_t make_data(const prb_t &p, uint64_t seed) {
    kt::rng_t r(seed);
    data_t x;
    const dim IC = p.g * p.icg, OC = p.g * p.ocg;
    x.src.resize(p.mb * p.ih * p.iw * IC);
    for (auto &v : x.src) v = rnd_bf16(r);
    x.wei.resize(OC * p.icg * p.kh * p.kw);
    for (auto &v : x.wei) v = rnd_bf16(r);
    x.bias.assign(OC, 0.f);
    if (p.bdt != dnnl_data_type_undef)
        for (auto &v : x.bias) v = rnd_bf16(r) * 4; // bf16-exact, so f32 and bf16 bias are equal
    x.dst_old.resize(p.mb * p.oh() * p.ow() * OC);
    for (auto &v : x.dst_old) v = rnd_bf16(r);
    x.wscale.resize(OC);
    for (dim c = 0; c < OC; ++c) x.wscale[c] = (float)(1 + c % 3) * 0.5f;
    return x;
}

// Offset of weight (g, o, i, kh, kw) in [g]OIhw8i16o2i, from the tag's
// definition: 16 x 16 blocks (channels padded to 16) in the order g, oc
// block, ic block, kh, kw; inside a block (i % 16) / 2, then o % 16, then
// i % 2.
dim pair_off(const prb_t &p, dim gr, dim o, dim i, dim kh, dim kw) {
    const dim nocb = (p.ocg + 15) / 16, nicb = (p.icg + 15) / 16;
    const dim blk = (((gr * nocb + o / 16) * nicb + i / 16) * p.kh + kh) * p.kw + kw;
    return blk * 256 + (i % 16) / 2 * 32 + (o % 16) * 2 + i % 2;
}

// The exact value (in double) of dst element (n, oh, ow, c) and its
// tolerance.
double naive(const prb_t &p, const data_t &x, dim n, dim oh, dim ow, dim c, double &tol) {
    const dim IC = p.g * p.icg, gr = c / p.ocg, K = p.icg * p.kh * p.kw;
    double acc = 0, mag = 0;
    for (dim ic = 0; ic < p.icg; ++ic)
        for (dim kh = 0; kh < p.kh; ++kh)
            for (dim kw = 0; kw < p.kw; ++kw) {
                const dim ih = oh * p.sh - p.ph + kh * (p.dh + 1), iw = ow * p.sw - p.pw + kw * (p.dw + 1);
                if (ih < 0 || ih >= p.ih || iw < 0 || iw >= p.iw) continue;
                const double t = (double)x.src[((n * p.ih + ih) * p.iw + iw) * IC + gr * p.icg + ic]
                        * x.wei[(((c * p.icg) + ic) * p.kh + kh) * p.kw + kw];
                acc += t, mag += std::fabs(t);
            }
    const double u = std::ldexp(1.0, -24);
    double v = acc;
    if (p.post == p_scales) v *= x.wscale[c], mag *= x.wscale[c];
    v += x.bias[c], mag += std::fabs(x.bias[c]);
    tol = (double)(K + 3) * u * mag;
    const dim off = ((n * p.oh() + oh) * p.ow() + ow) * (p.g * p.ocg) + c;
    switch (p.post) {
        case p_relu: v = v > 0 ? v : 0; break;
        case p_leaky: v = v > 0 ? v : 0.25 * v; break;
        case p_linear: v = 1.5 * v - 0.25, tol = 1.5 * tol + u * std::fabs(v); break;
        case p_clip: v = v < -0.5 ? -0.5 : v > 0.75 ? 0.75 : v; break;
        case p_sum: v += 0.5 * x.dst_old[off], tol += u * std::fabs(v); break;
        case p_sum_relu:
            v += 0.5 * x.dst_old[off], tol += u * std::fabs(v);
            v = v > 0 ? v : 0;
            break;
        default: break;
    }
    if (p.ddt == dnnl_bf16) tol += std::ldexp(std::fabs(v) + tol, -8);
    return v;
}

dnnl_primitive_attr_t make_attr(const prb_t &p) {
    dnnl_primitive_attr_t a;
    KT_OK(dnnl_primitive_attr_create(&a));
    dnnl_post_ops_t po;
    KT_OK(dnnl_post_ops_create(&po));
    switch (p.post) {
        case p_relu: KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f)); break;
        case p_leaky: KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.25f, 0.f)); break;
        case p_linear: KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 1.5f, -0.25f)); break;
        case p_clip: KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_clip, -0.5f, 0.75f)); break;
        case p_sum: KT_OK(dnnl_post_ops_append_sum(po, 0.5f, 0, dnnl_data_type_undef)); break;
        case p_sum_relu:
            KT_OK(dnnl_post_ops_append_sum(po, 0.5f, 0, dnnl_data_type_undef));
            KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
            break;
        case p_scales: KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_WEIGHTS, p.g > 1 ? 3 : 1)); break;
        default: break;
    }
    KT_OK(dnnl_primitive_attr_set_post_ops(a, po));
    dnnl_post_ops_destroy(po);
    return a;
}

struct mds_t {
    dnnl_memory_desc_t src = nullptr, wei = nullptr, bias = nullptr, dst = nullptr;
    ~mds_t() {
        for (auto m : {src, wei, bias, dst}) dnnl_memory_desc_destroy(m);
    }
};

void wdims(const prb_t &p, dnnl_dims_t wd, int &wn) {
    wn = 0;
    if (p.g > 1) wd[wn++] = p.g;
    wd[wn++] = p.ocg, wd[wn++] = p.icg, wd[wn++] = p.kh, wd[wn++] = p.kw;
}

dnnl_status_t make_pd(dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const prb_t &p, mds_t &m, bool data_any,
        const_dnnl_primitive_attr_t attr) {
    const dnnl_dims_t sd = {p.mb, p.g * p.icg, p.ih, p.iw}, dd = {p.mb, p.g * p.ocg, p.oh(), p.ow()};
    const dnnl_format_tag_t dt = data_any ? dnnl_format_tag_any : dnnl_nhwc;
    KT_OK(dnnl_memory_desc_create_with_tag(&m.src, 4, sd, dnnl_bf16, dt));
    KT_OK(dnnl_memory_desc_create_with_tag(&m.dst, 4, dd, p.ddt, dt));
    dnnl_dims_t wd;
    int wn;
    wdims(p, wd, wn);
    KT_OK(dnnl_memory_desc_create_with_tag(&m.wei, wn, wd, dnnl_bf16, dnnl_format_tag_any));
    if (p.bdt != dnnl_data_type_undef) {
        const dnnl_dims_t bd = {p.g * p.ocg};
        KT_OK(dnnl_memory_desc_create_with_tag(&m.bias, 1, bd, p.bdt, dnnl_a));
    }
    const dnnl_dims_t s = {p.sh, p.sw}, d = {p.dh, p.dw}, pl = {p.ph, p.pw}, pr = {p.prh, p.prw};
    return dnnl_convolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference, dnnl_convolution_direct,
            m.src, m.wei, m.bias, m.dst, s, d, pl, pr, attr);
}

// Runs pd on the case's data; checks dst against the naive loop.
bool run_check(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_primitive_desc_t pd, const prb_t &p,
        const data_t &x) {
    const dim IC = p.g * p.icg, OC = p.g * p.ocg, OH = p.oh(), OW = p.ow();
    const kt::plain_layout_t sl(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0));
    const kt::plain_layout_t dl(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_dims_t wd;
    int wn;
    wdims(p, wd, wn);
    dnnl_memory_desc_t pmd;
    KT_OK(dnnl_memory_desc_create_with_tag(&pmd, wn, wd, dnnl_bf16,
            p.g > 1 ? dnnl_gOIhw8i16o2i : dnnl_OIhw8i16o2i));
    const bool paired = dnnl_memory_desc_equal(wmd, pmd) != 0;
    dnnl_memory_desc_destroy(pmd);
    std::vector<uint16_t> wb(dnnl_memory_desc_get_size(wmd) / 2, 0);
    const kt::plain_layout_t *wl = nullptr;
    kt::plain_layout_t wl_plain(wmd);
    if (!paired) wl = &wl_plain;
    int64_t pos[8];
    for (dim gr = 0; gr < p.g; ++gr)
        for (dim o = 0; o < p.ocg; ++o)
            for (dim i = 0; i < p.icg; ++i)
                for (dim kh = 0; kh < p.kh; ++kh)
                    for (dim kw = 0; kw < p.kw; ++kw) {
                        const float v = x.wei[((((gr * p.ocg + o) * p.icg) + i) * p.kh + kh) * p.kw + kw];
                        dim off;
                        if (!wl) {
                            off = pair_off(p, gr, o, i, kh, kw);
                        } else {
                            int k = 0;
                            if (p.g > 1) pos[k++] = gr;
                            pos[k++] = o, pos[k++] = i, pos[k++] = kh, pos[k] = kw;
                            off = wl->off(pos);
                        }
                        wb[off] = ktbf::to_bf16(v);
                    }
    std::vector<uint16_t> sb(sl.span(), 0);
    for (dim n = 0; n < p.mb; ++n)
        for (dim h = 0; h < p.ih; ++h)
            for (dim w = 0; w < p.iw; ++w)
                for (dim c = 0; c < IC; ++c) {
                    pos[0] = n, pos[1] = c, pos[2] = h, pos[3] = w;
                    sb[sl.off(pos)] = ktbf::to_bf16(x.src[((n * p.ih + h) * p.iw + w) * IC + c]);
                }
    std::vector<float> bb(OC);
    for (dim c = 0; c < OC; ++c) ktbf::put(bb.data(), p.bdt == dnnl_bf16 ? dnnl_bf16 : dnnl_f32, c, x.bias[c]);
    const size_t es = p.ddt == dnnl_bf16 ? 2 : 4;
    std::vector<char> db(dl.span() * es);
    auto each_dst = [&](const std::function<void(dim, dim, dim, dim, dim, dim)> &f) {
        for (dim n = 0; n < p.mb; ++n)
            for (dim oh = 0; oh < OH; ++oh)
                for (dim ow = 0; ow < OW; ++ow)
                    for (dim c = 0; c < OC; ++c) {
                        pos[0] = n, pos[1] = c, pos[2] = oh, pos[3] = ow;
                        f(dl.off(pos), ((n * OH + oh) * OW + ow) * OC + c, n, oh, ow, c);
                    }
    };
    each_dst([&](dim o, dim i, dim, dim, dim, dim) { ktbf::put(db.data(), p.ddt, o, x.dst_old[i]); });

    dnnl_memory_desc_t bmd = nullptr;
    if (p.bdt != dnnl_data_type_undef) {
        const dnnl_dims_t bd = {OC};
        KT_OK(dnnl_memory_desc_create_with_tag(&bmd, 1, bd, p.bdt, dnnl_a));
    }
    dnnl_memory_desc_t scmd = nullptr;
    if (p.post == p_scales) {
        const dnnl_dims_t sd = {OC};
        KT_OK(dnnl_memory_desc_create_with_tag(&scmd, 1, sd, dnnl_f32, dnnl_a));
    }
    std::vector<float> wsc = x.wscale;
    std::vector<dnnl_memory_t> mems;
    std::vector<dnnl_exec_arg_t> args;
    auto add = [&](int arg, const_dnnl_memory_desc_t md, void *ptr) {
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, md, eng, ptr));
        mems.push_back(m);
        args.push_back({arg, m});
    };
    add(DNNL_ARG_SRC, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), sb.data());
    add(DNNL_ARG_WEIGHTS, wmd, wb.data());
    if (bmd) add(DNNL_ARG_BIAS, bmd, bb.data());
    if (scmd) add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, scmd, wsc.data());
    add(DNNL_ARG_DST, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), db.data());
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(prim);
    for (auto m : mems) dnnl_memory_destroy(m);
    dnnl_memory_desc_destroy(bmd);
    dnnl_memory_desc_destroy(scmd);

    int bad = 0;
    each_dst([&](dim o, dim, dim n, dim oh, dim ow, dim c) {
        double tol;
        const double want = naive(p, x, n, oh, ow, c, tol);
        const double got = ktbf::get(db.data(), p.ddt, o);
        if (!(std::fabs(got - want) <= tol) && bad++ < 3)
            std::fprintf(stderr, "  n%ld (%ld,%ld) c%ld: got %.9g want %.9g (tol %.3g)\n", (long)n, (long)oh,
                    (long)ow, (long)c, got, want, tol);
    });
    return bad == 0;
}

void run_case(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const prb_t &p, const char *what, bool data_any,
        uint64_t seed) {
    const data_t x = make_data(p, seed);
    const char *want = want_impl(p);
    dnnl_primitive_attr_t attr = make_attr(p);
    mds_t m;
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = make_pd(&pd, eng, p, m, data_any, attr);
    char msg[300];
    if (st == dnnl_success) {
        // Weights: the real oneDNN tag when the direct kernels serve.
        dnnl_dims_t wd;
        int wn;
        wdims(p, wd, wn);
        dnnl_memory_desc_t pmd, smd;
        KT_OK(dnnl_memory_desc_create_with_tag(&pmd, wn, wd, dnnl_bf16, p.g > 1 ? dnnl_gOIhw8i16o2i : dnnl_OIhw8i16o2i));
        const bool paired = dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), pmd) != 0;
        std::snprintf(msg, sizeof msg, "%s: weights %s", what, have_bf16() ? "[g]OIhw8i16o2i" : "not 8i16o2i");
        t.check(paired == have_bf16(), msg);
        const dnnl_dims_t sd = {p.mb, p.g * p.icg, p.ih, p.iw};
        KT_OK(dnnl_memory_desc_create_with_tag(&smd, 4, sd, dnnl_bf16, dnnl_nhwc));
        if (have_bf16()) {
            std::snprintf(msg, sizeof msg, "%s: src nhwc", what);
            t.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), smd) != 0, msg);
        }
        dnnl_memory_desc_destroy(pmd);
        dnnl_memory_desc_destroy(smd);
    }
    kt::check_pd(t, st, pd, want, "ref:any", what,
            [&](const_dnnl_primitive_desc_t q) { return run_check(eng, strm, q, p, x); });
    dnnl_primitive_attr_destroy(attr);
}

prb_t base(dim mb, dim g, dim icg, dim ocg, dim ih, dim iw, dim k, dim s, dim pad) {
    prb_t p {};
    p.mb = mb, p.g = g, p.icg = icg, p.ocg = ocg, p.ih = ih, p.iw = iw, p.kh = p.kw = k, p.sh = p.sw = s;
    p.ph = p.pw = p.prh = p.prw = pad;
    p.ddt = dnnl_bf16, p.bdt = dnnl_data_type_undef, p.post = p_none;
    return p;
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    std::printf("effective ISA 0x%x: AVX512-BF16 kernels %s\n", (unsigned)dnnl_get_effective_cpu_isa(),
            have_bf16() ? "expected" : "not expected");

    std::vector<std::pair<prb_t, const char *>> cases;
    auto add = [&](const prb_t &p, const char *w) { cases.push_back({p, w}); };
    {
        prb_t p = base(1, 1, 32, 64, 9, 30, 3, 1, 1);
        p.bdt = dnnl_f32, p.post = p_relu;
        add(p, "32->64 3x3 pad 1, wide row, f32 bias, relu, bf16 dst");
    }
    {
        prb_t p = base(2, 1, 3, 5, 9, 11, 3, 2, 1);
        p.prw = 0, p.ddt = dnnl_f32;
        add(p, "ic 3 oc 5, stride 2, asymmetric pad, mb 2, f32 dst");
    }
    {
        prb_t p = base(1, 1, 5, 20, 7, 8, 3, 1, 2);
        p.dh = p.dw = 1, p.bdt = dnnl_bf16, p.post = p_leaky;
        add(p, "ic 5 oc 20, dilation 1 pad 2, bf16 bias, leaky relu");
    }
    {
        prb_t p = base(2, 1, 17, 33, 6, 13, 3, 1, 1);
        p.post = p_sum, p.bdt = dnnl_f32;
        add(p, "ic 17 oc 33, mb 2, sum (tile buffer)");
    }
    {
        prb_t p = base(1, 1, 3, 16, 15, 17, 7, 2, 3);
        p.bdt = dnnl_f32, p.post = p_sum_relu, p.ddt = dnnl_f32;
        add(p, "7x7 stride 2 pad 3, ic 3 (first layer), sum + relu, f32 dst");
    }
    {
        prb_t p = base(2, 1, 32, 48, 5, 7, 1, 1, 0);
        p.post = p_linear, p.bdt = dnnl_bf16;
        add(p, "1x1 flat, 32->48 (3 blocks), mb 2, linear");
    }
    // Folded rows (odd channel counts): the tiles that reach into the
    // padding along w run the folded kernels on an edge window.
    {
        prb_t p = base(2, 1, 5, 20, 9, 17, 5, 1, 2);
        p.prw = 1, p.bdt = dnnl_f32, p.post = p_relu;
        add(p, "folded edges: 5x5 pad 2/1 along w, ic 5 oc 20, mb 2, relu");
    }
    {
        prb_t p = base(1, 1, 3, 16, 5, 4, 3, 1, 1);
        p.ddt = dnnl_f32;
        add(p, "folded edges: one tile padded at both ends (iw 4, 3x3 pad 1), ic 3, f32 dst");
    }
    // Flattened rows shared out in tiles (pieces starting and ending
    // inside rows, crossing images and oc groups); full ic blocks in one
    // loop, then the tail block's pairs and lone channel.
    {
        prb_t p = base(3, 1, 33, 80, 7, 9, 1, 1, 0);
        p.bdt = dnnl_f32, p.post = p_relu;
        add(p, "1x1 flat, ic 33 (tail: a lone channel) oc 80, mb 3 7x9, relu");
    }
    {
        prb_t p = base(2, 1, 10, 20, 11, 13, 1, 1, 0);
        p.ddt = dnnl_f32;
        add(p, "1x1 flat, ic 10 (no full block) oc 20, mb 2 11x13, f32 dst");
    }
    {
        prb_t p = base(1, 1, 17, 40, 9, 9, 1, 2, 0);
        p.post = p_clip, p.ddt = dnnl_f32;
        add(p, "1x1 stride 2 (rows), ic 17 oc 40, clip");
    }
    {
        prb_t p = base(2, 1, 5, 16, 4, 5, 1, 1, 1);
        p.bdt = dnnl_f32;
        add(p, "1x1 pad 1 (rows with no valid tap), bias");
    }
    {
        prb_t p = base(1, 2, 16, 32, 6, 7, 3, 1, 1);
        p.bdt = dnnl_f32, p.post = p_relu;
        add(p, "groups 2 of 16->32, relu");
    }
    {
        prb_t p = base(1, 3, 5, 7, 6, 9, 3, 1, 1);
        p.post = p_sum, p.ddt = dnnl_f32;
        add(p, "groups 3 of 5->7 (tails in every group), sum");
    }
    {
        prb_t p = base(1, 1, 32, 64, 5, 6, 3, 2, 1);
        p.post = p_scales, p.bdt = dnnl_f32;
        add(p, "per-oc weights scales (epilogue from the buffer)");
    }
    {
        prb_t p = base(1, 1, 64, 96, 4, 20, 3, 1, 0);
        p.ddt = dnnl_bf16;
        add(p, "64->96 3x3 no pad (6 blocks: tiles of 2 and 3)");
    }
    {
        prb_t p = base(2, 1, 3, 64, 20, 64, 7, 2, 3);
        p.bdt = dnnl_bf16, p.post = p_relu;
        add(p, "7x7 stride 2 pad 3, ic 3 oc 64, wide row (folded kernel rows), relu");
    }
    {
        prb_t p = base(1, 1, 5, 24, 6, 40, 3, 1, 1);
        p.ddt = dnnl_f32, p.post = p_sum;
        add(p, "ic 5 oc 24 3x3 pad 1, wide row (folded kernel rows), sum");
    }
    {
        prb_t p = base(1, 1, 15, 20, 5, 36, 5, 1, 0);
        p.bdt = dnnl_f32;
        add(p, "ic 15 oc 20 5x5 no pad, wide row (folded, 75 values a row)");
    }
    // Row tiles that reach into the padding along w skip each column's
    // padded taps (skip kernels): a short row of 4 oc blocks as one tile
    // of 2 blocks, rows no longer than a tile (not gathered), stride 2
    // with dilation and pads wider than a column with a lone last channel,
    // taps with no column inside src. Four blocks over 7 columns where
    // that saves tiles over 6: 7 columns (the 512 7x7 layer), 13 (a 7 and
    // a 6 tile) with an oc tail, a stride-2 row of 28 whose 5x5 taps leave
    // two edge columns out, 17 kw taps (more than the masks found once).
    {
        prb_t p = base(2, 1, 64, 64, 7, 9, 3, 1, 1);
        p.bdt = dnnl_f32, p.post = p_relu;
        add(p, "skip: 9 columns ic 64 oc 64 3x3 pad 1 (one 2-block tile a row), relu");
    }
    {
        prb_t p = base(2, 1, 64, 64, 7, 7, 3, 1, 1);
        p.bdt = dnnl_f32, p.post = p_relu;
        add(p, "skip 4x7: 7x7 ic 64 oc 64 3x3 pad 1 (one 4-block tile a row), relu");
    }
    {
        prb_t p = base(2, 1, 19, 60, 9, 13, 3, 1, 1);
        p.prh = 2, p.ddt = dnnl_f32;
        add(p, "skip 4x7: 13 columns (7 + 6), ic 19 oc 60 (oc tail), pad 1 (1/2 along h), mb 2, f32 dst");
    }
    {
        prb_t p = base(1, 1, 33, 128, 6, 56, 5, 2, 2);
        p.bdt = dnnl_f32, p.post = p_sum;
        add(p, "skip 4x7: 28 columns, 5x5 stride 2 pad 2, ic 33 oc 128, bias, sum");
    }
    {
        prb_t p = base(1, 1, 8, 64, 3, 14, 17, 1, 8);
        p.kh = 1, p.ph = p.prh = 0, p.ddt = dnnl_f32;
        add(p, "skip 4x7: 1x17 taps pad 8 (kw past the mask table), 14 columns, ic 8 oc 64, f32 dst");
    }
    {
        prb_t p = base(1, 1, 21, 40, 9, 45, 5, 2, 2);
        p.prw = 3, p.dh = p.dw = 1, p.ddt = dnnl_f32;
        add(p, "skip: 5x5 stride 2 dilation 1 pad 2/3, ic 21 (lone last channel), oc 40, f32 dst");
    }
    {
        prb_t p = base(2, 1, 16, 16, 5, 1, 3, 1, 1);
        p.ddt = dnnl_f32, p.post = p_sum;
        add(p, "skip: 1-column rows, 3x3 pad 1 (taps with no column in src), sum");
    }
    // Several oc groups whose weights fit L2: the oc groups of a row run
    // one after the other (ragged: 5 blocks in groups of 2).
    {
        prb_t p = base(3, 1, 17, 80, 9, 60, 3, 2, 1);
        p.ddt = dnnl_f32, p.post = p_sum, p.bdt = dnnl_f32;
        add(p, "ic 17 oc 80 3x3 stride 2 pad 1, mb 3, 3 oc groups (rows, oc groups inside), sum");
    }
    {
        prb_t p = base(2, 1, 32, 80, 5, 30, 3, 1, 1);
        p.bdt = dnnl_bf16, p.post = p_relu;
        add(p, "ic 32 oc 80 3x3 pad 1, mb 2, 3 oc groups, relu (stored from registers)");
    }
    // Weights over 1 MiB (L2) over small images: an oc group serves every
    // image before the next group runs (images inside oc groups); with 2
    // groups (the group decoded from the item) and an oc tail group.
    {
        prb_t p = base(3, 1, 256, 256, 2, 2, 3, 1, 1);
        p.bdt = dnnl_f32, p.post = p_relu;
        add(p, "images inside oc groups: 2x2 ic 256 oc 256 3x3 pad 1, mb 3, relu");
    }
    {
        prb_t p = base(3, 2, 256, 272, 3, 3, 3, 1, 1);
        p.ddt = dnnl_f32, p.post = p_sum;
        add(p, "images inside oc groups: 3x3 groups 2 of 256->272 (oc tail), mb 3, f32 dst, sum");
    }
    // An image's src over 1 MiB (flattened, rows with padding and stride
    // 2, groups): where a call's data outgrows half of L3 the tiles also
    // fetch the next tile's lines (hints that cannot change a result).
    {
        prb_t p = base(1, 1, 136, 17, 64, 62, 1, 1, 0);
        p.bdt = dnnl_f32, p.post = p_relu;
        add(p, "1x1 flat, ic 136 oc 17, 64x62 (1.03 MiB an image), relu");
    }
    {
        prb_t p = base(1, 1, 136, 17, 64, 62, 3, 2, 1);
        p.post = p_leaky;
        add(p, "ic 136 oc 17 3x3 stride 2 pad 1, 64x62, leaky relu (rows)");
    }
    {
        prb_t p = base(1, 2, 68, 10, 64, 62, 1, 1, 0);
        p.ddt = dnnl_f32, p.post = p_sum;
        add(p, "1x1 groups 2 of 68->10, 64x62, sum");
    }
    // Random small problems (fixed seed).
    static char names[16][128];
    kt::rng_t r(77);
    auto rnd = [&](dim lo, dim hi) { return lo + (dim)(r.next() % (uint32_t)(hi - lo + 1)); };
    for (int i = 0; i < 16; ++i) {
        const dim k = rnd(1, 5), s = rnd(1, 3), pad = rnd(0, 2), dl = rnd(0, 1);
        const dim ext = (k - 1) * (dl + 1) + 1;
        const dim ih = rnd(std::max<dim>(1, ext - 2 * pad), 10), iw = rnd(std::max<dim>(1, ext - 2 * pad), 22);
        const dim g = rnd(0, 3) == 0 ? 2 : 1;
        prb_t p = base(rnd(1, 2), g, rnd(1, 40), rnd(2, 70), ih, iw, k, s, pad);
        p.dh = p.dw = dl;
        p.ddt = rnd(0, 1) ? dnnl_bf16 : dnnl_f32;
        p.bdt = rnd(0, 1) ? dnnl_f32 : dnnl_data_type_undef;
        p.post = (post_t)rnd(0, 6);
        std::snprintf(names[i], sizeof names[i], "random %d: g%ld ic%ld oc%ld %ldx%ld k%ld s%ld p%ld d%ld dst%d post%d",
                i, (long)p.g, (long)p.icg, (long)p.ocg, (long)ih, (long)iw, (long)k, (long)s, (long)pad, (long)dl,
                (int)p.ddt, (int)p.post);
        add(p, names[i]);
    }
    bool any = false;
    uint64_t seed = 1;
    for (auto &c : cases) run_case(t, eng, strm, c.first, c.second, any = !any, seed++);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
