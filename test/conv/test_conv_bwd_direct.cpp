// Convolution backward data on channel-blocked data (nCx16c, nCx8c) through
// the direct kernels ("direct:avx512:nCx16c:bwd_d", "direct:avx2:nCx8c:bwd_d"),
// and the problems they leave to the GEMM path.
//
// Each case names the implementation it must get (from the effective ISA:
// test_conv_bwd_isa.sh reruns this with the ISA capped at AVX2 and SSE41),
// so the direct path cannot be skipped silently, and compares diff_src
// with a naive gather written here (double precision, logical indices, its
// own layout arithmetic) within a bound derived from f32 summation. Every
// case runs on 1 and 2 threads, in library, user and private scratchpad
// modes. Shapes: channels not multiples of the block (padded blocks, and
// the padding of diff_src must come out zero), padding on every side and
// asymmetric, 1x1 / 3x3 / 5x5, dilation, 1D / 2D / 3D, groups, enough
// channels that the driver sums input blocks in passes (its per-thread
// partial rows share the scratchpad with the swapped weights), rows longer
// than one register tile; user weights plain, [g]OIx<b>i<b>o and
// [g]OIx<b>o<b>i. Declined: stride 2, padding wider than the kernel,
// groups whose channels are not whole blocks. One primitive also runs on
// four threads at once.
//
// Backward weights on nCx16c ("direct:avx512:nCx16c:bwd_w", per-thread
// partials summed at the end) likewise: diff_weights (every layout above)
// and diff_bias against a naive sum, any stride, dilation and padding,
// groups; nCx8c and groups of partial blocks stay with the GEMM path.
#include <algorithm>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "common/kt_test.hpp"
#include "core/primitive.hpp"

namespace {

using dim = dnnl_dim_t;
const double eps_f32 = 1.0 / (1 << 24);
const char *const gemm_name = "gemm:col2im:bwd_d";

enum wei_layout_t { w_plain, w_io, w_oi }; // [g]oix, [g]OIx<b>i<b>o, [g]OIx<b>o<b>i

struct prb_t {
    int sp; // spatial dims
    dim mb, g, icg, ocg;
    dim in[3], k[3], s[3], d[3], pl[3], pr[3];
    int blk; // data block: 16 or 8
    wei_layout_t wl;
    int wb; // weights block (w_io / w_oi)
    bool direct; // the direct path serves it when the ISA allows
    dnnl_data_type_t dt = dnnl_f32;
    dim out[3] = {1, 1, 1};

    void finish() {
        for (int i = 0; i < sp; ++i) out[i] = (in[i] + pl[i] + pr[i] - (k[i] - 1) * (d[i] + 1) - 1) / s[i] + 1;
    }
    dim ic() const { return g * icg; }
    dim oc() const { return g * ocg; }
    static dim prod(const dim *v, int n) {
        dim r = 1;
        for (int i = 0; i < n; ++i) r *= v[i];
        return r;
    }
    dim isp() const { return prod(in, sp); }
    dim osp() const { return prod(out, sp); }
    dim ks() const { return prod(k, sp); }
};

// Spatial sizes padded to three dims with leading ones, so every loop
// below is 3D.
prb_t to3d(prb_t p) {
    for (int i = 2; i >= 0; --i) {
        const int j = i - (3 - p.sp);
        const bool have = j >= 0;
        p.in[i] = have ? p.in[j] : 1, p.k[i] = have ? p.k[j] : 1, p.s[i] = have ? p.s[j] : 1;
        p.d[i] = have ? p.d[j] : 0, p.pl[i] = have ? p.pl[j] : 0, p.pr[i] = have ? p.pr[j] : 0;
        p.out[i] = have ? p.out[j] : 1;
    }
    p.sp = 3;
    return p;
}

dim rnd(dim x, dim b) { return (x + b - 1) / b * b; }

// Stored offsets, as this test understands the layouts (q: point index).
dim data_off(const prb_t &p, dim C, dim SP, dim n, dim c, dim q) {
    const dim b = p.blk;
    return ((n * (rnd(C, b) / b) + c / b) * SP + q) * b + c % b;
}
size_t data_elems(const prb_t &p, dim C, dim SP) { return (size_t)(p.mb * rnd(C, p.blk) * SP); }
dim wei_off(const prb_t &p, dim gr, dim oc, dim ic, dim kk) {
    if (p.wl == w_plain) return ((gr * p.ocg + oc) * p.icg + ic) * p.ks() + kk;
    const dim b = p.wb, OB = rnd(p.ocg, b) / b, IB = rnd(p.icg, b) / b;
    const dim inner = p.wl == w_io ? (ic % b) * b + oc % b : (oc % b) * b + ic % b;
    return (((gr * OB + oc / b) * IB + ic / b) * p.ks() + kk) * b * b + inner;
}
size_t wei_elems(const prb_t &p) {
    if (p.wl == w_plain) return (size_t)(p.g * p.ocg * p.icg * p.ks());
    return (size_t)(p.g * rnd(p.ocg, p.wb) * rnd(p.icg, p.wb) * p.ks());
}

dnnl_format_tag_t data_tag(const prb_t &p) {
    const dnnl_format_tag_t t16[3] = {dnnl_nCw16c, dnnl_nChw16c, dnnl_nCdhw16c};
    const dnnl_format_tag_t t8[3] = {dnnl_nCw8c, dnnl_nChw8c, dnnl_nCdhw8c};
    return p.blk == 16 ? t16[p.sp - 1] : t8[p.sp - 1];
}
dnnl_format_tag_t wei_tag(const prb_t &p) {
    const int gi = p.g > 1 ? 1 : 0, si = p.sp - 1;
    const dnnl_format_tag_t plain[2][3] = {{dnnl_oiw, dnnl_oihw, dnnl_oidhw}, {dnnl_goiw, dnnl_goihw, dnnl_goidhw}};
    const dnnl_format_tag_t io16[2][3] = {{dnnl_OIw16i16o, dnnl_OIhw16i16o, dnnl_OIdhw16i16o},
            {dnnl_gOIw16i16o, dnnl_gOIhw16i16o, dnnl_gOIdhw16i16o}};
    const dnnl_format_tag_t oi16[2][3] = {{dnnl_OIw16o16i, dnnl_OIhw16o16i, dnnl_OIdhw16o16i},
            {dnnl_gOIw16o16i, dnnl_gOIhw16o16i, dnnl_gOIdhw16o16i}};
    const dnnl_format_tag_t io8[2][3] = {
            {dnnl_OIw8i8o, dnnl_OIhw8i8o, dnnl_OIdhw8i8o}, {dnnl_gOIw8i8o, dnnl_gOIhw8i8o, dnnl_gOIdhw8i8o}};
    const dnnl_format_tag_t oi8[2][3] = {
            {dnnl_OIw8o8i, dnnl_OIhw8o8i, dnnl_OIdhw8o8i}, {dnnl_gOIw8o8i, dnnl_gOIhw8o8i, dnnl_gOIdhw8o8i}};
    if (p.wl == w_plain) return plain[gi][si];
    if (p.wl == w_io) return p.wb == 16 ? io16[gi][si] : io8[gi][si];
    return p.wb == 16 ? oi16[gi][si] : oi8[gi][si];
}

std::string expected_impl(const prb_t &p) {
    if (!p.direct) return gemm_name;
    const unsigned isa = (unsigned)dnnl_get_effective_cpu_isa();
    const bool avx512 = (isa & (unsigned)dnnl_cpu_isa_avx512_core) == (unsigned)dnnl_cpu_isa_avx512_core;
    const bool avx2 = (isa & (unsigned)dnnl_cpu_isa_avx2) == (unsigned)dnnl_cpu_isa_avx2;
    if (p.blk == 16) return avx512 ? "direct:avx512:nCx16c:bwd_d" : gemm_name;
    return avx2 ? "direct:avx2:nCx8c:bwd_d" : gemm_name;
}

// Naive gather: diff_src(n, g, ic, i) = sum over oc, taps k and dst points
// o with o * s - pl + k * (d + 1) = i of W(g, oc, ic, k) * diff_dst(n, g, oc, o).
// Also the sum of |terms| and their count per element, for the bound.
struct ref_t {
    std::vector<double> val, absum;
    std::vector<int> nterms;
};
ref_t reference(const prb_t &p3, const std::vector<double> &w, const std::vector<double> &dd) {
    const prb_t &p = p3;
    const size_t n_src = (size_t)(p.mb * p.ic() * p.isp());
    ref_t r {std::vector<double>(n_src, 0.0), std::vector<double>(n_src, 0.0), std::vector<int>(n_src, 0)};
    for (dim n = 0; n < p.mb; ++n)
        for (dim gr = 0; gr < p.g; ++gr)
            for (dim ic = 0; ic < p.icg; ++ic)
                for (dim id = 0; id < p.in[0]; ++id)
                    for (dim ih = 0; ih < p.in[1]; ++ih)
                        for (dim iw = 0; iw < p.in[2]; ++iw) {
                            const size_t si = (size_t)(((n * p.ic() + gr * p.icg + ic) * p.in[0] + id) * p.in[1] + ih)
                                            * p.in[2] + iw;
                            const dim ipos[3] = {id, ih, iw};
                            for (dim oc = 0; oc < p.ocg; ++oc)
                                for (dim kd = 0; kd < p.k[0]; ++kd)
                                    for (dim kh = 0; kh < p.k[1]; ++kh)
                                        for (dim kw = 0; kw < p.k[2]; ++kw) {
                                            const dim kp[3] = {kd, kh, kw};
                                            dim o[3];
                                            bool hit = true;
                                            for (int a = 0; a < 3 && hit; ++a) {
                                                const dim t = ipos[a] + p.pl[a] - kp[a] * (p.d[a] + 1);
                                                hit = t >= 0 && t % p.s[a] == 0 && t / p.s[a] < p.out[a];
                                                o[a] = t / p.s[a];
                                            }
                                            if (!hit) continue;
                                            const dim kk = (kd * p.k[1] + kh) * p.k[2] + kw;
                                            const double wv = w[(size_t)(((gr * p.ocg + oc) * p.icg + ic) * p.ks() + kk)];
                                            const double dv = dd[(size_t)((((n * p.oc() + gr * p.ocg + oc) * p.out[0]
                                                                                   + o[0]) * p.out[1] + o[1])
                                                                                   * p.out[2] + o[2])];
                                            r.val[si] += wv * dv;
                                            r.absum[si] += std::fabs(wv * dv);
                                            ++r.nterms[si];
                                        }
                        }
    return r;
}

// |got - exact| allowed: m products, each rounded once, summed in f32 in
// any order: at most (m + 1) * eps * sum|terms|.
double tol(const ref_t &r, size_t i) { return (r.nterms[i] + 1) * eps_f32 * r.absum[i] + 1e-30; }

enum mode_t { lib_mode, user_mode, private_mode };

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

// The descriptors of a problem; data `any` when asked (with or without
// a forward hint).
struct descs_t {
    kt::md_t src, wei, dst;
    dim strides[3], dil[3], pl[3], pr[3];
    descs_t(const prb_t &p, bool data_any) {
        dnnl_dims_t sd = {p.mb, p.ic()}, dd = {p.mb, p.oc()}, wd = {};
        int wn = 0;
        if (p.g > 1) wd[wn++] = p.g;
        wd[wn++] = p.ocg;
        wd[wn++] = p.icg;
        for (int i = 0; i < p.sp; ++i) {
            sd[2 + i] = p.in[i], dd[2 + i] = p.out[i], wd[wn++] = p.k[i];
            strides[i] = p.s[i], dil[i] = p.d[i], pl[i] = p.pl[i], pr[i] = p.pr[i];
        }
        const dnnl_format_tag_t dt = data_any ? dnnl_format_tag_any : data_tag(p);
        KT_OK(dnnl_memory_desc_create_with_tag(&src.h, 2 + p.sp, sd, p.dt, dt));
        KT_OK(dnnl_memory_desc_create_with_tag(&dst.h, 2 + p.sp, dd, p.dt, dt));
        KT_OK(dnnl_memory_desc_create_with_tag(&wei.h, wn, wd, p.dt, wei_tag(p)));
    }
};

dnnl_status_t create_bwd_d(const env_t &E, const descs_t &d, const_dnnl_primitive_desc_t hint,
        const_dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd) {
    return dnnl_convolution_backward_data_primitive_desc_create(pd, E.eng, dnnl_convolution_direct, d.src, d.wei,
            d.dst, d.strides, d.dil, d.pl, d.pr, hint, attr);
}

struct mem_t {
    dnnl_memory_t h = nullptr;
    mem_t(const env_t &E, const_dnnl_memory_desc_t md, void *ptr) { KT_OK(dnnl_memory_create(&h, md, E.eng, ptr)); }
    mem_t(const mem_t &) = delete;
    ~mem_t() { dnnl_memory_destroy(h); }
};

// One backward-data run in `mode`; diff_src comes back in logical order in
// `got`; false when a status is not success or the padding of diff_src's
// last channel block is not zero.
bool run(const env_t &E, const prb_t &p, mode_t mode, const std::vector<float> &wei_st,
        const std::vector<float> &dd_st, std::vector<float> &got, std::string &impl) {
    kestrel::set_library_scratchpad_policy(mode == private_mode ? kestrel::scratchpad_policy_t::private_buffer
                                                                : kestrel::scratchpad_policy_t::global_arena);
    descs_t d(p, false);
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    if (mode == user_mode) KT_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    dnnl_primitive_desc_t pd;
    KT_OK(create_bwd_d(E, d, nullptr, attr, &pd));
    dnnl_primitive_attr_destroy(attr);
    impl = kt::impl_name(pd);
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<float> ds(data_elems(p, p.ic(), p.isp()), -77.f); // overwritten, padding included
    std::vector<float> w = wei_st, dd = dd_st;
    bool ok;
    {
        mem_t m_dd(E, d.dst, dd.data()), m_w(E, d.wei, w.data()), m_ds(E, d.src, ds.data());
        const_dnnl_memory_desc_t spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        mem_t m_sp(E, spmd, DNNL_MEMORY_ALLOCATE);
        std::vector<dnnl_exec_arg_t> args = {
                {DNNL_ARG_DIFF_DST, m_dd.h}, {DNNL_ARG_WEIGHTS, m_w.h}, {DNNL_ARG_DIFF_SRC, m_ds.h}};
        if (mode == user_mode) args.push_back({DNNL_ARG_SCRATCHPAD, m_sp.h});
        ok = dnnl_primitive_execute(prim, E.strm, (int)args.size(), args.data()) == dnnl_success
                && dnnl_stream_wait(E.strm) == dnnl_success;
    }
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    kestrel::set_library_scratchpad_policy(kestrel::scratchpad_policy_t::global_arena);
    const prb_t p3 = to3d(p);
    got.assign((size_t)(p.mb * p.ic() * p.isp()), 0.f);
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < rnd(p.ic(), p.blk); ++c)
            for (dim q = 0; q < p3.isp(); ++q) {
                const float v = ds[(size_t)data_off(p, p.ic(), p3.isp(), n, c, q)];
                if (c < p.ic())
                    got[(size_t)((n * p.ic() + c) * p3.isp() + q)] = v;
                else
                    ok = ok && v == 0.f;
            }
    return ok;
}

bool within(const std::vector<float> &got, const ref_t &r) {
    for (size_t i = 0; i < got.size(); ++i)
        if (!(std::fabs(got[i] - r.val[i]) <= tol(r, i))) {
            std::fprintf(stderr, "  [%zu] got %.9g want %.9g tol %.3g\n", i, got[i], r.val[i], tol(r, i));
            return false;
        }
    return true;
}

void check_case(const env_t &E, kt::tally_t &t, prb_t p, int idx) {
    p.finish();
    const prb_t p3 = to3d(p);
    const size_t nw = (size_t)(p.g * p.ocg * p.icg * p.ks()), nd = (size_t)(p.mb * p.oc() * p3.osp());
    kt::rng_t rng(1000 + idx);
    std::vector<double> w(nw), dd(nd);
    for (auto &x : w) x = rng.uniform(-1.f, 1.f);
    for (auto &x : dd) x = rng.uniform(-1.f, 1.f);
    // Stored tensors; padding of blocked weights and diff_dst holds NaN,
    // which the library must never read into a valid result.
    std::vector<float> w_st(wei_elems(p), p.wl == w_plain ? 0.f : NAN);
    std::vector<float> dd_st(data_elems(p, p.oc(), p3.osp()), NAN);
    for (dim gr = 0; gr < p.g; ++gr)
        for (dim oc = 0; oc < p.ocg; ++oc)
            for (dim ic = 0; ic < p.icg; ++ic)
                for (dim kk = 0; kk < p.ks(); ++kk)
                    w_st[(size_t)wei_off(p, gr, oc, ic, kk)]
                            = (float)w[(size_t)(((gr * p.ocg + oc) * p.icg + ic) * p.ks() + kk)];
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.oc(); ++c)
            for (dim q = 0; q < p3.osp(); ++q)
                dd_st[(size_t)data_off(p, p.oc(), p3.osp(), n, c, q)] = (float)dd[(size_t)((n * p.oc() + c) * p3.osp() + q)];
    const ref_t r = reference(p3, w, dd);
    const std::string want = expected_impl(p);

    struct cfg_t {
        int nthr;
        mode_t mode;
        const char *what;
    } cfgs[] = {{1, lib_mode, "1 thread, library"}, {2, lib_mode, "2 threads, library"},
            {2, user_mode, "2 threads, user scratchpad"}, {2, private_mode, "2 threads, private scratchpad"}};
    for (const auto &c : cfgs) {
        std::vector<float> got;
        std::string impl;
        bool ok = false;
        kt::with_threads(c.nthr, [&] { ok = run(E, p, c.mode, w_st, dd_st, got, impl); });
        char what[256];
        std::snprintf(what, sizeof what, "case %d (%s): implementation %s (got %s)", idx, c.what, want.c_str(),
                impl.c_str());
        t.check(impl == want, what);
        std::snprintf(what, sizeof what, "case %d (%s): executes, diff_src padding zero", idx, c.what);
        t.check(ok, what);
        std::snprintf(what, sizeof what, "case %d (%s): diff_src vs naive gather", idx, c.what);
        t.check(within(got, r), what);
    }
}

// Data `any`: blocked when the forward hint runs blocked (then the direct
// path), plain without a hint (then the GEMM path, as before).
void check_any(const env_t &E, kt::tally_t &t) {
    prb_t p {2, 2, 1, 16, 32, {6, 7}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 16, w_io, 16, true};
    p.finish();
    const std::string want = expected_impl(p);
    if (want == gemm_name) return; // no blocked forward to hint with
    descs_t fixed(p, false), any(p, true);
    dnnl_primitive_desc_t fpd, bpd, bpd_nohint;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&fpd, E.eng, dnnl_forward_training, dnnl_convolution_direct,
            fixed.src, fixed.wei, nullptr, fixed.dst, fixed.strides, fixed.dil, fixed.pl, fixed.pr, nullptr));
    KT_OK(create_bwd_d(E, any, fpd, nullptr, &bpd));
    KT_OK(create_bwd_d(E, any, nullptr, nullptr, &bpd_nohint));
    t.check(kt::impl_name(bpd) == want
                    && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0), fixed.src)
                    && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_dst_md, 0), fixed.dst),
            "data any with a blocked forward hint: direct, blocked diff_src / diff_dst");
    t.check(kt::impl_name(bpd_nohint) == gemm_name, "data any without a hint: the GEMM path");
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(bpd);
    dnnl_primitive_desc_destroy(bpd_nohint);
}

// ------------------------------------------------------- backward weights

std::string expected_impl_w(const prb_t &p) {
    if (!p.direct) return "gemm:im2col:bwd_w";
    const unsigned isa = (unsigned)dnnl_get_effective_cpu_isa();
    const bool avx512 = (isa & (unsigned)dnnl_cpu_isa_avx512_core) == (unsigned)dnnl_cpu_isa_avx512_core;
    return avx512 && p.blk == 16 ? "direct:avx512:nCx16c:bwd_w" : "gemm:im2col:bwd_w";
}

// Naive: dW(g, oc, ic, k) = sum over images and dst points o of
// src(n, g, ic, o * s - pl + k * (d + 1)) * diff_dst(n, g, oc, o) (inside
// src); diff_bias(c) = sum of diff_dst over images and points.
void reference_w(const prb_t &p, const std::vector<double> &src, const std::vector<double> &dd, ref_t &rw, ref_t &rb) {
    const size_t nw = (size_t)(p.g * p.ocg * p.icg * p.ks());
    rw = ref_t {std::vector<double>(nw, 0.0), std::vector<double>(nw, 0.0), std::vector<int>(nw, 0)};
    const size_t nb = (size_t)p.oc();
    rb = ref_t {std::vector<double>(nb, 0.0), std::vector<double>(nb, 0.0), std::vector<int>(nb, 0)};
    for (dim n = 0; n < p.mb; ++n)
        for (dim gr = 0; gr < p.g; ++gr)
            for (dim oc = 0; oc < p.ocg; ++oc)
                for (dim od = 0; od < p.out[0]; ++od)
                    for (dim oh = 0; oh < p.out[1]; ++oh)
                        for (dim ow = 0; ow < p.out[2]; ++ow) {
                            const dim c = gr * p.ocg + oc;
                            const double dv = dd[(size_t)((((n * p.oc() + c) * p.out[0] + od) * p.out[1] + oh) * p.out[2] + ow)];
                            rb.val[c] += dv, rb.absum[c] += std::fabs(dv), ++rb.nterms[c];
                            for (dim ic = 0; ic < p.icg; ++ic)
                                for (dim kd = 0; kd < p.k[0]; ++kd)
                                    for (dim kh = 0; kh < p.k[1]; ++kh)
                                        for (dim kw = 0; kw < p.k[2]; ++kw) {
                                            const dim id = od * p.s[0] - p.pl[0] + kd * (p.d[0] + 1);
                                            const dim ih = oh * p.s[1] - p.pl[1] + kh * (p.d[1] + 1);
                                            const dim iw = ow * p.s[2] - p.pl[2] + kw * (p.d[2] + 1);
                                            if (id < 0 || id >= p.in[0] || ih < 0 || ih >= p.in[1] || iw < 0 || iw >= p.in[2])
                                                continue;
                                            const double sv = src[(size_t)((((n * p.ic() + gr * p.icg + ic) * p.in[0] + id)
                                                                                   * p.in[1] + ih) * p.in[2] + iw)];
                                            const size_t wi = (size_t)(((gr * p.ocg + oc) * p.icg + ic) * p.ks()
                                                    + (kd * p.k[1] + kh) * p.k[2] + kw);
                                            rw.val[wi] += sv * dv, rw.absum[wi] += std::fabs(sv * dv), ++rw.nterms[wi];
                                        }
                        }
}

// One backward-weights run in `mode`; diff_weights and diff_bias come back
// in logical order.
bool run_w(const env_t &E, const prb_t &p, bool bias, mode_t mode, const std::vector<float> &src_st,
        const std::vector<float> &dd_st, std::vector<float> &gw, std::vector<float> &gb, std::string &impl) {
    kestrel::set_library_scratchpad_policy(mode == private_mode ? kestrel::scratchpad_policy_t::private_buffer
                                                                : kestrel::scratchpad_policy_t::global_arena);
    descs_t d(p, false);
    const dnnl_dims_t bd = {p.oc()};
    kt::md_t bmd;
    KT_OK(dnnl_memory_desc_create_with_tag(&bmd.h, 1, bd, dnnl_f32, dnnl_a));
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    if (mode == user_mode) KT_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_convolution_backward_weights_primitive_desc_create(&pd, E.eng, dnnl_convolution_direct, d.src, d.wei,
            bias ? (const_dnnl_memory_desc_t)bmd : nullptr, d.dst, d.strides, d.dil, d.pl, d.pr, nullptr, attr));
    dnnl_primitive_attr_destroy(attr);
    impl = kt::impl_name(pd);
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<float> w(wei_elems(p), -77.f), b((size_t)p.oc(), -77.f), s = src_st, dd = dd_st;
    bool ok;
    {
        mem_t m_s(E, d.src, s.data()), m_dd(E, d.dst, dd.data()), m_w(E, d.wei, w.data()), m_b(E, bmd, b.data());
        const_dnnl_memory_desc_t spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        mem_t m_sp(E, spmd, DNNL_MEMORY_ALLOCATE);
        std::vector<dnnl_exec_arg_t> args
                = {{DNNL_ARG_SRC, m_s.h}, {DNNL_ARG_DIFF_DST, m_dd.h}, {DNNL_ARG_DIFF_WEIGHTS, m_w.h}};
        if (bias) args.push_back({DNNL_ARG_DIFF_BIAS, m_b.h});
        if (mode == user_mode) args.push_back({DNNL_ARG_SCRATCHPAD, m_sp.h});
        ok = dnnl_primitive_execute(prim, E.strm, (int)args.size(), args.data()) == dnnl_success
                && dnnl_stream_wait(E.strm) == dnnl_success;
    }
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    kestrel::set_library_scratchpad_policy(kestrel::scratchpad_policy_t::global_arena);
    gw.assign((size_t)(p.g * p.ocg * p.icg * p.ks()), 0.f);
    for (dim gr = 0; gr < p.g; ++gr)
        for (dim oc = 0; oc < p.ocg; ++oc)
            for (dim ic = 0; ic < p.icg; ++ic)
                for (dim kk = 0; kk < p.ks(); ++kk)
                    gw[(size_t)(((gr * p.ocg + oc) * p.icg + ic) * p.ks() + kk)] = w[(size_t)wei_off(p, gr, oc, ic, kk)];
    gb = b;
    return ok;
}

void check_case_w(const env_t &E, kt::tally_t &t, prb_t p, bool bias, int idx) {
    p.finish();
    const prb_t p3 = to3d(p);
    const size_t ns = (size_t)(p.mb * p.ic() * p3.isp()), nd = (size_t)(p.mb * p.oc() * p3.osp());
    kt::rng_t rng(2000 + idx);
    std::vector<double> src(ns), dd(nd);
    for (auto &x : src) x = rng.uniform(-1.f, 1.f);
    for (auto &x : dd) x = rng.uniform(-1.f, 1.f);
    // Channel padding of the blocked data holds NaN: never part of a result.
    std::vector<float> src_st(data_elems(p, p.ic(), p3.isp()), NAN), dd_st(data_elems(p, p.oc(), p3.osp()), NAN);
    for (dim n = 0; n < p.mb; ++n) {
        for (dim c = 0; c < p.ic(); ++c)
            for (dim q = 0; q < p3.isp(); ++q)
                src_st[(size_t)data_off(p, p.ic(), p3.isp(), n, c, q)] = (float)src[(size_t)((n * p.ic() + c) * p3.isp() + q)];
        for (dim c = 0; c < p.oc(); ++c)
            for (dim q = 0; q < p3.osp(); ++q)
                dd_st[(size_t)data_off(p, p.oc(), p3.osp(), n, c, q)] = (float)dd[(size_t)((n * p.oc() + c) * p3.osp() + q)];
    }
    ref_t rw, rb;
    reference_w(p3, src, dd, rw, rb);
    const std::string want = expected_impl_w(p);
    struct cfg_t {
        int nthr;
        mode_t mode;
        const char *what;
    } cfgs[] = {{1, lib_mode, "1 thread, library"}, {2, lib_mode, "2 threads, library"},
            {2, user_mode, "2 threads, user scratchpad"}, {2, private_mode, "2 threads, private scratchpad"}};
    for (const auto &c : cfgs) {
        std::vector<float> gw, gb;
        std::string impl;
        bool ok = false;
        kt::with_threads(c.nthr, [&] { ok = run_w(E, p, bias, c.mode, src_st, dd_st, gw, gb, impl); });
        char what[256];
        std::snprintf(what, sizeof what, "bwd_w case %d (%s): implementation %s (got %s)", idx, c.what, want.c_str(),
                impl.c_str());
        t.check(impl == want, what);
        std::snprintf(what, sizeof what, "bwd_w case %d (%s): executes", idx, c.what);
        t.check(ok, what);
        std::snprintf(what, sizeof what, "bwd_w case %d (%s): diff_weights vs naive", idx, c.what);
        t.check(within(gw, rw), what);
        if (bias) {
            gb.resize((size_t)p.oc());
            std::snprintf(what, sizeof what, "bwd_w case %d (%s): diff_bias vs naive", idx, c.what);
            t.check(within(gb, rb), what);
        }
    }
}

// Several threads run one primitive at once (library mode): each
// execution writes the swapped weights into its own grant, so every result
// equals the serial one bit for bit.
void check_concurrent(const env_t &E, kt::tally_t &t) {
    prb_t p {2, 2, 1, 16, 48, {5, 9}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 16, w_io, 16, true};
    p.finish();
    descs_t d(p, false);
    dnnl_primitive_desc_t pd;
    KT_OK(create_bwd_d(E, d, nullptr, nullptr, &pd));
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<float> w(wei_elems(p)), dd(data_elems(p, p.oc(), p.osp()));
    kt::fill(w, 51);
    kt::fill(dd, 52);
    auto run1 = [&](std::vector<float> &ds) {
        mem_t m_dd(E, d.dst, dd.data()), m_w(E, d.wei, w.data()), m_ds(E, d.src, ds.data());
        const dnnl_exec_arg_t args[] = {{DNNL_ARG_DIFF_DST, m_dd.h}, {DNNL_ARG_WEIGHTS, m_w.h}, {DNNL_ARG_DIFF_SRC, m_ds.h}};
        dnnl_status_t st = dnnl_primitive_execute(prim, E.strm, 3, args);
        return st == dnnl_success ? dnnl_stream_wait(E.strm) : st;
    };
    const size_t ns = data_elems(p, p.ic(), p.isp());
    std::vector<float> ref(ns);
    KT_OK(run1(ref));
    const int nt = 4;
    std::vector<std::vector<float>> outs(nt, std::vector<float>(ns));
    std::vector<dnnl_status_t> sts(nt, dnnl_success);
    std::vector<std::thread> th;
    for (int i = 0; i < nt; ++i)
        th.emplace_back([&, i] {
            for (int rep = 0; rep < 5 && sts[i] == dnnl_success; ++rep) sts[i] = run1(outs[i]);
        });
    for (auto &x : th) x.join();
    bool ok = kt::impl_name(pd) == expected_impl(p);
    for (int i = 0; i < nt; ++i) ok = ok && sts[i] == dnnl_success && outs[i] == ref;
    t.check(ok, "one primitive on 4 threads at once equals the serial result");
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    kt::tally_t t;
    env_t E;
    // {sp, mb, g, icg, ocg, in, k, s, dil, pl, pr, blk, wei layout, wei blk, direct}
    const prb_t cases[] = {
            // 3x3 pad 1, channels not whole blocks, plain weights.
            {2, 2, 1, 19, 21, {7, 9}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 16, w_plain, 0, true},
            // Asymmetric padding with dilation; weights as the forward's `any`.
            {2, 1, 1, 16, 32, {9, 11}, {3, 3}, {1, 1}, {1, 0}, {2, 0}, {0, 2}, 16, w_io, 16, true},
            // 5x5 pad 2 (passes over input blocks: partial rows), 16o16i weights.
            {2, 2, 1, 16, 35, {6, 8}, {5, 5}, {1, 1}, {0, 0}, {2, 2}, {2, 2}, 16, w_oi, 16, true},
            // 3x3 with three oc blocks: passes of two blocks; rows of 40 (two tiles).
            {2, 1, 1, 16, 48, {3, 40}, {3, 3}, {1, 1}, {0, 0}, {1, 0}, {1, 2}, 16, w_io, 16, true},
            // 1x1 unit (flattened rows), odd channels; 8i8o weights on 16c data.
            {2, 2, 1, 24, 40, {5, 7}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, 16, w_io, 8, true},
            // 1D, dilation 2, no padding on the right.
            {1, 2, 1, 17, 16, {20}, {3}, {1}, {2}, {3}, {0}, 16, w_plain, 0, true},
            // 3D 3x3x3, pad 1 on every side.
            {3, 1, 1, 16, 20, {4, 5, 6}, {3, 3, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 16, w_oi, 16, true},
            // Groups of whole blocks.
            {2, 2, 2, 16, 32, {5, 6}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 16, w_plain, 0, true},
            // nCx8c: 3x3 odd channels, 3D, groups, 1D with 8o8i weights.
            {2, 2, 1, 11, 13, {6, 9}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {0, 1}, 8, w_plain, 0, true},
            {3, 1, 1, 8, 20, {3, 4, 5}, {3, 1, 3}, {1, 1, 1}, {0, 0, 1}, {1, 0, 2}, {1, 0, 0}, 8, w_io, 8, true},
            {2, 1, 3, 8, 16, {5, 5}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 8, w_oi, 8, true},
            {1, 2, 1, 9, 30, {14}, {5}, {1}, {0}, {1}, {3}, 8, w_oi, 8, true},
            // Left to the GEMM path: stride 2, padding wider than a 1x1
            // kernel, group channels that are not whole blocks.
            {2, 2, 1, 16, 16, {8, 9}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}, 16, w_plain, 0, false},
            {2, 1, 1, 16, 16, {4, 5}, {1, 1}, {1, 1}, {0, 0}, {1, 0}, {0, 1}, 16, w_plain, 0, false},
            {2, 2, 2, 8, 8, {5, 5}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 16, w_plain, 0, false},
            {2, 1, 2, 4, 4, {5, 5}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 8, w_plain, 0, false},
    };
    int i = 0;
    for (const auto &c : cases) check_case(E, t, c, i++);
    // Backward weights: {.., direct} says whether direct:avx512:nCx16c:bwd_w serves it.
    const prb_t cases_w[] = {
            // 3x3 pad 1, channels not whole blocks, plain diff_weights.
            {2, 2, 1, 19, 21, {7, 9}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 16, w_plain, 0, true},
            // Stride 2, dilation, asymmetric padding; 16i16o diff_weights.
            {2, 2, 1, 16, 32, {9, 11}, {3, 3}, {2, 2}, {1, 0}, {2, 0}, {0, 2}, 16, w_io, 16, true},
            // 1x1, 5x5 pad 2 with 16o16i, 1D, 3D, groups of whole blocks.
            {2, 2, 1, 24, 40, {5, 7}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, 16, w_io, 8, true},
            {2, 1, 1, 16, 35, {6, 8}, {5, 5}, {1, 1}, {0, 0}, {2, 2}, {2, 2}, 16, w_oi, 16, true},
            {1, 2, 1, 17, 16, {20}, {3}, {1}, {2}, {3}, {0}, 16, w_plain, 0, true},
            {3, 1, 1, 16, 20, {4, 5, 6}, {3, 3, 3}, {1, 2, 1}, {0, 0, 0}, {1, 1, 1}, {1, 0, 1}, 16, w_oi, 16, true},
            {2, 2, 2, 16, 32, {5, 6}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 16, w_plain, 0, true},
            // Left to the GEMM path: groups of partial blocks, nCx8c.
            {2, 2, 2, 8, 8, {5, 5}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 16, w_plain, 0, false},
            {2, 2, 1, 11, 13, {6, 9}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {0, 1}, 8, w_plain, 0, false},
    };
    i = 0;
    for (const auto &c : cases_w) {
        check_case_w(E, t, c, i % 2 == 0, i);
        ++i;
    }
    check_any(E, t);
    kt::with_threads(2, [&] { check_concurrent(E, t); });
    return t.finish();
}
