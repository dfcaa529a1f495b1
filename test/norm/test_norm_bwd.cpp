// Backward of batch, layer and group normalization and LRN: diff_src,
// diff_scale and diff_shift against naive references written here (in
// double) and against central finite differences of the forward primitive;
// every flag and both backward prop kinds, f32 and bf16, plain, channel-last
// and channel-blocked layouts, 1 and 2 threads, the C and the C++ API; a
// missing or wrong workspace refused with nothing written.
#include <cmath>
#include <functional>

#include "dnnl.hpp"
#include "norm/bwd_util.hpp"

namespace {

using fvec = std::vector<float>;
const double u24 = std::ldexp(1.0, -24);

// A dense f32 1D / 2D argument (statistics, scale, shift) of a primitive.
struct arg_t {
    bt::pd_mem_t m;
    arg_t(const_dnnl_primitive_desc_t pd, dnnl_engine_t eng, int arg) : m(pd, eng, arg) {}
    float *f() { return (float *)m.buf.data(); }
};

// Central difference of f at x (set by setx), at steps h and 2h; passes
// when |D(h) - want| is within: the truncation error of D(h), estimated as
// |D(2h) - D(h)| / 3 (D(h) = f' + c h^2 + ...) with a factor 2 of margin,
// plus the rounding error of f (at most rf each evaluation) over the step,
// plus the tolerance `wtol` of the value under test.
bool fd_ok(const std::function<double()> &f, const std::function<void(float)> &setx, float x, double h, double want,
        double rf, double wtol, const char *what) {
    auto D = [&](double s) {
        const float xp = (float)(x + s), xm = (float)(x - s);
        setx(xp);
        const double fp = f();
        setx(xm);
        const double fm = f();
        setx(x);
        return (fp - fm) / ((double)xp - (double)xm);
    };
    const double d1 = D(h), d2 = D(2 * h);
    const double tol = 2 * std::fabs(d2 - d1) / 3 + 2 * rf / (2 * h) + wtol;
    if (std::fabs(d1 - want) <= tol) return true;
    std::fprintf(stderr, "  %s: fd %.9g (2h: %.9g) analytic %.9g tol %.3g\n", what, d1, d2, want, tol);
    return false;
}

double sum_dd_y(const fvec &dd, const fvec &y) {
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += (double)dd[i] * y[i];
    return s;
}

// Checks got against ref element-wise with per-element tolerance tol.
bool close(const fvec &got, const std::vector<double> &ref, const std::vector<double> &tol, const char *what) {
    for (size_t i = 0; i < got.size(); ++i)
        if (!(std::fabs(got[i] - ref[i]) <= tol[i])) {
            std::fprintf(stderr, "  %s [%zu]: got %.9g ref %.9g tol %.3g\n", what, i, got[i], ref[i], tol[i]);
            return false;
        }
    return true;
}

// The shared normalization reference: elements grouped into sets (one
// statistic each), channel ch[i] of each element, scale g per channel.
//   diff_src = rstd (g dd - mean(g dd) - xhat mean(g dd xhat))
// (no means with given statistics; no mean(g dd) for RMS). Tolerances: every
// f32 sum of M terms errs by at most M 2^-24 of the sum of |terms|, the
// other operations by a few 2^-24 each: (M + 8) 2^-22 bounds the relative
// error of each term, applied to the magnitudes T of the terms; bf16 storage
// adds a rounding of 2^-8 relative (8-bit significand).
struct norm_ref_t {
    std::vector<double> ds, ds_tol, dsc, dsh, dsc_tol, dsh_tol;
    void run(const fvec &x, const fvec &dd, const std::vector<size_t> &set, const std::vector<size_t> &ch,
            const fvec &mean, const fvec &var, const fvec &g, double eps, bool global, bool rms, size_t nsets,
            size_t C, bool bf16) {
        const size_t n = x.size();
        std::vector<double> sa(nsets, 0), sb(nsets, 0), ta(nsets, 0), tb(nsets, 0), cnt(nsets, 0), rstd(nsets), xh(n);
        for (size_t s = 0; s < nsets; ++s) rstd[s] = 1.0 / std::sqrt((double)var[s] + eps);
        dsc.assign(C, 0);
        dsh.assign(C, 0);
        dsc_tol.assign(C, 0);
        dsh_tol.assign(C, 0);
        std::vector<double> cnt_c(C, 0);
        for (size_t i = 0; i < n; ++i) {
            const size_t s = set[i], c = ch[i];
            xh[i] = ((double)x[i] - (rms ? 0.0 : mean[s])) * rstd[s];
            const double gd = g[c] * (double)dd[i];
            sa[s] += gd;
            sb[s] += gd * xh[i];
            ta[s] += std::fabs(gd);
            tb[s] += std::fabs(gd * xh[i]);
            cnt[s] += 1;
            dsc[c] += dd[i] * xh[i];
            dsh[c] += dd[i];
            dsc_tol[c] += std::fabs(dd[i] * xh[i]);
            dsh_tol[c] += std::fabs(dd[i]);
            cnt_c[c] += 1;
        }
        for (size_t c = 0; c < C; ++c) {
            dsc_tol[c] *= (cnt_c[c] + 8) * 4 * u24;
            dsh_tol[c] *= (cnt_c[c] + 8) * 4 * u24;
        }
        ds.resize(n);
        ds_tol.resize(n);
        for (size_t i = 0; i < n; ++i) {
            const size_t s = set[i];
            const double gd = g[ch[i]] * (double)dd[i], M = cnt[s];
            const double a = global || rms ? 0 : sa[s] / M, b = global ? 0 : sb[s] / M;
            ds[i] = rstd[s] * (gd - a - xh[i] * b);
            const double T = rstd[s] * (std::fabs(gd) + (global ? 0 : ta[s] / M + std::fabs(xh[i]) * tb[s] / M));
            ds_tol[i] = (M + 8) * 4 * u24 * T * (1 + std::fabs(xh[i])) + (bf16 ? std::ldexp(std::fabs(ds[i]), -8) : 0);
        }
    }
};

// ---------------------------------------------------------------- bnorm
void bnorm_case(bt::env_t &env, kt::tally_t &t, int nthr, bt::layout_t l, dnnl_dim_t C, dnnl_data_type_t dt,
        unsigned flags, dnnl_prop_kind_t prop) {
    const dnnl_dim_t N = 2, H = 3, W = 4;
    const float eps = 1e-3f;
    bt::tensor_t src(env.eng, {N, C, H, W}, dt, l), dst(env.eng, {N, C, H, W}, dt, l);
    bt::tensor_t ddst(env.eng, {N, C, H, W}, dt, l), dsrc(env.eng, {N, C, H, W}, dt, l);
    dnnl_primitive_desc_t fpd = nullptr, bpd = nullptr;
    KT_OK(dnnl_batch_normalization_forward_primitive_desc_create(&fpd, env.eng, dnnl_forward_training, src.md,
            dst.md, eps, flags, nullptr));
    KT_OK(dnnl_batch_normalization_backward_primitive_desc_create(&bpd, env.eng, prop, dsrc.md, ddst.md, src.md, eps,
            flags, fpd, nullptr));
    const bool global = flags & dnnl_use_global_stats, add = flags & dnnl_fuse_norm_add_relu;
    const bool relu = (flags & dnnl_fuse_norm_relu) || add;
    const bool sc = flags & dnnl_use_scale, sh = flags & dnnl_use_shift, bwd = prop == dnnl_backward;
    // fuse_norm_add_relu: dst = relu(bnorm(src) + src1); diff_src1 is the
    // masked diff_dst.
    bt::tensor_t src1(env.eng, {N, C, H, W}, dt, l), dsrc1(env.eng, {N, C, H, W}, dt, l);
    arg_t mean(bpd, env.eng, DNNL_ARG_MEAN), var(bpd, env.eng, DNNL_ARG_VARIANCE);
    arg_t scale(fpd, env.eng, DNNL_ARG_SCALE), shift(fpd, env.eng, DNNL_ARG_SHIFT), ws(fpd, env.eng, DNNL_ARG_WORKSPACE);
    arg_t dscale(bpd, env.eng, DNNL_ARG_DIFF_SCALE), dshift(bpd, env.eng, DNNL_ARG_DIFF_SHIFT);
    fvec x(src.nelems()), g(ddst.nelems()), gam(C, 1.f), bet(C, 0.f);
    kt::fill(x, 3 + C, -1.f, 1.f);
    kt::fill(g, 5 + C, -1.f, 1.f);
    src.put(x);
    x = src.get();
    ddst.put(g);
    g = ddst.get();
    for (dnnl_dim_t c = 0; c < C; ++c) {
        if (sc) gam[c] = scale.f()[c] = 0.5f + 0.1f * (float)c;
        if (sh) bet[c] = shift.f()[c] = 0.05f * (float)c - 0.2f;
        if (global) {
            mean.f()[c] = 0.1f * (float)(c % 3) - 0.1f;
            var.f()[c] = 0.25f + 0.05f * (float)c;
        }
    }
    std::map<int, dnnl_memory_t> fa = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_DST, dst.mem}, {DNNL_ARG_MEAN, mean.m.mem},
            {DNNL_ARG_VARIANCE, var.m.mem}};
    if (sc) fa[DNNL_ARG_SCALE] = scale.m.mem;
    if (sh) fa[DNNL_ARG_SHIFT] = shift.m.mem;
    if (relu) fa[DNNL_ARG_WORKSPACE] = ws.m.mem;
    if (add) {
        fvec x1(src1.nelems());
        kt::fill(x1, 9 + C, -0.5f, 0.5f);
        src1.put(x1);
        fa[DNNL_ARG_SRC_1] = src1.mem;
    }
    KT_OK(bt::exec(fpd, env.strm, fa));
    std::map<int, dnnl_memory_t> ba = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_MEAN, mean.m.mem},
            {DNNL_ARG_VARIANCE, var.m.mem}, {DNNL_ARG_DIFF_DST, ddst.mem}, {DNNL_ARG_DIFF_SRC, dsrc.mem}};
    if (sc) ba[DNNL_ARG_SCALE] = scale.m.mem;
    if (relu) ba[DNNL_ARG_WORKSPACE] = ws.m.mem;
    if (bwd && sc) ba[DNNL_ARG_DIFF_SCALE] = dscale.m.mem;
    if (bwd && sh) ba[DNNL_ARG_DIFF_SHIFT] = dshift.m.mem;
    if (add) ba[DNNL_ARG_DIFF_SRC_1] = dsrc1.mem;
    char what[160];
    std::snprintf(what, sizeof what, "bnorm bwd nthr=%d layout=%d C=%ld dt=%d flags=%x prop=%d", nthr, (int)l, (long)C,
            (int)dt, flags, (int)prop);
    t.check(bt::exec(bpd, env.strm, ba) == dnnl_success, what);
    // Reference: the ReLU mask from the forward's output (dst > 0).
    const fvec y = dst.get();
    fvec gm = g;
    if (relu)
        for (size_t i = 0; i < gm.size(); ++i)
            if (!(y[i] > 0.f)) gm[i] = 0.f;
    std::vector<size_t> set(x.size()), ch(x.size());
    for (size_t i = 0; i < x.size(); ++i) set[i] = ch[i] = (size_t)((dnnl_dim_t)i / (H * W) % C);
    norm_ref_t r;
    r.run(x, gm, set, ch, fvec(mean.f(), mean.f() + C), fvec(var.f(), var.f() + C), gam, eps, global, false, C, C,
            dt == dnnl_bf16);
    t.check(close(dsrc.get(), r.ds, r.ds_tol, what), what);
    if (add) t.check(dsrc1.get() == gm, "bnorm add_relu: diff_src_1 is the masked diff_dst");
    if (bwd && sc) t.check(close(fvec(dscale.f(), dscale.f() + C), r.dsc, r.dsc_tol, "bnorm diff_scale"), what);
    if (bwd && sh) t.check(close(fvec(dshift.f(), dshift.f() + C), r.dsh, r.dsh_tol, "bnorm diff_shift"), what);

    // Gradient checks through the forward primitive (f32, no ReLU kink).
    if (dt == dnnl_f32 && nthr == 1 && !relu && (l == bt::ncsp || l == bt::nspc)) {
        dnnl_primitive_t fp = nullptr;
        KT_OK(dnnl_primitive_create(&fp, fpd));
        std::vector<dnnl_exec_arg_t> a;
        for (auto &kv : fa) a.push_back({kv.first, kv.second});
        fvec m0(mean.f(), mean.f() + C), v0(var.f(), var.f() + C);
        auto f = [&]() {
            KT_OK(dnnl_primitive_execute(fp, env.strm, (int)a.size(), a.data()));
            KT_OK(dnnl_stream_wait(env.strm));
            return sum_dd_y(g, dst.get());
        };
        // f's rounding: each output errs by (M + 8) 2^-22 (|y| + |g|(1 + |xhat|)) at most.
        const double M = (double)(N * H * W);
        double rf = 0;
        for (size_t i = 0; i < y.size(); ++i) rf += std::fabs(g[i]) * (M + 8) * 4 * u24 * (std::fabs(y[i]) + 4 * gam[ch[i]]);
        const fvec got = dsrc.get();
        bool ok = true;
        for (size_t i = 0; i < x.size() && ok; i += 7)
            ok = fd_ok(f, [&](float v) { src.set(i, v); }, x[i], 1.0 / 64, got[i], rf, r.ds_tol[i], what);
        for (dnnl_dim_t c = 0; c < C && ok && bwd; ++c) {
            if (sc) ok = fd_ok(f, [&](float v) { scale.f()[c] = v; }, gam[c], 1.0 / 64, dscale.f()[c], rf, r.dsc_tol[c], what);
            if (sh && ok) ok = fd_ok(f, [&](float v) { shift.f()[c] = v; }, bet[c], 1.0 / 64, dshift.f()[c], rf, r.dsh_tol[c], what);
        }
        dnnl_primitive_destroy(fp);
        t.check(ok, (std::string("gradient check ") + what).c_str());
    }

    // Without the workspace, or with one of another descriptor: refused,
    // nothing written.
    if (relu && nthr == 1) {
        std::fill(dsrc.buf.begin(), dsrc.buf.end(), (char)0x5a);
        const std::vector<char> before = dsrc.buf;
        auto bad = ba;
        bad.erase(DNNL_ARG_WORKSPACE);
        t.check(bt::exec(bpd, env.strm, bad) == dnnl_invalid_arguments, "bnorm bwd: no workspace");
        bt::tensor_t wrong(env.eng, {N, C, H, W}, dnnl_f32, bt::ncsp);
        bad[DNNL_ARG_WORKSPACE] = wrong.mem;
        t.check(bt::exec(bpd, env.strm, bad) == dnnl_invalid_arguments, "bnorm bwd: wrong workspace");
        t.check(dsrc.buf == before, "bnorm bwd: nothing written");
    }
    dnnl_primitive_desc_destroy(bpd);
    dnnl_primitive_desc_destroy(fpd);
}

// ---------------------------------------------------------------- lnorm
void lnorm_case(bt::env_t &env, kt::tally_t &t, int nthr, dnnl_dim_t C, dnnl_data_type_t dt, unsigned flags,
        dnnl_prop_kind_t prop, dnnl_data_type_t ssdt) {
    const dnnl_dim_t T = 2, N = 3;
    const float eps = 1e-3f;
    bt::tensor_t src(env.eng, {T, N, C}, dt, bt::ncsp), dst(env.eng, {T, N, C}, dt, bt::ncsp);
    bt::tensor_t ddst(env.eng, {T, N, C}, dt, bt::ncsp), dsrc(env.eng, {T, N, C}, dt, bt::ncsp);
    dnnl_primitive_desc_t fpd = nullptr, bpd = nullptr;
    KT_OK(dnnl_layer_normalization_forward_primitive_desc_create_v2(&fpd, env.eng, dnnl_forward_training, src.md,
            dst.md, nullptr, ssdt, eps, flags, nullptr));
    KT_OK(dnnl_layer_normalization_backward_primitive_desc_create_v2(&bpd, env.eng, prop, dsrc.md, ddst.md, src.md,
            nullptr, ssdt, ssdt, eps, flags, fpd, nullptr));
    const bool global = flags & dnnl_use_global_stats, rms = flags & dnnl_rms_norm;
    const bool sc = flags & dnnl_use_scale, sh = flags & dnnl_use_shift, bwd = prop == dnnl_backward;
    arg_t mean(fpd, env.eng, DNNL_ARG_MEAN), var(fpd, env.eng, DNNL_ARG_VARIANCE);
    // scale / shift in ssdt: 1D tensors of our own.
    const size_t R = (size_t)(T * N);
    fvec x(src.nelems()), g(ddst.nelems()), gam(C, 1.f);
    kt::fill(x, 13 + C, -1.f, 1.f);
    kt::fill(g, 17 + C, -1.f, 1.f);
    src.put(x);
    x = src.get();
    ddst.put(g);
    g = ddst.get();
    dnnl_memory_desc_t smd;
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, 1, &C, ssdt, dnnl_a));
    auto mk1d = [&](std::vector<char> &b) {
        b.assign((size_t)C * 4 + 64, 0);
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, smd, env.eng, b.data()));
        return m;
    };
    auto put1d = [&](std::vector<char> &b, dnnl_dim_t c, float v) {
        if (ssdt == dnnl_f32) {
            std::memcpy(b.data() + c * 4, &v, 4);
        } else {
            v = bt::bf16_round(v);
            uint32_t u;
            std::memcpy(&u, &v, 4);
            u >>= 16;
            std::memcpy(b.data() + c * 2, &u, 2);
        }
        return v;
    };
    auto get1d = [&](const std::vector<char> &b, dnnl_dim_t c) {
        float v;
        if (ssdt == dnnl_f32) {
            std::memcpy(&v, b.data() + c * 4, 4);
        } else {
            uint32_t u = 0;
            std::memcpy(&u, b.data() + c * 2, 2);
            u <<= 16;
            std::memcpy(&v, &u, 4);
        }
        return v;
    };
    std::vector<char> bsc, bsh, bdsc, bdsh;
    dnnl_memory_t msc = mk1d(bsc), msh = mk1d(bsh), mdsc = mk1d(bdsc), mdsh = mk1d(bdsh);
    for (dnnl_dim_t c = 0; c < C; ++c) {
        if (sc) gam[c] = put1d(bsc, c, 0.5f + 0.07f * (float)c);
        if (sh) put1d(bsh, c, 0.03f * (float)c - 0.1f);
    }
    if (global)
        for (size_t r = 0; r < R; ++r) {
            mean.f()[r] = 0.05f * (float)r - 0.1f;
            var.f()[r] = 0.3f + 0.02f * (float)r;
        }
    std::map<int, dnnl_memory_t> fa = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_DST, dst.mem}, {DNNL_ARG_VARIANCE, var.m.mem}};
    if (!rms) fa[DNNL_ARG_MEAN] = mean.m.mem;
    if (sc) fa[DNNL_ARG_SCALE] = msc;
    if (sh) fa[DNNL_ARG_SHIFT] = msh;
    KT_OK(bt::exec(fpd, env.strm, fa));
    std::map<int, dnnl_memory_t> ba = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_VARIANCE, var.m.mem},
            {DNNL_ARG_DIFF_DST, ddst.mem}, {DNNL_ARG_DIFF_SRC, dsrc.mem}};
    if (!rms) ba[DNNL_ARG_MEAN] = mean.m.mem;
    if (sc) ba[DNNL_ARG_SCALE] = msc;
    if (bwd && sc) ba[DNNL_ARG_DIFF_SCALE] = mdsc;
    if (bwd && sh) ba[DNNL_ARG_DIFF_SHIFT] = mdsh;
    char what[160];
    std::snprintf(what, sizeof what, "lnorm bwd nthr=%d C=%ld dt=%d flags=%x prop=%d ssdt=%d", nthr, (long)C, (int)dt,
            flags, (int)prop, (int)ssdt);
    t.check(bt::exec(bpd, env.strm, ba) == dnnl_success, what);
    std::vector<size_t> set(x.size()), ch(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        set[i] = i / (size_t)C;
        ch[i] = i % (size_t)C;
    }
    norm_ref_t r;
    r.run(x, g, set, ch, fvec(mean.f(), mean.f() + R), fvec(var.f(), var.f() + R), gam, eps, global, rms, R,
            (size_t)C, dt == dnnl_bf16);
    t.check(close(dsrc.get(), r.ds, r.ds_tol, what), what);
    if (ssdt == dnnl_bf16)
        for (dnnl_dim_t c = 0; c < C; ++c) {
            r.dsc_tol[c] += std::ldexp(std::fabs(r.dsc[c]), -8);
            r.dsh_tol[c] += std::ldexp(std::fabs(r.dsh[c]), -8);
        }
    fvec gs(C), gh(C);
    for (dnnl_dim_t c = 0; c < C; ++c) gs[c] = get1d(bdsc, c), gh[c] = get1d(bdsh, c);
    if (bwd && sc) t.check(close(gs, r.dsc, r.dsc_tol, "lnorm diff_scale"), what);
    if (bwd && sh) t.check(close(gh, r.dsh, r.dsh_tol, "lnorm diff_shift"), what);

    if (dt == dnnl_f32 && ssdt == dnnl_f32 && nthr == 1) {
        dnnl_primitive_t fp = nullptr;
        KT_OK(dnnl_primitive_create(&fp, fpd));
        std::vector<dnnl_exec_arg_t> a;
        for (auto &kv : fa) a.push_back({kv.first, kv.second});
        const fvec y = dst.get();
        auto f = [&]() {
            KT_OK(dnnl_primitive_execute(fp, env.strm, (int)a.size(), a.data()));
            KT_OK(dnnl_stream_wait(env.strm));
            return sum_dd_y(g, dst.get());
        };
        double rf = 0;
        for (size_t i = 0; i < y.size(); ++i) rf += std::fabs(g[i]) * ((double)C + 8) * 4 * u24 * (std::fabs(y[i]) + 4 * gam[ch[i]]);
        const fvec got = dsrc.get();
        bool ok = true;
        for (size_t i = 0; i < x.size() && ok; i += 3)
            ok = fd_ok(f, [&](float v) { src.set(i, v); }, x[i], 1.0 / 64, got[i], rf, r.ds_tol[i], what);
        for (dnnl_dim_t c = 0; c < C && ok && bwd; ++c) {
            if (sc) ok = fd_ok(f, [&](float v) { put1d(bsc, c, v); }, gam[c], 1.0 / 64, gs[c], rf, r.dsc_tol[c], what);
            if (sh && ok) ok = fd_ok(f, [&](float v) { put1d(bsh, c, v); }, get1d(bsh, c), 1.0 / 64, gh[c], rf, r.dsh_tol[c], what);
        }
        dnnl_primitive_destroy(fp);
        t.check(ok, (std::string("gradient check ") + what).c_str());
    }
    for (auto m : {msc, msh, mdsc, mdsh}) dnnl_memory_destroy(m);
    dnnl_memory_desc_destroy(smd);
    dnnl_primitive_desc_destroy(bpd);
    dnnl_primitive_desc_destroy(fpd);
}

// ---------------------------------------------------------------- gnorm
void gnorm_case(bt::env_t &env, kt::tally_t &t, int nthr, bt::layout_t l, dnnl_dim_t C, dnnl_dim_t G,
        dnnl_data_type_t dt, unsigned flags, dnnl_prop_kind_t prop) {
    const dnnl_dim_t N = 2, H = 2, W = 3;
    const float eps = 1e-3f;
    bt::tensor_t src(env.eng, {N, C, H, W}, dt, l), dst(env.eng, {N, C, H, W}, dt, l);
    bt::tensor_t ddst(env.eng, {N, C, H, W}, dt, l), dsrc(env.eng, {N, C, H, W}, dt, l);
    dnnl_primitive_desc_t fpd = nullptr, bpd = nullptr;
    KT_OK(dnnl_group_normalization_forward_primitive_desc_create(&fpd, env.eng, dnnl_forward_training, src.md, dst.md,
            G, eps, flags, nullptr));
    KT_OK(dnnl_group_normalization_backward_primitive_desc_create(&bpd, env.eng, prop, dsrc.md, ddst.md, src.md, G,
            eps, flags, fpd, nullptr));
    const bool global = flags & dnnl_use_global_stats;
    const bool sc = flags & dnnl_use_scale, sh = flags & dnnl_use_shift, bwd = prop == dnnl_backward;
    arg_t mean(bpd, env.eng, DNNL_ARG_MEAN), var(bpd, env.eng, DNNL_ARG_VARIANCE);
    arg_t scale(fpd, env.eng, DNNL_ARG_SCALE), shift(fpd, env.eng, DNNL_ARG_SHIFT);
    arg_t dscale(bpd, env.eng, DNNL_ARG_DIFF_SCALE), dshift(bpd, env.eng, DNNL_ARG_DIFF_SHIFT);
    fvec x(src.nelems()), g(ddst.nelems()), gam(C, 1.f), bet(C, 0.f);
    kt::fill(x, 23 + C, -1.f, 1.f);
    kt::fill(g, 29 + C, -1.f, 1.f);
    src.put(x);
    x = src.get();
    ddst.put(g);
    g = ddst.get();
    for (dnnl_dim_t c = 0; c < C; ++c) {
        if (sc) gam[c] = scale.f()[c] = 0.6f + 0.1f * (float)c;
        if (sh) bet[c] = shift.f()[c] = 0.1f - 0.03f * (float)c;
    }
    if (global)
        for (dnnl_dim_t s = 0; s < N * G; ++s) {
            mean.f()[s] = 0.02f * (float)s;
            var.f()[s] = 0.2f + 0.03f * (float)s;
        }
    std::map<int, dnnl_memory_t> fa = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_DST, dst.mem}, {DNNL_ARG_MEAN, mean.m.mem},
            {DNNL_ARG_VARIANCE, var.m.mem}};
    if (sc) fa[DNNL_ARG_SCALE] = scale.m.mem;
    if (sh) fa[DNNL_ARG_SHIFT] = shift.m.mem;
    KT_OK(bt::exec(fpd, env.strm, fa));
    std::map<int, dnnl_memory_t> ba = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_MEAN, mean.m.mem},
            {DNNL_ARG_VARIANCE, var.m.mem}, {DNNL_ARG_DIFF_DST, ddst.mem}, {DNNL_ARG_DIFF_SRC, dsrc.mem}};
    if (sc) ba[DNNL_ARG_SCALE] = scale.m.mem;
    if (bwd && sc) ba[DNNL_ARG_DIFF_SCALE] = dscale.m.mem;
    if (bwd && sh) ba[DNNL_ARG_DIFF_SHIFT] = dshift.m.mem;
    char what[160];
    std::snprintf(what, sizeof what, "gnorm bwd nthr=%d layout=%d C=%ld G=%ld dt=%d flags=%x prop=%d", nthr, (int)l,
            (long)C, (long)G, (int)dt, flags, (int)prop);
    t.check(bt::exec(bpd, env.strm, ba) == dnnl_success, what);
    std::vector<size_t> set(x.size()), ch(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const dnnl_dim_t n = (dnnl_dim_t)i / (C * H * W), c = (dnnl_dim_t)i / (H * W) % C;
        ch[i] = (size_t)c;
        set[i] = (size_t)(n * G + c / (C / G));
    }
    norm_ref_t r;
    r.run(x, g, set, ch, fvec(mean.f(), mean.f() + N * G), fvec(var.f(), var.f() + N * G), gam, eps, global, false,
            (size_t)(N * G), (size_t)C, dt == dnnl_bf16);
    t.check(close(dsrc.get(), r.ds, r.ds_tol, what), what);
    if (bwd && sc) t.check(close(fvec(dscale.f(), dscale.f() + C), r.dsc, r.dsc_tol, "gnorm diff_scale"), what);
    if (bwd && sh) t.check(close(fvec(dshift.f(), dshift.f() + C), r.dsh, r.dsh_tol, "gnorm diff_shift"), what);
    if (dt == dnnl_f32 && nthr == 1 && (l == bt::ncsp || l == bt::nspc)) {
        dnnl_primitive_t fp = nullptr;
        KT_OK(dnnl_primitive_create(&fp, fpd));
        std::vector<dnnl_exec_arg_t> a;
        for (auto &kv : fa) a.push_back({kv.first, kv.second});
        const fvec y = dst.get();
        auto f = [&]() {
            KT_OK(dnnl_primitive_execute(fp, env.strm, (int)a.size(), a.data()));
            KT_OK(dnnl_stream_wait(env.strm));
            return sum_dd_y(g, dst.get());
        };
        const double M = (double)(C / G * H * W);
        double rf = 0;
        for (size_t i = 0; i < y.size(); ++i) rf += std::fabs(g[i]) * (M + 8) * 4 * u24 * (std::fabs(y[i]) + 4 * gam[ch[i]]);
        const fvec got = dsrc.get();
        bool ok = true;
        for (size_t i = 0; i < x.size() && ok; i += 5)
            ok = fd_ok(f, [&](float v) { src.set(i, v); }, x[i], 1.0 / 64, got[i], rf, r.ds_tol[i], what);
        for (dnnl_dim_t c = 0; c < C && ok && bwd; ++c) {
            if (sc) ok = fd_ok(f, [&](float v) { scale.f()[c] = v; }, gam[c], 1.0 / 64, dscale.f()[c], rf, r.dsc_tol[c], what);
            if (sh && ok) ok = fd_ok(f, [&](float v) { shift.f()[c] = v; }, bet[c], 1.0 / 64, dshift.f()[c], rf, r.dsh_tol[c], what);
        }
        dnnl_primitive_destroy(fp);
        t.check(ok, (std::string("gradient check ") + what).c_str());
    }
    dnnl_primitive_desc_destroy(bpd);
    dnnl_primitive_desc_destroy(fpd);
}

// ---------------------------------------------------------------- lrn
// With a training hint the backward reads the workspace through the
// vectorised path (vec:ncsp / vec:nspc / vec:blocked, as the layout says);
// with an inference hint it recomputes the window sums (ref:any).
void lrn_case(bt::env_t &env, kt::tally_t &t, int nthr, bt::layout_t l, dnnl_dim_t C, dnnl_data_type_t dt,
        dnnl_alg_kind_t alg, dnnl_dim_t ls, dnnl_prop_kind_t fprop, dnnl_dim_t H = 3, dnnl_dim_t W = 4) {
    const dnnl_dim_t N = 2;
    const float alpha = 0.8f, beta = 0.75f, k = 1.5f;
    bt::tensor_t src(env.eng, {N, C, H, W}, dt, l), dst(env.eng, {N, C, H, W}, dt, l);
    bt::tensor_t ddst(env.eng, {N, C, H, W}, dt, l), dsrc(env.eng, {N, C, H, W}, dt, l);
    dnnl_primitive_desc_t fpd = nullptr, bpd = nullptr;
    KT_OK(dnnl_lrn_forward_primitive_desc_create(&fpd, env.eng, fprop, alg, src.md, dst.md, ls, alpha, beta, k, nullptr));
    KT_OK(dnnl_lrn_backward_primitive_desc_create(&bpd, env.eng, alg, dsrc.md, ddst.md, src.md, ls, alpha, beta, k, fpd,
            nullptr));
    const bool ws_on = fprop == dnnl_forward_training;
    {
        const std::string impl = kt::impl_name(bpd);
        const char *want = !ws_on ? "ref:any" : l == bt::ncsp ? "vec:ncsp" : l == bt::nspc ? "vec:nspc" : "vec:blocked";
        t.check(impl == want, ("lrn bwd impl " + impl + " want " + want).c_str());
    }
    arg_t ws(fpd, env.eng, DNNL_ARG_WORKSPACE);
    fvec x(src.nelems()), g(ddst.nelems());
    kt::fill(x, 31 + C, -2.f, 2.f);
    kt::fill(g, 37 + C, -1.f, 1.f);
    src.put(x);
    x = src.get();
    ddst.put(g);
    g = ddst.get();
    std::map<int, dnnl_memory_t> fa = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_DST, dst.mem}};
    if (ws_on) fa[DNNL_ARG_WORKSPACE] = ws.m.mem;
    KT_OK(bt::exec(fpd, env.strm, fa));
    std::map<int, dnnl_memory_t> ba = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_DIFF_DST, ddst.mem}, {DNNL_ARG_DIFF_SRC, dsrc.mem}};
    if (ws_on) ba[DNNL_ARG_WORKSPACE] = ws.m.mem;
    char what[160];
    std::snprintf(what, sizeof what, "lrn bwd nthr=%d layout=%d C=%ld HxW=%ldx%ld dt=%d alg=%x ls=%ld fprop=%d", nthr,
            (int)l, (long)C, (long)H, (long)W, (int)dt, (unsigned)alg, (long)ls, (int)fprop);
    t.check(bt::exec(bpd, env.strm, ba) == dnnl_success, what);
    // Reference in double: windows of half-width (ls - 1) / 2, clipped.
    const dnnl_dim_t half = (ls - 1) / 2;
    const bool across = alg == dnnl_lrn_across_channels;
    const double nsum = across ? (double)ls : (double)(ls * ls);
    auto idx = [&](dnnl_dim_t n, dnnl_dim_t c, dnnl_dim_t h, dnnl_dim_t w) { return (size_t)(((n * C + c) * H + h) * W + w); };
    auto win = [&](dnnl_dim_t n, dnnl_dim_t c, dnnl_dim_t h, dnnl_dim_t w, const std::function<void(size_t)> &f) {
        for (dnnl_dim_t cc = 0; cc < C; ++cc)
            for (dnnl_dim_t hh = 0; hh < H; ++hh)
                for (dnnl_dim_t ww = 0; ww < W; ++ww) {
                    const bool in = across ? (hh == h && ww == w && std::labs(cc - c) <= half)
                                           : (cc == c && std::labs(hh - h) <= half && std::labs(ww - w) <= half);
                    if (in) f(idx(n, cc, hh, ww));
                }
    };
    std::vector<double> om(x.size()), ref(x.size()), tol(x.size());
    std::vector<int> wsz(x.size());
    for (dnnl_dim_t n = 0; n < N; ++n)
        for (dnnl_dim_t c = 0; c < C; ++c)
            for (dnnl_dim_t h = 0; h < H; ++h)
                for (dnnl_dim_t w = 0; w < W; ++w) {
                    double s = 0;
                    int cnt = 0;
                    win(n, c, h, w, [&](size_t j) {
                        s += (double)x[j] * x[j];
                        ++cnt;
                    });
                    om[idx(n, c, h, w)] = k + alpha * s / nsum;
                    wsz[idx(n, c, h, w)] = cnt;
                }
    // Each term carries the rounding of its window sum (cnt 2^-24) and of
    // the power (a few 2^-24), amplified by beta + 1 <= 2, and the sum of
    // cnt terms rounds by cnt 2^-24: (2 cnt + 16) 2^-22 of the magnitudes.
    for (dnnl_dim_t n = 0; n < N; ++n)
        for (dnnl_dim_t c = 0; c < C; ++c)
            for (dnnl_dim_t h = 0; h < H; ++h)
                for (dnnl_dim_t w = 0; w < W; ++w) {
                    const size_t j = idx(n, c, h, w);
                    double acc = 0, mag = 0;
                    win(n, c, h, w, [&](size_t i) {
                        const double v = (double)g[i] * x[i] * std::pow(om[i], -beta - 1);
                        acc += v;
                        mag += std::fabs(v);
                    });
                    const double first = g[j] * std::pow(om[j], -beta), second = 2 * alpha * beta / nsum * x[j];
                    ref[j] = first - second * acc;
                    tol[j] = (2.0 * wsz[j] + 16) * 4 * u24 * (std::fabs(first) + std::fabs(second) * mag)
                            + (dt == dnnl_bf16 ? std::ldexp(std::fabs(ref[j]), -8) : 0);
                }
    t.check(close(dsrc.get(), ref, tol, what), what);
    if (dt == dnnl_f32 && nthr == 1 && l != bt::blk16) {
        dnnl_primitive_t fp = nullptr;
        KT_OK(dnnl_primitive_create(&fp, fpd));
        std::vector<dnnl_exec_arg_t> a;
        for (auto &kv : fa) a.push_back({kv.first, kv.second});
        const fvec y = dst.get();
        auto f = [&]() {
            KT_OK(dnnl_primitive_execute(fp, env.strm, (int)a.size(), a.data()));
            KT_OK(dnnl_stream_wait(env.strm));
            return sum_dd_y(g, dst.get());
        };
        double rf = 0;
        for (size_t i = 0; i < y.size(); ++i) rf += std::fabs(g[i]) * (2.0 * wsz[i] + 16) * 4 * u24 * std::fabs(y[i]);
        const fvec got = dsrc.get();
        bool ok = true;
        for (size_t i = 0; i < x.size() && ok; i += 5)
            ok = fd_ok(f, [&](float v) { src.set(i, v); }, x[i], 1.0 / 64, got[i], rf, tol[i], what);
        dnnl_primitive_destroy(fp);
        t.check(ok, (std::string("gradient check ") + what).c_str());
    }
    if (ws_on && nthr == 1) {
        std::fill(dsrc.buf.begin(), dsrc.buf.end(), (char)0x5a);
        const std::vector<char> before = dsrc.buf;
        auto bad = ba;
        bad.erase(DNNL_ARG_WORKSPACE);
        t.check(bt::exec(bpd, env.strm, bad) == dnnl_invalid_arguments, "lrn bwd: no workspace");
        bt::tensor_t wrong(env.eng, {N, C, H, W}, dnnl_bf16, l);
        bad[DNNL_ARG_WORKSPACE] = wrong.mem;
        t.check(bt::exec(bpd, env.strm, bad) == dnnl_invalid_arguments, "lrn bwd: wrong workspace");
        t.check(dsrc.buf == before, "lrn bwd: nothing written");
    }
    dnnl_primitive_desc_destroy(bpd);
    dnnl_primitive_desc_destroy(fpd);
}

} // namespace

int main() {
    kt::tally_t t;
    bt::env_t env;
    const bt::layout_t layouts[] = {bt::ncsp, bt::nspc, bt::blk16, bt::blk8};
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (auto dt : {dnnl_f32, dnnl_bf16})
            for (auto prop : {dnnl_backward, dnnl_backward_data}) {
                for (auto l : layouts)
                for (dnnl_dim_t C : {3, 17})
                for (unsigned fl : {0u, (unsigned)(dnnl_use_scale | dnnl_use_shift),
                             (unsigned)(dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift),
                             (unsigned)(dnnl_use_scale | dnnl_fuse_norm_relu),
                             (unsigned)(dnnl_use_scale | dnnl_use_shift | dnnl_fuse_norm_add_relu)})
                    bnorm_case(env, t, nthr, l, C, dt, fl, prop);
                for (dnnl_dim_t C : {5, 17})
                for (unsigned fl : {0u, (unsigned)(dnnl_use_scale | dnnl_use_shift),
                             (unsigned)(dnnl_use_global_stats | dnnl_use_scale),
                             (unsigned)(dnnl_rms_norm | dnnl_use_scale | dnnl_use_shift),
                             (unsigned)(dnnl_rms_norm | dnnl_use_global_stats)})
                for (auto ssdt : {dnnl_f32, dnnl_bf16})
                    lnorm_case(env, t, nthr, C, dt, fl, prop, ssdt);
                for (auto l : layouts)
                for (dnnl_dim_t G : {2, 3})
                for (unsigned fl : {0u, (unsigned)(dnnl_use_scale | dnnl_use_shift),
                             (unsigned)(dnnl_use_global_stats | dnnl_use_scale)})
                    gnorm_case(env, t, nthr, l, 6, G, dt, fl, prop);
            }
            for (auto dt : {dnnl_f32, dnnl_bf16})
            for (auto l : layouts)
            for (auto alg : {dnnl_lrn_across_channels, dnnl_lrn_within_channel})
            for (dnnl_dim_t ls : {3, 4})
            for (auto fprop : {dnnl_forward_training, dnnl_forward_inference})
                lrn_case(env, t, nthr, l, 5, dt, alg, ls, fprop);
            // Larger: channels over two 16-blocks with a tail, more points
            // than one across-channels run (64) with a tail, windows of 5
            // clipped at both ends, a single row.
            for (auto dt : {dnnl_f32, dnnl_bf16})
            for (auto l : layouts)
            for (auto alg : {dnnl_lrn_across_channels, dnnl_lrn_within_channel}) {
                lrn_case(env, t, nthr, l, 20, dt, alg, 5, dnnl_forward_training, 5, 15);
                lrn_case(env, t, nthr, l, 3, dt, alg, 5, dnnl_forward_training, 1, 9);
            }
        });

    // The C++ API: same bits as the C API on the same inputs.
    {
        using namespace dnnl;
        engine eng(engine::kind::cpu, 0);
        stream s(eng);
        memory::desc md({2, 5, 3, 4}, memory::data_type::f32, memory::format_tag::nhwc);
        fvec x(120), g(120);
        kt::fill(x, 41);
        kt::fill(g, 43);
        memory src(md, eng), dst(md, eng), dd(md, eng), ds1(md, eng), ds2(md, eng);
        std::memcpy(src.get_data_handle(), x.data(), 480);
        std::memcpy(dd.get_data_handle(), g.data(), 480);
        auto same = [&]() { return std::memcmp(ds1.get_data_handle(), ds2.get_data_handle(), 480) == 0; };
        auto run_c = [&](const primitive_desc &bpd, std::unordered_map<int, memory> args) {
            std::map<int, dnnl_memory_t> a;
            for (auto &kv : args) a[kv.first] = kv.second.get();
            a[DNNL_ARG_DIFF_SRC] = ds2.get();
            KT_OK(bt::exec(bpd.get(), env.strm, a));
        };
        {
            const auto fl = normalization_flags::use_scale | normalization_flags::use_shift;
            batch_normalization_forward::primitive_desc fpd(eng, prop_kind::forward_training, md, md, 1e-3f, fl);
            batch_normalization_backward::primitive_desc bpd(eng, prop_kind::backward, md, md, md, 1e-3f, fl, fpd);
            memory mean(fpd.mean_desc(), eng), var(fpd.variance_desc(), eng), sc(fpd.weights_desc(), eng),
                    sh(fpd.weights_desc(), eng), dsc(bpd.diff_weights_desc(), eng), dsh(bpd.diff_weights_desc(), eng);
            std::fill((float *)sc.get_data_handle(), (float *)sc.get_data_handle() + 5, 0.7f);
            std::fill((float *)sh.get_data_handle(), (float *)sh.get_data_handle() + 5, 0.1f);
            batch_normalization_forward(fpd).execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_MEAN, mean},
                    {DNNL_ARG_VARIANCE, var}, {DNNL_ARG_SCALE, sc}, {DNNL_ARG_SHIFT, sh}});
            std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_MEAN, mean},
                    {DNNL_ARG_VARIANCE, var}, {DNNL_ARG_SCALE, sc}, {DNNL_ARG_DIFF_SCALE, dsc}, {DNNL_ARG_DIFF_SHIFT, dsh}};
            auto a1 = args;
            a1[DNNL_ARG_DIFF_SRC] = ds1;
            batch_normalization_backward(bpd).execute(s, a1);
            s.wait();
            run_c(bpd, args);
            t.check(same(), "bnorm bwd: C++ API = C API");
            t.check(bpd.get_flags() == fl && bpd.get_epsilon() == 1e-3f, "bnorm bwd: C++ queries");
        }
        {
            lrn_forward::primitive_desc fpd(eng, prop_kind::forward_training, algorithm::lrn_across_channels, md, md, 3,
                    1e-1f, 0.75f, 1.f);
            lrn_backward::primitive_desc bpd(eng, algorithm::lrn_across_channels, md, md, md, 3, 1e-1f, 0.75f, 1.f, fpd);
            memory ws(fpd.workspace_desc(), eng);
            lrn_forward(fpd).execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}});
            std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_WORKSPACE, ws}};
            auto a1 = args;
            a1[DNNL_ARG_DIFF_SRC] = ds1;
            lrn_backward(bpd).execute(s, a1);
            s.wait();
            run_c(bpd, args);
            t.check(same(), "lrn bwd: C++ API = C API");
            t.check(bpd.get_local_size() == 3 && bpd.workspace_desc() == fpd.workspace_desc(), "lrn bwd: C++ queries");
        }
        {
            group_normalization_forward::primitive_desc fpd(eng, prop_kind::forward_training, md, md, 5, 1e-3f,
                    normalization_flags::none);
            group_normalization_backward::primitive_desc bpd(eng, prop_kind::backward_data, md, md, md, 5, 1e-3f,
                    normalization_flags::none, fpd);
            memory mean(fpd.mean_desc(), eng), var(fpd.variance_desc(), eng);
            group_normalization_forward(fpd).execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_MEAN, mean},
                    {DNNL_ARG_VARIANCE, var}});
            std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_MEAN, mean},
                    {DNNL_ARG_VARIANCE, var}};
            auto a1 = args;
            a1[DNNL_ARG_DIFF_SRC] = ds1;
            group_normalization_backward(bpd).execute(s, a1);
            s.wait();
            run_c(bpd, args);
            t.check(same(), "gnorm bwd: C++ API = C API");
            t.check(bpd.get_group_size() == 5, "gnorm bwd: C++ queries");
        }
        {
            memory::desc lmd({4, 30}, memory::data_type::f32, memory::format_tag::ab);
            layer_normalization_forward::primitive_desc fpd(eng, prop_kind::forward_training, lmd, lmd, 1e-3f,
                    normalization_flags::use_scale);
            layer_normalization_backward::primitive_desc bpd(eng, prop_kind::backward, lmd, lmd, lmd, 1e-3f,
                    normalization_flags::use_scale, fpd);
            memory mean(fpd.mean_desc(), eng), var(fpd.variance_desc(), eng), sc(fpd.weights_desc(), eng),
                    dsc(bpd.diff_weights_desc(), eng);
            std::fill((float *)sc.get_data_handle(), (float *)sc.get_data_handle() + 30, 1.3f);
            memory lsrc(lmd, eng, src.get_data_handle()), ldst(lmd, eng, dst.get_data_handle()),
                    ldd(lmd, eng, dd.get_data_handle()), l1(lmd, eng, ds1.get_data_handle());
            layer_normalization_forward(fpd).execute(s, {{DNNL_ARG_SRC, lsrc}, {DNNL_ARG_DST, ldst},
                    {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}, {DNNL_ARG_SCALE, sc}});
            std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, lsrc}, {DNNL_ARG_DIFF_DST, ldd},
                    {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}, {DNNL_ARG_SCALE, sc}, {DNNL_ARG_DIFF_SCALE, dsc}};
            auto a1 = args;
            a1[DNNL_ARG_DIFF_SRC] = l1;
            layer_normalization_backward(bpd).execute(s, a1);
            s.wait();
            memory l2(lmd, eng, ds2.get_data_handle());
            std::map<int, dnnl_memory_t> a;
            for (auto &kv : args) a[kv.first] = kv.second.get();
            a[DNNL_ARG_DIFF_SRC] = l2.get();
            KT_OK(bt::exec(bpd.get(), env.strm, a));
            t.check(same(), "lnorm bwd: C++ API = C API");
        }
    }

    // Bad input: a hint of another kind, a forward prop kind (no hint at
    // all is allowed: test_bwd_nohint).
    {
        bt::tensor_t x(env.eng, {2, 3, 4, 4}, dnnl_f32, bt::ncsp);
        dnnl_primitive_desc_t fpd = nullptr, bpd = nullptr, lpd = nullptr;
        KT_OK(dnnl_batch_normalization_forward_primitive_desc_create(&fpd, env.eng, dnnl_forward_training, x.md, x.md,
                1e-3f, 0, nullptr));
        KT_OK(dnnl_lrn_forward_primitive_desc_create(&lpd, env.eng, dnnl_forward_training, dnnl_lrn_across_channels,
                x.md, x.md, 3, 1e-4f, 0.75f, 1.f, nullptr));
        t.check(dnnl_batch_normalization_backward_primitive_desc_create(&bpd, env.eng, dnnl_backward, x.md, x.md, x.md,
                        1e-3f, 0, lpd, nullptr) == dnnl_invalid_arguments, "bnorm bwd: lrn hint");
        t.check(dnnl_batch_normalization_backward_primitive_desc_create(&bpd, env.eng, dnnl_forward_training, x.md,
                        x.md, x.md, 1e-3f, 0, fpd, nullptr) == dnnl_invalid_arguments, "bnorm bwd: forward prop");
        // fuse_norm_relu with a hint without the workspace: unimplemented.
        t.check(dnnl_batch_normalization_backward_primitive_desc_create(&bpd, env.eng, dnnl_backward, x.md, x.md, x.md,
                        1e-3f, dnnl_fuse_norm_relu, fpd, nullptr) == dnnl_unimplemented, "bnorm bwd: relu without ws");
        t.check(dnnl_lrn_backward_primitive_desc_create(&bpd, env.eng, dnnl_lrn_across_channels, x.md, x.md, x.md, 3,
                        1e-4f, 0.75f, 1.f, fpd, nullptr) == dnnl_invalid_arguments, "lrn bwd: bnorm hint");
        t.check(dnnl_group_normalization_backward_primitive_desc_create(&bpd, env.eng, dnnl_backward, x.md, x.md, x.md,
                        2, 1e-3f, 0, fpd, nullptr) == dnnl_invalid_arguments, "gnorm bwd: bnorm hint");
        dnnl_primitive_desc_destroy(lpd);
        dnnl_primitive_desc_destroy(fpd);
    }
    return t.finish();
}
