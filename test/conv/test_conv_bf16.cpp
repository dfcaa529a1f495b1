// bf16 convolution forward (src/weights bf16, dst bf16 or f32, bias bf16 or
// f32) against a naive reference written here: plain-index loops over the
// logical tensors, accumulated in double. Checks that the GEMM route serves
// every case (not ref:any), through the C and the C++ API, with 1 and 2
// threads; test_conv_bf16_isa.sh runs it again under ISA caps. With
// AVX512-BF16, problems with every layout `any` go to the direct kernels
// instead (direct:avx512_bf16:nhwc: nhwc / nwc data, [g]OI[h]w8i16o2i
// weights), which is then what those cases check.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/kt_test.hpp"
#include "conv/bf16_values.hpp"
#include "dnnl.hpp"

namespace {

using dim = dnnl_dim_t;
using ktbf::from_bf16;
using ktbf::get;
using ktbf::put;
using ktbf::to_bf16;


enum fmt_t { f_any, f_nchw, f_nhwc };
enum post_t { p_none = 0, p_relu = 1, p_sum = 2, p_sum_relu = 3 };

struct prb_t {
    dim mb, g, ic, oc, ih, iw, kh, kw, sh, sw, ph, pw, dh, dw; // ic/oc totals
    dnnl_data_type_t dst_dt, bias_dt; // bias_dt undef: no bias
    fmt_t fmt;
    post_t post;
    bool d1 = false; // 1D problem (ncw / nwc): ih and kh must be 1
    dim oh() const { return (ih + 2 * ph - ((kh - 1) * (dh + 1) + 1)) / sh + 1; }
    dim ow() const { return (iw + 2 * pw - ((kw - 1) * (dw + 1) + 1)) / sw + 1; }
    std::string str() const {
        char b[200];
        std::snprintf(b, sizeof b, "mb%ld g%ld ic%ld oc%ld i%ldx%ld k%ldx%ld s%ldx%ld p%ldx%ld d%ldx%ld dst%d bias%d fmt%d post%d",
                (long)mb, (long)g, (long)ic, (long)oc, (long)ih, (long)iw, (long)kh, (long)kw, (long)sh,
                (long)sw, (long)ph, (long)pw, (long)dh, (long)dw, (int)dst_dt, (int)bias_dt, (int)fmt, (int)post);
        return b;
    }
};

constexpr float sum_scale = 0.5f;

// Logical tensors (nchw / goihw order) as f32 values exactly representable
// in bf16, so both sides read the same numbers.
struct data_t {
    std::vector<float> src, wei, bias, dst0; // dst0: dst before execution (sum)
};

data_t make_data(const prb_t &p, uint64_t seed) {
    data_t d;
    kt::rng_t r(seed);
    auto q = [&](float lo, float hi) { return from_bf16(to_bf16(r.uniform(lo, hi))); };
    d.src.resize(p.mb * p.ic * p.ih * p.iw);
    d.wei.resize(p.oc * (p.ic / p.g) * p.kh * p.kw);
    d.bias.resize(p.oc);
    d.dst0.resize(p.mb * p.oc * p.oh() * p.ow());
    for (auto &v : d.src) v = q(-2.f, 2.f);
    for (auto &v : d.wei) v = q(-1.f, 1.f);
    for (auto &v : d.bias) v = q(-1.f, 1.f);
    // dst0 exact in the dst type (bf16 values are f32 values too).
    for (auto &v : d.dst0) v = q(-3.f, 3.f);
    return d;
}

// Expected dst (nchw) and the error bound per element.
void reference(const prb_t &p, const data_t &d, std::vector<double> &ref, std::vector<double> &tol) {
    const dim OH = p.oh(), OW = p.ow(), icg = p.ic / p.g, ocg = p.oc / p.g;
    const dim K = icg * p.kh * p.kw;
    // f32 accumulation of n terms errs by at most gamma_n * sum|term|,
    // gamma_n = n u / (1 - n u), u = 2^-24; n counts the K products, the
    // bias and the sum term. A bf16 dst then adds one rounding: 2^-8
    // relative to the stored f32 value.
    const double u = std::ldexp(1.0, -24), n = (double)K + 2;
    const double gamma = n * u / (1 - n * u);
    ref.assign(d.dst0.size(), 0);
    tol.assign(d.dst0.size(), 0);
    for (dim mb = 0; mb < p.mb; ++mb)
        for (dim oc = 0; oc < p.oc; ++oc)
            for (dim oh = 0; oh < OH; ++oh)
                for (dim ow = 0; ow < OW; ++ow) {
                    const dim gr = oc / ocg;
                    double acc = 0, mag = 0;
                    for (dim ic = 0; ic < icg; ++ic)
                        for (dim kh = 0; kh < p.kh; ++kh)
                            for (dim kw = 0; kw < p.kw; ++kw) {
                                const dim ih = oh * p.sh - p.ph + kh * (p.dh + 1);
                                const dim iw = ow * p.sw - p.pw + kw * (p.dw + 1);
                                if (ih < 0 || ih >= p.ih || iw < 0 || iw >= p.iw) continue;
                                const double x = d.src[((mb * p.ic + gr * icg + ic) * p.ih + ih) * p.iw + iw];
                                const double w = d.wei[((oc * icg + ic) * p.kh + kh) * p.kw + kw];
                                acc += x * w;
                                mag += std::fabs(x * w);
                            }
                    if (p.bias_dt != dnnl_data_type_undef) {
                        acc += d.bias[oc];
                        mag += std::fabs(d.bias[oc]);
                    }
                    const size_t i = ((mb * p.oc + oc) * OH + oh) * OW + ow;
                    if (p.post & p_sum) {
                        acc += sum_scale * d.dst0[i];
                        mag += std::fabs(sum_scale * d.dst0[i]);
                    }
                    if (p.post & p_relu) acc = acc > 0 ? acc : 0; // relu only shrinks the error
                    double e = gamma * mag;
                    if (p.dst_dt == dnnl_bf16) e += std::ldexp(std::fabs(acc) + e, -8);
                    ref[i] = acc;
                    tol[i] = e;
                }
}

// AVX512-BF16 usable: bf16 problems with `any` layouts go to
// direct:avx512_bf16:nhwc.
bool have_bf16_direct() {
    if (dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_prefer_ymm) return false;
    const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    return isa == dnnl_cpu_isa_avx512_core_bf16 || isa == dnnl_cpu_isa_avx512_core_fp16
            || isa == dnnl_cpu_isa_avx512_core_amx || isa == dnnl_cpu_isa_avx512_core_amx_fp16;
}

// Offset of weight (oc, ic, kh, kw) (oc over all groups, ic in its group)
// in [g]OI[h]w8i16o2i, from the tag's definition: 16 x 16 blocks (channels
// padded to 16) in the order g, oc block, ic block, kh, kw; inside a block
// (ic % 16) / 2, then oc % 16, then ic % 2.
dim pair_off(const prb_t &p, dim oc, dim ic, dim kh, dim kw) {
    const dim ocg = p.oc / p.g, icg = p.ic / p.g, gr = oc / ocg, o = oc % ocg;
    const dim nocb = (ocg + 15) / 16, nicb = (icg + 15) / 16;
    const dim blk = (((gr * nocb + o / 16) * nicb + ic / 16) * p.kh + kh) * p.kw + kw;
    return blk * 256 + (ic % 16) / 2 * 32 + (o % 16) * 2 + ic % 2;
}

// Physical offset of logical (n, c, h, w) in a plain nchw or nhwc tensor.
dim phys(bool nhwc, dim C, dim H, dim W, dim n, dim c, dim h, dim w) {
    return nhwc ? ((n * H + h) * W + w) * C + c : ((n * C + c) * H + h) * W + w;
}


// Is an md plain nhwc (channels innermost) rather than nchw?
bool md_is_nhwc(const_dnnl_memory_desc_t md) {
    const dnnl_dims_t *strides = nullptr;
    KT_OK(dnnl_memory_desc_query(md, dnnl_query_strides, &strides));
    int nblks = 0;
    KT_OK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks));
    KT_EXPECT(nblks == 0); // the GEMM route takes plain layouts only
    return (*strides)[1] == 1;
}

// Runs one problem through the C API; returns whether every element is
// within its bound and the GEMM route served it.
bool run_c(const prb_t &p, uint64_t seed, std::string &why) {
    const data_t d = make_data(p, seed);
    const dim OH = p.oh(), OW = p.ow(), icg = p.ic / p.g, ocg = p.oc / p.g;
    const bool grp = p.g > 1;
    // A 1D problem is the 2D one with h = 1: same logical order, and plain
    // ncw / nwc / [g]oiw offsets equal nchw / nhwc / [g]oihw ones at h = 0.
    const bool any = p.fmt == f_any, cl = p.fmt == f_nhwc;
    const dnnl_format_tag_t dtag = any ? dnnl_format_tag_any
            : p.d1 ? (cl ? dnnl_nwc : dnnl_ncw)
                   : (cl ? dnnl_nhwc : dnnl_nchw);
    const dnnl_format_tag_t wtag = any ? dnnl_format_tag_any
            : p.d1 ? (grp ? dnnl_goiw : dnnl_oiw)
                   : (grp ? dnnl_goihw : dnnl_oihw);
    kt::md_t src(p.d1 ? kt::make_md({p.mb, p.ic, p.iw}, dnnl_bf16, dtag)
                      : kt::make_md({p.mb, p.ic, p.ih, p.iw}, dnnl_bf16, dtag));
    kt::md_t dst(p.d1 ? kt::make_md({p.mb, p.oc, OW}, p.dst_dt, dtag)
                      : kt::make_md({p.mb, p.oc, OH, OW}, p.dst_dt, dtag));
    kt::md_t wei(p.d1 ? (grp ? kt::make_md({p.g, ocg, icg, p.kw}, dnnl_bf16, wtag)
                             : kt::make_md({p.oc, p.ic, p.kw}, dnnl_bf16, wtag))
                      : (grp ? kt::make_md({p.g, ocg, icg, p.kh, p.kw}, dnnl_bf16, wtag)
                             : kt::make_md({p.oc, p.ic, p.kh, p.kw}, dnnl_bf16, wtag)));
    const bool with_bias = p.bias_dt != dnnl_data_type_undef;
    kt::md_t bias(with_bias ? kt::make_md({p.oc}, p.bias_dt, dnnl_a) : nullptr);
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    dnnl_post_ops_t po;
    KT_OK(dnnl_post_ops_create(&po));
    if (p.post & p_sum) KT_OK(dnnl_post_ops_append_sum(po, sum_scale, 0, dnnl_data_type_undef));
    if (p.post & p_relu) KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_post_ops_destroy(po);
    dnnl_engine_t eng;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    dnnl_stream_t strm;
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    dnnl_dims_t strides = {p.sh, p.sw}, dil = {p.dh, p.dw}, pad = {p.ph, p.pw};
    if (p.d1) strides[0] = p.sw, dil[0] = p.dw, pad[0] = p.pw;
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_convolution_direct, src, wei, with_bias ? bias.h : nullptr, dst, strides, dil, pad, pad,
            attr));
    dnnl_primitive_attr_destroy(attr);
    const std::string impl = kt::impl_name(pd);
    const bool direct = any && have_bf16_direct();
    bool ok = direct ? impl == "direct:avx512_bf16:nhwc" : impl.rfind("gemm:", 0) == 0;
    if (!ok) why = "impl " + impl;

    const_dnnl_memory_desc_t smd = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const_dnnl_memory_desc_t dmd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    const bool s_nhwc = md_is_nhwc(smd), d_nhwc = md_is_nhwc(dmd);
    if (p.fmt != f_any) ok = ok && s_nhwc == (p.fmt == f_nhwc) && d_nhwc == (p.fmt == f_nhwc);
    if (direct) {
        ok = ok && s_nhwc && d_nhwc;
        kt::md_t pmd(p.d1 ? (grp ? kt::make_md({p.g, ocg, icg, p.kw}, dnnl_bf16, dnnl_gOIw8i16o2i)
                                 : kt::make_md({p.oc, p.ic, p.kw}, dnnl_bf16, dnnl_OIw8i16o2i))
                          : (grp ? kt::make_md({p.g, ocg, icg, p.kh, p.kw}, dnnl_bf16, dnnl_gOIhw8i16o2i)
                                 : kt::make_md({p.oc, p.ic, p.kh, p.kw}, dnnl_bf16, dnnl_OIhw8i16o2i)));
        if (!dnnl_memory_desc_equal(wmd, pmd)) ok = false, why += " weights not 8i16o2i";
    } else {
        (void)md_is_nhwc(wmd);
    }
    dnnl_memory_t ms, mw, mb = nullptr, md;
    KT_OK(dnnl_memory_create(&ms, smd, eng, DNNL_MEMORY_ALLOCATE));
    KT_OK(dnnl_memory_create(&mw, wmd, eng, DNNL_MEMORY_ALLOCATE));
    KT_OK(dnnl_memory_create(&md, dmd, eng, DNNL_MEMORY_ALLOCATE));
    void *ps, *pw, *pdst, *pb = nullptr;
    KT_OK(dnnl_memory_get_data_handle(ms, &ps));
    KT_OK(dnnl_memory_get_data_handle(mw, &pw));
    KT_OK(dnnl_memory_get_data_handle(md, &pdst));
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.ic; ++c)
            for (dim h = 0; h < p.ih; ++h)
                for (dim w = 0; w < p.iw; ++w)
                    put(ps, dnnl_bf16, phys(s_nhwc, p.ic, p.ih, p.iw, n, c, h, w),
                            d.src[((n * p.ic + c) * p.ih + h) * p.iw + w]);
    if (direct) {
        // Padded channels of the blocks zero.
        std::memset(pw, 0, dnnl_memory_desc_get_size(wmd));
        for (dim oc = 0; oc < p.oc; ++oc)
            for (dim ic = 0; ic < icg; ++ic)
                for (dim kh = 0; kh < p.kh; ++kh)
                    for (dim kw = 0; kw < p.kw; ++kw)
                        put(pw, dnnl_bf16, pair_off(p, oc, ic, kh, kw), d.wei[((oc * icg + ic) * p.kh + kh) * p.kw + kw]);
    } else {
        for (size_t i = 0; i < d.wei.size(); ++i) put(pw, dnnl_bf16, (dim)i, d.wei[i]); // (g)oihw: logical order
    }
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.oc; ++c)
            for (dim h = 0; h < OH; ++h)
                for (dim w = 0; w < OW; ++w)
                    put(pdst, p.dst_dt, phys(d_nhwc, p.oc, OH, OW, n, c, h, w),
                            d.dst0[((n * p.oc + c) * OH + h) * OW + w]);
    if (with_bias) {
        KT_OK(dnnl_memory_create(&mb, bias, eng, DNNL_MEMORY_ALLOCATE));
        KT_OK(dnnl_memory_get_data_handle(mb, &pb));
        for (dim c = 0; c < p.oc; ++c) put(pb, p.bias_dt, c, d.bias[c]);
    }
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    if (with_bias) args.push_back({DNNL_ARG_BIAS, mb});
    KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));

    std::vector<double> ref, tol;
    reference(p, d, ref, tol);
    int bad = 0;
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.oc; ++c)
            for (dim h = 0; h < OH; ++h)
                for (dim w = 0; w < OW; ++w) {
                    const size_t i = ((n * p.oc + c) * OH + h) * OW + w;
                    const float v = get(pdst, p.dst_dt, phys(d_nhwc, p.oc, OH, OW, n, c, h, w));
                    if (!(std::fabs(v - ref[i]) <= tol[i])) {
                        if (bad++ == 0) {
                            char b[160];
                            std::snprintf(b, sizeof b, " first bad at %zu: got %g want %g tol %g", i, v, ref[i], tol[i]);
                            why += b;
                        }
                    }
                }
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mw);
    dnnl_memory_destroy(md);
    if (mb) dnnl_memory_destroy(mb);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return ok && bad == 0;
}

// The C++ API on one problem: format any, bf16 dst and bias, relu.
bool run_cpp(std::string &why) {
    using namespace dnnl;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    const prb_t p {2, 1, 5, 7, 9, 8, 3, 3, 1, 1, 1, 1, 0, 0, dnnl_bf16, dnnl_bf16, f_nchw, p_relu};
    const data_t d = make_data(p, 77);
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    memory::desc src({p.mb, p.ic, p.ih, p.iw}, dt::bf16, tag::any);
    memory::desc wei({p.oc, p.ic, p.kh, p.kw}, dt::bf16, tag::any);
    memory::desc bia({p.oc}, dt::bf16, tag::a);
    memory::desc dst({p.mb, p.oc, p.oh(), p.ow()}, dt::bf16, tag::any);
    post_ops po;
    po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    primitive_attr attr;
    attr.set_post_ops(po);
    convolution_forward::primitive_desc pd(eng, prop_kind::forward_training, algorithm::convolution_direct,
            src, wei, bia, dst, {1, 1}, {1, 1}, {1, 1}, attr);
    const std::string impl = pd.impl_info_str();
    const bool direct = have_bf16_direct();
    if (direct ? impl != "direct:avx512_bf16:nhwc" : impl.rfind("gemm:", 0) != 0) {
        why = "impl " + impl;
        return false;
    }
    // format any resolved to the layouts the GEMM route takes: plain
    // nchw/oihw; or nhwc / OIhw8i16o2i for the direct bf16 kernels.
    const tag dtag = direct ? tag::nhwc : tag::nchw;
    if (pd.src_desc() != memory::desc(src.get_dims(), dt::bf16, dtag)
            || pd.weights_desc() != memory::desc(wei.get_dims(), dt::bf16, direct ? tag::OIhw8i16o2i : tag::oihw)
            || pd.dst_desc() != memory::desc(dst.get_dims(), dt::bf16, dtag)) {
        why = "layouts";
        return false;
    }
    memory ms(pd.src_desc(), eng), mw(pd.weights_desc(), eng), mb(pd.bias_desc(), eng), md(pd.dst_desc(), eng);
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.ic; ++c)
            for (dim h = 0; h < p.ih; ++h)
                for (dim w = 0; w < p.iw; ++w)
                    put(ms.get_data_handle(), dnnl_bf16, phys(direct, p.ic, p.ih, p.iw, n, c, h, w),
                            d.src[((n * p.ic + c) * p.ih + h) * p.iw + w]);
    if (direct) std::memset(mw.get_data_handle(), 0, pd.weights_desc().get_size());
    for (size_t i = 0; i < d.wei.size(); ++i) {
        const dim kw = (dim)i % p.kw, kh = (dim)i / p.kw % p.kh, ic = (dim)i / (p.kw * p.kh) % p.ic,
                  oc = (dim)i / (p.kw * p.kh * p.ic);
        put(mw.get_data_handle(), dnnl_bf16, direct ? pair_off(p, oc, ic, kh, kw) : (dim)i, d.wei[i]);
    }
    for (size_t i = 0; i < d.bias.size(); ++i) put(mb.get_data_handle(), dnnl_bf16, (dim)i, d.bias[i]);
    convolution_forward(pd).execute(s, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST, md}});
    s.wait();
    std::vector<double> ref, tol;
    reference(p, d, ref, tol);
    for (size_t i = 0; i < ref.size(); ++i) {
        const dim w = (dim)i % p.ow(), h = (dim)i / p.ow() % p.oh(), c = (dim)i / (p.ow() * p.oh()) % p.oc,
                  n = (dim)i / (p.ow() * p.oh() * p.oc);
        const float v = get(md.get_data_handle(), dnnl_bf16, phys(direct, p.oc, p.oh(), p.ow(), n, c, h, w));
        if (!(std::fabs(v - ref[i]) <= tol[i])) {
            why = "value at " + std::to_string(i);
            return false;
        }
    }
    return true;
}

} // namespace

int main() {
    kt::tally_t t;
    const dnnl_data_type_t bf = dnnl_bf16, f32 = dnnl_f32, none = dnnl_data_type_undef;
    // mb g ic oc ih iw kh kw sh sw ph pw dh dw dst bias fmt post
    const std::vector<prb_t> prbs = {
            {2, 1, 16, 32, 7, 9, 1, 1, 1, 1, 0, 0, 0, 0, bf, none, f_nchw, p_none}, // 1x1
            {2, 1, 16, 32, 7, 9, 1, 1, 1, 1, 0, 0, 0, 0, f32, f32, f_nhwc, p_relu}, // 1x1 nhwc
            {1, 1, 13, 17, 6, 5, 1, 1, 1, 1, 0, 0, 0, 0, bf, bf, f_any, p_sum}, // 1x1 odd, any
            {2, 1, 3, 8, 11, 10, 3, 3, 1, 1, 1, 1, 0, 0, bf, bf, f_nchw, p_none}, // 3x3 padded
            {2, 1, 3, 8, 11, 10, 3, 3, 1, 1, 1, 1, 0, 0, f32, bf, f_nhwc, p_sum_relu},
            {1, 1, 5, 9, 15, 13, 3, 3, 2, 2, 1, 1, 0, 0, bf, f32, f_nhwc, p_relu}, // strided
            {1, 1, 5, 9, 15, 13, 3, 3, 2, 2, 1, 1, 0, 0, bf, f32, f_any, p_sum_relu},
            {2, 1, 4, 6, 12, 12, 3, 3, 1, 1, 2, 2, 1, 1, bf, bf, f_nchw, p_sum}, // dilated
            {1, 1, 4, 6, 12, 12, 3, 3, 1, 1, 2, 2, 1, 1, f32, none, f_nhwc, p_none},
            {2, 2, 6, 10, 8, 7, 3, 3, 1, 1, 1, 1, 0, 0, bf, bf, f_nchw, p_relu}, // groups
            {2, 3, 9, 6, 8, 7, 3, 3, 1, 1, 1, 1, 0, 0, f32, f32, f_nhwc, p_sum}, // groups nhwc
            {1, 8, 8, 8, 9, 9, 3, 3, 1, 1, 1, 1, 0, 0, bf, bf, f_nchw, p_sum_relu}, // depthwise
            {2, 8, 8, 8, 9, 9, 3, 3, 2, 2, 1, 1, 0, 0, bf, none, f_nhwc, p_relu},
            {1, 1, 3, 5, 23, 21, 11, 11, 4, 4, 0, 0, 0, 0, bf, bf, f_any, p_relu}, // 11x11 s4
            {1, 1, 7, 3, 5, 6, 5, 3, 1, 2, 2, 1, 0, 0, bf, bf, f_nchw, p_none}, // unequal k/s/p
            // Large enough that im2col takes several chunks of output points
            // (chunk = 256K floats / max(K, OC), so K = 8*9 = 72 at 40x40).
            {1, 1, 8, 16, 64, 64, 3, 3, 1, 1, 1, 1, 0, 0, bf, bf, f_nchw, p_sum_relu},
            {1, 1, 8, 16, 64, 64, 3, 3, 1, 1, 1, 1, 0, 0, bf, f32, f_nhwc, p_sum},
            {1, 1, 600, 8, 30, 30, 1, 1, 1, 1, 0, 0, 0, 0, bf, bf, f_nchw, p_sum}, // 1x1, chunked
            // 1D: ncw / nwc / any, strided and dilated, grouped
            {2, 1, 5, 7, 1, 19, 1, 3, 1, 2, 0, 1, 0, 1, bf, bf, f_nchw, p_sum_relu, true},
            {2, 2, 6, 4, 1, 17, 1, 5, 1, 1, 0, 2, 0, 0, f32, bf, f_nhwc, p_relu, true},
            {1, 1, 9, 6, 1, 21, 1, 1, 1, 1, 0, 0, 0, 0, bf, none, f_any, p_none, true},
    };
    uint64_t seed = 1;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const prb_t &p : prbs) {
                std::string why;
                const bool ok = run_c(p, seed++, why);
                const std::string what = "C nthr" + std::to_string(nthr) + " " + p.str() + " " + why;
                t.check(ok, what.c_str());
            }
            std::string why;
            const bool ok = run_cpp(why);
            t.check(ok, ("C++ nthr" + std::to_string(nthr) + " " + why).c_str());
        });
    return t.finish();
}
