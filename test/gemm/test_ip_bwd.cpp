// Inner product backward data and backward weights: against a naive
// reference written here (double precision, its own layout code), against
// central differences of the forward primitive, through the C and the C++
// API, with 1 and 2 threads, f32 and bf16, plain and channels-last src,
// 2D weights stored oi or io, bias or not.
#include <cmath>
#include <cstring>
#include <vector>

#include "dnnl.hpp"
#include "common/kt_test.hpp"

namespace {

using dim = dnnl_dim_t;
const double eps_f32 = 1.0 / (1 << 24);
const double eps_bf16 = 1.0 / (1 << 8);

enum wlay_t { same_plain, same_cl, io2d };

struct prb_t {
    int nd; // src ndims: 2..5
    dim mb, ic, oc, sp[3];
    wlay_t lay;
    dnnl_data_type_t dt;
    bool bias;
    dim SP() const { dim r = 1; for (int i = 0; i < nd - 2; ++i) r *= sp[i]; return r; }
    dim K() const { return ic * SP(); }
};

dnnl_format_tag_t src_tag(const prb_t &p) {
    const dnnl_format_tag_t plain[] = {dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde};
    const dnnl_format_tag_t cl[] = {dnnl_ab, dnnl_acb, dnnl_acdb, dnnl_acdeb};
    return p.lay == same_cl ? cl[p.nd - 2] : plain[p.nd - 2];
}
dnnl_format_tag_t wei_tag(const prb_t &p) { return p.lay == io2d ? dnnl_ba : src_tag(p); }

// Physical offsets; logical flat index k = ic * SP + sp.
dim src_off(const prb_t &p, dim mb, dim k) {
    const dim ic = k / p.SP(), s = k % p.SP();
    return p.lay == same_cl ? mb * p.K() + s * p.ic + ic : mb * p.K() + k;
}
dim wei_off(const prb_t &p, dim oc, dim k) {
    const dim ic = k / p.SP(), s = k % p.SP();
    if (p.lay == io2d) return k * p.oc + oc;
    return p.lay == same_cl ? oc * p.K() + s * p.ic + ic : oc * p.K() + k;
}

float to_dt(float v, dnnl_data_type_t dt) {
    if (dt != dnnl_bf16) return v;
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u += 0x7fff + ((u >> 16) & 1);
    u &= 0xffff0000u;
    std::memcpy(&v, &u, 4);
    return v;
}

struct buf_t {
    dnnl_data_type_t dt;
    std::vector<float> f;
    std::vector<uint16_t> h;
    buf_t(dnnl_data_type_t t, size_t n) : dt(t), f(n, -9.f), h(n, 0xffff) {}
    void *ptr() { return dt == dnnl_f32 ? (void *)f.data() : (void *)h.data(); }
    void set(dim i, float v) {
        f[i] = v;
        v = to_dt(v, dnnl_bf16);
        uint32_t u;
        std::memcpy(&u, &v, 4);
        h[i] = (uint16_t)(u >> 16);
    }
    float get(dim i) const {
        if (dt == dnnl_f32) return f[i];
        uint32_t u = (uint32_t)h[i] << 16;
        float v;
        std::memcpy(&v, &u, 4);
        return v;
    }
};

std::vector<double> values(size_t n, uint64_t seed, dnnl_data_type_t dt) {
    kt::rng_t r(seed);
    std::vector<double> v(n);
    for (auto &x : v) x = to_dt(r.uniform(-1.f, 1.f), dt);
    return v;
}

struct env_t {
    dnnl_engine_t eng;
    dnnl_stream_t s;
    env_t() {
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        KT_OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));
    }
    ~env_t() {
        dnnl_stream_destroy(s);
        dnnl_engine_destroy(eng);
    }
};

struct mds_t {
    kt::md_t src, wei, bias, dst;
    explicit mds_t(const prb_t &p) {
        dnnl_dims_t sd = {p.mb, p.ic}, wd = {p.oc, p.ic};
        for (int i = 0; i < p.nd - 2; ++i) sd[2 + i] = wd[2 + i] = p.sp[i];
        KT_OK(dnnl_memory_desc_create_with_tag(&src.h, p.nd, sd, p.dt, src_tag(p)));
        KT_OK(dnnl_memory_desc_create_with_tag(&wei.h, p.nd, wd, p.dt, wei_tag(p)));
        const dnnl_dims_t bd = {p.oc}, dd = {p.mb, p.oc};
        KT_OK(dnnl_memory_desc_create_with_tag(&bias.h, 1, bd, p.dt, dnnl_a));
        KT_OK(dnnl_memory_desc_create_with_tag(&dst.h, 2, dd, p.dt, dnnl_ab));
    }
};

dnnl_status_t exec(const env_t &e, const_dnnl_primitive_desc_t pd, std::vector<std::pair<int, std::pair<const_dnnl_memory_desc_t, void *>>> a) {
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<dnnl_exec_arg_t> args;
    for (auto &x : a) {
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, x.second.first, e.eng, x.second.second));
        args.push_back({x.first, m});
    }
    dnnl_status_t st = dnnl_primitive_execute(prim, e.s, (int)args.size(), args.data());
    if (st == dnnl_success) st = dnnl_stream_wait(e.s);
    for (auto &x : args) dnnl_memory_destroy(x.memory);
    dnnl_primitive_destroy(prim);
    return st;
}

struct grads_t {
    std::vector<double> dsrc, dwei, dbias;
};

// Backward data and weights through the C API.
bool run_bwd(const env_t &e, const prb_t &p, const std::vector<double> &src, const std::vector<double> &wei,
        const std::vector<double> &dd, grads_t &g) {
    mds_t m(p);
    dnnl_primitive_desc_t fpd, bd, bw;
    KT_OK(dnnl_inner_product_forward_primitive_desc_create(&fpd, e.eng, dnnl_forward_training, m.src, m.wei,
            p.bias ? (const_dnnl_memory_desc_t)m.bias : nullptr, m.dst, nullptr));
    KT_OK(dnnl_inner_product_backward_data_primitive_desc_create(&bd, e.eng, m.src, m.wei, m.dst, fpd, nullptr));
    KT_OK(dnnl_inner_product_backward_weights_primitive_desc_create(
            &bw, e.eng, m.src, m.wei, p.bias ? (const_dnnl_memory_desc_t)m.bias : nullptr, m.dst, fpd, nullptr));
    const dim K = p.K();
    buf_t bs(p.dt, p.mb * K), bwt(p.dt, p.oc * K), bdd(p.dt, p.mb * p.oc), bds(p.dt, p.mb * K), bdw(p.dt, p.oc * K),
            bdb(p.dt, p.oc);
    for (dim mb = 0; mb < p.mb; ++mb)
        for (dim k = 0; k < K; ++k) bs.set(src_off(p, mb, k), (float)src[mb * K + k]);
    for (dim oc = 0; oc < p.oc; ++oc)
        for (dim k = 0; k < K; ++k) bwt.set(wei_off(p, oc, k), (float)wei[oc * K + k]);
    for (dim i = 0; i < p.mb * p.oc; ++i) bdd.set(i, (float)dd[i]);
    bool ok = exec(e, bd, {{DNNL_ARG_DIFF_DST, {m.dst, bdd.ptr()}}, {DNNL_ARG_WEIGHTS, {m.wei, bwt.ptr()}},
                                  {DNNL_ARG_DIFF_SRC, {m.src, bds.ptr()}}})
            == dnnl_success;
    std::vector<std::pair<int, std::pair<const_dnnl_memory_desc_t, void *>>> a
            = {{DNNL_ARG_SRC, {m.src, bs.ptr()}}, {DNNL_ARG_DIFF_DST, {m.dst, bdd.ptr()}},
                    {DNNL_ARG_DIFF_WEIGHTS, {m.wei, bdw.ptr()}}};
    if (p.bias) a.push_back({DNNL_ARG_DIFF_BIAS, {m.bias, bdb.ptr()}});
    ok = ok && exec(e, bw, a) == dnnl_success;
    g.dsrc.assign(p.mb * K, 0);
    g.dwei.assign(p.oc * K, 0);
    g.dbias.assign(p.oc, 0);
    for (dim mb = 0; mb < p.mb; ++mb)
        for (dim k = 0; k < K; ++k) g.dsrc[mb * K + k] = bds.get(src_off(p, mb, k));
    for (dim oc = 0; oc < p.oc; ++oc)
        for (dim k = 0; k < K; ++k) g.dwei[oc * K + k] = bdw.get(wei_off(p, oc, k));
    for (dim oc = 0; oc < p.oc; ++oc) g.dbias[oc] = bdb.get(oc);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(bd);
    dnnl_primitive_desc_destroy(bw);
    return ok;
}

// A sum of m products in f32, any order: off by at most (m + 1) eps
// sum|terms|; a bf16 store adds eps_bf16 |result|.
bool close(double got, double exact, double absum, int m, dnnl_data_type_t dt) {
    double tol = (m + 1) * eps_f32 * absum;
    if (dt == dnnl_bf16) tol += eps_bf16 * (std::fabs(exact) + tol);
    return std::fabs(got - exact) <= tol + 1e-30;
}

void check_problem(const env_t &e, kt::tally_t &t, const prb_t &p, const char *name) {
    const dim K = p.K();
    const auto src = values(p.mb * K, 1, p.dt), wei = values(p.oc * K, 2, p.dt), dd = values(p.mb * p.oc, 3, p.dt);
    for (int nthr = 1; nthr <= 2; ++nthr) {
        grads_t g;
        bool ok = false;
        kt::with_threads(nthr, [&] { ok = run_bwd(e, p, src, wei, dd, g); });
        bool ds = ok, dw = ok, db = ok;
        for (dim mb = 0; mb < p.mb && ds; ++mb)
            for (dim k = 0; k < K && ds; ++k) {
                double v = 0, a = 0;
                for (dim oc = 0; oc < p.oc; ++oc) v += dd[mb * p.oc + oc] * wei[oc * K + k], a += std::fabs(dd[mb * p.oc + oc] * wei[oc * K + k]);
                ds = close(g.dsrc[mb * K + k], v, a, (int)p.oc, p.dt);
            }
        for (dim oc = 0; oc < p.oc && dw; ++oc)
            for (dim k = 0; k < K && dw; ++k) {
                double v = 0, a = 0;
                for (dim mb = 0; mb < p.mb; ++mb) v += dd[mb * p.oc + oc] * src[mb * K + k], a += std::fabs(dd[mb * p.oc + oc] * src[mb * K + k]);
                dw = close(g.dwei[oc * K + k], v, a, (int)p.mb, p.dt);
            }
        for (dim oc = 0; oc < p.oc && db && p.bias; ++oc) {
            double v = 0, a = 0;
            for (dim mb = 0; mb < p.mb; ++mb) v += dd[mb * p.oc + oc], a += std::fabs(dd[mb * p.oc + oc]);
            db = close(g.dbias[oc], v, a, (int)p.mb, p.dt);
        }
        char what[160];
        std::snprintf(what, sizeof what, "%s, %d thread(s): diff_src, diff_weights, diff_bias vs reference", name, nthr);
        t.check(ds && dw && db, what);
    }
}

// Central differences of L = sum(dst * R) through the forward primitive.
// L is linear in every input, so (L(x + h) - L(x - h)) / 2h is the
// gradient up to rounding: each dst element sums K + 1 terms in f32 (error
// <= (K + 2) eps sum|terms|), so L is off by at most (K + 2) eps A with
// A = sum |R| sum|terms|, and the quotient by (K + 2) eps A / h.
void check_fd(const env_t &e, kt::tally_t &t, const prb_t &p, const char *name) {
    const dim K = p.K();
    auto src = values(p.mb * K, 4, p.dt), wei = values(p.oc * K, 5, p.dt);
    const auto R = values(p.mb * p.oc, 6, p.dt);
    std::vector<double> bias(p.oc, 0.5);
    grads_t g;
    const bool ok = run_bwd(e, p, src, wei, R, g);
    mds_t m(p);
    dnnl_primitive_desc_t fpd;
    KT_OK(dnnl_inner_product_forward_primitive_desc_create(&fpd, e.eng, dnnl_forward_training, m.src, m.wei,
            p.bias ? (const_dnnl_memory_desc_t)m.bias : nullptr, m.dst, nullptr));
    auto loss = [&] {
        buf_t bs(p.dt, p.mb * K), bw(p.dt, p.oc * K), bb(p.dt, p.oc), bd(p.dt, p.mb * p.oc);
        for (dim mb = 0; mb < p.mb; ++mb)
            for (dim k = 0; k < K; ++k) bs.set(src_off(p, mb, k), (float)src[mb * K + k]);
        for (dim oc = 0; oc < p.oc; ++oc)
            for (dim k = 0; k < K; ++k) bw.set(wei_off(p, oc, k), (float)wei[oc * K + k]);
        for (dim oc = 0; oc < p.oc; ++oc) bb.set(oc, (float)bias[oc]);
        std::vector<std::pair<int, std::pair<const_dnnl_memory_desc_t, void *>>> a = {{DNNL_ARG_SRC, {m.src, bs.ptr()}},
                {DNNL_ARG_WEIGHTS, {m.wei, bw.ptr()}}, {DNNL_ARG_DST, {m.dst, bd.ptr()}}};
        if (p.bias) a.push_back({DNNL_ARG_BIAS, {m.bias, bb.ptr()}});
        KT_OK(exec(e, fpd, a));
        double l = 0;
        for (dim i = 0; i < p.mb * p.oc; ++i) l += bd.get(i) * R[i];
        return l;
    };
    double A = 0;
    for (dim mb = 0; mb < p.mb; ++mb)
        for (dim oc = 0; oc < p.oc; ++oc) {
            double a = 0.5;
            for (dim k = 0; k < K; ++k) a += std::fabs(src[mb * K + k] * wei[oc * K + k]);
            A += std::fabs(R[mb * p.oc + oc]) * a;
        }
    const double h = 0.5, err = (K + 2) * eps_f32 * A / h;
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
    kt::rng_t pick(9);
    for (int i = 0; i < 5 && good; ++i) {
        const size_t j = pick.next() % src.size();
        good = std::fabs(g.dsrc[j] - fd(src[j])) <= 2 * err;
    }
    for (int i = 0; i < 5 && good; ++i) {
        const size_t j = pick.next() % wei.size();
        good = std::fabs(g.dwei[j] - fd(wei[j])) <= 2 * err;
    }
    if (p.bias && good) good = std::fabs(g.dbias[1] - fd(bias[1])) <= 2 * err;
    char what[160];
    std::snprintf(what, sizeof what, "%s: gradients match central differences of forward", name);
    t.check(good, what);
    dnnl_primitive_desc_destroy(fpd);
}

void check_api(const env_t &e, kt::tally_t &t) {
    prb_t p {2, 3, 5, 4, {}, same_plain, dnnl_f32, true};
    mds_t m(p);
    dnnl_primitive_desc_t pd = nullptr;
    kt::md_t bad_dst(kt::make_md({3, 5}, dnnl_f32, dnnl_ab));
    t.check(dnnl_inner_product_backward_data_primitive_desc_create(&pd, e.eng, m.src, m.wei, bad_dst, nullptr, nullptr)
                    == dnnl_invalid_arguments,
            "mismatched OC refused");
    t.check(dnnl_inner_product_backward_data_primitive_desc_create(&pd, e.eng, m.src, m.wei, m.dst, nullptr, nullptr)
                    == dnnl_success,
            "NULL hint accepted");
    const_dnnl_memory_desc_t q = nullptr;
    dnnl_primitive_desc_query(pd, dnnl_query_diff_src_md, 0, &q);
    t.check(q && dnnl_memory_desc_equal(q, m.src), "bwd data answers diff_src_md");
    dnnl_prop_kind_t prop;
    dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &prop);
    t.check(prop == dnnl_backward_data, "bwd data prop kind");
    dnnl_primitive_desc_destroy(pd);
    kt::md_t any_w(kt::make_md({4, 5}, dnnl_f32, dnnl_format_tag_any));
    KT_OK(dnnl_inner_product_backward_weights_primitive_desc_create(&pd, e.eng, m.src, any_w, m.bias, m.dst, nullptr, nullptr));
    dnnl_primitive_desc_query(pd, dnnl_query_diff_weights_md, 0, &q);
    t.check(q && dnnl_memory_desc_equal(q, m.wei), "any diff_weights resolved to src's layout");
    dnnl_primitive_desc_query(pd, dnnl_query_diff_weights_md, 1, &q);
    t.check(q && dnnl_memory_desc_equal(q, m.bias), "bwd weights answers diff_bias");
    // Executing without diff_dst: refused, nothing written.
    std::vector<float> src(15, 1.f), dw(20, -3.f), db(4, -3.f);
    t.check(exec(e, pd, {{DNNL_ARG_SRC, {m.src, src.data()}}, {DNNL_ARG_DIFF_WEIGHTS, {m.wei, dw.data()}},
                                {DNNL_ARG_DIFF_BIAS, {m.bias, db.data()}}})
                            == dnnl_invalid_arguments
                    && dw[0] == -3.f && db[0] == -3.f,
            "missing diff_dst refused, nothing written");
    dnnl_primitive_desc_destroy(pd);
}

void check_cpp(kt::tally_t &t) {
    using namespace dnnl;
    using tag = memory::format_tag;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    const dim MB = 3, IC = 4, OC = 5, H = 2, W = 3, K = IC * H * W;
    memory::desc src({MB, IC, H, W}, memory::data_type::f32, tag::nchw);
    memory::desc wei({OC, IC, H, W}, memory::data_type::f32, tag::oihw);
    memory::desc bias({OC}, memory::data_type::f32, tag::a), dst({MB, OC}, memory::data_type::f32, tag::nc);
    inner_product_forward::primitive_desc fpd(eng, prop_kind::forward_training, src, wei, bias, dst);
    inner_product_backward_data::primitive_desc bdpd(eng, src, wei, dst, fpd);
    inner_product_backward_weights::primitive_desc bwpd(eng, src, wei, bias, dst, fpd);
    auto vs = values(MB * K, 7, dnnl_f32), vw = values(OC * K, 8, dnnl_f32), vd = values(MB * OC, 9, dnnl_f32);
    std::vector<float> fs(vs.begin(), vs.end()), fw(vw.begin(), vw.end()), fdd(vd.begin(), vd.end());
    std::vector<float> ds(MB * K), dw(OC * K), db(OC);
    memory ms(src, eng, fs.data()), mw(wei, eng, fw.data()), mdd(dst, eng, fdd.data());
    memory mds(src, eng, ds.data()), mdw(wei, eng, dw.data()), mdb(bias, eng, db.data());
    inner_product_backward_data(bdpd).execute(s, {{DNNL_ARG_DIFF_DST, mdd}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DIFF_SRC, mds}});
    inner_product_backward_weights(bwpd).execute(
            s, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DIFF_DST, mdd}, {DNNL_ARG_DIFF_WEIGHTS, mdw}, {DNNL_ARG_DIFF_BIAS, mdb}});
    s.wait();
    bool ok = true;
    for (dim mb = 0; mb < MB; ++mb)
        for (dim k = 0; k < K; ++k) {
            double v = 0, a = 0;
            for (dim oc = 0; oc < OC; ++oc) v += vd[mb * OC + oc] * vw[oc * K + k], a += std::fabs(vd[mb * OC + oc] * vw[oc * K + k]);
            ok = ok && close(ds[mb * K + k], v, a, (int)OC, dnnl_f32);
        }
    for (dim oc = 0; oc < OC; ++oc) {
        for (dim k = 0; k < K; ++k) {
            double v = 0, a = 0;
            for (dim mb = 0; mb < MB; ++mb) v += vd[mb * OC + oc] * vs[mb * K + k], a += std::fabs(vd[mb * OC + oc] * vs[mb * K + k]);
            ok = ok && close(dw[oc * K + k], v, a, (int)MB, dnnl_f32);
        }
        double v = 0, a = 0;
        for (dim mb = 0; mb < MB; ++mb) v += vd[mb * OC + oc], a += std::fabs(vd[mb * OC + oc]);
        ok = ok && close(db[oc], v, a, (int)MB, dnnl_f32);
    }
    t.check(ok, "C++ API: inner product backward data and weights");
    t.check(bdpd.diff_src_desc() == src && bwpd.diff_weights_desc() == wei && bwpd.diff_bias_desc() == bias,
            "C++ API: descriptor queries");
}

} // namespace

int main() {
    kt::tally_t t;
    env_t e;
    // {nd, mb, ic, oc, spatial, weights layout, dt, bias}
    const prb_t cases[] = {
            {2, 7, 13, 9, {}, same_plain, dnnl_f32, true},
            {2, 1, 5, 3, {}, io2d, dnnl_f32, false},
            {2, 33, 70, 21, {}, same_plain, dnnl_f32, true},
            {3, 4, 3, 6, {5}, same_plain, dnnl_f32, true},
            {4, 5, 3, 7, {3, 2}, same_cl, dnnl_f32, true},
            {4, 6, 2, 5, {3, 3}, same_plain, dnnl_f32, false},
            {5, 3, 2, 4, {2, 3, 2}, same_cl, dnnl_f32, true},
            {2, 9, 17, 11, {}, same_plain, dnnl_bf16, true},
            {4, 4, 3, 5, {2, 3}, same_cl, dnnl_bf16, true},
            {2, 6, 8, 4, {}, io2d, dnnl_bf16, true},
            // Big enough for two threads: the tile cuts of cvt_plan_t::execute
            // (diff_weights 1000 x 100: 3 row tiles cut again to 4, 256 x 3 +
            // 232; diff_src 8 x 100: 64 + 36; io2d 530 rows as 272 + 258).
            {2, 8, 100, 1000, {}, same_plain, dnnl_f32, true},
            {2, 24, 530, 70, {}, io2d, dnnl_f32, false},
            {2, 16, 600, 40, {}, same_plain, dnnl_bf16, true},
    };
    int i = 0;
    for (const auto &c : cases) {
        char name[64];
        std::snprintf(name, sizeof name, "ip case %d", i++);
        check_problem(e, t, c, name);
    }
    const prb_t tiny[] = {
            {2, 3, 4, 3, {}, same_plain, dnnl_f32, true},
            {4, 2, 2, 3, {2, 2}, same_cl, dnnl_f32, true},
            {2, 2, 3, 4, {}, io2d, dnnl_f32, false},
    };
    i = 0;
    for (const auto &c : tiny) {
        char name[64];
        std::snprintf(name, sizeof name, "ip fd %d", i++);
        check_fd(e, t, c, name);
    }
    check_api(e, t);
    check_cpp(t);
    return t.finish();
}
