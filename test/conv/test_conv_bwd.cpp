// Convolution and deconvolution backward data / backward weights.
//
// Every result is checked against a naive reference written here (double
// precision, logical indices, its own layout code) and, on tiny f32 shapes,
// against central differences of the library's forward primitive. Shapes
// cover 1D/2D/3D, stride 2, dilation, asymmetric padding, groups,
// depthwise, odd channels, plain (ncx, nxc) and channel-blocked (nCx16c,
// nCx8c) data, plain or OIhw16i16o weights, bias or not, f32 and bf16, 1 and 2 threads, scratchpad modes
// library and user, several threads at once, and the arena holding the
// largest scratchpad of a chain of primitives. The cases cover every path
// of the implementation: 1x1 unit kernels read in place, the im2col /
// col2im row segments with both borders, strides and dilation, and the
// scatter into diff_src or a scratch image; test_conv_bwd_isa.sh runs them
// again with the GEMM kernels capped at AVX2 and at the baseline.
#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "dnnl.hpp"
#include "common/kt_test.hpp"
#include "scratchpad/arena.hpp"

namespace {

using dim = dnnl_dim_t;
const double eps_f32 = 1.0 / (1 << 24); // unit roundoff of f32
const double eps_bf16 = 1.0 / (1 << 8); // unit roundoff of bf16 (8 significant bits)

enum layout_t { ncx, nxc, blk16, blk8 };

struct prb_t {
    bool deconv;
    int sp; // spatial dims: 1, 2 or 3
    dim mb, g, icg, ocg; // per group
    dim in[3], k[3], s[3], d[3], pl[3], pr[3]; // in = src spatial (small for deconv)
    layout_t lay;
    dnnl_data_type_t dt;
    bool bias;
    bool wblk = false; // weights OIhw16i16o (2D, no groups), else plain
    dim out[3] = {1, 1, 1};

    dim ic() const { return g * icg; }
    dim oc() const { return g * ocg; }
    void finish() {
        for (int i = 0; i < sp; ++i) {
            const dim ext = (k[i] - 1) * (d[i] + 1) + 1;
            out[i] = deconv ? (in[i] - 1) * s[i] - pl[i] - pr[i] + ext : (in[i] - ext + pl[i] + pr[i]) / s[i] + 1;
        }
    }
    dim isp() const { dim r = 1; for (int i = 0; i < sp; ++i) r *= in[i]; return r; }
    dim osp() const { dim r = 1; for (int i = 0; i < sp; ++i) r *= out[i]; return r; }
    dim ks() const { dim r = 1; for (int i = 0; i < sp; ++i) r *= k[i]; return r; }
    // Stored weights: elements, and the offset of logical element
    // i = ((g * ocg + oc) * icg + ic) * ks + k.
    static dim up16(dim x) { return (x + 15) / 16 * 16; }
    size_t wei_elems() const { return (size_t)(wblk ? up16(ocg) * up16(icg) * ks() : g * ocg * icg * ks()); }
    dim wei_off(dim i) const {
        if (!wblk) return i;
        const dim kk = i % ks(), ic = i / ks() % icg, oc = i / ks() / icg;
        return (((oc / 16 * (up16(icg) / 16) + ic / 16) * ks() + kk) * 16 + ic % 16) * 16 + oc % 16;
    }
};

// ------------------------------------------------------------ test layouts

dnnl_format_tag_t data_tag(int sp, layout_t l) {
    const dnnl_format_tag_t t[4][3] = {{dnnl_ncw, dnnl_nchw, dnnl_ncdhw}, {dnnl_nwc, dnnl_nhwc, dnnl_ndhwc},
            {dnnl_nCw16c, dnnl_nChw16c, dnnl_nCdhw16c}, {dnnl_nCw8c, dnnl_nChw8c, dnnl_nCdhw8c}};
    return t[l][sp - 1];
}
dnnl_format_tag_t wei_tag(int sp, bool groups) {
    const dnnl_format_tag_t t[2][3] = {{dnnl_oiw, dnnl_oihw, dnnl_oidhw}, {dnnl_goiw, dnnl_goihw, dnnl_goidhw}};
    return t[groups][sp - 1];
}

// Element offset of logical (n, c, spatial point p) in a data tensor of C
// channels and SP points, as the test understands the layout.
struct data_layout_t {
    layout_t l;
    dim N, C, SP;
    dim blk() const { return l == blk16 ? 16 : l == blk8 ? 8 : 1; }
    dim cpad() const { return (C + blk() - 1) / blk() * blk(); }
    size_t elems() const { return (size_t)(N * cpad() * SP); }
    dim off(dim n, dim c, dim p) const {
        switch (l) {
            case ncx: return (n * C + c) * SP + p;
            case nxc: return (n * SP + p) * C + c;
            default: {
                const dim b = blk();
                return ((n * (cpad() / b) + c / b) * SP + p) * b + c % b;
            }
        }
    }
};

// A tensor as stored for the library: f32 or bf16 bytes.
struct buf_t {
    dnnl_data_type_t dt;
    std::vector<float> f;
    std::vector<uint16_t> h;
    buf_t(dnnl_data_type_t t, size_t n) : dt(t), f(t == dnnl_f32 ? n : 0), h(t == dnnl_f32 ? 0 : n) {}
    void *ptr() { return dt == dnnl_f32 ? (void *)f.data() : (void *)h.data(); }
    static uint16_t to_bf16(float v) { // round to nearest even (test's own)
        uint32_t u;
        std::memcpy(&u, &v, 4);
        u += 0x7fff + ((u >> 16) & 1);
        return (uint16_t)(u >> 16);
    }
    static float from_bf16(uint16_t b) {
        uint32_t u = (uint32_t)b << 16;
        float v;
        std::memcpy(&v, &u, 4);
        return v;
    }
    void set(dim i, float v) { dt == dnnl_f32 ? (void)(f[i] = v) : (void)(h[i] = to_bf16(v)); }
    float get(dim i) const { return dt == dnnl_f32 ? f[i] : from_bf16(h[i]); }
    void fill(float v) { for (size_t i = 0; i < (f.empty() ? h.size() : f.size()); ++i) set(i, v); }
};

// Logical tensors: values representable in dt, so the reference sees
// exactly what the library reads.
std::vector<double> random_values(size_t n, uint64_t seed, dnnl_data_type_t dt) {
    kt::rng_t r(seed);
    std::vector<double> v(n);
    for (auto &x : v) {
        float f = r.uniform(-1.f, 1.f);
        if (dt == dnnl_bf16) f = buf_t::from_bf16(buf_t::to_bf16(f));
        x = f;
    }
    return v;
}

// ------------------------------------------------------- naive reference

// Logical arrays: src[n][c][isp], wei[g][ocg][icg][ks], dst[n][c][osp].
// Visits every (src element, weights element, dst element) that one
// product of the convolution (or deconvolution) joins.
template <typename F>
void for_each_term(const prb_t &p, const F &f) {
    for (dim n = 0; n < p.mb; ++n)
        for (dim gr = 0; gr < p.g; ++gr)
            for (dim oc = 0; oc < p.ocg; ++oc)
                for (dim ic = 0; ic < p.icg; ++ic)
                    for (dim kk = 0; kk < p.ks(); ++kk) {
                        dim kpos[3] = {0, 0, 0}, r = kk;
                        for (int i = p.sp - 1; i >= 0; --i) kpos[i] = r % p.k[i], r /= p.k[i];
                        // Walk the small side; compute the big-side index.
                        const dim *small = p.deconv ? p.in : p.out, *big = p.deconv ? p.out : p.in;
                        dim nsmall = 1;
                        for (int i = 0; i < p.sp; ++i) nsmall *= small[i];
                        for (dim q = 0; q < nsmall; ++q) {
                            dim sidx[3], bidx[3], rr = q;
                            for (int i = p.sp - 1; i >= 0; --i) sidx[i] = rr % small[i], rr /= small[i];
                            bool ok = true;
                            dim bl = 0;
                            for (int i = 0; i < p.sp; ++i) {
                                bidx[i] = sidx[i] * p.s[i] - p.pl[i] + kpos[i] * (p.d[i] + 1);
                                ok = ok && bidx[i] >= 0 && bidx[i] < big[i];
                                bl = bl * big[i] + bidx[i];
                            }
                            if (!ok) continue;
                            const dim sl = q;
                            const dim src_p = p.deconv ? sl : bl, dst_p = p.deconv ? bl : sl;
                            const dim si = (n * p.ic() + gr * p.icg + ic) * p.isp() + src_p;
                            const dim di = (n * p.oc() + gr * p.ocg + oc) * p.osp() + dst_p;
                            const dim wi = ((gr * p.ocg + oc) * p.icg + ic) * p.ks() + kk;
                            f(si, wi, di);
                        }
                    }
}

struct ref_t {
    std::vector<double> val, absum; // result and sum of |terms|
    std::vector<int> nterms;
    explicit ref_t(size_t n) : val(n, 0.0), absum(n, 0.0), nterms(n, 0) {}
    void add(dim i, double t) {
        val[i] += t;
        absum[i] += std::fabs(t);
        ++nterms[i];
    }
    // |got - exact| allowed: a sum of m terms in f32 in any order is off by
    // at most m * eps * sum|terms| (plus the products' own rounding, one
    // eps each: (m + 1) eps in all); a bf16 store rounds once more, by at
    // most eps_bf16 * |result| (taken on |exact| + the f32 error).
    double tol(dim i, dnnl_data_type_t out_dt) const {
        double t = (nterms[i] + 1) * eps_f32 * absum[i];
        if (out_dt == dnnl_bf16) t += eps_bf16 * (std::fabs(val[i]) + t);
        return t + 1e-30;
    }
};

// ------------------------------------------------------------ the library

struct lib_t {
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    lib_t() {
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    }
    ~lib_t() {
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
};

struct descs_t {
    kt::md_t src, wei, bias, dst;
    dim strides[3], dil[3], pl[3], pr[3];
    descs_t(const prb_t &p, bool any_wei = false) {
        dnnl_dims_t sd = {p.mb, p.ic()}, dd = {p.mb, p.oc()}, wd = {};
        int wn = 0;
        if (p.g > 1) wd[wn++] = p.g;
        wd[wn++] = p.ocg;
        wd[wn++] = p.icg;
        for (int i = 0; i < p.sp; ++i) {
            sd[2 + i] = p.in[i], dd[2 + i] = p.out[i], wd[wn++] = p.k[i];
            strides[i] = p.s[i], dil[i] = p.d[i], pl[i] = p.pl[i], pr[i] = p.pr[i];
        }
        KT_OK(dnnl_memory_desc_create_with_tag(&src.h, 2 + p.sp, sd, p.dt, data_tag(p.sp, p.lay)));
        KT_OK(dnnl_memory_desc_create_with_tag(&dst.h, 2 + p.sp, dd, p.dt, data_tag(p.sp, p.lay)));
        KT_OK(dnnl_memory_desc_create_with_tag(&wei.h, wn, wd, p.dt,
                any_wei ? dnnl_format_tag_any : p.wblk ? dnnl_OIhw16i16o : wei_tag(p.sp, p.g > 1)));
        const dnnl_dims_t bd = {p.oc()};
        KT_OK(dnnl_memory_desc_create_with_tag(&bias.h, 1, bd, p.dt, dnnl_a));
    }
};

dnnl_status_t create_fwd(const lib_t &L, const prb_t &p, const descs_t &d, dnnl_primitive_desc_t *pd) {
    auto fn = p.deconv ? dnnl_deconvolution_forward_primitive_desc_create : dnnl_convolution_forward_primitive_desc_create;
    return fn(pd, L.eng, dnnl_forward_training, p.deconv ? dnnl_deconvolution_direct : dnnl_convolution_direct,
            d.src, d.wei, p.bias ? (const_dnnl_memory_desc_t)d.bias : nullptr, d.dst, d.strides, d.dil, d.pl, d.pr,
            nullptr);
}
dnnl_status_t create_bwd_d(const lib_t &L, const prb_t &p, const descs_t &d, const_dnnl_primitive_desc_t hint,
        const_dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd) {
    auto fn = p.deconv ? dnnl_deconvolution_backward_data_primitive_desc_create
                       : dnnl_convolution_backward_data_primitive_desc_create;
    return fn(pd, L.eng, p.deconv ? dnnl_deconvolution_direct : dnnl_convolution_direct, d.src, d.wei, d.dst,
            d.strides, d.dil, d.pl, d.pr, hint, attr);
}
dnnl_status_t create_bwd_w(const lib_t &L, const prb_t &p, const descs_t &d, const_dnnl_primitive_desc_t hint,
        const_dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd) {
    auto fn = p.deconv ? dnnl_deconvolution_backward_weights_primitive_desc_create
                       : dnnl_convolution_backward_weights_primitive_desc_create;
    return fn(pd, L.eng, p.deconv ? dnnl_deconvolution_direct : dnnl_convolution_direct, d.src, d.wei,
            p.bias ? (const_dnnl_memory_desc_t)d.bias : nullptr, d.dst, d.strides, d.dil, d.pl, d.pr, hint, attr);
}

// One run of a primitive over (arg, md, pointer) triples.
struct run_t {
    std::vector<dnnl_memory_t> mems;
    std::vector<dnnl_exec_arg_t> args;
    void add(const lib_t &L, int arg, const_dnnl_memory_desc_t md, void *ptr) {
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, md, L.eng, ptr));
        mems.push_back(m);
        args.push_back({arg, m});
    }
    dnnl_status_t exec(const lib_t &L, dnnl_primitive_t prim) {
        dnnl_status_t st = dnnl_primitive_execute(prim, L.strm, (int)args.size(), args.data());
        if (st == dnnl_success) st = dnnl_stream_wait(L.strm);
        return st;
    }
    ~run_t() {
        for (auto m : mems) dnnl_memory_destroy(m);
    }
};

// Logical values -> stored tensor, and back.
void store_data(buf_t &b, const data_layout_t &l, const std::vector<double> &v) {
    b.fill(0.f);
    for (dim n = 0; n < l.N; ++n)
        for (dim c = 0; c < l.C; ++c)
            for (dim q = 0; q < l.SP; ++q) b.set(l.off(n, c, q), (float)v[(n * l.C + c) * l.SP + q]);
}

struct result_t {
    std::vector<float> diff_src, diff_wei, diff_bias;
};

// Runs backward data and backward weights of p; in user scratchpad mode
// when `user`. Returns false on a status other than success.
bool run_bwd(const lib_t &L, const prb_t &p, const std::vector<double> &src, const std::vector<double> &wei,
        const std::vector<double> &ddst, bool user, result_t &r) {
    descs_t d(p);
    const data_layout_t ls {p.lay, p.mb, p.ic(), p.isp()}, ld {p.lay, p.mb, p.oc(), p.osp()};
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    if (user) KT_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    dnnl_primitive_desc_t fpd = nullptr, bdpd = nullptr, bwpd = nullptr;
    KT_OK(create_fwd(L, p, d, &fpd));
    KT_OK(create_bwd_d(L, p, d, fpd, attr, &bdpd));
    KT_OK(create_bwd_w(L, p, d, fpd, attr, &bwpd));
    bool ok = true;

    buf_t b_src(p.dt, ls.elems()), b_dsrc(p.dt, ls.elems()), b_ddst(p.dt, ld.elems());
    store_data(b_src, ls, src);
    store_data(b_ddst, ld, ddst);
    const size_t wn = (size_t)(p.g * p.ocg * p.icg * p.ks());
    buf_t b_wei(p.dt, p.wei_elems()), b_dwei(p.dt, p.wei_elems()), b_dbias(p.dt, (size_t)p.oc());
    b_wei.fill(0.f);
    for (size_t i = 0; i < wn; ++i) b_wei.set(p.wei_off((dim)i), (float)wei[i]);
    b_dsrc.fill(-77.f), b_dwei.fill(-77.f), b_dbias.fill(-77.f);

    for (int which = 0; which < 2 && ok; ++which) {
        dnnl_primitive_desc_t pd = which == 0 ? bdpd : bwpd;
        const_dnnl_memory_desc_t spmd;
        KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_scratchpad_md, 0, &spmd));
        dnnl_primitive_t prim;
        KT_OK(dnnl_primitive_create(&prim, pd));
        run_t run;
        if (which == 0) {
            run.add(L, DNNL_ARG_DIFF_DST, d.dst, b_ddst.ptr());
            run.add(L, DNNL_ARG_WEIGHTS, d.wei, b_wei.ptr());
            run.add(L, DNNL_ARG_DIFF_SRC, d.src, b_dsrc.ptr());
        } else {
            run.add(L, DNNL_ARG_SRC, d.src, b_src.ptr());
            run.add(L, DNNL_ARG_DIFF_DST, d.dst, b_ddst.ptr());
            run.add(L, DNNL_ARG_DIFF_WEIGHTS, d.wei, b_dwei.ptr());
            if (p.bias) run.add(L, DNNL_ARG_DIFF_BIAS, d.bias, b_dbias.ptr());
        }
        // Library-allocated: the scratchpad is expected 64-byte aligned.
        if (user) run.add(L, DNNL_ARG_SCRATCHPAD, spmd, DNNL_MEMORY_ALLOCATE);
        ok = run.exec(L, prim) == dnnl_success;
        dnnl_primitive_destroy(prim);
    }
    r.diff_src.assign((size_t)(p.mb * p.ic() * p.isp()), 0.f);
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.ic(); ++c)
            for (dim q = 0; q < p.isp(); ++q) r.diff_src[(n * p.ic() + c) * p.isp() + q] = b_dsrc.get(ls.off(n, c, q));
    r.diff_wei.resize(wn);
    for (size_t i = 0; i < wn; ++i) r.diff_wei[i] = b_dwei.get(p.wei_off((dim)i));
    r.diff_bias.resize((size_t)p.oc());
    for (dim c = 0; c < p.oc(); ++c) r.diff_bias[c] = b_dbias.get(c);
    // Blocked padding of diff_src stays zero.
    for (dim n = 0; n < p.mb && ok; ++n)
        for (dim c = p.ic(); c < ls.cpad(); ++c)
            for (dim q = 0; q < p.isp(); ++q) ok = ok && b_dsrc.get(ls.off(n, c, q)) == 0.f;
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(bdpd);
    dnnl_primitive_desc_destroy(bwpd);
    dnnl_primitive_attr_destroy(attr);
    return ok;
}

bool within(const std::vector<float> &got, const ref_t &ref, dnnl_data_type_t dt) {
    for (size_t i = 0; i < got.size(); ++i)
        if (!(std::fabs(got[i] - ref.val[i]) <= ref.tol((dim)i, dt))) {
            std::fprintf(stderr, "  [%zu] got %.9g want %.9g tol %.3g\n", i, got[i], ref.val[i], ref.tol((dim)i, dt));
            return false;
        }
    return true;
}

// Two runs that differ only in summation order (threads, scratchpad mode):
// each is within tol of the exact value, so they differ by at most 2 tol.
bool agree(const std::vector<float> &a, const std::vector<float> &b, const ref_t &ref, dnnl_data_type_t dt) {
    for (size_t i = 0; i < a.size(); ++i)
        if (!(std::fabs(a[i] - b[i]) <= 2 * ref.tol((dim)i, dt))) return false;
    return true;
}

void check_problem(const lib_t &L, kt::tally_t &t, prb_t p, const char *name) {
    p.finish();
    const size_t ns = (size_t)(p.mb * p.ic() * p.isp()), nd = (size_t)(p.mb * p.oc() * p.osp());
    const size_t nw = (size_t)(p.g * p.ocg * p.icg * p.ks());
    const auto src = random_values(ns, 11, p.dt), wei = random_values(nw, 12, p.dt), ddst = random_values(nd, 13, p.dt);
    ref_t r_dsrc(ns), r_dwei(nw), r_dbias((size_t)p.oc());
    for_each_term(p, [&](dim si, dim wi, dim di) {
        r_dsrc.add(si, wei[wi] * ddst[di]);
        r_dwei.add(wi, src[si] * ddst[di]);
    });
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.oc(); ++c)
            for (dim q = 0; q < p.osp(); ++q) r_dbias.add(c, ddst[(n * p.oc() + c) * p.osp() + q]);

    result_t one, two, user;
    bool ok1 = false, ok2 = false, oku = false;
    kt::with_threads(1, [&] { ok1 = run_bwd(L, p, src, wei, ddst, false, one); });
    kt::with_threads(2, [&] {
        ok2 = run_bwd(L, p, src, wei, ddst, false, two);
        oku = run_bwd(L, p, src, wei, ddst, true, user);
    });
    char what[256];
    auto check = [&](bool c, const char *part) {
        std::snprintf(what, sizeof what, "%s: %s", name, part);
        t.check(c, what);
    };
    check(ok1 && ok2 && oku, "executes (and diff_src padding is zero)");
    check(within(one.diff_src, r_dsrc, p.dt) && within(two.diff_src, r_dsrc, p.dt), "diff_src vs reference, 1 and 2 threads");
    check(within(one.diff_wei, r_dwei, p.dt) && within(two.diff_wei, r_dwei, p.dt) && within(user.diff_wei, r_dwei, p.dt),
            "diff_weights vs reference, 1/2 threads, user scratchpad");
    if (p.bias) {
        // A convolution's diff_bias is summed in the backward-weights sweep
        // (per-thread partials), a deconvolution's in its own pass.
        check(within(one.diff_bias, r_dbias, p.dt) && within(two.diff_bias, r_dbias, p.dt)
                        && within(user.diff_bias, r_dbias, p.dt),
                "diff_bias vs reference, 1/2 threads, user scratchpad");
        check(agree(one.diff_bias, two.diff_bias, r_dbias, p.dt) && agree(two.diff_bias, user.diff_bias, r_dbias, p.dt),
                "diff_bias: 1 vs 2 threads vs user mode within the summation-order bound");
    }
    check(agree(one.diff_wei, two.diff_wei, r_dwei, p.dt) && agree(two.diff_wei, user.diff_wei, r_dwei, p.dt),
            "diff_weights: 1 vs 2 threads vs user mode within the summation-order bound");
}

// ------------------------------------------------------ finite differences

// L(src, wei, bias) = sum over dst of dst * R, through the forward
// primitive. L is linear in each argument, so the central difference
// (L(x + h) - L(x - h)) / 2h equals the gradient up to rounding: each dst
// element is a sum of m products rounded in f32 (error <= (m + 1) eps
// sum|terms|), so |L error| <= (m + 1) eps A with A = sum |R| * sum|terms|,
// computed here; the difference of two such values over 2h is off by at
// most (m + 1) eps A / h, and the library's gradient by its own bound.
void check_gradients(const lib_t &L, kt::tally_t &t, prb_t p, const char *name) {
    p.finish();
    const size_t ns = (size_t)(p.mb * p.ic() * p.isp()), nd = (size_t)(p.mb * p.oc() * p.osp());
    const size_t nw = (size_t)(p.g * p.ocg * p.icg * p.ks());
    auto src = random_values(ns, 21, p.dt), wei = random_values(nw, 22, p.dt);
    const auto R = random_values(nd, 23, p.dt);
    std::vector<double> bias(p.oc(), 0.25);
    result_t g;
    const bool ok = run_bwd(L, p, src, wei, R, false, g);

    descs_t d(p);
    dnnl_primitive_desc_t fpd;
    KT_OK(create_fwd(L, p, d, &fpd));
    dnnl_primitive_t fwd;
    KT_OK(dnnl_primitive_create(&fwd, fpd));
    const data_layout_t ls {p.lay, p.mb, p.ic(), p.isp()}, ld {p.lay, p.mb, p.oc(), p.osp()};
    // Bound of the forward's rounding: max terms per dst element and A.
    ref_t fref(nd);
    for_each_term(p, [&](dim si, dim wi, dim di) { fref.add(di, src[si] * wei[wi]); });
    double A = 0;
    int m = 0;
    for (size_t i = 0; i < nd; ++i) A += std::fabs(R[i]) * (fref.absum[i] + 0.25), m = std::max(m, fref.nterms[i] + 1);

    auto loss = [&]() {
        buf_t bs(p.dt, ls.elems()), bd(p.dt, ld.elems()), bw(p.dt, p.wei_elems()), bb(p.dt, (size_t)p.oc());
        bw.fill(0.f);
        store_data(bs, ls, src);
        for (size_t i = 0; i < nw; ++i) bw.set(p.wei_off((dim)i), (float)wei[i]);
        for (dim c = 0; c < p.oc(); ++c) bb.set(c, (float)bias[c]);
        run_t run;
        run.add(L, DNNL_ARG_SRC, d.src, bs.ptr());
        run.add(L, DNNL_ARG_WEIGHTS, d.wei, bw.ptr());
        if (p.bias) run.add(L, DNNL_ARG_BIAS, d.bias, bb.ptr());
        run.add(L, DNNL_ARG_DST, d.dst, bd.ptr());
        KT_OK(run.exec(L, fwd));
        double l = 0;
        for (dim n = 0; n < p.mb; ++n)
            for (dim c = 0; c < p.oc(); ++c)
                for (dim q = 0; q < p.osp(); ++q) {
                    const dim i = (n * p.oc() + c) * p.osp() + q;
                    l += bd.get(ld.off(n, c, q)) * R[i];
                }
        return l;
    };
    const double h = 0.5; // L is linear: any step is exact up to rounding
    const double fd_err = (m + 1) * eps_f32 * A / h;
    auto fd = [&](double &x) {
        const double x0 = x;
        x = x0 + h;
        const double lp = loss();
        x = x0 - h;
        const double lm = loss();
        x = x0;
        return (lp - lm) / (2 * h);
    };
    bool good = ok;
    kt::rng_t pick(5);
    for (int i = 0; i < 6 && good; ++i) {
        const size_t e = pick.next() % ns;
        const double want = fd(src[e]);
        good = std::fabs(g.diff_src[e] - want) <= 2 * fd_err;
        if (!good) std::fprintf(stderr, "  d src[%zu] %.9g vs fd %.9g\n", e, g.diff_src[e], want);
    }
    for (int i = 0; i < 6 && good; ++i) {
        const size_t e = pick.next() % nw;
        const double want = fd(wei[e]);
        good = std::fabs(g.diff_wei[e] - want) <= 2 * fd_err;
        if (!good) std::fprintf(stderr, "  d wei[%zu] %.9g vs fd %.9g\n", e, g.diff_wei[e], want);
    }
    if (p.bias && good) {
        const size_t c = pick.next() % (size_t)p.oc();
        const double want = fd(bias[c]);
        good = std::fabs(g.diff_bias[c] - want) <= 2 * fd_err;
    }
    char what[256];
    std::snprintf(what, sizeof what, "%s: gradients match central differences of forward", name);
    t.check(good, what);
    dnnl_primitive_destroy(fwd);
    dnnl_primitive_desc_destroy(fpd);
}

// ------------------------------------------------------------ API behaviour

void check_api(const lib_t &L, kt::tally_t &t) {
    prb_t p {false, 2, 2, 1, 3, 4, {5, 6}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, ncx, dnnl_f32, true};
    p.finish();
    descs_t d(p, true);
    dnnl_primitive_desc_t fpd, bd, bw;
    KT_OK(create_fwd(L, p, descs_t(p), &fpd));
    // A NULL hint is accepted; a hint of another kind is refused.
    t.check(create_bwd_d(L, p, d, nullptr, nullptr, &bd) == dnnl_success, "bwd data without hint");
    dnnl_primitive_desc_destroy(bd);
    prb_t q = p;
    q.deconv = true;
    t.check(create_bwd_d(L, q, d, fpd, nullptr, &bd) == dnnl_invalid_arguments, "deconv bwd with a conv hint refused");
    t.check(create_bwd_w(L, p, d, bd = nullptr, nullptr, &bw) == dnnl_success, "bwd weights without hint");
    dnnl_primitive_desc_destroy(bw);

    KT_OK(create_bwd_d(L, p, d, fpd, nullptr, &bd));
    KT_OK(create_bwd_w(L, p, d, fpd, nullptr, &bw));
    auto md_of = [](const_dnnl_primitive_desc_t pd, dnnl_query_t q) {
        const_dnnl_memory_desc_t m = nullptr;
        dnnl_primitive_desc_query(pd, q, 0, &m);
        return m;
    };
    auto ndims = [](const_dnnl_memory_desc_t m) {
        int n = 0;
        dnnl_memory_desc_query(m, dnnl_query_ndims_s32, &n);
        return n;
    };
    t.check(ndims(md_of(bd, dnnl_query_diff_src_md)) == 4 && ndims(md_of(bd, dnnl_query_weights_md)) == 4
                    && ndims(md_of(bd, dnnl_query_diff_dst_md)) == 4 && ndims(md_of(bd, dnnl_query_src_md)) == 0
                    && ndims(md_of(bd, dnnl_query_diff_weights_md)) == 0,
            "bwd data answers diff_src/weights/diff_dst only");
    const_dnnl_memory_desc_t dbias = nullptr;
    dnnl_primitive_desc_query(bw, dnnl_query_diff_weights_md, 1, &dbias);
    t.check(ndims(md_of(bw, dnnl_query_src_md)) == 4 && ndims(md_of(bw, dnnl_query_diff_weights_md)) == 4
                    && ndims(dbias) == 1 && ndims(md_of(bw, dnnl_query_weights_md)) == 0,
            "bwd weights answers src/diff_weights/diff_bias/diff_dst");
    // `any` weights resolve to the plain layout.
    kt::md_t want(kt::make_md({4, 3, 3, 3}, dnnl_f32, dnnl_oihw));
    t.check(dnnl_memory_desc_equal(md_of(bd, dnnl_query_weights_md), want) != 0, "any weights resolved to oihw");
    dnnl_prop_kind_t prop;
    dnnl_primitive_desc_query(bw, dnnl_query_prop_kind, 0, &prop);
    t.check(prop == dnnl_backward_weights, "prop kind backward_weights");
    const_dnnl_memory_desc_t emd = nullptr;
    dnnl_primitive_desc_query(bw, dnnl_query_exec_arg_md, DNNL_ARG_DIFF_BIAS, &emd);
    t.check(ndims(emd) == 1, "exec_arg_md answers DIFF_BIAS");

    // Execution with a missing or mismatched argument: invalid, nothing written.
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, bd));
    std::vector<float> dsrc(2 * 3 * 5 * 6, -5.f), ddst(2 * 4 * 5 * 6, 1.f), w(4 * 3 * 9, 1.f);
    {
        run_t r;
        r.add(L, DNNL_ARG_DIFF_DST, descs_t(p).dst, ddst.data());
        r.add(L, DNNL_ARG_DIFF_SRC, descs_t(p).src, dsrc.data());
        t.check(r.exec(L, prim) == dnnl_invalid_arguments, "missing weights refused");
    }
    {
        kt::md_t wrong(kt::make_md({4, 3, 3, 3}, dnnl_f32, dnnl_ohwi));
        run_t r;
        r.add(L, DNNL_ARG_DIFF_DST, descs_t(p).dst, ddst.data());
        r.add(L, DNNL_ARG_WEIGHTS, wrong, w.data());
        r.add(L, DNNL_ARG_DIFF_SRC, descs_t(p).src, dsrc.data());
        t.check(r.exec(L, prim) == dnnl_invalid_arguments, "weights of another layout refused");
    }
    t.check(std::all_of(dsrc.begin(), dsrc.end(), [](float v) { return v == -5.f; }), "refused runs wrote nothing");
    dnnl_primitive_destroy(prim);
    // User mode: a scratchpad one byte short is refused.
    {
        dnnl_primitive_attr_t attr;
        KT_OK(dnnl_primitive_attr_create(&attr));
        KT_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
        dnnl_primitive_desc_t upd;
        KT_OK(create_bwd_w(L, p, descs_t(p), fpd, attr, &upd));
        const_dnnl_memory_desc_t spmd = md_of(upd, dnnl_query_scratchpad_md);
        const size_t need = dnnl_memory_desc_get_size(spmd);
        t.check(need > 0, "bwd weights books a scratchpad");
        KT_OK(dnnl_primitive_create(&prim, upd));
        kt::md_t short_md(kt::make_md({(dim)need - 1}, dnnl_u8, dnnl_a));
        std::vector<float> src(2 * 3 * 5 * 6, 1.f), dw(4 * 3 * 9, -5.f), db(4, -5.f);
        run_t r;
        r.add(L, DNNL_ARG_SRC, descs_t(p).src, src.data());
        r.add(L, DNNL_ARG_DIFF_DST, descs_t(p).dst, ddst.data());
        r.add(L, DNNL_ARG_DIFF_WEIGHTS, descs_t(p).wei, dw.data());
        r.add(L, DNNL_ARG_DIFF_BIAS, descs_t(p).bias, db.data());
        r.add(L, DNNL_ARG_SCRATCHPAD, short_md, DNNL_MEMORY_ALLOCATE);
        t.check(r.exec(L, prim) == dnnl_invalid_arguments && dw[0] == -5.f, "short user scratchpad refused");
        // Full size but not on a 64-byte boundary (a handle into a byte
        // vector): refused, nothing written; the same bytes aligned: runs.
        kt::md_t full_md(kt::make_md({(dim)need}, dnnl_u8, dnnl_a));
        std::vector<char> bytes(need + 128);
        char *aligned = bytes.data() + (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64) % 64;
        for (int shift : {8, 0}) {
            run_t u;
            u.add(L, DNNL_ARG_SRC, descs_t(p).src, src.data());
            u.add(L, DNNL_ARG_DIFF_DST, descs_t(p).dst, ddst.data());
            u.add(L, DNNL_ARG_DIFF_WEIGHTS, descs_t(p).wei, dw.data());
            u.add(L, DNNL_ARG_DIFF_BIAS, descs_t(p).bias, db.data());
            u.add(L, DNNL_ARG_SCRATCHPAD, full_md, aligned + shift);
            if (shift)
                t.check(u.exec(L, prim) == dnnl_invalid_arguments && dw[0] == -5.f,
                        "misaligned user scratchpad refused");
            else
                t.check(u.exec(L, prim) == dnnl_success && dw[0] != -5.f, "aligned user scratchpad accepted");
        }
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(upd);
        dnnl_primitive_attr_destroy(attr);
    }
    dnnl_primitive_desc_destroy(bd);
    dnnl_primitive_desc_destroy(bw);
    dnnl_primitive_desc_destroy(fpd);
}

// The C++ API end to end: bwd data and weights of a small conv, against
// the reference.
void check_cpp(kt::tally_t &t) {
    using namespace dnnl;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    prb_t p {false, 2, 2, 2, 3, 2, {6, 5}, {3, 2}, {2, 1}, {1, 0}, {1, 0}, {0, 1}, ncx, dnnl_f32, true};
    p.finish();
    memory::desc src({p.mb, p.ic(), p.in[0], p.in[1]}, dt::f32, tag::nchw);
    memory::desc dst({p.mb, p.oc(), p.out[0], p.out[1]}, dt::f32, tag::nchw);
    memory::desc wei({p.g, p.ocg, p.icg, p.k[0], p.k[1]}, dt::f32, tag::goihw);
    memory::desc bias({p.oc()}, dt::f32, tag::a);
    const memory::dims st = {2, 1}, dl = {1, 0}, pl = {1, 0}, pr = {0, 1};
    convolution_forward::primitive_desc fpd(eng, prop_kind::forward_training, algorithm::convolution_direct, src, wei,
            bias, dst, st, dl, pl, pr);
    convolution_backward_data::primitive_desc bdpd(eng, algorithm::convolution_direct, src, wei, dst, st, dl, pl, pr, fpd);
    convolution_backward_weights::primitive_desc bwpd(
            eng, algorithm::convolution_direct, src, wei, bias, dst, st, dl, pl, pr, fpd);
    const size_t ns = (size_t)(p.mb * p.ic() * p.isp()), nd = (size_t)(p.mb * p.oc() * p.osp());
    const size_t nw = (size_t)(p.g * p.ocg * p.icg * p.ks());
    auto vs = random_values(ns, 31, dnnl_f32), vw = random_values(nw, 32, dnnl_f32), vd = random_values(nd, 33, dnnl_f32);
    std::vector<float> fs(vs.begin(), vs.end()), fw(vw.begin(), vw.end()), fd(vd.begin(), vd.end());
    std::vector<float> dsrc(ns), dwei(nw), dbias((size_t)p.oc());
    memory m_src(src, eng, fs.data()), m_wei(wei, eng, fw.data()), m_dd(dst, eng, fd.data());
    memory m_ds(src, eng, dsrc.data()), m_dw(wei, eng, dwei.data()), m_db(bias, eng, dbias.data());
    convolution_backward_data(bdpd).execute(s, {{DNNL_ARG_DIFF_DST, m_dd}, {DNNL_ARG_WEIGHTS, m_wei}, {DNNL_ARG_DIFF_SRC, m_ds}});
    convolution_backward_weights(bwpd).execute(s, {{DNNL_ARG_SRC, m_src}, {DNNL_ARG_DIFF_DST, m_dd},
                                                          {DNNL_ARG_DIFF_WEIGHTS, m_dw}, {DNNL_ARG_DIFF_BIAS, m_db}});
    s.wait();
    ref_t r_ds(ns), r_dw(nw), r_db((size_t)p.oc());
    for_each_term(p, [&](dim si, dim wi, dim di) {
        r_ds.add(si, vw[wi] * vd[di]);
        r_dw.add(wi, vs[si] * vd[di]);
    });
    for (size_t i = 0; i < nd; ++i) r_db.add((dim)(i / p.osp() % p.oc()), vd[i]);
    t.check(within(dsrc, r_ds, dnnl_f32) && within(dwei, r_dw, dnnl_f32) && within(dbias, r_db, dnnl_f32),
            "C++ API: convolution backward data and weights");
    t.check(bdpd.diff_src_desc() == src && bwpd.diff_weights_desc() == wei && bwpd.diff_bias_desc() == bias,
            "C++ API: descriptor queries");
}

// Several threads run one backward-weights primitive at once (library
// mode); every result equals the serial one bit for bit: each execution
// sums in the same fixed order.
void check_concurrent(const lib_t &L, kt::tally_t &t) {
    prb_t p {false, 2, 3, 1, 5, 6, {9, 8}, {3, 3}, {1, 2}, {0, 1}, {1, 0}, {1, 2}, nxc, dnnl_f32, true};
    p.finish();
    descs_t d(p);
    dnnl_primitive_desc_t pd;
    KT_OK(create_bwd_w(L, p, d, nullptr, nullptr, &pd));
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    const size_t ns = (size_t)(p.mb * p.ic() * p.isp()), nd = (size_t)(p.mb * p.oc() * p.osp());
    const size_t nw = (size_t)(p.ocg * p.icg * p.ks());
    auto vs = random_values(ns, 41, dnnl_f32), vd = random_values(nd, 42, dnnl_f32);
    std::vector<float> fs(vs.begin(), vs.end()), fd(vd.begin(), vd.end());
    auto run = [&](std::vector<float> &dw, std::vector<float> &db) {
        run_t r;
        r.add(L, DNNL_ARG_SRC, d.src, fs.data());
        r.add(L, DNNL_ARG_DIFF_DST, d.dst, fd.data());
        r.add(L, DNNL_ARG_DIFF_WEIGHTS, d.wei, dw.data());
        r.add(L, DNNL_ARG_DIFF_BIAS, d.bias, db.data());
        return r.exec(L, prim);
    };
    std::vector<float> w0(nw), b0((size_t)p.oc());
    KT_OK(run(w0, b0));
    const int nt = 4;
    std::vector<std::vector<float>> ws(nt, std::vector<float>(nw)), bs(nt, std::vector<float>((size_t)p.oc()));
    std::vector<dnnl_status_t> sts(nt);
    std::vector<std::thread> th;
    for (int i = 0; i < nt; ++i)
        th.emplace_back([&, i] {
            for (int rep = 0; rep < 5 && sts[i] == dnnl_success; ++rep) sts[i] = run(ws[i], bs[i]);
        });
    for (auto &x : th) x.join();
    bool ok = true;
    for (int i = 0; i < nt; ++i) ok = ok && sts[i] == dnnl_success && ws[i] == w0 && bs[i] == b0;
    t.check(ok, "concurrent backward weights equal the serial result");
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
}

// Six different backward-weights convolutions run one after another in
// library mode: the arena holds the largest scratchpad, not the sum.
void check_arena(const lib_t &L, kt::tally_t &t) {
    using kestrel::scratchpad::arena_t;
    std::vector<prb_t> ps;
    for (int i = 0; i < 6; ++i) {
        prb_t p {i % 2 == 1, 2, 2, 1, 4 + 3 * i, 3 + i, {7 + i, 6}, {3, 1 + i % 3}, {1, 1}, {0, 0}, {1, 0}, {1, 0},
                ncx, dnnl_f32, false};
        p.finish();
        ps.push_back(p);
    }
    std::vector<dnnl_primitive_desc_t> pds;
    std::vector<dnnl_primitive_t> prims;
    size_t biggest = 0, sum = 0;
    auto granule = [](size_t s) { return (s + 4095) / 4096 * 4096; };
    dnnl_primitive_attr_t uattr;
    KT_OK(dnnl_primitive_attr_create(&uattr));
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(uattr, dnnl_scratchpad_mode_user));
    for (auto &p : ps) {
        descs_t d(p);
        dnnl_primitive_desc_t pd, upd;
        KT_OK(create_bwd_w(L, p, d, nullptr, nullptr, &pd));
        // The same problem in user mode reports the size library mode books.
        KT_OK(create_bwd_w(L, p, d, nullptr, uattr, &upd));
        const_dnnl_memory_desc_t spmd;
        KT_OK(dnnl_primitive_desc_query(upd, dnnl_query_scratchpad_md, 0, &spmd));
        const size_t s = granule(dnnl_memory_desc_get_size(spmd));
        biggest = std::max(biggest, s), sum += s;
        dnnl_primitive_desc_destroy(upd);
        dnnl_primitive_t prim;
        KT_OK(dnnl_primitive_create(&prim, pd));
        pds.push_back(pd);
        prims.push_back(prim);
    }
    bool ok = true;
    for (int round = 0; round < 2; ++round)
        for (size_t i = 0; i < ps.size(); ++i) {
            const prb_t &p = ps[i];
            descs_t d(p);
            std::vector<float> src((size_t)(p.mb * p.ic() * p.isp()), 0.5f), dd((size_t)(p.mb * p.oc() * p.osp()), 1.f);
            std::vector<float> dw((size_t)(p.ocg * p.icg * p.ks()));
            run_t r;
            r.add(L, DNNL_ARG_SRC, d.src, src.data());
            r.add(L, DNNL_ARG_DIFF_DST, d.dst, dd.data());
            r.add(L, DNNL_ARG_DIFF_WEIGHTS, d.wei, dw.data());
            ok = ok && r.exec(L, prims[i]) == dnnl_success;
        }
    const auto st = arena_t::global().stats();
    t.check(ok && st.held_total == biggest && st.held_total < sum, "six bwd-weights convs hold the largest scratchpad");
    for (auto x : prims) dnnl_primitive_destroy(x);
    for (auto x : pds) dnnl_primitive_desc_destroy(x);
    dnnl_primitive_attr_destroy(uattr);
}

} // namespace

int main() {
    kt::tally_t t;
    lib_t L;
    // {deconv, sp, mb, g, icg, ocg, in, k, s, dil, pl, pr, layout, dt, bias}
    const prb_t cases[] = {
            {false, 1, 2, 1, 3, 5, {9}, {3}, {1}, {0}, {1}, {1}, ncx, dnnl_f32, true},
            {false, 2, 2, 1, 5, 7, {7, 8}, {3, 3}, {2, 2}, {0, 0}, {1, 0}, {0, 1}, ncx, dnnl_f32, true},
            {false, 2, 1, 1, 4, 3, {9, 7}, {3, 2}, {1, 2}, {1, 2}, {2, 1}, {0, 1}, nxc, dnnl_f32, false},
            {false, 2, 3, 2, 3, 5, {6, 5}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, ncx, dnnl_f32, true},
            {false, 2, 2, 6, 1, 1, {7, 6}, {3, 3}, {2, 1}, {0, 1}, {1, 1}, {1, 1}, nxc, dnnl_f32, true}, // depthwise
            {false, 2, 2, 1, 19, 17, {5, 4}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, blk16, dnnl_f32, true},
            {false, 3, 2, 1, 3, 4, {4, 5, 4}, {2, 3, 2}, {2, 1, 1}, {0, 0, 1}, {1, 0, 1}, {0, 1, 0}, ncx, dnnl_f32, true},
            {false, 3, 1, 2, 5, 3, {3, 4, 5}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, blk8, dnnl_f32, false},
            {false, 2, 2, 1, 3, 4, {6, 6}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true}, // 1x1
            {false, 2, 2, 1, 6, 5, {7, 6}, {3, 3}, {2, 1}, {1, 0}, {1, 2}, {2, 0}, ncx, dnnl_bf16, true},
            {false, 2, 1, 3, 3, 2, {5, 5}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, blk16, dnnl_bf16, false},
            // blocked weights, as a forward with `any` weights hands them out
            {false, 2, 2, 1, 19, 20, {5, 6}, {3, 3}, {2, 1}, {0, 0}, {1, 1}, {0, 1}, blk16, dnnl_f32, true, true},
            {true, 2, 2, 1, 5, 18, {3, 4}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {0, 0}, ncx, dnnl_f32, false, true},
            {true, 1, 2, 1, 3, 4, {6}, {3}, {2}, {0}, {1}, {0}, ncx, dnnl_f32, true},
            {true, 2, 2, 1, 5, 3, {4, 5}, {3, 2}, {2, 1}, {1, 0}, {1, 0}, {0, 1}, nxc, dnnl_f32, true},
            {true, 2, 2, 4, 1, 1, {5, 4}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}, ncx, dnnl_f32, false}, // depthwise
            {true, 3, 1, 2, 3, 5, {3, 3, 4}, {2, 2, 3}, {2, 1, 2}, {0, 1, 0}, {0, 1, 1}, {1, 0, 0}, blk8, dnnl_f32, true},
            {true, 2, 2, 1, 17, 18, {4, 3}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {0, 0}, blk16, dnnl_f32, true},
            {true, 2, 2, 2, 3, 4, {4, 4}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}, ncx, dnnl_bf16, true},
            // 1x1 unit kernels: GEMMs straight on the user's tensors when f32
            // plain (channel- or point-major), copies otherwise; mb 1 splits
            // the points of one image between the threads (a runtime tail).
            {false, 2, 2, 1, 19, 17, {5, 6}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, nxc, dnnl_f32, true},
            {false, 2, 2, 3, 5, 3, {4, 7}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true},
            {false, 2, 2, 1, 17, 19, {5, 5}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, blk16, dnnl_f32, true},
            {false, 2, 2, 1, 9, 7, {3, 5}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, blk8, dnnl_f32, false},
            {false, 3, 1, 1, 3, 4, {3, 4, 5}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, ncx, dnnl_f32, true},
            {false, 1, 2, 2, 3, 5, {11}, {1}, {1}, {0}, {0}, {0}, nxc, dnnl_f32, true},
            {false, 2, 1, 1, 3, 5, {9, 9}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true},
            {false, 2, 1, 1, 5, 3, {9, 9}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, nxc, dnnl_f32, false},
            {false, 2, 2, 6, 1, 1, {5, 4}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true}, // depthwise
            {false, 2, 2, 1, 3, 4, {5, 5}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_bf16, true},
            // nxc 1x1 backward weights with enough points that the direct
            // GEMM tiles take them in several chunks plus a shorter last one
            // (partials transposed when ic > oc, straight otherwise; mb 1
            // splits one image's chunks between the threads; groups; a
            // deconvolution, whose big tensor is diff_dst).
            {false, 2, 2, 1, 19, 11, {97, 91}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, nxc, dnnl_f32, true},
            {false, 2, 1, 1, 11, 19, {89, 97}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, nxc, dnnl_f32, false},
            {false, 2, 1, 2, 13, 10, {93, 95}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, nxc, dnnl_f32, true},
            {true, 2, 1, 1, 12, 17, {97, 91}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, nxc, dnnl_f32, true},
            {true, 2, 2, 1, 5, 7, {5, 6}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true},
            {true, 2, 2, 2, 3, 5, {4, 5}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, nxc, dnnl_f32, false},
            {true, 2, 1, 1, 4, 3, {7, 7}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true},
            // 1x1 but not a unit (stride 2, padding): the im2col path.
            {false, 2, 2, 1, 4, 6, {7, 6}, {1, 1}, {2, 2}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true},
            {false, 2, 2, 1, 3, 5, {4, 5}, {1, 1}, {1, 1}, {0, 0}, {1, 0}, {1, 1}, nxc, dnnl_f32, true},
            // 3x3 stride 1 with padding on rows wider than the kernel, odd
            // channels, every layout (segments with both borders, scatter
            // into diff_src or a scratch image).
            {false, 2, 2, 1, 17, 3, {9, 23}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, ncx, dnnl_f32, true},
            {false, 2, 2, 1, 3, 17, {9, 21}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, nxc, dnnl_f32, true},
            {false, 2, 1, 1, 11, 9, {7, 19}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, blk8, dnnl_f32, true},
            {false, 2, 2, 1, 5, 21, {6, 18}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, blk16, dnnl_f32, false},
            // Dilated, asymmetric padding wider than the kernel reach; strided.
            {false, 2, 1, 1, 3, 5, {11, 13}, {3, 3}, {1, 1}, {1, 2}, {2, 3}, {2, 1}, ncx, dnnl_f32, true},
            {false, 2, 2, 1, 7, 5, {12, 17}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}, nxc, dnnl_f32, true},
            {false, 2, 2, 1, 5, 3, {11, 9}, {3, 3}, {3, 2}, {1, 0}, {0, 2}, {1, 1}, blk16, dnnl_f32, true},
            {false, 2, 2, 4, 1, 1, {9, 13}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, ncx, dnnl_f32, true}, // depthwise
            // Stride 2 without padding: the last big row (and column) no tap
            // reaches must still come out zero.
            {false, 2, 2, 1, 3, 5, {8, 9}, {3, 3}, {2, 2}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true},
            {false, 2, 1, 2, 3, 2, {8, 8}, {3, 3}, {2, 2}, {0, 0}, {0, 0}, {0, 0}, blk8, dnnl_f32, false},
    };
    int i = 0;
    for (const auto &c : cases) {
        char name[64];
        std::snprintf(name, sizeof name, "%s case %d", c.deconv ? "deconv" : "conv", i++);
        check_problem(L, t, c, name);
    }
    // Finite differences on tiny f32 shapes (every branch kind once).
    const prb_t tiny[] = {
            {false, 2, 1, 1, 2, 3, {5, 4}, {3, 2}, {2, 1}, {0, 1}, {1, 0}, {0, 1}, ncx, dnnl_f32, true},
            {false, 1, 2, 2, 2, 1, {7}, {3}, {1}, {1}, {2}, {1}, nxc, dnnl_f32, true},
            {false, 3, 1, 1, 2, 2, {3, 4, 3}, {2, 2, 2}, {1, 2, 1}, {0, 0, 0}, {1, 1, 0}, {0, 0, 1}, blk8, dnnl_f32, true},
            {true, 2, 1, 1, 2, 3, {3, 4}, {3, 2}, {2, 1}, {0, 1}, {1, 0}, {0, 1}, ncx, dnnl_f32, true},
            {false, 2, 1, 1, 3, 2, {4, 4}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, ncx, dnnl_f32, false, true},
            {true, 1, 2, 3, 1, 1, {5}, {3}, {2}, {0}, {1}, {1}, nxc, dnnl_f32, true},
            {false, 2, 2, 1, 3, 2, {3, 4}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true}, // 1x1 unit
            {false, 2, 1, 1, 2, 3, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, nxc, dnnl_f32, true},
            {true, 2, 1, 2, 1, 2, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, ncx, dnnl_f32, true},
            {false, 2, 1, 1, 2, 2, {3, 5}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, nxc, dnnl_f32, true}, // 3x3 s1 p1
    };
    i = 0;
    for (const auto &c : tiny) {
        char name[64];
        std::snprintf(name, sizeof name, "%s fd %d", c.deconv ? "deconv" : "conv", i++);
        check_gradients(L, t, c, name);
    }
    check_api(L, t);
    check_cpp(t);
    kt::with_threads(2, [&] { check_concurrent(L, t); });
    check_arena(L, t);
    return t.finish();
}
