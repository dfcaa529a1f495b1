// f32 weights in the GEMM's panel layout, through the C API: inner product
// forward (OC x IC weights) and backward, and matmul (K x N weights).
//
// 2D f32 weights in format `any` come back from gemm:f32, where its GEMM
// packs B, as blocks of the kernel's NR columns of the GEMM's B (the
// inner product's OC, the matmul's N) with all of K (IC, K) in each:
// element (k, n) at (n / NR) * K * NR + k * NR + n % NR, N padded to NR.
// The test checks that descriptor field by field, that the library's
// reorder from `ab` writes exactly that formula with zeros in the padding,
// and then runs, against naive loops over plain weights (no library code):
//   - the forward with `any` (bias, per-output-channel scales, ReLU),
//     weights laid out by the test itself from the formula;
//   - the same descriptor given back for other row counts (1 to 100: the
//     few-row products, otherwise read in place, read the panels too);
//   - inner product backward data and backward weights given that
//     descriptor (the forward's weights_desc passed on): diff_src, and
//     diff_weights written into the panels with zero padding;
//   - a bf16 source with the panel weights (the reference takes it).
// Small integers keep every sum exact: results must be identical.
// 1 and 2 threads; test_weights_panels_isa.sh reruns it under the AVX2 and
// SSE41 caps (the 16-column and portable kernels).
#include <cstring>
#include <string>
#include <vector>

#include "common/kt_test.hpp"

namespace {

kt::tally_t T;
dnnl_engine_t eng;
dnnl_stream_t strm;

struct layout_t {
    bool panels = false;
    int64_t nr = 0;
};

// What the pd's 2D weights descriptor (d0 x d1, the GEMM's N along n_dim)
// is: plain ab, or panels (checked field by field against the formula's
// descriptor; anything else fails).
layout_t read_layout(const_dnnl_memory_desc_t w, int64_t d0, int64_t d1, int n_dim, const char *what) {
    layout_t l;
    const kt::md_fields_t f(w);
    const int k_dim = 1 - n_dim;
    bool ok = f.ndims == 2 && f.dt == dnnl_f32 && (*f.dims)[0] == d0 && (*f.dims)[1] == d1;
    if (f.inner_nblks == 0) {
        ok = ok && (*f.strides)[0] == d1 && (*f.strides)[1] == 1;
    } else {
        l.panels = true;
        l.nr = (*f.inner_blks)[0];
        const int64_t N = (*f.dims)[n_dim], K = (*f.dims)[k_dim], npad = (N + l.nr - 1) / l.nr * l.nr;
        ok = ok && f.inner_nblks == 1 && (*f.inner_idxs)[0] == n_dim && l.nr > 0 && l.nr % 8 == 0
                && (*f.padded_dims)[n_dim] == npad && (*f.padded_dims)[k_dim] == K
                && (*f.strides)[k_dim] == l.nr && (*f.strides)[n_dim] == K * l.nr
                && dnnl_memory_desc_get_size(w) == (size_t)(npad * K) * sizeof(float);
    }
    T.check(ok, (std::string(what) + ": weights descriptor is ab or the panel layout").c_str());
    return l;
}

// Plain d0 x d1 weights into the layout l, by the formula (zero padding).
std::vector<float> lay_out(const std::vector<float> &w, int64_t d0, int64_t d1, int n_dim, const layout_t &l) {
    if (!l.panels) return w;
    const int64_t N = n_dim == 0 ? d0 : d1, K = n_dim == 0 ? d1 : d0;
    const int64_t npad = (N + l.nr - 1) / l.nr * l.nr;
    std::vector<float> p((size_t)(npad * K), 0.f);
    for (int64_t i = 0; i < d0; ++i)
        for (int64_t j = 0; j < d1; ++j) {
            const int64_t n = n_dim == 0 ? i : j, k = n_dim == 0 ? j : i;
            p[(size_t)((n / l.nr) * K * l.nr + k * l.nr + n % l.nr)] = w[(size_t)(i * d1 + j)];
        }
    return p;
}

std::vector<float> small_ints(size_t n, uint64_t seed) {
    std::vector<float> v(n);
    kt::rng_t r(seed);
    for (auto &x : v) x = r.small_int(-3, 3);
    return v;
}

struct arg_t {
    int arg;
    const_dnnl_memory_desc_t md;
    void *p;
};

dnnl_status_t run(const_dnnl_primitive_desc_t pd, const std::vector<arg_t> &args) {
    dnnl_primitive_t prim;
    dnnl_status_t st = dnnl_primitive_create(&prim, pd);
    if (st != dnnl_success) return st;
    std::vector<dnnl_exec_arg_t> ea;
    for (const auto &a : args) {
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, a.md, eng, a.p));
        ea.push_back({a.arg, m});
    }
    st = dnnl_primitive_execute(prim, strm, (int)ea.size(), ea.data());
    if (st == dnnl_success) st = dnnl_stream_wait(strm);
    for (auto &e : ea) dnnl_memory_destroy(e.memory);
    dnnl_primitive_destroy(prim);
    return st;
}

bool same(const std::vector<float> &got, const std::vector<float> &want, const char *what) {
    for (size_t i = 0; i < want.size(); ++i)
        if (!(got[i] == want[i])) {
            std::fprintf(stderr, "%s: element %zu is %g, want %g\n", what, i, got[i], want[i]);
            return false;
        }
    return true;
}

// The library's reorder from ab into the panel descriptor writes the
// formula's layout, padding included (the destination starts as 77s).
void reorder_layout(const_dnnl_memory_desc_t pw, const std::vector<float> &w, int64_t d0, int64_t d1, int n_dim,
        const layout_t &l, const char *what) {
    kt::md_t ab(kt::make_md({d0, d1}, dnnl_f32, dnnl_ab));
    std::vector<float> got(dnnl_memory_desc_get_size(pw) / sizeof(float), 77.f);
    dnnl_primitive_desc_t rpd;
    KT_OK(dnnl_reorder_primitive_desc_create(&rpd, ab, eng, pw, eng, nullptr));
    const dnnl_status_t st = run(rpd, {{DNNL_ARG_FROM, ab, const_cast<float *>(w.data())}, {DNNL_ARG_TO, pw, got.data()}});
    dnnl_primitive_desc_destroy(rpd);
    const std::string m = std::string(what) + ": reorder ab -> panels is the formula, zero padding";
    T.check(st == dnnl_success && same(got, lay_out(w, d0, d1, n_dim, l), m.c_str()), m.c_str());
}

// The primitive under test: inner product forward (weights OC x IC, the
// GEMM's N along dim 0) or matmul (weights K x N, N along dim 1).
struct kind_t {
    bool mm;
    int n_dim() const { return mm ? 1 : 0; }
    // Weights dims for K and N.
    int64_t d0(int64_t K, int64_t N) const { return mm ? K : N; }
    int64_t d1(int64_t K, int64_t N) const { return mm ? N : K; }
    // Weights element (k, n) of the plain d0 x d1 array.
    float at(const std::vector<float> &w, int64_t k, int64_t n, int64_t K, int64_t N) const {
        return mm ? w[(size_t)(k * N + n)] : w[(size_t)(n * K + k)];
    }
    const char *name() const { return mm ? "matmul" : "ip"; }
    dnnl_status_t create(dnnl_primitive_desc_t *pd, const_dnnl_memory_desc_t s, const_dnnl_memory_desc_t w,
            const_dnnl_memory_desc_t b, const_dnnl_memory_desc_t d, const_dnnl_primitive_attr_t attr) const {
        return mm ? dnnl_matmul_primitive_desc_create(pd, eng, s, w, b, d, attr)
                  : dnnl_inner_product_forward_primitive_desc_create(pd, eng, dnnl_forward_inference, s, w, b, d, attr);
    }
};

// dst = [relu](scale[n] * (src x W) + bias[n]) in double from plain weights.
std::vector<float> naive_fwd(const kind_t &kd, const std::vector<float> &s, const std::vector<float> &w,
        const std::vector<float> *b, const std::vector<float> *sc, bool relu, int64_t M, int64_t K, int64_t N) {
    std::vector<float> d((size_t)(M * N));
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k) acc += (double)s[(size_t)(m * K + k)] * kd.at(w, k, n, K, N);
            const double v = acc * (sc ? (*sc)[(size_t)n] : 1.f) + (b ? (*b)[(size_t)n] : 0.f);
            d[(size_t)(m * N + n)] = (float)(relu && v < 0 ? 0 : v);
        }
    return d;
}

// Forward with weights md `wmd` (any or a panel descriptor) at M rows:
// creates the pd (gemm:f32 expected), lays out the weights as its
// descriptor says, runs with 1 and 2 threads (bias, per-N weights scales,
// ReLU). Returns the pd's weights layout; the pd's weights descriptor is
// cloned into *out when asked.
layout_t fwd(const kind_t &kd, int64_t M, int64_t K, int64_t N, const_dnnl_memory_desc_t wmd, bool want_panels,
        dnnl_memory_desc_t *out, const char *tag) {
    char what[200];
    std::snprintf(what, sizeof what, "%s fwd %s M=%ld K=%ld N=%ld", kd.name(), tag, (long)M, (long)K, (long)N);
    const int64_t d0 = kd.d0(K, N), d1 = kd.d1(K, N);
    kt::md_t smd(kt::make_md({M, K}, dnnl_f32, dnnl_ab)), dmd(kt::make_md({M, N}, dnnl_f32, dnnl_ab)),
            bmd(kd.mm ? kt::make_md({1, N}, dnnl_f32, dnnl_ab) : kt::make_md({N}, dnnl_f32, dnnl_a)),
            scmd(kt::make_md({N}, dnnl_f32, dnnl_a));
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t pops;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 1 << kd.n_dim()));
    KT_OK(dnnl_post_ops_create(&pops));
    KT_OK(dnnl_post_ops_append_eltwise(pops, dnnl_eltwise_relu, 0.f, 0.f));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, pops));
    dnnl_post_ops_destroy(pops);
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = kd.create(&pd, smd, wmd, bmd, dmd, attr);
    dnnl_primitive_attr_destroy(attr);
    layout_t l;
    if (st != dnnl_success) {
        T.check(false, what);
        return l;
    }
    const std::string impl = kt::impl_name(pd);
    const_dnnl_memory_desc_t pw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    l = read_layout(pw, d0, d1, kd.n_dim(), what);
    std::string m = std::string(what) + ": gemm:f32, " + (want_panels ? "panel" : "any layout of") + " weights";
    T.check(impl == "gemm:f32" && (!want_panels || l.panels), m.c_str());
    if (l.panels) reorder_layout(pw, small_ints((size_t)(K * N), 2), d0, d1, kd.n_dim(), l, what);
    const std::vector<float> s = small_ints((size_t)(M * K), 1), w = small_ints((size_t)(K * N), 2),
                             b = small_ints((size_t)N, 3);
    std::vector<float> sc((size_t)N);
    for (int64_t n = 0; n < N; ++n) sc[(size_t)n] = n % 3 == 0 ? 0.5f : n % 3 == 1 ? 2.f : 1.f;
    std::vector<float> wl = lay_out(w, d0, d1, kd.n_dim(), l);
    const std::vector<float> want = naive_fwd(kd, s, w, &b, &sc, true, M, K, N);
    for (int nthr : {1, 2}) {
        std::vector<float> d((size_t)(M * N), 99.f);
        dnnl_status_t rs = dnnl_success;
        kt::with_threads(nthr, [&] {
            rs = run(pd, {{DNNL_ARG_SRC, smd, const_cast<float *>(s.data())}, {DNNL_ARG_WEIGHTS, pw, wl.data()},
                                 {DNNL_ARG_BIAS, bmd, const_cast<float *>(b.data())}, {DNNL_ARG_DST, dmd, d.data()},
                                 {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, scmd, sc.data()}});
        });
        m = std::string(what) + " [" + impl + "] thr=" + std::to_string(nthr) + ": dst equals the naive loop";
        T.check(rs == dnnl_success && same(d, want, m.c_str()), m.c_str());
    }
    if (out) KT_OK(dnnl_memory_desc_clone(out, pw));
    dnnl_primitive_desc_destroy(pd);
    return l;
}

// Backward data and weights with the panel descriptor pw given as the
// (diff) weights: diff_src = diff_dst x w, diff_w = diff_dst^T x src,
// diff_bias = column sums of diff_dst.
void bwd(int64_t MB, int64_t IC, int64_t OC, const_dnnl_memory_desc_t pw, const layout_t &l) {
    kt::md_t smd(kt::make_md({MB, IC}, dnnl_f32, dnnl_ab)), dmd(kt::make_md({MB, OC}, dnnl_f32, dnnl_ab)),
            bmd(kt::make_md({OC}, dnnl_f32, dnnl_a));
    dnnl_primitive_desc_t fpd, bd = nullptr, bw = nullptr;
    KT_OK(dnnl_inner_product_forward_primitive_desc_create(&fpd, eng, dnnl_forward_training, smd, pw, bmd, dmd,
            nullptr));
    const dnnl_status_t sd = dnnl_inner_product_backward_data_primitive_desc_create(&bd, eng, smd, pw, dmd, fpd, nullptr);
    const dnnl_status_t sw
            = dnnl_inner_product_backward_weights_primitive_desc_create(&bw, eng, smd, pw, bmd, dmd, fpd, nullptr);
    char what[200];
    std::snprintf(what, sizeof what, "bwd MB=%ld IC=%ld OC=%ld panel weights given", (long)MB, (long)IC, (long)OC);
    T.check(sd == dnnl_success && sw == dnnl_success
                    && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(bd, dnnl_query_weights_md, 0), pw)
                    && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(bw, dnnl_query_diff_weights_md, 0), pw),
            what);
    if (sd != dnnl_success || sw != dnnl_success) {
        if (bd) dnnl_primitive_desc_destroy(bd);
        if (bw) dnnl_primitive_desc_destroy(bw);
        dnnl_primitive_desc_destroy(fpd);
        return;
    }
    const std::vector<float> s = small_ints((size_t)(MB * IC), 11), w = small_ints((size_t)(OC * IC), 12),
                             dd = small_ints((size_t)(MB * OC), 13);
    std::vector<float> want_ds((size_t)(MB * IC)), want_dw((size_t)(OC * IC)), want_db((size_t)OC);
    for (int64_t m = 0; m < MB; ++m)
        for (int64_t i = 0; i < IC; ++i) {
            double acc = 0;
            for (int64_t o = 0; o < OC; ++o) acc += (double)dd[(size_t)(m * OC + o)] * w[(size_t)(o * IC + i)];
            want_ds[(size_t)(m * IC + i)] = (float)acc;
        }
    for (int64_t o = 0; o < OC; ++o) {
        double sb = 0;
        for (int64_t m = 0; m < MB; ++m) sb += dd[(size_t)(m * OC + o)];
        want_db[(size_t)o] = (float)sb;
        for (int64_t i = 0; i < IC; ++i) {
            double acc = 0;
            for (int64_t m = 0; m < MB; ++m) acc += (double)dd[(size_t)(m * OC + o)] * s[(size_t)(m * IC + i)];
            want_dw[(size_t)(o * IC + i)] = (float)acc;
        }
    }
    std::vector<float> wl = lay_out(w, OC, IC, 0, l), want_dwl = lay_out(want_dw, OC, IC, 0, l);
    for (int nthr : {1, 2}) {
        std::vector<float> ds((size_t)(MB * IC), 99.f), dw(want_dwl.size(), 99.f), db((size_t)OC, 99.f);
        dnnl_status_t r1 = dnnl_success, r2 = dnnl_success;
        kt::with_threads(nthr, [&] {
            r1 = run(bd, {{DNNL_ARG_DIFF_DST, dmd, const_cast<float *>(dd.data())}, {DNNL_ARG_WEIGHTS, pw, wl.data()},
                                 {DNNL_ARG_DIFF_SRC, smd, ds.data()}});
            r2 = run(bw, {{DNNL_ARG_SRC, smd, const_cast<float *>(s.data())},
                                 {DNNL_ARG_DIFF_DST, dmd, const_cast<float *>(dd.data())},
                                 {DNNL_ARG_DIFF_WEIGHTS, pw, dw.data()}, {DNNL_ARG_DIFF_BIAS, bmd, db.data()}});
        });
        const std::string m = std::string(what) + " thr=" + std::to_string(nthr);
        const std::string m1 = m + ": diff_src equals the naive loop",
                          m2 = m + ": diff_weights (panels, zero padding) and diff_bias";
        T.check(r1 == dnnl_success && same(ds, want_ds, m1.c_str()), m1.c_str());
        T.check(r2 == dnnl_success && same(dw, want_dwl, m2.c_str()) && same(db, want_db, m2.c_str()), m2.c_str());
    }
    dnnl_primitive_desc_destroy(bd);
    dnnl_primitive_desc_destroy(bw);
    dnnl_primitive_desc_destroy(fpd);
}

// bf16 src with the panel weights: not gemm:f32's (it converts plain
// operands only); the reference reads the blocked weights, exactly.
void bf16_src(const kind_t &kd, int64_t M, int64_t K, int64_t N, const_dnnl_memory_desc_t pw, const layout_t &l) {
    kt::md_t smd(kt::make_md({M, K}, dnnl_bf16, dnnl_ab)), dmd(kt::make_md({M, N}, dnnl_f32, dnnl_ab));
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = kd.create(&pd, smd, pw, nullptr, dmd, nullptr);
    const std::vector<float> s = small_ints((size_t)(M * K), 21), w = small_ints((size_t)(K * N), 22);
    std::vector<uint16_t> sb(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        uint32_t u;
        std::memcpy(&u, &s[i], 4);
        sb[i] = (uint16_t)(u >> 16); // small integers: exact in bf16
    }
    const std::vector<float> want = naive_fwd(kd, s, w, nullptr, nullptr, false, M, K, N);
    std::vector<float> d(want.size(), 99.f), wl = lay_out(w, kd.d0(K, N), kd.d1(K, N), kd.n_dim(), l);
    const bool made = st == dnnl_success;
    const std::string impl = made ? kt::impl_name(pd) : "";
    const bool ran = made
            && run(pd, {{DNNL_ARG_SRC, smd, sb.data()}, {DNNL_ARG_WEIGHTS, pw, wl.data()}, {DNNL_ARG_DST, dmd, d.data()}})
                    == dnnl_success;
    char m[120];
    std::snprintf(m, sizeof m, "%s fwd bf16 src M=%ld K=%ld N=%ld, panel weights", kd.name(), (long)M, (long)K, (long)N);
    const std::string mi = std::string(m) + " [" + impl + "]";
    T.check(ran && impl.rfind("ref", 0) == 0 && same(d, want, mi.c_str()), mi.c_str());
    if (pd) dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    struct shape_t {
        int64_t M, K, N;
        bool packs; // the GEMM packs B whatever the machine's caches: `any` must give panels
    };
    // N a multiple of every NR and not; K odd, short and past the K
    // block; M beyond a few rows so that the GEMM packs B. The inner
    // product's B is transposed (never read in place beyond 8 rows or
    // columns); the matmul's is read in place while A and B fit in half of
    // L2, or B alone with at most 64 columns: its packing shapes are large.
    const shape_t ip_shapes[] = {{64, 300, 100, true}, {13, 1, 33, true}, {40, 2048, 64, true}, {17, 777, 1000, true}};
    const shape_t mm_shapes[] = {{2048, 1025, 100, true}, {64, 777, 1000, true}, {40, 2048, 64, false}, {13, 1, 33, false}};
    for (bool mm : {false, true}) {
        const kind_t kd {mm};
        for (const shape_t &sh : mm ? mm_shapes : ip_shapes) {
            kt::md_t wany(kt::make_md({kd.d0(sh.K, sh.N), kd.d1(sh.K, sh.N)}, dnnl_f32, dnnl_format_tag_any));
            dnnl_memory_desc_t pw = nullptr;
            const layout_t l = fwd(kd, sh.M, sh.K, sh.N, wany, sh.packs, &pw, "any");
            if (!pw) continue;
            kt::md_t hold(pw);
            if (!l.panels) continue;
            for (int64_t m : {1, 3, 8, 9, 100}) {
                const layout_t g = fwd(kd, m, sh.K, sh.N, pw, true, nullptr, "given");
                T.check(g.nr == l.nr, "given panels keep their block");
            }
            if (!mm) {
                bwd(sh.M, sh.K, sh.N, pw, l);
                bwd(5, sh.K, sh.N, pw, l);
            }
            bf16_src(kd, 7, sh.K, sh.N, pw, l);
        }
        // A few rows with `any`: whatever layout comes back must run right.
        for (int64_t m : {1, 2}) {
            kt::md_t wany(kt::make_md({kd.d0(70, 50), kd.d1(70, 50)}, dnnl_f32, dnnl_format_tag_any));
            fwd(kd, m, 70, 50, wany, false, nullptr, "any few rows");
        }
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return T.finish();
}
