// Backward of softmax/logsoftmax, PReLU, shuffle and resampling: naive
// references written here in double, finite differences (or, for the
// linear shuffle and resampling, the exact adjoint identity
// <fwd(x), dy> = <x, bwd(dy)>) through the forward primitives, every
// layout, 1 and 2 threads, the C++ API, and bad input.
#include <cmath>

#include "bwd_test.hpp"
#include "dnnl.hpp"

using bt::tensor_t;

namespace {

const bt::layout_t layouts[] = {bt::plain, bt::chan_last, bt::blk16};

double dot(const std::vector<float> &a, const std::vector<float> &b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += (double)a[i] * b[i];
    return s;
}

// Row-major strides of dims.
std::vector<dnnl_dim_t> strides(const bt::dims_t &d) {
    std::vector<dnnl_dim_t> s(d.size(), 1);
    for (int i = (int)d.size() - 2; i >= 0; --i) s[(size_t)i] = s[(size_t)i + 1] * d[(size_t)i + 1];
    return s;
}

// ---------------------------------------------------------------- softmax

std::vector<float> softmax_fwd(bt::env_t &e, dnnl_alg_kind_t alg, int axis, tensor_t &x, tensor_t &y) {
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_softmax_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_training, alg, x.md, y.md, axis, nullptr));
    KT_OK(bt::run(pd, e.strm, {{DNNL_ARG_SRC, x.mem}, {DNNL_ARG_DST, y.mem}}));
    dnnl_primitive_desc_destroy(pd);
    return y.values();
}

void softmax(kt::tally_t &t, bt::env_t &e, dnnl_alg_kind_t alg, const bt::dims_t &dims, int axis,
        bt::layout_t lay, dnnl_data_type_t dt, bool in_place) {
    char what[160];
    std::snprintf(what, sizeof(what), "softmax bwd %s axis %d %s %s%s", alg == dnnl_softmax_log ? "log" : "acc",
            axis, bt::layout_name(lay), dt == dnnl_f32 ? "f32" : "bf16", in_place ? " in place" : "");
    tensor_t x(dims, lay, dt, e.eng), y(dims, lay, dt, e.eng), dd(dims, lay, dt, e.eng), ds(dims, lay, dt, e.eng);
    x.fill(3 + (uint64_t)axis, -3, 3);
    dd.fill(4, -1, 1);
    const std::vector<float> xv = x.values(), yv = softmax_fwd(e, alg, axis, x, y), ddv = dd.values();
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_softmax_backward_primitive_desc_create(&pd, e.eng, alg, ds.md, dd.md, y.md, axis, nullptr, nullptr));
    ds.dirty_padding();
    tensor_t &out = in_place ? dd : ds;
    KT_OK(bt::run(pd, e.strm, {{DNNL_ARG_DST, y.mem}, {DNNL_ARG_DIFF_DST, dd.mem}, {DNNL_ARG_DIFF_SRC, out.mem}}));
    dnnl_primitive_desc_destroy(pd);
    const std::vector<float> got = out.values();
    // Naive, from the y the forward produced, in double.
    const auto st = strides(dims);
    const dnnl_dim_t len = dims[(size_t)axis], sa = st[(size_t)axis];
    std::vector<double> want(got.size());
    for (size_t l = 0; l < got.size(); ++l) {
        const dnnl_dim_t first = (dnnl_dim_t)l - ((dnnl_dim_t)l / sa % len) * sa;
        double s = 0;
        for (dnnl_dim_t k = 0; k < len; ++k) {
            const size_t j = (size_t)(first + k * sa);
            s += alg == dnnl_softmax_log ? ddv[j] : (double)ddv[j] * yv[j];
        }
        want[l] = alg == dnnl_softmax_log ? ddv[l] - std::exp((double)yv[l]) * s : yv[l] * (ddv[l] - s);
    }
    // The library sums in double too and rounds once (f32: half an ulp);
    // exp of y adds 2 ulps of a term <= len * max|dd| = len. bf16 rounds
    // the result to 8 bits.
    const double rel = dt == dnnl_f32 ? 2 * bt::f32_eps : bt::bf16_eps / 2 + 2 * bt::f32_eps;
    const double abs = 4 * (double)len * bt::f32_eps;
    t.check(bt::close(got, want, rel, abs, what), what);
    t.check(out.padding_zero(), "softmax bwd zeroes diff_src padding");
    if (dt != dnnl_f32 || in_place) return;
    // Finite differences of L(x) = sum(dd * softmax(x)) one input at a time.
    // Error: the two rounded sums of len terms |dd * y| <= |y| (<= 1 for
    // softmax, <= 7 for log softmax on [-3, 3]) each off by half an ulp per
    // term, over 2h, plus h^2/6 * |L'''| with |L'''| <= 2 * len.
    const float h = 1.f / 64;
    const double ymax = alg == dnnl_softmax_log ? 7 : 1;
    const double tol = 2 * (double)len * ymax * bt::f32_eps / 2 / (2 * h) + h * h / 6 * 2 * (double)len + abs;
    tensor_t xp(dims, lay, dt, e.eng), yp(dims, lay, dt, e.eng);
    bool ok = true;
    std::vector<float> v = xv;
    for (size_t i = 0; i < xv.size() && ok; i += 3) { // every third input keeps it fast
        const dnnl_dim_t first = (dnnl_dim_t)i - ((dnnl_dim_t)i / sa % len) * sa;
        double lp = 0, lm = 0;
        v[i] = xv[i] + h;
        xp.set_values(v);
        std::vector<float> f = softmax_fwd(e, alg, axis, xp, yp);
        for (dnnl_dim_t k = 0; k < len; ++k) lp += (double)ddv[(size_t)(first + k * sa)] * f[(size_t)(first + k * sa)];
        v[i] = xv[i] - h;
        xp.set_values(v);
        f = softmax_fwd(e, alg, axis, xp, yp);
        for (dnnl_dim_t k = 0; k < len; ++k) lm += (double)ddv[(size_t)(first + k * sa)] * f[(size_t)(first + k * sa)];
        v[i] = xv[i];
        const double fd = (lp - lm) / (2 * h);
        if (!(std::fabs(fd - got[i]) <= tol)) {
            std::fprintf(stderr, "%s: FD at %zu got %g fd %g tol %g\n", what, i, got[i], fd, tol);
            ok = false;
        }
    }
    std::snprintf(what + std::strlen(what), sizeof(what) - std::strlen(what), " finite differences");
    t.check(ok, what);
}

// ---------------------------------------------------------------- prelu

void prelu(kt::tally_t &t, bt::env_t &e, const bt::dims_t &dims, const bt::dims_t &wdims, bt::layout_t lay,
        dnnl_data_type_t dt) {
    char what[160];
    std::snprintf(what, sizeof(what), "prelu bwd w[%lld,%lld,%lld,%lld] %s %s", (long long)wdims[0],
            (long long)wdims[1], (long long)wdims[2], (long long)wdims[3], bt::layout_name(lay),
            dt == dnnl_f32 ? "f32" : "bf16");
    const bool full = wdims == dims;
    const bt::layout_t wlay = full ? lay : bt::plain;
    tensor_t x(dims, lay, dt, e.eng), w(wdims, wlay, dt, e.eng), dd(dims, lay, dt, e.eng), ds(dims, lay, dt, e.eng),
            dw(wdims, wlay, dt, e.eng), y(dims, lay, dt, e.eng);
    // Inputs kept away from the kink at 0 by at least 1/16.
    x.fill(9, -2, 2);
    for (dnnl_dim_t l = 0; l < x.nelems(); ++l)
        if (std::fabs(x.get(l)) < 1.f / 16) x.set(l, 0.25f);
    w.fill(10, -1, 1);
    dd.fill(11, -1, 1);
    dnnl_primitive_desc_t fpd = nullptr, pd = nullptr;
    KT_OK(dnnl_prelu_forward_primitive_desc_create(&fpd, e.eng, dnnl_forward_training, x.md, w.md, y.md, nullptr));
    KT_OK(dnnl_prelu_backward_primitive_desc_create(&pd, e.eng, x.md, w.md, ds.md, dw.md, dd.md, fpd, nullptr));
    ds.dirty_padding();
    dw.dirty_padding();
    KT_OK(bt::run(pd, e.strm, {{DNNL_ARG_SRC, x.mem}, {DNNL_ARG_WEIGHTS, w.mem}, {DNNL_ARG_DIFF_DST, dd.mem},
                                      {DNNL_ARG_DIFF_SRC, ds.mem}, {DNNL_ARG_DIFF_WEIGHTS, dw.mem}}));
    const std::vector<float> xv = x.values(), wv = w.values(), ddv = dd.values(), dsv = ds.values(), dwv = dw.values();
    // Naive, in double.
    std::vector<double> want_ds(xv.size()), want_dw(wv.size(), 0.0);
    const auto wst = strides(wdims);
    for (size_t l = 0; l < xv.size(); ++l) {
        dnnl_dim_t pos[4], r = (dnnl_dim_t)l;
        for (int d = 3; d >= 0; --d) {
            pos[d] = r % dims[(size_t)d];
            r /= dims[(size_t)d];
        }
        size_t j = 0;
        for (int d = 0; d < 4; ++d) j += (size_t)((wdims[(size_t)d] == 1 ? 0 : pos[d]) * wst[(size_t)d]);
        want_ds[l] = xv[l] > 0 ? ddv[l] : (double)wv[j] * ddv[l];
        if (xv[l] <= 0) want_dw[j] += (double)xv[l] * ddv[l];
    }
    // diff_src: one product (half an ulp) plus the output rounding.
    const double rel = dt == dnnl_f32 ? bt::f32_eps : bt::bf16_eps / 2 + bt::f32_eps;
    t.check(bt::close(dsv, want_ds, rel, 0, what), what);
    // diff_weights: the library sums in double; terms |x * dd| <= 2, so the
    // f32 rounding of each product adds 2^-24 * 2 per term summed.
    const double terms = (double)x.nelems() / (double)w.nelems();
    t.check(bt::close(dwv, want_dw, rel, terms * 2 * bt::f32_eps, what), "prelu bwd diff_weights");
    t.check(ds.padding_zero() && dw.padding_zero(), "prelu bwd zeroes padding");
    if (dt == dnnl_f32) {
        // Finite differences in the weights of L(w) = sum(dd * prelu(x, w)):
        // L is linear in w, so the error is only the rounding of the two
        // sums (n terms, |term| <= 2, half an ulp each) over 2h.
        const float h = 1.f / 8;
        tensor_t wp(wdims, wlay, dt, e.eng);
        std::vector<float> v = wv;
        bool ok = true;
        const double tol = 2 * (double)x.nelems() * 2 * bt::f32_eps / (2 * h) + 1e-6;
        for (size_t j = 0; j < wv.size() && ok; ++j) {
            double l2[2];
            for (int s = 0; s < 2; ++s) {
                v[j] = wv[j] + (s ? -h : h);
                wp.set_values(v);
                KT_OK(bt::run(fpd, e.strm, {{DNNL_ARG_SRC, x.mem}, {DNNL_ARG_WEIGHTS, wp.mem}, {DNNL_ARG_DST, y.mem}}));
                l2[s] = dot(ddv, y.values());
            }
            v[j] = wv[j];
            const double fd = (l2[0] - l2[1]) / (2 * h);
            if (!(std::fabs(fd - dwv[j]) <= tol)) {
                std::fprintf(stderr, "%s: FD dw[%zu] got %g fd %g\n", what, j, dwv[j], fd);
                ok = false;
            }
        }
        // And in src, all at once (the map is element-wise): exact slopes
        // 1 or w away from the kink, so only roundings of y count.
        tensor_t xp(dims, lay, dt, e.eng), xm(dims, lay, dt, e.eng), ym(dims, lay, dt, e.eng);
        std::vector<float> vp = xv, vm = xv;
        for (size_t i = 0; i < xv.size(); ++i) {
            vp[i] += 1.f / 64;
            vm[i] -= 1.f / 64;
        }
        xp.set_values(vp);
        xm.set_values(vm);
        KT_OK(bt::run(fpd, e.strm, {{DNNL_ARG_SRC, xp.mem}, {DNNL_ARG_WEIGHTS, w.mem}, {DNNL_ARG_DST, y.mem}}));
        KT_OK(bt::run(fpd, e.strm, {{DNNL_ARG_SRC, xm.mem}, {DNNL_ARG_WEIGHTS, w.mem}, {DNNL_ARG_DST, ym.mem}}));
        const std::vector<float> fp = y.values(), fm = ym.values();
        for (size_t i = 0; i < xv.size() && ok; ++i) {
            const double fd = ddv[i] * ((double)fp[i] - fm[i]) * 32;
            if (!(std::fabs(fd - dsv[i]) <= 3 * 32 * bt::f32_eps)) {
                std::fprintf(stderr, "%s: FD ds[%zu] got %g fd %g\n", what, i, dsv[i], fd);
                ok = false;
            }
        }
        std::snprintf(what + std::strlen(what), sizeof(what) - std::strlen(what), " finite differences");
        t.check(ok, what);
    }
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(fpd);
}

// ---------------------------------------------------------------- shuffle

void shuffle(kt::tally_t &t, bt::env_t &e, const bt::dims_t &dims, int axis, dnnl_dim_t g, bt::layout_t lay,
        dnnl_data_type_t dt) {
    char what[160];
    std::snprintf(what, sizeof(what), "shuffle bwd axis %d group %lld %s", axis, (long long)g, bt::layout_name(lay));
    tensor_t x(dims, lay, dt, e.eng), y(dims, lay, dt, e.eng), dd(dims, lay, dt, e.eng), ds(dims, lay, dt, e.eng);
    x.fill(1, -1, 1);
    dd.fill(2, -1, 1);
    dnnl_primitive_desc_t fpd = nullptr, pd = nullptr;
    KT_OK(dnnl_shuffle_forward_primitive_desc_create(&fpd, e.eng, dnnl_forward_training, x.md, y.md, axis, g, nullptr));
    KT_OK(dnnl_shuffle_backward_primitive_desc_create(&pd, e.eng, ds.md, dd.md, axis, g, fpd, nullptr));
    ds.dirty_padding();
    KT_OK(bt::run(fpd, e.strm, {{DNNL_ARG_SRC, x.mem}, {DNNL_ARG_DST, y.mem}}));
    KT_OK(bt::run(pd, e.strm, {{DNNL_ARG_DIFF_DST, dd.mem}, {DNNL_ARG_DIFF_SRC, ds.mem}}));
    const std::vector<float> ddv = dd.values(), got = ds.values();
    // Naive: forward sends src channel u*G + v to dst channel u + v*(C/G),
    // so diff_src at channel u*G + v is diff_dst at u + v*(C/G).
    const auto st = strides(dims);
    const dnnl_dim_t C = dims[(size_t)axis], sa = st[(size_t)axis], cg = C / g;
    std::vector<double> want(got.size());
    for (size_t l = 0; l < got.size(); ++l) {
        const dnnl_dim_t c = (dnnl_dim_t)l / sa % C;
        const dnnl_dim_t to = c / g + (c % g) * cg;
        want[l] = ddv[(size_t)((dnnl_dim_t)l + (to - c) * sa)];
    }
    t.check(bt::close(got, want, 0, 0, what), what);
    t.check(ds.padding_zero(), "shuffle bwd zeroes padding");
    // The adjoint identity, exact in value up to the order of the sums.
    const double lhs = dot(y.values(), ddv), rhs = dot(x.values(), got);
    t.check(std::fabs(lhs - rhs) <= 1e-12 * (double)got.size(), "shuffle bwd is the adjoint of forward");
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(fpd);
}

// ---------------------------------------------------------------- resampling

// Source coordinates of output o, half-pixel centres, written here anew.
void taps(bool linear, dnnl_dim_t o, dnnl_dim_t O, dnnl_dim_t I, dnnl_dim_t *i, double *w, int &n) {
    const double s = ((double)o + 0.5) * (double)I / (double)O - 0.5;
    if (!linear) {
        double r = s < 0 ? -std::floor(-s + 0.5) : std::floor(s + 0.5);
        i[0] = (dnnl_dim_t)std::min<double>(std::max<double>(r, 0), (double)I - 1);
        w[0] = 1;
        n = 1;
        return;
    }
    const double c = std::min<double>(std::max(s, 0.0), (double)I - 1);
    const dnnl_dim_t lo = (dnnl_dim_t)std::floor(c), hi = std::min<dnnl_dim_t>(lo + 1, I - 1);
    i[0] = lo;
    i[1] = hi;
    w[1] = c - (double)lo;
    w[0] = 1 - w[1];
    n = 2;
}

void resampling(kt::tally_t &t, bt::env_t &e, dnnl_alg_kind_t alg, const bt::dims_t &sd, const bt::dims_t &dd_dims,
        bt::layout_t lay, dnnl_data_type_t dt) {
    char what[160];
    std::snprintf(what, sizeof(what), "resampling bwd %s %zuD %s %s", alg == dnnl_resampling_linear ? "linear" : "nearest",
            sd.size() - 2, bt::layout_name(lay), dt == dnnl_f32 ? "f32" : "bf16");
    const bool linear = alg == dnnl_resampling_linear;
    tensor_t x(sd, lay, dt, e.eng), y(dd_dims, lay, dt, e.eng), dd(dd_dims, lay, dt, e.eng), ds(sd, lay, dt, e.eng);
    x.fill(5, -1, 1);
    dd.fill(6, -1, 1);
    dnnl_primitive_desc_t fpd = nullptr, pd = nullptr;
    KT_OK(dnnl_resampling_forward_primitive_desc_create(&fpd, e.eng, dnnl_forward_training, alg, nullptr, x.md, y.md, nullptr));
    KT_OK(dnnl_resampling_backward_primitive_desc_create(&pd, e.eng, alg, nullptr, ds.md, dd.md, fpd, nullptr));
    ds.dirty_padding();
    KT_OK(bt::run(fpd, e.strm, {{DNNL_ARG_SRC, x.mem}, {DNNL_ARG_DST, y.mem}}));
    KT_OK(bt::run(pd, e.strm, {{DNNL_ARG_DIFF_DST, dd.mem}, {DNNL_ARG_DIFF_SRC, ds.mem}}));
    const std::vector<float> ddv = dd.values(), got = ds.values();
    // Naive scatter: each output point adds its weighted gradient to the
    // source points it read.
    std::vector<double> want(got.size(), 0.0);
    const int ns = (int)sd.size() - 2;
    const auto sst = strides(sd);
    for (size_t l = 0; l < ddv.size(); ++l) {
        dnnl_dim_t pos[5], r = (dnnl_dim_t)l;
        for (int d = (int)sd.size() - 1; d >= 0; --d) {
            pos[d] = r % dd_dims[(size_t)d];
            r /= dd_dims[(size_t)d];
        }
        dnnl_dim_t ii[3][2] = {{0, 0}, {0, 0}, {0, 0}};
        double ww[3][2] = {{1, 0}, {1, 0}, {1, 0}};
        int nn[3] = {1, 1, 1};
        for (int k = 0; k < ns; ++k) taps(linear, pos[2 + k], dd_dims[(size_t)(2 + k)], sd[(size_t)(2 + k)], ii[k], ww[k], nn[k]);
        for (int a = 0; a < nn[0]; ++a)
            for (int b = 0; b < nn[1]; ++b)
                for (int c = 0; c < nn[2]; ++c) {
                    const dnnl_dim_t idx[3] = {ii[0][a], ii[1][b], ii[2][c]};
                    size_t j = (size_t)(pos[0] * sst[0] + pos[1] * sst[1]);
                    for (int k = 0; k < ns; ++k) j += (size_t)(idx[k] * sst[(size_t)(2 + k)]);
                    want[j] += ww[0][a] * ww[1][b] * ww[2][c] * ddv[l];
                }
    }
    // The library sums in double with f32 weights (2^-24 relative each, up
    // to 3 factors), rounds once; |dd| <= 1 and at most T terms, T the most
    // outputs one source point feeds (ceil(O/I) + 2 per dim).
    double T = 1;
    for (int k = 0; k < ns; ++k) T *= (double)(dd_dims[(size_t)(2 + k)] / sd[(size_t)(2 + k)] + 3);
    const double rel = dt == dnnl_f32 ? bt::f32_eps : bt::bf16_eps / 2 + bt::f32_eps;
    t.check(bt::close(got, want, rel, T * 4 * bt::f32_eps, what), what);
    t.check(ds.padding_zero(), "resampling bwd zeroes padding");
    if (dt == dnnl_f32) {
        // The forward is linear in src: <fwd(x), dd> = <x, bwd(dd)>, up to
        // the f32 roundings of fwd (half an ulp of |y| <= 1 per term) and
        // of bwd (T terms per point).
        const double lhs = dot(y.values(), ddv), rhs = dot(x.values(), got);
        const double tol = ((double)ddv.size() + (double)got.size() * T) * 4 * bt::f32_eps;
        t.check(std::fabs(lhs - rhs) <= tol, "resampling bwd is the adjoint of forward");
    }
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(fpd);
}

// ---------------------------------------------------------------- misc

void bad_input(kt::tally_t &t, bt::env_t &e) {
    const bt::dims_t dims = {2, 6, 3};
    tensor_t y(dims, bt::plain, dnnl_f32, e.eng), dd(dims, bt::plain, dnnl_f32, e.eng),
            ds(dims, bt::plain, dnnl_f32, e.eng), nhwc(dims, bt::chan_last, dnnl_f32, e.eng);
    dnnl_primitive_desc_t pd = nullptr;
    t.check(dnnl_softmax_backward_primitive_desc_create(&pd, e.eng, dnnl_softmax_log, ds.md, dd.md, y.md, 3, nullptr, nullptr)
                    == dnnl_invalid_arguments,
            "softmax bwd: axis out of range");
    t.check(dnnl_shuffle_backward_primitive_desc_create(&pd, e.eng, ds.md, dd.md, 1, 4, nullptr, nullptr)
                    == dnnl_invalid_arguments,
            "shuffle bwd: group not dividing the axis");
    t.check(dnnl_resampling_backward_primitive_desc_create(&pd, e.eng, dnnl_resampling_linear, nullptr, ds.md, nullptr, nullptr, nullptr)
                    == dnnl_invalid_arguments,
            "resampling bwd: neither diff_dst nor factors");
    KT_OK(dnnl_softmax_backward_primitive_desc_create(&pd, e.eng, dnnl_softmax_accurate, ds.md, dd.md, y.md, 1, nullptr, nullptr));
    ds.fill(1, 5, 6);
    const std::vector<float> before = ds.values();
    t.check(bt::run(pd, e.strm, {{DNNL_ARG_DIFF_DST, dd.mem}, {DNNL_ARG_DIFF_SRC, ds.mem}}) == dnnl_invalid_arguments,
            "softmax bwd: missing dst");
    t.check(bt::run(pd, e.strm, {{DNNL_ARG_DST, nhwc.mem}, {DNNL_ARG_DIFF_DST, dd.mem}, {DNNL_ARG_DIFF_SRC, ds.mem}})
                    == dnnl_invalid_arguments,
            "softmax bwd: dst of another layout");
    t.check(ds.values() == before, "softmax bwd: refused runs wrote nothing");
    dnnl_primitive_desc_destroy(pd);
    tensor_t w({1, 6, 1}, bt::plain, dnnl_f32, e.eng), dw({1, 6, 1}, bt::plain, dnnl_f32, e.eng);
    KT_OK(dnnl_prelu_backward_primitive_desc_create(&pd, e.eng, y.md, w.md, ds.md, dw.md, dd.md, nullptr, nullptr));
    t.check(bt::run(pd, e.strm, {{DNNL_ARG_SRC, y.mem}, {DNNL_ARG_WEIGHTS, w.mem}, {DNNL_ARG_DIFF_DST, dd.mem},
                                         {DNNL_ARG_DIFF_SRC, ds.mem}})
                    == dnnl_invalid_arguments,
            "prelu bwd: missing diff_weights");
    t.check(ds.values() == before, "prelu bwd: refused run wrote nothing");
    dnnl_primitive_desc_destroy(pd);
    tensor_t wbad({2, 6, 2}, bt::plain, dnnl_f32, e.eng);
    t.check(dnnl_prelu_backward_primitive_desc_create(&pd, e.eng, y.md, wbad.md, ds.md, wbad.md, dd.md, nullptr, nullptr)
                    == dnnl_invalid_arguments,
            "prelu bwd: weights not broadcastable");
}

// The C++ API for each kind, checked against the C API's results.
void cpp_api(kt::tally_t &t) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    using tag = memory::format_tag;
    using dt = memory::data_type;
    memory::desc md({2, 6, 4, 3}, dt::f32, tag::nchw), any({2, 6, 4, 3}, dt::f32, tag::any);
    auto fill = [](memory &m, uint64_t seed) {
        float *p = (float *)m.get_data_handle();
        kt::rng_t r(seed);
        for (size_t i = 0; i < m.get_desc().get_size() / 4; ++i) p[i] = r.uniform(-1, 1);
    };
    memory x(md, eng), y(md, eng), dd(md, eng), ds(md, eng);
    fill(x, 1);
    fill(dd, 2);
    const float *xp = (const float *)x.get_data_handle(), *yp = (const float *)y.get_data_handle();
    const float *dp = (const float *)dd.get_data_handle(), *sp = (const float *)ds.get_data_handle();
    {
        auto f = softmax_forward::primitive_desc(eng, prop_kind::forward_training, algorithm::softmax_accurate, md, md, 1);
        auto b = softmax_backward::primitive_desc(eng, algorithm::softmax_accurate, any, any, md, 1, f);
        t.check(b.diff_src_desc() == md && b.get_axis() == 1, "C++ softmax bwd descs");
        softmax_forward(f).execute(s, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
        softmax_backward(b).execute(s, {{DNNL_ARG_DST, y}, {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_DIFF_SRC, ds}});
        s.wait();
        // Check one (n, h, w) row along C by hand.
        double sum = 0;
        for (int c = 0; c < 6; ++c) sum += (double)dp[c * 12] * yp[c * 12];
        bool ok = true;
        for (int c = 0; c < 6; ++c) ok = ok && std::fabs(sp[c * 12] - yp[c * 12] * (dp[c * 12] - sum)) <= 4 * bt::f32_eps;
        t.check(ok, "C++ softmax bwd values");
    }
    {
        memory::desc wmd({1, 6, 1, 1}, dt::f32, tag::nchw);
        memory w(wmd, eng), dw(wmd, eng);
        fill(w, 3);
        auto f = prelu_forward::primitive_desc(eng, prop_kind::forward_training, md, wmd, md);
        auto b = prelu_backward::primitive_desc(eng, md, wmd, md, wmd, md, f);
        t.check(b.diff_weights_desc() == wmd, "C++ prelu bwd descs");
        prelu_backward(b).execute(s, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_DST, dd},
                                              {DNNL_ARG_DIFF_SRC, ds}, {DNNL_ARG_DIFF_WEIGHTS, dw}});
        s.wait();
        const float *wp = (const float *)w.get_data_handle(), *dwp = (const float *)dw.get_data_handle();
        bool ok = true;
        for (int c = 0; c < 6; ++c) {
            double acc = 0;
            for (int n = 0; n < 2; ++n)
                for (int i = 0; i < 12; ++i) {
                    const int l = (n * 6 + c) * 12 + i;
                    if (xp[l] <= 0) acc += (double)xp[l] * dp[l];
                    const double want = xp[l] > 0 ? dp[l] : wp[c] * dp[l];
                    ok = ok && std::fabs(sp[l] - want) <= bt::f32_eps;
                }
            ok = ok && std::fabs(dwp[c] - acc) <= 24 * 2 * bt::f32_eps;
        }
        t.check(ok, "C++ prelu bwd values");
    }
    {
        auto f = shuffle_forward::primitive_desc(eng, prop_kind::forward_training, md, md, 1, 3);
        auto b = shuffle_backward::primitive_desc(eng, md, md, 1, 3, f);
        t.check(b.get_group_size() == 3 && b.get_axis() == 1, "C++ shuffle bwd queries");
        shuffle_forward(f).execute(s, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
        shuffle_backward(b).execute(s, {{DNNL_ARG_DIFF_DST, y}, {DNNL_ARG_DIFF_SRC, ds}});
        s.wait();
        bool ok = true;
        for (size_t i = 0; i < 144; ++i) ok = ok && sp[i] == xp[i];
        t.check(ok, "C++ shuffle bwd undoes forward");
    }
    {
        memory::desc big({2, 6, 7, 5}, dt::f32, tag::nchw);
        memory ddb(big, eng);
        fill(ddb, 4);
        auto f = resampling_forward::primitive_desc(eng, prop_kind::forward_training, algorithm::resampling_nearest, md, big);
        auto b = resampling_backward::primitive_desc(eng, algorithm::resampling_nearest, md, big, f);
        t.check(b.diff_dst_desc() == big, "C++ resampling bwd descs");
        resampling_backward(b).execute(s, {{DNNL_ARG_DIFF_DST, ddb}, {DNNL_ARG_DIFF_SRC, ds}});
        s.wait();
        // Nearest moves each gradient to one source point: the totals agree.
        double a = 0, c = 0;
        for (size_t i = 0; i < 2 * 6 * 35; ++i) a += ((const float *)ddb.get_data_handle())[i];
        for (size_t i = 0; i < 144; ++i) c += sp[i];
        t.check(std::fabs(a - c) <= 420 * 2 * bt::f32_eps, "C++ resampling bwd keeps the total gradient");
    }
}

} // namespace

int main() {
    kt::tally_t t;
    bt::env_t e;
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            for (bt::layout_t lay : layouts) {
                const bt::dims_t dims = lay == bt::blk16 ? bt::dims_t {2, 19, 3, 2} : bt::dims_t {2, 5, 3, 4};
                for (dnnl_alg_kind_t alg : {dnnl_softmax_accurate, dnnl_softmax_log})
                    for (int axis = 0; axis < 4; ++axis) softmax(t, e, alg, dims, axis, lay, dnnl_f32, false);
                softmax(t, e, dnnl_softmax_log, dims, 1, lay, dnnl_f32, true);
                softmax(t, e, dnnl_softmax_accurate, dims, 3, lay, dnnl_bf16, false);
                const bt::dims_t shapes[] = {{1, 1, 1, 1}, {1, dims[1], 1, 1}, dims, {dims[0], 1, dims[2], 1},
                        {1, dims[1], dims[2], dims[3]}};
                for (const auto &w : shapes) prelu(t, e, dims, w, lay, dnnl_f32);
                prelu(t, e, dims, {1, dims[1], 1, 1}, lay, dnnl_bf16);
                shuffle(t, e, {2, 6, 3, 2}, 1, 2, lay, dnnl_f32);
                shuffle(t, e, {2, 6, 3, 2}, 1, 3, lay, dnnl_bf16);
                shuffle(t, e, {2, 6, 3, 4}, 3, 2, lay, dnnl_f32);
                for (dnnl_alg_kind_t alg : {dnnl_resampling_nearest, dnnl_resampling_linear}) {
                    resampling(t, e, alg, {2, 3, 5}, {2, 3, 8}, lay, dnnl_f32);
                    resampling(t, e, alg, {1, 19, 6}, {1, 19, 4}, lay, dnnl_f32);
                    resampling(t, e, alg, {1, 2, 4, 3}, {1, 2, 7, 5}, lay, dnnl_f32);
                    resampling(t, e, alg, {1, 17, 3, 2, 4}, {1, 17, 5, 3, 3}, lay, dnnl_f32);
                    resampling(t, e, alg, {1, 2, 4, 3}, {1, 2, 7, 5}, lay, dnnl_bf16);
                }
            }
            // Large enough for two threads' shares (prelu's partials).
            prelu(t, e, {4, 40, 9, 7}, {1, 40, 1, 1}, bt::plain, dnnl_f32);
        });
    }
    bad_input(t, e);
    cpp_api(t);
    return t.finish();
}
