// Pooling backward: diff_src against a naive reference computed here and
// against central finite differences of the forward primitive, for max
// (with the forward's workspace), avg including and excluding padding;
// 1D/2D/3D, padding, dilation, channel tails; nchw, nhwc, nChw8c, nChw16c;
// f32 and bf16; 1 and 2 threads; the C and the C++ API; a missing or wrong
// workspace refused with nothing written; zero-sized shapes; bad input.
#include <cmath>

#include "dnnl.hpp"
#include "norm/bwd_util.hpp"

namespace {

struct shape_t {
    int ns;
    dnnl_dim_t mb, sp[3], k[3], s[3], d[3], pl[3], pr[3];
};

dnnl_dim_t out_dim(dnnl_dim_t i, dnnl_dim_t k, dnnl_dim_t s, dnnl_dim_t d, dnnl_dim_t pl, dnnl_dim_t pr) {
    return (i - ((k - 1) * (d + 1) + 1) + pl + pr) / s + 1;
}

struct problem_t {
    shape_t sh;
    dnnl_dim_t C;
    dnnl_alg_kind_t alg;
    dnnl_dims_t sd, dd;
    int nd;
    problem_t(const shape_t &s, dnnl_dim_t c, dnnl_alg_kind_t a) : sh(s), C(c), alg(a) {
        nd = sh.ns + 2;
        sd[0] = dd[0] = sh.mb;
        sd[1] = dd[1] = C;
        for (int i = 0; i < sh.ns; ++i) {
            sd[2 + i] = sh.sp[i];
            dd[2 + i] = out_dim(sh.sp[i], sh.k[i], sh.s[i], sh.d[i], sh.pl[i], sh.pr[i]);
        }
    }
    // dims padded to 3 spatial (d, h, w)
    dnnl_dim_t isp(int i) const { return i < 3 - sh.ns ? 1 : sd[2 + i - (3 - sh.ns)]; }
    dnnl_dim_t osp(int i) const { return i < 3 - sh.ns ? 1 : dd[2 + i - (3 - sh.ns)]; }
    dnnl_dim_t par(const dnnl_dim_t *v, int i, dnnl_dim_t dflt) const { return i < 3 - sh.ns ? dflt : v[i - (3 - sh.ns)]; }
    size_t ssize() const { return (size_t)(sh.mb * C * isp(0) * isp(1) * isp(2)); }
    size_t dsize() const { return (size_t)(sh.mb * C * osp(0) * osp(1) * osp(2)); }
    dnnl_dim_t K() const { return sh.k[0] * (sh.ns > 1 ? sh.k[1] : 1) * (sh.ns > 2 ? sh.k[2] : 1); }
};

// Naive reference in double. S[i] gets the sum of |terms| for the error bound.
void ref_bwd(const problem_t &p, const std::vector<float> &src, const std::vector<float> &dd, std::vector<double> &ds,
        std::vector<double> &S) {
    ds.assign(p.ssize(), 0.0);
    S.assign(p.ssize(), 0.0);
    const dnnl_dim_t ID = p.isp(0), IH = p.isp(1), IW = p.isp(2), OD = p.osp(0), OH = p.osp(1), OW = p.osp(2);
    dnnl_dim_t k[3], s[3], dl[3], pl[3];
    for (int i = 0; i < 3; ++i) {
        k[i] = p.par(p.sh.k, i, 1);
        s[i] = p.par(p.sh.s, i, 1);
        dl[i] = p.par(p.sh.d, i, 0) + 1;
        pl[i] = p.par(p.sh.pl, i, 0);
    }
    for (dnnl_dim_t nc = 0; nc < p.sh.mb * p.C; ++nc)
        for (dnnl_dim_t od = 0; od < OD; ++od)
        for (dnnl_dim_t oh = 0; oh < OH; ++oh)
        for (dnnl_dim_t ow = 0; ow < OW; ++ow) {
            const double g = dd[(size_t)(((nc * OD + od) * OH + oh) * OW + ow)];
            std::vector<size_t> taps;
            for (dnnl_dim_t a = 0; a < k[0]; ++a)
            for (dnnl_dim_t b = 0; b < k[1]; ++b)
            for (dnnl_dim_t c = 0; c < k[2]; ++c) {
                const dnnl_dim_t id = od * s[0] - pl[0] + a * dl[0], ih = oh * s[1] - pl[1] + b * dl[1],
                                 iw = ow * s[2] - pl[2] + c * dl[2];
                if (id < 0 || id >= ID || ih < 0 || ih >= IH || iw < 0 || iw >= IW) continue;
                taps.push_back((size_t)(((nc * ID + id) * IH + ih) * IW + iw));
            }
            if (taps.empty()) continue;
            if (p.alg == dnnl_pooling_max) {
                size_t best = taps[0];
                for (size_t t : taps)
                    if (src[t] > src[best]) best = t;
                ds[best] += g;
                S[best] += std::fabs(g);
            } else {
                const double div = p.alg == dnnl_pooling_avg_exclude_padding ? (double)taps.size() : (double)p.K();
                for (size_t t : taps) {
                    ds[t] += g / div;
                    S[t] += std::fabs(g / div);
                }
            }
        }
}

// Values distinct inside every (n, c) slice (at most 251 points), so max
// pooling has no ties; integers, exact in bf16, scaled by 1/16.
float src_value(size_t i, size_t slice) {
    const size_t nc = i / slice, sp = i % slice;
    return (float)((long)((sp * 37 + nc * 11) % 251) - 125) / 16.f;
}

} // namespace

int main() {
    kt::tally_t t;
    bt::env_t env;
    const shape_t shapes[] = {
            {2, 2, {7, 9}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}}, // odd sizes, padding, overlap
            {2, 1, {5, 6}, {2, 3}, {1, 2}, {1, 0}, {0, 1}, {1, 2}}, // dilation
            {2, 1, {4, 4}, {2, 2}, {3, 3}, {0, 0}, {3, 3}, {3, 2}}, // padding > kernel: empty windows
            {1, 2, {11}, {4}, {3}, {0}, {2}, {1}}, // 1D
            {3, 1, {4, 5, 3}, {2, 3, 2}, {2, 1, 1}, {0, 1, 0}, {1, 1, 0}, {0, 1, 1}}, // 3D
            {2, 1, {16, 15}, {16, 16}, {1, 1}, {0, 0}, {0, 1}, {0, 0}}, // 256-point window: s32 workspace
    };
    const dnnl_dim_t Cs[] = {3, 17};
    const dnnl_alg_kind_t algs[] = {dnnl_pooling_max, dnnl_pooling_avg_include_padding, dnnl_pooling_avg_exclude_padding};
    int grad_checks = 0;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const auto &sh : shapes)
            for (dnnl_dim_t C : Cs)
            for (int li = 0; li < 4; ++li)
            for (auto dt : {dnnl_f32, dnnl_bf16})
            for (auto alg : algs) {
                if (sh.k[0] == 16 && C > 3) continue; // keep the big window cheap
                const problem_t p(sh, C, alg);
                const bt::layout_t l = (bt::layout_t)li;
                const int nd = p.nd;
                bt::tensor_t src(env.eng, nd, p.sd, dt, l), dst(env.eng, nd, p.dd, dt, l);
                bt::tensor_t ddst(env.eng, nd, p.dd, dt, l), dsrc(env.eng, nd, p.sd, dt, l);
                dnnl_primitive_desc_t fpd = nullptr, bpd = nullptr;
                KT_OK(dnnl_pooling_forward_primitive_desc_create(&fpd, env.eng, dnnl_forward_training, alg, src.md,
                        dst.md, sh.s, sh.k, sh.d, sh.pl, sh.pr, nullptr));
                KT_OK(dnnl_pooling_backward_primitive_desc_create(&bpd, env.eng, alg, dsrc.md, ddst.md, sh.s, sh.k,
                        sh.d, sh.pl, sh.pr, fpd, nullptr));
                const size_t slice = p.ssize() / (size_t)(sh.mb * C);
                std::vector<float> x(p.ssize()), g(p.dsize());
                for (size_t i = 0; i < x.size(); ++i) x[i] = src_value(i, slice);
                kt::fill(g, 11 + C + li);
                src.put(x);
                ddst.put(g);
                g = ddst.get(); // the values the primitive sees (bf16-rounded)
                const bool max = alg == dnnl_pooling_max;
                bt::pd_mem_t ws(fpd, env.eng, DNNL_ARG_WORKSPACE);
                std::map<int, dnnl_memory_t> fargs = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_DST, dst.mem}};
                if (max) fargs[DNNL_ARG_WORKSPACE] = ws.mem;
                KT_OK(bt::exec(fpd, env.strm, fargs));
                std::map<int, dnnl_memory_t> bargs = {{DNNL_ARG_DIFF_DST, ddst.mem}, {DNNL_ARG_DIFF_SRC, dsrc.mem}};
                if (max) bargs[DNNL_ARG_WORKSPACE] = ws.mem;
                char what[200];
                std::snprintf(what, sizeof what, "pool bwd nthr=%d nd=%d C=%ld layout=%d dt=%d alg=%x k0=%ld", nthr, nd,
                        (long)C, li, (int)dt, (unsigned)alg, (long)sh.k[0]);
                t.check(bt::exec(bpd, env.strm, bargs) == dnnl_success, what);
                const std::vector<float> got = dsrc.get();
                std::vector<double> ref, S;
                ref_bwd(p, x, g, ref, S);
                // f32 accumulation of at most K terms (K = window size, the
                // most windows a point belongs to): each addition rounds by
                // at most 2^-24 of the running sum of |terms| <= S; bf16
                // storage adds one rounding of 2^-8 relative (8-bit significand).
                const double K = (double)p.K();
                bool ok = true;
                for (size_t i = 0; i < got.size() && ok; ++i) {
                    double tol = (K + 2) * std::ldexp(S[i], -24);
                    if (dt == dnnl_bf16) tol += std::ldexp(std::fabs(ref[i]), -8) * (1 + 1e-6);
                    if (!(std::fabs(got[i] - ref[i]) <= tol)) {
                        std::fprintf(stderr, "  [%zu] got %.9g ref %.9g tol %.3g\n", i, got[i], ref[i], tol);
                        ok = false;
                    }
                }
                t.check(ok, what);

                // Gradient check through the forward primitive (f32, plain
                // and channel-last layouts, one thread count: the forward is
                // the same function of x in every layout).
                if (dt == dnnl_f32 && nthr == 1 && li < 2 && sh.k[0] != 16) {
                    // Values differ by at least 1/16: h = 1/64 keeps every
                    // argmax, and x +- h is exact in f32.
                    const double h = 1.0 / 64;
                    dnnl_primitive_t fp = nullptr;
                    KT_OK(dnnl_primitive_create(&fp, fpd));
                    std::vector<dnnl_exec_arg_t> a;
                    for (auto &kv : fargs) a.push_back({kv.first, kv.second});
                    auto f = [&]() {
                        KT_OK(dnnl_primitive_execute(fp, env.strm, (int)a.size(), a.data()));
                        KT_OK(dnnl_stream_wait(env.strm));
                        const std::vector<float> y = dst.get();
                        double s = 0;
                        // A window wholly in the padding gives the lowest
                        // finite value whatever x is: left out, as its size
                        // would swamp the sum.
                        for (size_t o = 0; o < y.size(); ++o)
                            if (std::fabs(y[o]) < 1e30f) s += (double)g[o] * y[o];
                        return s;
                    };
                    // An avg output is a sum of at most K f32 values of
                    // magnitude <= Y = max|x| + h, divided once: its error is
                    // at most (K + 1) * 2^-24 * Y. At most K outputs change
                    // with x_i, each weighted by |g| <= 1, in f(x+h) and in
                    // f(x-h): the difference quotient errs by at most
                    // 2 * K * (K + 1) * 2^-24 * Y / (2h). Max outputs are exact.
                    const double Y = 125.0 / 16 + h;
                    const double fd_tol = max ? 0.0 : 2 * K * (K + 1) * std::ldexp(Y, -24) / (2 * h);
                    bool gok = true;
                    for (size_t i = 0; i < x.size() && gok; ++i) {
                        src.set(i, (float)(x[i] + h));
                        const double fp_ = f();
                        src.set(i, (float)(x[i] - h));
                        const double fm = f();
                        src.set(i, x[i]);
                        const double fd = (fp_ - fm) / (2 * h);
                        const double tol = fd_tol + (K + 2) * std::ldexp(S[i], -24) + 1e-12;
                        if (!(std::fabs(fd - got[i]) <= tol)) {
                            std::fprintf(stderr, "  fd[%zu] %.9g bwd %.9g tol %.3g\n", i, fd, got[i], tol);
                            gok = false;
                        }
                    }
                    dnnl_primitive_destroy(fp);
                    ++grad_checks;
                    t.check(gok, (std::string("gradient check ") + what).c_str());
                }

                // A missing or wrong workspace: refused, nothing written.
                if (max && nthr == 1 && dt == dnnl_f32) {
                    std::vector<char> before = dsrc.buf;
                    std::map<int, dnnl_memory_t> miss = {{DNNL_ARG_DIFF_DST, ddst.mem}, {DNNL_ARG_DIFF_SRC, dsrc.mem}};
                    std::fill(dsrc.buf.begin(), dsrc.buf.end(), (char)0x5a);
                    before = dsrc.buf;
                    t.check(bt::exec(bpd, env.strm, miss) == dnnl_invalid_arguments, "pool bwd: no workspace");
                    t.check(dsrc.buf == before, "pool bwd: no workspace, nothing written");
                    // Same bytes, another type: s32 <-> u8 indices.
                    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(bpd, dnnl_query_workspace_md, 0);
                    dnnl_data_type_t wdt;
                    KT_OK(dnnl_memory_desc_query(wmd, dnnl_query_data_type, &wdt));
                    t.check(wdt == (p.K() <= 255 ? dnnl_u8 : dnnl_s32), "pool bwd: workspace type");
                    bt::tensor_t bad(env.eng, nd, p.dd, wdt == dnnl_u8 ? dnnl_f32 : dnnl_bf16, l);
                    miss[DNNL_ARG_WORKSPACE] = bad.mem;
                    t.check(bt::exec(bpd, env.strm, miss) == dnnl_invalid_arguments, "pool bwd: wrong workspace md");
                    t.check(dsrc.buf == before, "pool bwd: wrong workspace, nothing written");
                }

                // diff_src `any` takes the forward src layout.
                if (nthr == 1 && alg == dnnl_pooling_max) {
                    dnnl_memory_desc_t amd;
                    KT_OK(dnnl_memory_desc_create_with_tag(&amd, nd, p.sd, dt, dnnl_format_tag_any));
                    dnnl_primitive_desc_t apd = nullptr;
                    KT_OK(dnnl_pooling_backward_primitive_desc_create(&apd, env.eng, alg, amd, ddst.md, sh.s, sh.k,
                            sh.d, sh.pl, sh.pr, fpd, nullptr));
                    t.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(apd, dnnl_query_diff_src_md, 0), src.md),
                            "pool bwd: diff_src any = src layout");
                    dnnl_primitive_desc_destroy(apd);
                    // diff_dst `any` (both any too) takes the forward dst
                    // layout, as oneDNN's training examples rely on.
                    dnnl_memory_desc_t admd;
                    KT_OK(dnnl_memory_desc_create_with_tag(&admd, nd, p.dd, dt, dnnl_format_tag_any));
                    for (const_dnnl_memory_desc_t dsmd : {(const_dnnl_memory_desc_t)dsrc.md, (const_dnnl_memory_desc_t)amd}) {
                        KT_OK(dnnl_pooling_backward_primitive_desc_create(&apd, env.eng, alg, dsmd, admd, sh.s, sh.k,
                                sh.d, sh.pl, sh.pr, fpd, nullptr));
                        t.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(apd, dnnl_query_diff_dst_md, 0),
                                        dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0)),
                                "pool bwd: diff_dst any = forward dst layout");
                        dnnl_primitive_desc_destroy(apd);
                    }
                    dnnl_memory_desc_destroy(admd);
                    dnnl_memory_desc_destroy(amd);
                }
                dnnl_primitive_desc_destroy(bpd);
                dnnl_primitive_desc_destroy(fpd);
            }
        });
    t.check(grad_checks > 0, "gradient checks ran");

    // The C++ API gives the same bits as the C API (2D nhwc, every alg).
    {
        using namespace dnnl;
        engine eng(engine::kind::cpu, 0);
        stream s(eng);
        const shape_t sh = {2, 2, {7, 9}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}};
        for (auto alg : algs) {
            const problem_t p(sh, 5, alg);
            bt::tensor_t src(env.eng, {2, 5, 7, 9}, dnnl_f32, bt::nspc), dst(env.eng, {2, 5, p.dd[2], p.dd[3]}, dnnl_f32, bt::nspc);
            bt::tensor_t ddst(env.eng, {2, 5, p.dd[2], p.dd[3]}, dnnl_f32, bt::nspc), dsrc(env.eng, {2, 5, 7, 9}, dnnl_f32, bt::nspc);
            std::vector<float> x(p.ssize()), g(p.dsize());
            for (size_t i = 0; i < x.size(); ++i) x[i] = src_value(i, 63);
            kt::fill(g, 5);
            src.put(x);
            ddst.put(g);
            memory::desc smd({2, 5, 7, 9}, memory::data_type::f32, memory::format_tag::nhwc);
            memory::desc dmd({2, 5, p.dd[2], p.dd[3]}, memory::data_type::f32, memory::format_tag::nhwc);
            const memory::dims st = {2, 2}, k = {3, 3}, dl = {0, 0}, pl = {1, 1}, pr = {1, 1};
            pooling_forward::primitive_desc fpd(eng, prop_kind::forward_training, (algorithm)alg, smd, dmd, st, k, dl, pl, pr);
            pooling_backward::primitive_desc bpd(eng, (algorithm)alg, smd, dmd, st, k, dl, pl, pr, fpd);
            memory ms(smd, eng, src.buf.data()), md(dmd, eng, dst.buf.data());
            memory mws(fpd.workspace_desc(), eng);
            std::vector<float> out(x.size());
            memory mdd(dmd, eng, ddst.buf.data()), mds(bpd.diff_src_desc(), eng);
            pooling_forward(fpd).execute(s, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md}, {DNNL_ARG_WORKSPACE, mws}});
            pooling_backward(bpd).execute(s, {{DNNL_ARG_DIFF_DST, mdd}, {DNNL_ARG_DIFF_SRC, mds}, {DNNL_ARG_WORKSPACE, mws}});
            s.wait();
            // The C API on the same inputs.
            dnnl_primitive_desc_t cf = nullptr, cb = nullptr;
            KT_OK(dnnl_pooling_forward_primitive_desc_create(&cf, env.eng, dnnl_forward_training, alg, src.md, dst.md,
                    sh.s, sh.k, sh.d, sh.pl, sh.pr, nullptr));
            KT_OK(dnnl_pooling_backward_primitive_desc_create(&cb, env.eng, alg, dsrc.md, ddst.md, sh.s, sh.k, sh.d,
                    sh.pl, sh.pr, cf, nullptr));
            bt::pd_mem_t ws(cf, env.eng, DNNL_ARG_WORKSPACE);
            std::map<int, dnnl_memory_t> fa = {{DNNL_ARG_SRC, src.mem}, {DNNL_ARG_DST, dst.mem}};
            std::map<int, dnnl_memory_t> ba = {{DNNL_ARG_DIFF_DST, ddst.mem}, {DNNL_ARG_DIFF_SRC, dsrc.mem}};
            if (alg == dnnl_pooling_max) fa[DNNL_ARG_WORKSPACE] = ba[DNNL_ARG_WORKSPACE] = ws.mem;
            KT_OK(bt::exec(cf, env.strm, fa));
            KT_OK(bt::exec(cb, env.strm, ba));
            const bool same = std::memcmp(mds.get_data_handle(), dsrc.buf.data(), x.size() * 4) == 0;
            t.check(same, "pool bwd: C++ API = C API");
            t.check(bpd.get_algorithm() == (algorithm)alg && bpd.get_kernel() == k, "pool bwd: C++ queries");
            dnnl_primitive_desc_destroy(cb);
            dnnl_primitive_desc_destroy(cf);
        }
    }

    // Zero-sized batch: created and executed as a no-op.
    {
        bt::tensor_t src(env.eng, {0, 3, 5, 5}, dnnl_f32, bt::ncsp), dst(env.eng, {0, 3, 4, 4}, dnnl_f32, bt::ncsp);
        const dnnl_dims_t st = {1, 1}, k = {2, 2}, pad = {0, 0};
        dnnl_primitive_desc_t fpd = nullptr, bpd = nullptr;
        KT_OK(dnnl_pooling_forward_primitive_desc_create(&fpd, env.eng, dnnl_forward_training, dnnl_pooling_max, src.md,
                dst.md, st, k, nullptr, pad, pad, nullptr));
        t.check(dnnl_pooling_backward_primitive_desc_create(&bpd, env.eng, dnnl_pooling_max, src.md, dst.md, st, k,
                        nullptr, pad, pad, fpd, nullptr) == dnnl_success, "pool bwd: zero batch created");
        bt::pd_mem_t ws(fpd, env.eng, DNNL_ARG_WORKSPACE);
        t.check(bt::exec(bpd, env.strm, {{DNNL_ARG_DIFF_DST, dst.mem}, {DNNL_ARG_DIFF_SRC, src.mem}, {DNNL_ARG_WORKSPACE, ws.mem}})
                        == dnnl_success, "pool bwd: zero batch executed");
        dnnl_primitive_desc_destroy(bpd);
        // Bad input: no hint, a max backward with an inference hint, bad alg.
        t.check(dnnl_pooling_backward_primitive_desc_create(&bpd, env.eng, dnnl_pooling_max, src.md, dst.md, st, k,
                        nullptr, pad, pad, nullptr, nullptr) == dnnl_invalid_arguments, "pool bwd: no hint");
        t.check(dnnl_pooling_backward_primitive_desc_create(&bpd, env.eng, dnnl_eltwise_relu, src.md, dst.md, st, k,
                        nullptr, pad, pad, fpd, nullptr) == dnnl_invalid_arguments, "pool bwd: bad alg");
        t.check(dnnl_pooling_backward_primitive_desc_create(&bpd, env.eng, dnnl_pooling_max, src.md, src.md, st, k,
                        nullptr, pad, pad, fpd, nullptr) == dnnl_invalid_arguments, "pool bwd: bad shape");
        dnnl_primitive_desc_t ipd = nullptr;
        KT_OK(dnnl_pooling_forward_primitive_desc_create(&ipd, env.eng, dnnl_forward_inference, dnnl_pooling_max, src.md,
                dst.md, st, k, nullptr, pad, pad, nullptr));
        t.check(dnnl_pooling_backward_primitive_desc_create(&bpd, env.eng, dnnl_pooling_max, src.md, dst.md, st, k,
                        nullptr, pad, pad, ipd, nullptr) == dnnl_unimplemented, "pool bwd: inference hint");
        dnnl_primitive_desc_destroy(ipd);
        dnnl_primitive_desc_destroy(fpd);
    }
    return t.finish();
}
