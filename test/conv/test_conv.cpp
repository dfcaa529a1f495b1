// Convolution / deconvolution forward: every implementation against the
// reference over a shape grid, and the reference against a naive loop
// written here.
//
// Data are small integers (|src|, |wei| <= 2, K = IC*KD*KH*KW <= 600), so
// every partial sum is an integer below 2^24 and exact in f32 whatever the
// summation order; scales are powers of two and bias/binary/sum operands are
// small integers, so the epilogue is exact too, and eltwise functions get
// bit-identical inputs. Hence results must be EQUAL, not close. One block of
// cases uses uniform floats with a tolerance derived from the summation.
#include <cstdio>

#include "conv/conv_harness.hpp"
#include "cpu/isa.hpp"

namespace {

using dim = dnnl_dim_t;

enum attr_bits : unsigned {
    a_relu = 1, a_sum = 2, a_bin_c = 4, a_bin_t = 8, a_tanh = 16, a_scales = 32, a_sum_zp = 64,
    a_bin_full = 128, a_scales_common = 256,
};

enum layout_t { plain, nhwc, blocked16, blocked8 };

struct prb_t {
    int sp = 2;
    dim mb = 1, g = 1, ic = 1, oc = 1; // totals
    dim i[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {0, 0, 0};
    dim pl[3] = {0, 0, 0}, pr[3] = {0, 0, 0};
    bool bias = false, deconv = false;
    unsigned attr = 0;
    layout_t layout = plain;

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

dnnl_format_tag_t data_tag(int nd, layout_t l) {
    static const dnnl_format_tag_t t[4][3] = {{dnnl_ncw, dnnl_nchw, dnnl_ncdhw},
            {dnnl_nwc, dnnl_nhwc, dnnl_ndhwc}, {dnnl_nCw16c, dnnl_nChw16c, dnnl_nCdhw16c},
            {dnnl_nCw8c, dnnl_nChw8c, dnnl_nCdhw8c}};
    return t[l][nd - 3];
}

dnnl_format_tag_t wei_tag(int nd, bool groups, layout_t l) {
    if (l == blocked16)
        return groups ? (nd == 3 ? dnnl_gOIw16i16o : nd == 4 ? dnnl_gOIhw16i16o : dnnl_gOIdhw16i16o)
                      : (nd == 3 ? dnnl_OIw16i16o : nd == 4 ? dnnl_OIhw16i16o : dnnl_OIdhw16i16o);
    if (l == blocked8)
        return groups ? (nd == 3 ? dnnl_gOIw8i8o : nd == 4 ? dnnl_gOIhw8i8o : dnnl_gOIdhw8i8o)
                      : (nd == 3 ? dnnl_OIw8i8o : nd == 4 ? dnnl_OIhw8i8o : dnnl_OIdhw8i8o);
    return groups ? (nd == 3 ? dnnl_goiw : nd == 4 ? dnnl_goihw : dnnl_goidhw)
                  : (nd == 3 ? dnnl_oiw : nd == 4 ? dnnl_oihw : dnnl_oidhw);
}

dnnl_memory_desc_t md(const std::vector<dim> &dims, dnnl_format_tag_t tag) {
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
    ~built_t() {
        dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(attr);
        for (auto *b : bin) delete b;
    }
};

std::vector<dim> src_dims(const prb_t &p) {
    std::vector<dim> v = {p.mb, p.ic};
    for (int x = 0; x < p.sp; ++x) v.push_back(p.i[x]);
    return v;
}
std::vector<dim> dst_dims(const prb_t &p) {
    std::vector<dim> v = {p.mb, p.oc};
    for (int x = 0; x < p.sp; ++x) v.push_back(p.o(x));
    return v;
}
std::vector<dim> wei_dims(const prb_t &p) {
    std::vector<dim> v;
    if (p.g > 1) v.push_back(p.g);
    v.push_back(p.oc / p.g);
    v.push_back(p.ic / p.g);
    for (int x = 0; x < p.sp; ++x) v.push_back(p.k[x]);
    return v;
}

size_t prod(const std::vector<dim> &v) {
    size_t n = 1;
    for (dim x : v) n *= (size_t)x;
    return n;
}

void fill_int(std::vector<float> &v, uint64_t seed, int lo, int hi) {
    kt::rng_t r(seed);
    for (auto &x : v) x = r.small_int(lo, hi);
}

// Creates the pd (first implementation) and logical inputs. Returns status.
dnnl_status_t build(ktc::env_t &env, const prb_t &p, built_t &b, bool floats = false) {
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
        b.in[DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1] = v;
        ++idx;
    };
    if (p.attr & a_sum) {
        KT_OK(dnnl_post_ops_append_sum(po, 0.5f, (p.attr & a_sum_zp) ? 1 : 0, dnnl_data_type_undef));
        ++idx;
    }
    if (p.attr & a_bin_c) add_bin(dnnl_binary_add, bin_c);
    if (p.attr & a_relu) {
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
        ++idx;
    }
    if (p.attr & a_bin_t) add_bin(dnnl_binary_mul, bin_t);
    if (p.attr & a_bin_full) add_bin(dnnl_binary_max, dd);
    if (p.attr & a_tanh) {
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_tanh, 0.f, 0.f));
        ++idx;
    }
    KT_OK(dnnl_primitive_attr_set_post_ops(b.attr, po));
    dnnl_post_ops_destroy(po);
    if (p.attr & a_scales_common) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_SRC, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_WEIGHTS, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_DST, 0));
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = {0.5f};
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS] = {4.f};
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = {0.25f};
    } else if (p.attr & a_scales) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_SRC, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_WEIGHTS, groups ? 3 : 1));
        KT_OK(dnnl_primitive_attr_set_scales_mask(b.attr, DNNL_ARG_DST, 0));
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = {0.5f};
        std::vector<float> ws(p.oc);
        for (dim c = 0; c < p.oc; ++c) ws[c] = (float)(1 << (c % 3)) * 0.5f;
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS] = ws;
        b.in[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = {4.f};
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
// attributes: an independent statement of the definitions.
std::vector<float> naive(const prb_t &p, const std::vector<float> &s, const std::vector<float> &w,
        const std::vector<float> *bias) {
    dim I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, K[3] = {1, 1, 1}, S[3] = {1, 1, 1}, D[3] = {0, 0, 0}, P[3] = {0, 0, 0};
    for (int x = 0; x < p.sp; ++x) {
        int y = 3 - p.sp + x;
        I[y] = p.i[x], O[y] = p.o(x), K[y] = p.k[x], S[y] = p.s[x], D[y] = p.d[x], P[y] = p.pl[x];
    }
    const dim icg = p.ic / p.g, ocg = p.oc / p.g;
    std::vector<float> out(p.mb * p.oc * O[0] * O[1] * O[2], 0.f);
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
                                                out[oidx(n, gg * ocg + o, a, b2, c2)] += wv * s[iidx(n, gg * icg + i, x0, x1, x2)];
                                            }
                                } else { // scatter each src point into dst
                                    for (dim a = 0; a < I[0]; ++a)
                                        for (dim b2 = 0; b2 < I[1]; ++b2)
                                            for (dim c2 = 0; c2 < I[2]; ++c2) {
                                                dim y0 = a * S[0] - P[0] + k0 * (D[0] + 1);
                                                dim y1 = b2 * S[1] - P[1] + k1 * (D[1] + 1);
                                                dim y2 = c2 * S[2] - P[2] + k2 * (D[2] + 1);
                                                if (y0 < 0 || y0 >= O[0] || y1 < 0 || y1 >= O[1] || y2 < 0 || y2 >= O[2]) continue;
                                                out[oidx(n, gg * ocg + o, y0, y1, y2)] += wv * s[iidx(n, gg * icg + i, a, b2, c2)];
                                            }
                                }
                            }
    if (bias)
        for (size_t l = 0; l < out.size(); ++l) out[l] += (*bias)[(l / (O[0] * O[1] * O[2])) % p.oc];
    return out;
}

bool equal(const std::vector<float> &a, const std::vector<float> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i]) && !(std::isnan(a[i]) && std::isnan(b[i]))) return false;
    return true;
}

// Runs every implementation; all must equal the reference exactly.
// Returns the names seen.
std::vector<std::string> compare_impls(ktc::env_t &env, const prb_t &p, kt::tally_t &t) {
    std::vector<std::string> names;
    built_t b;
    dnnl_status_t st = build(env, p, b);
    if (st != dnnl_success) {
        t.check(false, ("create: " + p.str()).c_str());
        return names;
    }
    auto r = ktc::exec_all(env, b.pd, b.in, b.dst_init);
    const std::string ref = p.deconv ? "ref:any:deconv" : "ref:any";
    bool have_ref = r.count(ref) == 1;
    t.check(have_ref, ("reference reached: " + p.str()).c_str());
    if (!have_ref) return names;
    for (auto &kv : r) {
        names.push_back(kv.first);
        if (kv.first == ref) continue;
        t.check(equal(kv.second, r[ref]), (kv.first + " == ref: " + p.str()).c_str());
    }
    return names;
}

prb_t p2d(dim mb, dim g, dim ic, dim oc, dim ih, dim iw, dim kh, dim kw, dim s, dim pad, dim dil = 0) {
    prb_t p;
    p.sp = 2;
    p.mb = mb, p.g = g, p.ic = ic, p.oc = oc;
    p.i[0] = ih, p.i[1] = iw, p.k[0] = kh, p.k[1] = kw;
    p.s[0] = p.s[1] = s;
    p.pl[0] = p.pl[1] = p.pr[0] = p.pr[1] = pad;
    p.d[0] = p.d[1] = dil;
    return p;
}

} // namespace

int main() {
    kt::tally_t t;
    ktc::env_t env;
    const bool avx512 = kestrel::isa::has(kestrel::isa::avx512);
    const bool avx2 = kestrel::isa::has(kestrel::isa::avx2);
    std::printf("isa: %s\n", kestrel::isa::name(kestrel::isa::effective()));

    // The grid: channel tails, odd sizes, padding > kernel, asymmetric
    // padding, strides 2/3, dilation, groups, 1D/3D, batch 1 and 2.
    std::vector<prb_t> grid;
    const dim chans[][2] = {{1, 16}, {3, 17}, {15, 33}, {16, 16}, {17, 3}, {33, 15}, {32, 48}};
    int n = 0;
    for (auto &c : chans) {
        prb_t p = p2d(1 + n % 2, 1, c[0], c[1], 7, 13 + n, 3, 3, 1, 1);
        p.bias = n % 2 == 0;
        grid.push_back(p);
        ++n;
    }
    grid.push_back(p2d(2, 1, 16, 32, 9, 30, 3, 3, 2, 1)); // stride 2, several tiles
    grid.push_back(p2d(1, 1, 17, 17, 11, 26, 5, 3, 3, 2)); // stride 3
    grid.push_back(p2d(1, 1, 16, 16, 5, 5, 2, 2, 1, 3)); // padding larger than kernel
    grid.push_back(p2d(2, 1, 8, 20, 10, 25, 3, 3, 1, 2, 1)); // dilation 1 (gap of 1)
    grid.push_back(p2d(1, 1, 16, 16, 12, 40, 3, 3, 1, 3, 2)); // dilation 2, wide rows
    grid.push_back(p2d(1, 1, 5, 7, 1, 20, 1, 1, 1, 0)); // 1x1, height 1
    grid.push_back(p2d(2, 2, 34, 18, 5, 7, 1, 1, 1, 0)); // 1x1 with groups
    grid.push_back(p2d(1, 1, 16, 16, 45, 45, 3, 3, 1, 1)); // im2col in several chunks
    grid.push_back(p2d(2, 2, 32, 32, 6, 14, 3, 3, 1, 1)); // groups, blocked-friendly
    grid.push_back(p2d(1, 3, 15, 21, 6, 7, 3, 3, 2, 1)); // groups, odd per-group channels
    grid.push_back(p2d(2, 8, 8, 8, 9, 9, 3, 3, 1, 1)); // depthwise
    grid.push_back(p2d(1, 16, 16, 32, 5, 8, 3, 3, 2, 1)); // depthwise with multiplier 2
    grid.push_back(p2d(1, 1, 24, 80, 5, 30, 3, 3, 1, 1)); // 5 oc blocks of 16: ragged tile group
    grid.push_back(p2d(2, 1, 40, 48, 13, 17, 1, 1, 1, 0)); // 1x1 over 221 points: several segments
    grid.push_back(p2d(1, 1, 8, 24, 3, 61, 1, 3, 1, 1)); // 1x3, wide row: full 24-column tiles
    {
        prb_t p = p2d(1, 1, 17, 19, 8, 15, 3, 4, 1, 0); // asymmetric padding, negative right pad
        p.pl[0] = 2, p.pr[0] = 0, p.pl[1] = 0, p.pr[1] = 3;
        grid.push_back(p);
        prb_t q = p2d(1, 1, 16, 16, 9, 9, 3, 3, 2, 0);
        q.pl[0] = q.pl[1] = 1, q.pr[0] = q.pr[1] = -1;
        grid.push_back(q);
    }
    {
        prb_t p; // 1D
        p.sp = 1, p.mb = 2, p.ic = 19, p.oc = 35, p.i[0] = 25, p.k[0] = 3, p.s[0] = 2, p.pl[0] = 1, p.pr[0] = 2;
        p.bias = true;
        grid.push_back(p);
        prb_t q; // 3D
        q.sp = 3, q.mb = 1, q.ic = 16, q.oc = 17;
        q.i[0] = 5, q.i[1] = 6, q.i[2] = 7, q.k[0] = 3, q.k[1] = 2, q.k[2] = 3;
        q.pl[0] = q.pl[2] = 1, q.pr[0] = q.pr[2] = 1, q.s[1] = 2, q.d[2] = 1;
        q.bias = true;
        grid.push_back(q);
    }
    const unsigned attrs[] = {0, a_relu, a_sum | a_relu, a_bin_c, a_bin_t | a_tanh, a_scales,
            a_sum | a_sum_zp | a_bin_c | a_relu | a_scales, a_bin_full,
            a_sum | a_sum_zp | a_scales_common | a_bin_c | a_tanh, a_scales_common | a_bin_t};
    const int nattrs = sizeof(attrs) / sizeof(attrs[0]);

    bool direct_seen = false, direct8_seen = false, gemm_1x1_seen = false, im2col_seen = false, col2im_seen = false;
    bool col2im_nhwc_seen = false, col2im_sum_seen = false;
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            int ai = 0;
            for (const prb_t &base : grid) {
                for (layout_t l : {blocked16, blocked8, plain, nhwc}) {
                    prb_t p = base;
                    p.layout = l;
                    // Every case once without attributes, plus a rotating
                    // attribute set so every set meets several shapes.
                    for (unsigned a : {0u, attrs[ai++ % nattrs]}) {
                        p.attr = a;
                        p.bias = base.bias || (a & a_scales);
                        auto names = compare_impls(env, p, t);
                        for (auto &s : names) {
                            direct_seen |= s == "direct:avx512:nCx16c";
                            direct8_seen |= s == "direct:avx2:nCx8c";
                            gemm_1x1_seen |= s == "gemm:1x1";
                            im2col_seen |= s == "gemm:im2col";
                        }
                        if (l == blocked16 && avx512 && (p.g == 1 || (p.ic / p.g % 16 == 0 && p.oc / p.g % 16 == 0)))
                            t.check(!names.empty() && names[0] == "direct:avx512:nCx16c",
                                    ("direct kernel first: " + p.str()).c_str());
                        if (l == blocked8 && avx2 && (p.g == 1 || (p.ic / p.g % 8 == 0 && p.oc / p.g % 8 == 0)))
                            t.check(!names.empty() && names[0] == "direct:avx2:nCx8c",
                                    ("direct 8c kernel first: " + p.str()).c_str());
                        if (a == 0 && l != plain) break;
                    }
                }
            }
        });
    }
    if (avx512) t.check(direct_seen, "direct kernel exercised");
    if (avx2) t.check(direct8_seen, "direct 8c kernel exercised");
    t.check(gemm_1x1_seen, "gemm 1x1 exercised");
    t.check(im2col_seen, "gemm im2col exercised");

    // Every attribute set on blocked shapes with a channel tail, and on a
    // flattened 1x1 (the post-op chain is cut where a w-row ends).
    for (unsigned a : attrs)
        for (layout_t l : {blocked16, blocked8})
            for (prb_t p : {p2d(2, 1, 17, 33, 6, 15, 3, 3, 1, 1), p2d(1, 1, 20, 35, 5, 7, 1, 1, 1, 0)}) {
                p.layout = l, p.attr = a, p.bias = true;
                compare_impls(env, p, t);
            }

    // The reference against the naive loop (plain layouts, no attributes),
    // convolution and deconvolution.
    std::vector<prb_t> naive_cases = {p2d(2, 1, 3, 5, 7, 9, 3, 3, 1, 1), p2d(1, 2, 4, 6, 8, 7, 3, 2, 2, 1, 1),
            p2d(1, 1, 2, 3, 5, 6, 2, 3, 3, 2)};
    {
        prb_t q; // 3D with stride and dilation
        q.sp = 3, q.ic = 3, q.oc = 2, q.i[0] = 4, q.i[1] = 5, q.i[2] = 6, q.k[0] = 2, q.k[1] = 3, q.k[2] = 2;
        q.s[0] = 2, q.d[1] = 1, q.pl[2] = 1, q.pr[2] = 1;
        naive_cases.push_back(q);
        prb_t r; // 1D
        r.sp = 1, r.mb = 2, r.ic = 4, r.oc = 3, r.i[0] = 11, r.k[0] = 4, r.s[0] = 3, r.pl[0] = 2, r.pr[0] = 1;
        naive_cases.push_back(r);
    }
    for (bool deconv : {false, true}) {
        for (prb_t p : naive_cases) {
            p.deconv = deconv;
            for (bool bias : {false, true}) {
                p.bias = bias;
                built_t b;
                KT_OK(build(env, p, b));
                auto got = ktc::exec_pd(env, b.pd, b.in, b.dst_init);
                auto want = naive(p, b.in[DNNL_ARG_SRC], b.in[DNNL_ARG_WEIGHTS], bias ? &b.in[DNNL_ARG_BIAS] : nullptr);
                t.check(equal(got, want), ("ref == naive: " + p.str()).c_str());
            }
        }
    }

    // Deconvolution: every implementation against the reference, with
    // attributes and layouts.
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            std::vector<prb_t> dg = {p2d(2, 1, 17, 16, 5, 7, 3, 3, 1, 1), p2d(1, 1, 16, 33, 4, 6, 3, 3, 2, 1),
                    p2d(1, 2, 32, 32, 4, 5, 4, 4, 2, 1), p2d(1, 3, 6, 9, 5, 5, 3, 2, 3, 0, 1),
                    p2d(2, 1, 3, 5, 9, 8, 2, 3, 3, 2), // stride > kernel: some dst untouched
                    p2d(1, 1, 8, 16, 45, 45, 3, 3, 1, 1)}; // col2im in several chunks
            {
                prb_t q; // 1D and 3D
                q.sp = 1, q.mb = 2, q.ic = 5, q.oc = 7, q.i[0] = 9, q.k[0] = 3, q.s[0] = 2, q.pl[0] = 1, q.pr[0] = 0;
                dg.push_back(q);
                prb_t r;
                r.sp = 3, r.ic = 4, r.oc = 6, r.i[0] = 3, r.i[1] = 4, r.i[2] = 5, r.k[0] = 2, r.k[1] = 3, r.k[2] = 2;
                r.s[0] = 2, r.d[2] = 1, r.pl[1] = 1, r.pr[1] = 1;
                dg.push_back(r);
            }
            int ai = 0;
            for (prb_t p : dg) {
                p.deconv = true;
                for (layout_t l : {plain, nhwc, blocked16}) {
                    p.layout = l;
                    // Beyond the rotating set: a leading sum (folded into
                    // dst's start) with bias, relu and dst scales.
                    for (unsigned a : {0u, attrs[ai++ % nattrs], (unsigned)(a_sum | a_sum_zp | a_relu | a_bin_t)}) {
                        p.attr = a;
                        p.bias = a != 0;
                        for (auto &s : compare_impls(env, p, t)) {
                            col2im_seen |= s == "gemm:col2im:deconv";
                            if (s == "gemm:col2im:deconv") {
                                col2im_nhwc_seen |= l == nhwc;
                                col2im_sum_seen |= (a & a_sum) != 0;
                            }
                        }
                    }
                }
            }
        });
    }

    t.check(col2im_seen, "gemm col2im deconvolution exercised");
    t.check(col2im_nhwc_seen, "gemm col2im deconvolution on nhwc exercised");
    t.check(col2im_sum_seen, "gemm col2im deconvolution with a sum post-op exercised");

    // Uniform floats: the sums are no longer exact. Each output is a sum of
    // K products; one implementation's error (product and summation
    // rounding, any order, with or without FMA) is at most
    // K * eps * sum|products| <= K * eps * K since |src|,|wei| < 1, so two
    // differ by at most 2 * K^2 * eps, plus 2 * eps * (K + 3) from rounding
    // the bias addition (|bias| <= 3).
    for (prb_t p : {p2d(2, 1, 33, 17, 7, 19, 3, 3, 1, 1), p2d(1, 2, 32, 64, 6, 9, 5, 5, 2, 2),
                 p2d(1, 1, 33, 17, 7, 19, 3, 3, 1, 1)}) {
        p.layout = p.mb == 1 && p.g == 1 ? blocked8 : blocked16;
        p.bias = true;
        built_t b;
        KT_OK(build(env, p, b, true));
        auto r = ktc::exec_all(env, b.pd, b.in, b.dst_init);
        const double K = (double)(p.ic / p.g) * p.k[0] * p.k[1];
        const double tol = 2.0 * (K * K + K + 3) * 1.1920929e-7;
        for (auto &kv : r) {
            if (kv.first == "ref:any") continue;
            auto &x = kv.second, &y = r["ref:any"];
            double worst = 0;
            for (size_t i = 0; i < x.size(); ++i) worst = std::fmax(worst, std::fabs((double)x[i] - y[i]));
            t.check(worst <= tol, (kv.first + " floats within 2*(K^2+K+3)*eps: " + p.str()).c_str());
        }
    }
    return t.finish();
}
