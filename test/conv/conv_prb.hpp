// Convolution test problems shared by test_conv and test_conv_attr: the
// problem description, its descriptors and attributes (through the C API),
// and the naive expected result: a plain-index convolution / deconvolution
// loop over the logical values plus the attribute math of
// test/common/naive_attr.hpp. Nothing here reaches into src/.
#ifndef KESTREL_TEST_CONV_CONV_PRB_HPP
#define KESTREL_TEST_CONV_CONV_PRB_HPP

#include <cstdio>
#include <string>

#include "common/naive_attr.hpp"
#include "common/naive_gemm.hpp"
#include "conv/conv_harness.hpp"

namespace kc {

using dim = dnnl_dim_t;

enum attr_bits : unsigned {
    a_relu = 1, a_sum = 2, a_bin_c = 4, a_bin_t = 8, a_tanh = 16, a_scales = 32, a_sum_zp = 64,
    a_bin_full = 128, a_scales_common = 256,
};

enum layout_t { plain, nhwc, blocked16, blocked8 };

// One post-op beyond the attribute bits: binary src1 has dst's dim d where
// bit d of `mask` is set, else 1.
struct conv_op_t {
    dnnl_primitive_kind_t kind;
    dnnl_alg_kind_t alg;
    float alpha, beta;
    int mask;
    int32_t zp;
};

struct prb_t {
    int sp = 2;
    dim mb = 1, g = 1, ic = 1, oc = 1; // totals
    dim i[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {0, 0, 0};
    dim pl[3] = {0, 0, 0}, pr[3] = {0, 0, 0};
    bool bias = false, deconv = false;
    unsigned attr = 0;
    layout_t layout = plain;
    std::vector<conv_op_t> ops; // appended after the attribute bits' chain
    float src_scale = 0.f; // nonzero: src scale (overrides the bits' scales)
    // Non-empty: weights / dst scales, one (mask 0) or one per oc.
    std::vector<float> wei_scales, dst_scales;

    dim o(int x) const {
        dim ext = (k[x] - 1) * (d[x] + 1) + 1;
        return deconv ? (i[x] - 1) * s[x] - pl[x] - pr[x] + ext : (i[x] - ext + pl[x] + pr[x]) / s[x] + 1;
    }
    std::string str() const {
        char b[256];
        std::snprintf(b, sizeof b,
                "%s sp%d mb%ld g%ld ic%ld oc%ld i%ldx%ldx%ld k%ldx%ldx%ld s%ldx%ldx%ld d%ldx%ldx%ld "
                "pl%ld,%ld,%ld pr%ld,%ld,%ld bias%d attr%u layout%d",
                deconv ? "deconv" : "conv", sp, (long)mb, (long)g, (long)ic, (long)oc, (long)i[0],
                (long)i[1], (long)i[2], (long)k[0], (long)k[1], (long)k[2], (long)s[0], (long)s[1],
                (long)s[2], (long)d[0], (long)d[1], (long)d[2], (long)pl[0], (long)pl[1],
                (long)pl[2], (long)pr[0], (long)pr[1], (long)pr[2], (int)bias, attr, (int)layout);
        return b;
    }
};

inline dnnl_format_tag_t data_tag(int nd, layout_t l) {
    static const dnnl_format_tag_t t[4][3] = {{dnnl_ncw, dnnl_nchw, dnnl_ncdhw},
            {dnnl_nwc, dnnl_nhwc, dnnl_ndhwc}, {dnnl_nCw16c, dnnl_nChw16c, dnnl_nCdhw16c},
            {dnnl_nCw8c, dnnl_nChw8c, dnnl_nCdhw8c}};
    return t[l][nd - 3];
}

inline dnnl_format_tag_t wei_tag(int nd, bool groups, layout_t l) {
    if (l == blocked16)
        return groups ? (nd == 3 ? dnnl_gOIw16i16o : nd == 4 ? dnnl_gOIhw16i16o : dnnl_gOIdhw16i16o)
                      : (nd == 3 ? dnnl_OIw16i16o : nd == 4 ? dnnl_OIhw16i16o : dnnl_OIdhw16i16o);
    if (l == blocked8)
        return groups ? (nd == 3 ? dnnl_gOIw8i8o : nd == 4 ? dnnl_gOIhw8i8o : dnnl_gOIdhw8i8o)
                      : (nd == 3 ? dnnl_OIw8i8o : nd == 4 ? dnnl_OIhw8i8o : dnnl_OIdhw8i8o);
    return groups ? (nd == 3 ? dnnl_goiw : nd == 4 ? dnnl_goihw : dnnl_goidhw)
                  : (nd == 3 ? dnnl_oiw : nd == 4 ? dnnl_oihw : dnnl_oidhw);
}

inline dnnl_memory_desc_t md(const std::vector<dim> &dims, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t m = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&m, (int)dims.size(), dims.data(), dnnl_f32, tag));
    return m;
}

struct built_t {
    kt::md_t src, wei, bias, dst;
    std::vector<kt::md_t *> bin;
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_primitive_desc_t pd = nullptr;
    ktc::values_t in;
    std::vector<float> dst_init;
    na::attr_t nattr; // the same attributes for the naive reference
    ~built_t() {
        dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(attr);
        for (auto *b : bin) delete b;
    }
};

inline std::vector<dim> src_dims(const prb_t &p) {
    std::vector<dim> v = {p.mb, p.ic};
    for (int x = 0; x < p.sp; ++x) v.push_back(p.i[x]);
    return v;
}
inline std::vector<dim> dst_dims(const prb_t &p) {
    std::vector<dim> v = {p.mb, p.oc};
    for (int x = 0; x < p.sp; ++x) v.push_back(p.o(x));
    return v;
}
inline std::vector<dim> wei_dims(const prb_t &p) {
    std::vector<dim> v;
    if (p.g > 1) v.push_back(p.g);
    v.push_back(p.oc / p.g);
    v.push_back(p.ic / p.g);
    for (int x = 0; x < p.sp; ++x) v.push_back(p.k[x]);
    return v;
}

inline size_t prod(const std::vector<dim> &v) {
    size_t n = 1;
    for (dim x : v) n *= (size_t)x;
    return n;
}

inline void fill_int(std::vector<float> &v, uint64_t seed, int lo, int hi) {
    kt::rng_t r(seed);
    for (auto &x : v) x = r.small_int(lo, hi);
}

// Creates the pd (first implementation) and logical inputs. Returns status.
inline dnnl_status_t build(ktc::env_t &env, const prb_t &p, built_t &b, bool floats = false) {
    const int nd = p.sp + 2;
    const bool groups = p.g > 1;
    auto sd = src_dims(p), dd = dst_dims(p), wd = wei_dims(p);
    b.src.h = md(sd, data_tag(nd, p.layout));
    b.dst.h = md(dd, data_tag(nd, p.layout));
    b.wei.h = md(wd, wei_tag(nd, groups, p.layout));
    if (p.bias) b.bias.h = md({p.oc}, dnnl_a);

    KT_OK(dnnl_primitive_attr_create(&b.attr));
    dnnl_post_ops_t po = nullptr;
    KT_OK(dnnl_post_ops_create(&po));
    std::vector<dim> bin_c(nd, 1), bin_t(nd, 1);
    bin_c[1] = p.oc;
    int idx = 0;
    uint64_t seed = 100;
    auto add_bin = [&](dnnl_alg_kind_t alg, const std::vector<dim> &dims) {
        b.bin.push_back(new kt::md_t(md(dims, data_tag(nd, plain))));
        KT_OK(dnnl_post_ops_append_binary(po, alg, *b.bin.back()));
        std::vector<float> v(prod(dims));
        fill_int(v, seed++, -2, 2);
        if (alg == dnnl_binary_div)
            for (auto &x : v) x = x >= 0 ? x + 1 : x; // no division by zero
        b.in[DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1] = v;
        b.nattr.post_ops.push_back(na::binary_op(alg, {na::dims_t(dims.begin(), dims.end()), v}));
        ++idx;
    };
    if (p.attr & a_sum) {
        KT_OK(dnnl_post_ops_append_sum(po, 0.5f, (p.attr & a_sum_zp) ? 1 : 0, dnnl_data_type_undef));
        b.nattr.post_ops.push_back(na::sum_op(0.5f, (p.attr & a_sum_zp) ? 1 : 0));
        ++idx;
    }
    if (p.attr & a_bin_c) add_bin(dnnl_binary_add, bin_c);
    if (p.attr & a_relu) {
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
        b.nattr.post_ops.push_back(na::eltwise_op(dnnl_eltwise_relu, 0.f, 0.f));
        ++idx;
    }
    if (p.attr & a_bin_t) add_bin(dnnl_binary_mul, bin_t);
    if (p.attr & a_bin_full) add_bin(dnnl_binary_max, dd);
    if (p.attr & a_tanh) {
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_tanh, 0.f, 0.f));
        b.nattr.post_ops.push_back(na::eltwise_op(dnnl_eltwise_tanh, 0.f, 0.f));
        ++idx;
    }
    for (const conv_op_t &o : p.ops) {
        if (o.kind == dnnl_eltwise) {
            KT_OK(dnnl_post_ops_append_eltwise(po, o.alg, o.alpha, o.beta));
            b.nattr.post_ops.push_back(na::eltwise_op(o.alg, o.alpha, o.beta));
            ++idx;
        } else if (o.kind == dnnl_sum) {
            KT_OK(dnnl_post_ops_append_sum(po, o.alpha, o.zp, dnnl_data_type_undef));
            b.nattr.post_ops.push_back(na::sum_op(o.alpha, o.zp));
            ++idx;
        } else {
            std::vector<dim> d1(nd, 1);
            for (int d = 0; d < nd; ++d)
                if ((o.mask >> d) & 1) d1[d] = dd[d];
            add_bin(o.alg, d1);
        }
    }
    KT_OK(dnnl_primitive_attr_set_post_ops(b.attr, po));
    dnnl_post_ops_destroy(po);
    const size_t und = (size_t)nd;
    if (p.src_scale != 0.f) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_SRC, 0));
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = {p.src_scale};
        b.nattr.src_scale = na::scalar(und, p.src_scale);
        if (!p.wei_scales.empty()) {
            const bool per_oc = p.wei_scales.size() > 1;
            KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_WEIGHTS, per_oc ? (groups ? 3 : 1) : 0));
            b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS] = p.wei_scales;
            b.nattr.wei_scale = per_oc ? na::along(und, 1, p.wei_scales) : na::scalar(und, p.wei_scales[0]);
        }
        if (!p.dst_scales.empty()) {
            const bool per_oc = p.dst_scales.size() > 1;
            KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_DST, per_oc ? 2 : 0));
            b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = p.dst_scales;
            b.nattr.dst_scale = per_oc ? na::along(und, 1, p.dst_scales) : na::scalar(und, p.dst_scales[0]);
        }
    } else if (p.attr & a_scales_common) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_SRC, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_WEIGHTS, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_DST, 0));
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = {0.5f};
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS] = {4.f};
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = {0.25f};
        b.nattr.src_scale = na::scalar(und, 0.5f);
        b.nattr.wei_scale = na::scalar(und, 4.f);
        b.nattr.dst_scale = na::scalar(und, 0.25f);
    } else if (p.attr & a_scales) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_SRC, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_WEIGHTS, groups ? 3 : 1));
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_DST, 0));
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = {0.5f};
        std::vector<float> ws(p.oc);
        for (dim c = 0; c < p.oc; ++c) ws[c] = (float)(1 << (c % 3)) * 0.5f;
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS] = ws;
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = {4.f};
        b.nattr.src_scale = na::scalar(und, 0.5f);
        b.nattr.wei_scale = na::along(und, 1, ws);
        b.nattr.dst_scale = na::scalar(und, 4.f);
    }

    std::vector<float> s(prod(sd)), w(prod(wd)), d(prod(dd));
    if (floats) {
        kt::fill(s, 1);
        kt::fill(w, 2);
    } else {
        fill_int(s, 1, -2, 2);
        fill_int(w, 2, -2, 2);
    }
    fill_int(d, 3, -3, 3);
    b.in[DNNL_ARG_SRC] = s;
    b.in[DNNL_ARG_WEIGHTS] = w;
    if (p.bias) {
        std::vector<float> bv(p.oc);
        fill_int(bv, 4, -3, 3);
        b.in[DNNL_ARG_BIAS] = bv;
    }
    b.dst_init = d;

    dim st[3], dl[3], pl[3], pr[3];
    for (int x = 0; x < 3; ++x) st[x] = p.s[x], dl[x] = p.d[x], pl[x] = p.pl[x], pr[x] = p.pr[x];
    auto fn = p.deconv ? dnnl_deconvolution_forward_primitive_desc_create
                       : dnnl_convolution_forward_primitive_desc_create;
    return fn(&b.pd, env.eng, dnnl_forward_inference,
            p.deconv ? dnnl_deconvolution_direct : dnnl_convolution_direct, b.src, b.wei,
            p.bias ? (const_dnnl_memory_desc_t)b.bias : nullptr, b.dst, st, dl, pl, pr, b.attr);
}


// Naive forward convolution / deconvolution on plain logical arrays, no
// attributes: an independent statement of the definitions, in double.
// abs_sum receives the sum of |products| of each output (error bounds).
inline void naive_acc(const prb_t &p, const std::vector<float> &s, const std::vector<float> &w,
        std::vector<double> &out, std::vector<double> &abs_sum) {
    dim I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, K[3] = {1, 1, 1}, S[3] = {1, 1, 1}, D[3] = {0, 0, 0}, P[3] = {0, 0, 0};
    for (int x = 0; x < p.sp; ++x) {
        int y = 3 - p.sp + x;
        I[y] = p.i[x], O[y] = p.o(x), K[y] = p.k[x], S[y] = p.s[x], D[y] = p.d[x], P[y] = p.pl[x];
    }
    const dim icg = p.ic / p.g, ocg = p.oc / p.g;
    out.assign(p.mb * p.oc * O[0] * O[1] * O[2], 0.0);
    abs_sum.assign(out.size(), 0.0);
    auto oidx = [&](dim n, dim c, dim a, dim b2, dim c2) { return (((n * p.oc + c) * O[0] + a) * O[1] + b2) * O[2] + c2; };
    auto iidx = [&](dim n, dim c, dim a, dim b2, dim c2) { return (((n * p.ic + c) * I[0] + a) * I[1] + b2) * I[2] + c2; };
    auto widx = [&](dim gg, dim o, dim i, dim a, dim b2, dim c2) {
        return ((((gg * ocg + o) * icg + i) * K[0] + a) * K[1] + b2) * K[2] + c2;
    };
    for (dim n = 0; n < p.mb; ++n)
        for (dim gg = 0; gg < p.g; ++gg)
            for (dim o = 0; o < ocg; ++o)
                for (dim i = 0; i < icg; ++i)
                    for (dim k0 = 0; k0 < K[0]; ++k0)
                        for (dim k1 = 0; k1 < K[1]; ++k1)
                            for (dim k2 = 0; k2 < K[2]; ++k2) {
                                const float wv = w[widx(gg, o, i, k0, k1, k2)];
                                if (!p.deconv) {
                                    for (dim a = 0; a < O[0]; ++a)
                                        for (dim b2 = 0; b2 < O[1]; ++b2)
                                            for (dim c2 = 0; c2 < O[2]; ++c2) {
                                                dim x0 = a * S[0] - P[0] + k0 * (D[0] + 1);
                                                dim x1 = b2 * S[1] - P[1] + k1 * (D[1] + 1);
                                                dim x2 = c2 * S[2] - P[2] + k2 * (D[2] + 1);
                                                if (x0 < 0 || x0 >= I[0] || x1 < 0 || x1 >= I[1] || x2 < 0 || x2 >= I[2]) continue;
                                                const double t = (double)wv * s[iidx(n, gg * icg + i, x0, x1, x2)];
                                                out[oidx(n, gg * ocg + o, a, b2, c2)] += t;
                                                abs_sum[oidx(n, gg * ocg + o, a, b2, c2)] += std::fabs(t);
                                            }
                                } else { // scatter each src point into dst
                                    for (dim a = 0; a < I[0]; ++a)
                                        for (dim b2 = 0; b2 < I[1]; ++b2)
                                            for (dim c2 = 0; c2 < I[2]; ++c2) {
                                                dim y0 = a * S[0] - P[0] + k0 * (D[0] + 1);
                                                dim y1 = b2 * S[1] - P[1] + k1 * (D[1] + 1);
                                                dim y2 = c2 * S[2] - P[2] + k2 * (D[2] + 1);
                                                if (y0 < 0 || y0 >= O[0] || y1 < 0 || y1 >= O[1] || y2 < 0 || y2 >= O[2]) continue;
                                                const double t = (double)wv * s[iidx(n, gg * icg + i, a, b2, c2)];
                                                out[oidx(n, gg * ocg + o, y0, y1, y2)] += t;
                                                abs_sum[oidx(n, gg * ocg + o, y0, y1, y2)] += std::fabs(t);
                                            }
                                }
                            }
}

inline prb_t p2d(dim mb, dim g, dim ic, dim oc, dim ih, dim iw, dim kh, dim kw, dim s, dim pad, dim dil = 0) {
    prb_t p;
    p.sp = 2;
    p.mb = mb, p.g = g, p.ic = ic, p.oc = oc;
    p.i[0] = ih, p.i[1] = iw, p.k[0] = kh, p.k[1] = kw;
    p.s[0] = p.s[1] = s;
    p.pl[0] = p.pl[1] = p.pr[0] = p.pr[1] = pad;
    p.d[0] = p.d[1] = dil;
    return p;
}

// Expected logical dst of problem p built into b, and per-element bounds
// (0 with exact data and an exact chain). With `floats` the accumulation is
// inexact: its bound is gamma_K * sum|products| (na::dot_error), K the
// number of products per output.
inline std::vector<float> expected(const prb_t &p, built_t &b, std::vector<double> &tol, bool floats = false) {
    std::vector<double> acc, abs_sum;
    naive_acc(p, b.in[DNNL_ARG_SRC], b.in[DNNL_ARG_WEIGHTS], acc, abs_sum);
    const int nd = p.sp + 2;
    na::bcast_t bias;
    if (p.bias) bias = na::along((size_t)nd, 1, b.in[DNNL_ARG_BIAS]);
    const auto dd = dst_dims(p);
    std::vector<double> err;
    if (floats) err = na::dot_error(abs_sum, (int64_t)(p.ic / p.g) * p.k[0] * p.k[1] * p.k[2]);
    return na::apply(b.nattr, na::dims_t(dd.begin(), dd.end()), acc, bias, b.dst_init, dnnl_f32,
            floats ? &err : nullptr, &tol);
}

} // namespace kc

#endif
