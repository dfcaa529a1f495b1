// bf16 convolution on channel-blocked layouts (nChw16c with OIhw16i16o /
// gOIhw16i16o weights, nChw8c with the 8i8o ones; the same in 1D, nCw16c /
// OIw16i16o..., and 3D, nCdhw16c / OIdhw16i16o...): forward through the
// direct kernels on f32 copies of the bf16 blocks (direct:avx512:nCx16c,
// direct:avx2:nCx8c, or ref:any when the ISA cap removes them), backward
// data and backward weights through the GEMM route. Every result is
// compared with a naive loop written here over logical indices, reading the
// blocked buffers through this file's own offset functions. 1 and 2
// threads, library and user scratchpad, the C and the C++ API;
// test_conv_bf16_blocked_isa.sh runs it again under ISA caps.
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

dim cdiv(dim a, dim b) { return (a + b - 1) / b; }

enum post_t { p_none = 0, p_relu = 1, p_sum = 2 };

struct prb_t {
    int blk; // 16 or 8
    dim mb, g, ic, oc, ih, iw, kh, kw, sh, sw, ph, pw, dh, dw; // ic/oc totals
    dnnl_data_type_t dst_dt, bias_dt; // bias_dt undef: no bias
    post_t post;
    // Spatial rank (1: h is 1 wide, kh 1, no stride/padding on it) and the
    // depth of 3D problems (depth size, kernel, stride, padding, dilation).
    int sp = 2;
    dim id = 1, kd = 1, sd = 1, pd = 0, dd = 0;
    dim od() const { return (id + 2 * pd - ((kd - 1) * (dd + 1) + 1)) / sd + 1; }
    dim icg() const { return ic / g; }
    dim ocg() const { return oc / g; }
    dim oh() const { return (ih + 2 * ph - ((kh - 1) * (dh + 1) + 1)) / sh + 1; }
    dim ow() const { return (iw + 2 * pw - ((kw - 1) * (dw + 1) + 1)) / sw + 1; }
    std::string str() const {
        char b[300];
        std::snprintf(b, sizeof b, "%dD i%ld k%ld s%ld p%ld d%ld blk%d mb%ld g%ld ic%ld oc%ld i%ldx%ld k%ldx%ld s%ldx%ld p%ldx%ld d%ldx%ld dst%d bias%d post%d",
                sp, (long)id, (long)kd, (long)sd, (long)pd, (long)dd, blk, (long)mb, (long)g, (long)ic, (long)oc, (long)ih, (long)iw, (long)kh, (long)kw, (long)sh,
                (long)sw, (long)ph, (long)pw, (long)dh, (long)dw, (int)dst_dt, (int)bias_dt, (int)post);
        return b;
    }
};

// Physical offsets written here: data n C/blk h w blk, weights
// [g] O/blk I/blk kh kw i o (blk x blk), channel counts padded to blk.
// A 1D or 2D tensor is stored as the 3D one with the missing spatial dims
// of size 1, so one offset function serves every rank.
dim data_off(const prb_t &p, dim C, dim D, dim H, dim W, dim n, dim c, dim d, dim h, dim w) {
    const dim CB = cdiv(C, p.blk);
    return ((((n * CB + c / p.blk) * D + d) * H + h) * W + w) * p.blk + c % p.blk;
}
dim wei_off(const prb_t &p, dim gr, dim o, dim i, dim kd, dim kh, dim kw) {
    const dim OB = cdiv(p.ocg(), p.blk), IB = cdiv(p.icg(), p.blk), b = p.blk;
    return ((((((gr * OB + o / b) * IB + i / b) * p.kd + kd) * p.kh + kh) * p.kw + kw) * b + i % b) * b + o % b;
}

dnnl_format_tag_t dtag(const prb_t &p) {
    static const dnnl_format_tag_t t16[] = {dnnl_nCw16c, dnnl_nChw16c, dnnl_nCdhw16c},
                                   t8[] = {dnnl_nCw8c, dnnl_nChw8c, dnnl_nCdhw8c};
    return (p.blk == 16 ? t16 : t8)[p.sp - 1];
}
dnnl_format_tag_t wtag(const prb_t &p) {
    static const dnnl_format_tag_t g16[] = {dnnl_gOIw16i16o, dnnl_gOIhw16i16o, dnnl_gOIdhw16i16o},
                                   g8[] = {dnnl_gOIw8i8o, dnnl_gOIhw8i8o, dnnl_gOIdhw8i8o},
                                   o16[] = {dnnl_OIw16i16o, dnnl_OIhw16i16o, dnnl_OIdhw16i16o},
                                   o8[] = {dnnl_OIw8i8o, dnnl_OIhw8i8o, dnnl_OIdhw8i8o};
    if (p.g > 1) return (p.blk == 16 ? g16 : g8)[p.sp - 1];
    return (p.blk == 16 ? o16 : o8)[p.sp - 1];
}

// Logical dims of a data tensor, weights, and the spatial parameters, in
// the problem's rank.
std::vector<dim> data_dims(const prb_t &p, dim C, dim D, dim H, dim W) {
    if (p.sp == 1) return {p.mb, C, W};
    if (p.sp == 2) return {p.mb, C, H, W};
    return {p.mb, C, D, H, W};
}
std::vector<dim> wei_dims(const prb_t &p) {
    std::vector<dim> v;
    if (p.g > 1) v.push_back(p.g);
    v.push_back(p.ocg());
    v.push_back(p.icg());
    if (p.sp == 3) v.push_back(p.kd);
    if (p.sp >= 2) v.push_back(p.kh);
    v.push_back(p.kw);
    return v;
}
void sp_params(const prb_t &p, dnnl_dims_t st, dnnl_dims_t dil, dnnl_dims_t pad) {
    const dim s3[3] = {p.sd, p.sh, p.sw}, d3[3] = {p.dd, p.dh, p.dw}, p3[3] = {p.pd, p.ph, p.pw};
    for (int i = 0; i < p.sp; ++i) {
        st[i] = s3[3 - p.sp + i];
        dil[i] = d3[3 - p.sp + i];
        pad[i] = p3[3 - p.sp + i];
    }
}
dnnl_memory_desc_t make_md_v(const std::vector<dim> &dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_dims_t d = {};
    for (size_t i = 0; i < dims.size(); ++i) d[i] = dims[i];
    dnnl_memory_desc_t md = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, (int)dims.size(), d, dt, tag));
    return md;
}

constexpr float sum_scale = 0.5f;

// Logical tensors (nchw, goihw), values exact in bf16.
struct data_t {
    std::vector<float> src, wei, bias, dst0, ddst;
};
data_t make_data(const prb_t &p, uint64_t seed) {
    data_t d;
    kt::rng_t r(seed);
    auto q = [&](float lo, float hi) { return from_bf16(to_bf16(r.uniform(lo, hi))); };
    d.src.resize(p.mb * p.ic * p.id * p.ih * p.iw);
    d.wei.resize(p.oc * p.icg() * p.kd * p.kh * p.kw);
    d.bias.resize(p.oc);
    d.dst0.resize(p.mb * p.oc * p.od() * p.oh() * p.ow());
    d.ddst.resize(d.dst0.size());
    for (auto &v : d.src) v = q(-2.f, 2.f);
    for (auto &v : d.wei) v = q(-1.f, 1.f);
    for (auto &v : d.bias) v = q(-1.f, 1.f);
    for (auto &v : d.dst0) v = q(-3.f, 3.f);
    for (auto &v : d.ddst) v = q(-1.f, 1.f);
    return d;
}
dim li_src(const prb_t &p, dim n, dim c, dim d, dim h, dim w) {
    return (((n * p.ic + c) * p.id + d) * p.ih + h) * p.iw + w;
}
dim li_dst(const prb_t &p, dim n, dim c, dim d, dim h, dim w) {
    return (((n * p.oc + c) * p.od() + d) * p.oh() + h) * p.ow() + w;
}
dim li_wei(const prb_t &p, dim oc, dim i, dim kd, dim kh, dim kw) {
    return (((oc * p.icg() + i) * p.kd + kd) * p.kh + kh) * p.kw + kw;
}

// Error bound of a sum of nterms exact products (bf16 x bf16 is exact in
// f32) accumulated in f32 in any order: gamma_n * sum|term|, gamma_n =
// n u / (1 - n u), u = 2^-24, n the number of additions plus one; a bf16
// result adds one rounding, 2^-8 of its magnitude.
double bound(double nterms, double mag, double val, bool bf16_out) {
    const double u = std::ldexp(1.0, -24), n = nterms + 1;
    double e = n * u / (1 - n * u) * mag;
    if (bf16_out) e += std::ldexp(std::fabs(val) + e, -8);
    return e;
}

// Forward reference, dst logical, with its bounds.
void ref_fwd(const prb_t &p, const data_t &d, std::vector<double> &ref, std::vector<double> &tol) {
    ref.assign(d.dst0.size(), 0);
    tol.assign(d.dst0.size(), 0);
    const dim K = p.icg() * p.kd * p.kh * p.kw;
    for (dim n = 0; n < p.mb; ++n)
        for (dim oc = 0; oc < p.oc; ++oc)
            for (dim od = 0; od < p.od(); ++od)
            for (dim oh = 0; oh < p.oh(); ++oh)
                for (dim ow = 0; ow < p.ow(); ++ow) {
                    const dim gr = oc / p.ocg();
                    double acc = 0, mag = 0;
                    for (dim i = 0; i < p.icg(); ++i)
                        for (dim kd = 0; kd < p.kd; ++kd)
                        for (dim kh = 0; kh < p.kh; ++kh)
                            for (dim kw = 0; kw < p.kw; ++kw) {
                                const dim id = od * p.sd - p.pd + kd * (p.dd + 1);
                                const dim ih = oh * p.sh - p.ph + kh * (p.dh + 1);
                                const dim iw = ow * p.sw - p.pw + kw * (p.dw + 1);
                                if (id < 0 || id >= p.id || ih < 0 || ih >= p.ih || iw < 0 || iw >= p.iw) continue;
                                const double t = (double)d.src[li_src(p, n, gr * p.icg() + i, id, ih, iw)]
                                        * d.wei[li_wei(p, oc, i, kd, kh, kw)];
                                acc += t, mag += std::fabs(t);
                            }
                    if (p.bias_dt != dnnl_data_type_undef) acc += d.bias[oc], mag += std::fabs(d.bias[oc]);
                    const dim li = li_dst(p, n, oc, od, oh, ow);
                    if (p.post & p_sum) acc += sum_scale * d.dst0[li], mag += std::fabs(sum_scale * d.dst0[li]);
                    if (p.post & p_relu) acc = acc > 0 ? acc : 0; // relu only shrinks the error
                    ref[li] = acc;
                    tol[li] = bound((double)K + 2, mag, acc, p.dst_dt == dnnl_bf16);
                }
}

struct bwd_ref_t {
    std::vector<double> dsrc, dsrc_tol, dwei, dwei_tol, dbias, dbias_tol;
};
void ref_bwd(const prb_t &p, const data_t &d, bool dwei_bf16, bwd_ref_t &r) {
    r.dsrc.assign(d.src.size(), 0), r.dsrc_tol.assign(d.src.size(), 0);
    std::vector<double> smag(d.src.size(), 0), wmag(d.wei.size(), 0), bmag(p.oc, 0);
    r.dwei.assign(d.wei.size(), 0), r.dwei_tol.assign(d.wei.size(), 0);
    r.dbias.assign(p.oc, 0), r.dbias_tol.assign(p.oc, 0);
    for (dim n = 0; n < p.mb; ++n)
        for (dim oc = 0; oc < p.oc; ++oc)
            for (dim od = 0; od < p.od(); ++od)
            for (dim oh = 0; oh < p.oh(); ++oh)
                for (dim ow = 0; ow < p.ow(); ++ow) {
                    const dim gr = oc / p.ocg();
                    const double dd = d.ddst[li_dst(p, n, oc, od, oh, ow)];
                    r.dbias[oc] += dd, bmag[oc] += std::fabs(dd);
                    for (dim i = 0; i < p.icg(); ++i)
                        for (dim kd = 0; kd < p.kd; ++kd)
                        for (dim kh = 0; kh < p.kh; ++kh)
                            for (dim kw = 0; kw < p.kw; ++kw) {
                                const dim id = od * p.sd - p.pd + kd * (p.dd + 1);
                                const dim ih = oh * p.sh - p.ph + kh * (p.dh + 1);
                                const dim iw = ow * p.sw - p.pw + kw * (p.dw + 1);
                                if (id < 0 || id >= p.id || ih < 0 || ih >= p.ih || iw < 0 || iw >= p.iw) continue;
                                const dim si = li_src(p, n, gr * p.icg() + i, id, ih, iw),
                                          wi = li_wei(p, oc, i, kd, kh, kw);
                                r.dsrc[si] += dd * d.wei[wi], smag[si] += std::fabs(dd * d.wei[wi]);
                                r.dwei[wi] += dd * d.src[si], wmag[wi] += std::fabs(dd * d.src[si]);
                            }
                }
    // Terms: diff_src sums OCg * KD * KH * KW products; diff_weights and
    // diff_bias sum MB * OD * OH * OW of them, plus one addition per thread
    // partial (at most 2 threads here, counted generously as 8).
    const double n_src = (double)p.ocg() * p.kd * p.kh * p.kw, n_w = (double)p.mb * p.od() * p.oh() * p.ow() + 8;
    for (size_t i = 0; i < r.dsrc.size(); ++i) r.dsrc_tol[i] = bound(n_src, smag[i], r.dsrc[i], true);
    for (size_t i = 0; i < r.dwei.size(); ++i) r.dwei_tol[i] = bound(n_w, wmag[i], r.dwei[i], dwei_bf16);
    for (dim c = 0; c < p.oc; ++c) r.dbias_tol[c] = bound(n_w, bmag[c], r.dbias[c], dwei_bf16);
}

// Expected forward impl at the running ISA.
std::string want_fwd_impl(const prb_t &p) {
    const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    const bool avx512 = (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core;
    const bool avx2 = (isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2;
    if (p.blk == 16) return avx512 ? "direct:avx512:nCx16c" : "ref:any";
    return avx2 ? "direct:avx2:nCx8c" : "ref:any";
}

// A memory of md zeroed (padding channels stay zero).
struct mem_t {
    dnnl_memory_t m = nullptr;
    void *p = nullptr;
    mem_t(const_dnnl_memory_desc_t md, dnnl_engine_t eng) {
        KT_OK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
        KT_OK(dnnl_memory_get_data_handle(m, &p));
        std::memset(p, 0, dnnl_memory_desc_get_size(md));
    }
    ~mem_t() { dnnl_memory_destroy(m); }
    mem_t(const mem_t &) = delete;
    mem_t &operator=(const mem_t &) = delete;
};

struct env_t {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    env_t() {
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    }
    ~env_t() {
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
};

// Creates the primitive of pd and runs it with args (plus a scratchpad in
// user mode); destroys pd.
void execute(env_t &E, dnnl_primitive_desc_t pd, bool user, std::vector<dnnl_exec_arg_t> args) {
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t sp = nullptr;
    if (user) {
        const_dnnl_memory_desc_t spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        KT_OK(dnnl_memory_create(&sp, spmd, E.eng, DNNL_MEMORY_ALLOCATE));
        args.push_back({DNNL_ARG_SCRATCHPAD, sp});
    }
    KT_OK(dnnl_primitive_execute(prim, E.strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(E.strm));
    dnnl_primitive_destroy(prim);
    if (sp) dnnl_memory_destroy(sp);
}

// Counts values outside their bound, noting the first.
struct cmp_t {
    int bad = 0;
    std::string why;
    void at(const char *what, dim i, double got, double want, double tol) {
        if (std::fabs(got - want) <= tol) return;
        if (bad++ == 0) {
            char b[200];
            std::snprintf(b, sizeof b, " %s[%ld]: got %g want %g tol %g", what, (long)i, got, want, tol);
            why += b;
        }
    }
};

struct mds_t {
    kt::md_t src, wei, bias, dst;
    mds_t(const prb_t &p, dnnl_data_type_t src_dt, dnnl_data_type_t wei_dt, dnnl_data_type_t bias_dt,
            dnnl_data_type_t dst_dt)
        : src(make_md_v(data_dims(p, p.ic, p.id, p.ih, p.iw), src_dt, dtag(p)))
        , wei(make_md_v(wei_dims(p), wei_dt, wtag(p)))
        , bias(bias_dt != dnnl_data_type_undef ? kt::make_md({p.oc}, bias_dt, dnnl_a) : nullptr)
        , dst(make_md_v(data_dims(p, p.oc, p.od(), p.oh(), p.ow()), dst_dt, dtag(p))) {}
};

void fill_src(const prb_t &p, const data_t &d, void *b, dnnl_data_type_t dt) {
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.ic; ++c)
            for (dim dd = 0; dd < p.id; ++dd)
                for (dim h = 0; h < p.ih; ++h)
                    for (dim w = 0; w < p.iw; ++w)
                        put(b, dt, data_off(p, p.ic, p.id, p.ih, p.iw, n, c, dd, h, w), d.src[li_src(p, n, c, dd, h, w)]);
}
void fill_wei(const prb_t &p, const data_t &d, void *b) {
    for (dim oc = 0; oc < p.oc; ++oc)
        for (dim i = 0; i < p.icg(); ++i)
            for (dim kd = 0; kd < p.kd; ++kd)
                for (dim kh = 0; kh < p.kh; ++kh)
                    for (dim kw = 0; kw < p.kw; ++kw)
                        put(b, dnnl_bf16, wei_off(p, oc / p.ocg(), oc % p.ocg(), i, kd, kh, kw),
                                d.wei[li_wei(p, oc, i, kd, kh, kw)]);
}
void fill_dst(const prb_t &p, const std::vector<float> &v, void *b, dnnl_data_type_t dt) {
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.oc; ++c)
            for (dim dd = 0; dd < p.od(); ++dd)
                for (dim h = 0; h < p.oh(); ++h)
                    for (dim w = 0; w < p.ow(); ++w)
                        put(b, dt, data_off(p, p.oc, p.od(), p.oh(), p.ow(), n, c, dd, h, w), v[li_dst(p, n, c, dd, h, w)]);
}

dnnl_primitive_attr_t make_attr(bool user, post_t post) {
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    if (user) KT_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    dnnl_post_ops_t po;
    KT_OK(dnnl_post_ops_create(&po));
    if (post & p_sum) KT_OK(dnnl_post_ops_append_sum(po, sum_scale, 0, dnnl_data_type_undef));
    if (post & p_relu) KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_post_ops_destroy(po);
    return attr;
}

// Forward through the C API: impl, values, and the padding channels of
// dst left zero.
bool run_fwd(env_t &E, const prb_t &p, const data_t &d, bool user, std::string &why) {
    const bool wb = p.bias_dt != dnnl_data_type_undef;
    mds_t m(p, dnnl_bf16, dnnl_bf16, p.bias_dt, p.dst_dt);
    dnnl_primitive_attr_t attr = make_attr(user, p.post);
    dnnl_dims_t st, dil, pad;
    sp_params(p, st, dil, pad);
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, E.eng, dnnl_forward_training, dnnl_convolution_direct,
            m.src, m.wei, wb ? m.bias.h : nullptr, m.dst, st, dil, pad, pad, attr));
    dnnl_primitive_attr_destroy(attr);
    const std::string impl = kt::impl_name(pd), want = want_fwd_impl(p);
    bool ok = impl == want;
    if (!ok) why += " fwd impl " + impl + " want " + want;
    mem_t ms(m.src, E.eng), mw(m.wei, E.eng), md(m.dst, E.eng);
    mem_t *mb = wb ? new mem_t(m.bias, E.eng) : nullptr;
    fill_src(p, d, ms.p, dnnl_bf16);
    fill_wei(p, d, mw.p);
    fill_dst(p, d.dst0, md.p, p.dst_dt);
    if (wb)
        for (dim c = 0; c < p.oc; ++c) put(mb->p, p.bias_dt, c, d.bias[c]);
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms.m}, {DNNL_ARG_WEIGHTS, mw.m}, {DNNL_ARG_DST, md.m}};
    if (wb) args.push_back({DNNL_ARG_BIAS, mb->m});
    execute(E, pd, user, args);
    dnnl_primitive_desc_destroy(pd);
    std::vector<double> ref, tol;
    ref_fwd(p, d, ref, tol);
    cmp_t c;
    const dim OD = p.od(), OH = p.oh(), OW = p.ow(), OCP = cdiv(p.oc, p.blk) * p.blk;
    for (dim n = 0; n < p.mb; ++n)
        for (dim oc = 0; oc < OCP; ++oc)
            for (dim dd = 0; dd < OD; ++dd)
                for (dim h = 0; h < OH; ++h)
                    for (dim w = 0; w < OW; ++w) {
                        const float v = get(md.p, p.dst_dt, data_off(p, p.oc, OD, OH, OW, n, oc, dd, h, w));
                        if (oc >= p.oc) {
                            c.at("dst pad", oc, v, 0, 0);
                        } else {
                            const dim li = li_dst(p, n, oc, dd, h, w);
                            c.at("dst", li, v, ref[li], tol[li]);
                        }
                    }
    delete mb;
    why += c.why;
    return ok && c.bad == 0;
}

// Backward data and weights (diff_weights / diff_bias in dw_dt) through the
// C API, with the forward pd as hint.
bool run_bwd(env_t &E, const prb_t &p, const data_t &d, dnnl_data_type_t dw_dt, bool user, std::string &why) {
    const bool wb = p.bias_dt != dnnl_data_type_undef;
    mds_t fm(p, dnnl_bf16, dnnl_bf16, p.bias_dt, dnnl_bf16);
    dnnl_dims_t st, dil, pad;
    sp_params(p, st, dil, pad);
    dnnl_primitive_desc_t hint;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&hint, E.eng, dnnl_forward_training, dnnl_convolution_direct,
            fm.src, fm.wei, wb ? fm.bias.h : nullptr, fm.dst, st, dil, pad, pad, nullptr));
    dnnl_primitive_attr_t attr = make_attr(user, p_none);
    bool ok = true;
    bwd_ref_t r;
    ref_bwd(p, d, dw_dt == dnnl_bf16, r);
    cmp_t c;
    { // backward data
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_convolution_backward_data_primitive_desc_create(&pd, E.eng, dnnl_convolution_direct, fm.src,
                fm.wei, fm.dst, st, dil, pad, pad, hint, attr));
        const std::string impl = kt::impl_name(pd);
        if (impl.rfind("gemm:", 0) != 0) ok = false, why += " bwd_d impl " + impl;
        mem_t mds(fm.src, E.eng), mw(fm.wei, E.eng), mdd(fm.dst, E.eng);
        std::memset(mds.p, 0x7f, dnnl_memory_desc_get_size(fm.src)); // all of it must be written
        fill_wei(p, d, mw.p);
        fill_dst(p, d.ddst, mdd.p, dnnl_bf16);
        execute(E, pd, user, {{DNNL_ARG_DIFF_SRC, mds.m}, {DNNL_ARG_WEIGHTS, mw.m}, {DNNL_ARG_DIFF_DST, mdd.m}});
        dnnl_primitive_desc_destroy(pd);
        const dim ICP = cdiv(p.ic, p.blk) * p.blk;
        for (dim n = 0; n < p.mb; ++n)
            for (dim ic = 0; ic < ICP; ++ic)
                for (dim dd = 0; dd < p.id; ++dd)
                    for (dim h = 0; h < p.ih; ++h)
                        for (dim w = 0; w < p.iw; ++w) {
                            const float v
                                    = get(mds.p, dnnl_bf16, data_off(p, p.ic, p.id, p.ih, p.iw, n, ic, dd, h, w));
                            if (ic >= p.ic) {
                                c.at("diff_src pad", ic, v, 0, 0);
                            } else {
                                const dim li = li_src(p, n, ic, dd, h, w);
                                c.at("diff_src", li, v, r.dsrc[li], r.dsrc_tol[li]);
                            }
                        }
    }
    { // backward weights
        mds_t wm(p, dnnl_bf16, dw_dt, wb ? dw_dt : dnnl_data_type_undef, dnnl_bf16);
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_convolution_backward_weights_primitive_desc_create(&pd, E.eng, dnnl_convolution_direct, wm.src,
                wm.wei, wb ? wm.bias.h : nullptr, wm.dst, st, dil, pad, pad, hint, attr));
        const std::string impl = kt::impl_name(pd);
        if (impl.rfind("gemm:", 0) != 0) ok = false, why += " bwd_w impl " + impl;
        mem_t ms(wm.src, E.eng), mdw(wm.wei, E.eng), mdd(wm.dst, E.eng);
        mem_t *mdb = wb ? new mem_t(wm.bias, E.eng) : nullptr;
        fill_src(p, d, ms.p, dnnl_bf16);
        fill_dst(p, d.ddst, mdd.p, dnnl_bf16);
        std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms.m}, {DNNL_ARG_DIFF_WEIGHTS, mdw.m}, {DNNL_ARG_DIFF_DST, mdd.m}};
        if (wb) args.push_back({DNNL_ARG_DIFF_BIAS, mdb->m});
        execute(E, pd, user, args);
        dnnl_primitive_desc_destroy(pd);
        for (dim oc = 0; oc < p.oc; ++oc)
            for (dim i = 0; i < p.icg(); ++i)
                for (dim kd = 0; kd < p.kd; ++kd)
                    for (dim kh = 0; kh < p.kh; ++kh)
                        for (dim kw = 0; kw < p.kw; ++kw) {
                            const dim li = li_wei(p, oc, i, kd, kh, kw);
                            c.at("diff_weights", li,
                                    get(mdw.p, dw_dt, wei_off(p, oc / p.ocg(), oc % p.ocg(), i, kd, kh, kw)),
                                    r.dwei[li], r.dwei_tol[li]);
                        }
        if (wb)
            for (dim oc = 0; oc < p.oc; ++oc) c.at("diff_bias", oc, get(mdb->p, dw_dt, oc), r.dbias[oc], r.dbias_tol[oc]);
        delete mdb;
    }
    dnnl_primitive_attr_destroy(attr);
    dnnl_primitive_desc_destroy(hint);
    why += c.why;
    return ok && c.bad == 0;
}

// The C++ API: nChw16c bf16 forward with bias and relu, padded 3x3.
bool run_cpp(std::string &why) {
    using namespace dnnl;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    const prb_t p {16, 2, 1, 20, 24, 7, 9, 3, 3, 1, 1, 1, 1, 0, 0, dnnl_bf16, dnnl_bf16, p_relu};
    const data_t d = make_data(p, 99);
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    memory::desc src({p.mb, p.ic, p.ih, p.iw}, dt::bf16, tag::nChw16c);
    memory::desc wei({p.oc, p.ic, p.kh, p.kw}, dt::bf16, tag::OIhw16i16o);
    memory::desc bia({p.oc}, dt::bf16, tag::a);
    memory::desc dst({p.mb, p.oc, p.oh(), p.ow()}, dt::bf16, tag::nChw16c);
    post_ops po;
    po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    primitive_attr attr;
    attr.set_post_ops(po);
    convolution_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::convolution_direct, src,
            wei, bia, dst, {1, 1}, {1, 1}, {1, 1}, attr);
    const std::string impl = pd.impl_info_str(), want = want_fwd_impl(p);
    if (impl != want) {
        why = "impl " + impl + " want " + want;
        return false;
    }
    memory ms(pd.src_desc(), eng), mw(pd.weights_desc(), eng), mb(pd.bias_desc(), eng), md(pd.dst_desc(), eng);
    std::memset(ms.get_data_handle(), 0, pd.src_desc().get_size());
    std::memset(mw.get_data_handle(), 0, pd.weights_desc().get_size());
    fill_src(p, d, ms.get_data_handle(), dnnl_bf16);
    fill_wei(p, d, mw.get_data_handle());
    for (dim c = 0; c < p.oc; ++c) put(mb.get_data_handle(), dnnl_bf16, c, d.bias[c]);
    convolution_forward(pd).execute(s, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST, md}});
    s.wait();
    std::vector<double> ref, tol;
    ref_fwd(p, d, ref, tol);
    cmp_t c;
    for (dim n = 0; n < p.mb; ++n)
        for (dim oc = 0; oc < p.oc; ++oc)
            for (dim h = 0; h < p.oh(); ++h)
                for (dim w = 0; w < p.ow(); ++w) {
                    const dim li = li_dst(p, n, oc, 0, h, w);
                    c.at("dst", li,
                            get(md.get_data_handle(), dnnl_bf16, data_off(p, p.oc, 1, p.oh(), p.ow(), n, oc, 0, h, w)),
                            ref[li], tol[li]);
                }
    why = c.why;
    return c.bad == 0;
}

} // namespace

int main() {
    kt::tally_t t;
    const dnnl_data_type_t bf = dnnl_bf16, f32 = dnnl_f32, none = dnnl_data_type_undef;
    // blk mb g ic oc ih iw kh kw sh sw ph pw dh dw dst bias post
    const std::vector<prb_t> prbs = {
            {16, 2, 1, 16, 32, 6, 7, 3, 3, 1, 1, 1, 1, 0, 0, bf, bf, p_none}, // 3x3 padded
            {16, 2, 1, 20, 36, 6, 30, 3, 3, 1, 1, 1, 1, 0, 0, f32, f32, p_relu}, // channel tails, wide row
            {16, 1, 1, 19, 17, 9, 11, 3, 3, 2, 2, 1, 1, 0, 0, bf, none, p_sum}, // strided, tails
            {16, 1, 1, 16, 16, 10, 10, 3, 3, 1, 1, 2, 2, 1, 1, bf, f32, p_relu}, // dilated
            {16, 2, 2, 32, 64, 5, 6, 3, 3, 1, 1, 1, 1, 0, 0, bf, bf, p_sum}, // groups
            {16, 2, 1, 33, 48, 5, 9, 1, 1, 1, 1, 0, 0, 0, 0, bf, bf, p_none}, // 1x1 flat
            {16, 1, 1, 40, 16, 4, 5, 1, 1, 1, 1, 0, 0, 0, 0, f32, none, p_sum}, // 1x1 flat, f32 dst
            {16, 1, 1, 16, 16, 7, 9, 1, 1, 2, 2, 0, 0, 0, 0, bf, bf, p_relu}, // 1x1 strided (not flat)
            {16, 1, 1, 256, 64, 4, 5, 3, 3, 1, 1, 1, 1, 0, 0, bf, none, p_none}, // ic passes (partials)
            {16, 1, 1, 8, 16, 6, 7, 5, 3, 1, 2, 2, 0, 0, 0, bf, bf, p_none}, // unequal k/s/p, ic < blk
            {8, 2, 1, 8, 16, 6, 7, 3, 3, 1, 1, 1, 1, 0, 0, bf, bf, p_sum}, // 8c
            {8, 1, 1, 13, 11, 9, 8, 3, 3, 2, 1, 1, 0, 0, 1, f32, bf, p_relu}, // 8c tails, strided, dilated
            {8, 2, 2, 16, 16, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, bf, none, p_none}, // 8c groups 1x1 flat
            // 1D (nCw16c / nCw8c): h is 1 wide with a 1-tall kernel.
            {16, 2, 1, 20, 36, 1, 13, 1, 3, 1, 1, 0, 1, 0, 0, bf, bf, p_relu, 1}, // padded, tails
            {16, 1, 1, 19, 17, 1, 15, 1, 3, 1, 2, 0, 1, 0, 1, f32, none, p_sum, 1}, // strided, dilated
            {16, 2, 2, 32, 32, 1, 9, 1, 1, 1, 1, 0, 0, 0, 0, bf, f32, p_none, 1}, // 1x1 groups
            {8, 1, 1, 13, 11, 1, 10, 1, 3, 1, 1, 0, 1, 0, 0, bf, bf, p_sum, 1}, // 8c tails
            // 3D (nCdhw16c / nCdhw8c).
            {16, 1, 1, 20, 18, 4, 5, 3, 3, 1, 1, 1, 1, 0, 0, bf, bf, p_relu, 3, 5, 3, 1, 1, 0}, // 3x3x3 padded
            {16, 2, 1, 16, 17, 5, 6, 3, 1, 2, 1, 1, 0, 0, 0, f32, none, p_sum, 3, 7, 3, 2, 1, 1}, // strided, dilated d
            {16, 1, 2, 32, 32, 3, 4, 1, 1, 1, 1, 0, 0, 0, 0, bf, bf, p_none, 3, 3, 1, 1, 0, 0}, // 1x1x1 groups
            {8, 1, 1, 11, 13, 4, 4, 3, 3, 1, 1, 1, 1, 0, 0, bf, f32, p_relu, 3, 4, 2, 1, 0, 0}, // 8c tails, kd 2
    };
    uint64_t seed = 1;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            env_t E;
            for (const prb_t &p : prbs) {
                const data_t d = make_data(p, seed++);
                for (bool user : {false, true}) {
                    const std::string tag = " nthr" + std::to_string(nthr) + (user ? " user " : " library ") + p.str();
                    std::string why;
                    t.check(run_fwd(E, p, d, user, why), ("fwd" + tag + why).c_str());
                    why.clear();
                    t.check(run_bwd(E, p, d, user ? bf : f32, user, why),
                            ("bwd" + tag + (user ? " dw bf16" : " dw f32") + why).c_str());
                }
            }
            std::string why;
            t.check(run_cpp(why), ("C++ nthr" + std::to_string(nthr) + " " + why).c_str());
        });
    return t.finish();
}
