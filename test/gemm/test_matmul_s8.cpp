// int8 matmul on the int8 GEMM engine ("gemm:s8") against a naive int64
// matmul written here: u8/s8 src x s8 weights (row-major or transposed),
// 2D and batched (weights broadcast or not), dst f32/s32/s8/u8/bf16, bias,
// src scale, per-N or per-tensor weights scales, dst scale, src and dst
// zero points, eltwise and sum post-ops, M/N/K tails, 1 and 2 threads;
// through the C++ wrapper and (one case each way) the C API; problems the
// implementation does not take (weights zero points, u8 weights) go on to
// the next implementation. Forward only: int8 matmul has no backward, so
// there is no gradient to check.
//
// Tolerance: the data make every intermediate exact in f32 (|acc| < 2^24,
// scales powers of two, bias a multiple of 1/4 below 2^8), so the value
// before dst's rounding is exact in both and results must be identical
// (bf16: the test rounds the exact value to nearest even itself). The one
// large-K case (|acc| up to 2^27, f32 dst) allows the single rounding of
// acc to f32 and one per scale: 4 * 2^-24 relative.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "../common/kt_test.hpp"
#include "dnnl.hpp"

namespace {

kt::tally_t T;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

struct case_t {
    dt sdt, ddt;
    long batch, wbatch; // wbatch 1: weights broadcast over the batch
    long M, N, K;
    bool wtrans;
    int szp, dzp; // 0: none
    bool wei_per_n, bias, relu, sum;
    float big = 0; // > 0: large-K magnitude case
    bool no_scales = false; // no scales at all (the plain s32 store)
};

float bf16_round(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
    std::memcpy(&f, &u, 4);
    return f;
}

double store_ref(dt d, double v) {
    auto sat = [](double x, double lo, double hi) {
        x = std::nearbyint(x);
        return x < lo ? lo : x > hi ? hi : x;
    };
    switch (d) {
        case dt::s32: return sat(v, -2147483648.0, 2147483647.0);
        case dt::s8: return sat(v, -128, 127);
        case dt::u8: return sat(v, 0, 255);
        case dt::bf16: return bf16_round((float)v);
        default: return (float)v;
    }
}

double load(dt d, const void *p, long i) {
    switch (d) {
        case dt::s32: return ((const int32_t *)p)[i];
        case dt::s8: return ((const int8_t *)p)[i];
        case dt::u8: return ((const uint8_t *)p)[i];
        case dt::bf16: {
            uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
            float f;
            std::memcpy(&f, &u, 4);
            return f;
        }
        default: return ((const float *)p)[i];
    }
}

void put(dt d, void *p, long i, double v) {
    switch (d) {
        case dt::s32: ((int32_t *)p)[i] = (int32_t)v; break;
        case dt::s8: ((int8_t *)p)[i] = (int8_t)v; break;
        case dt::u8: ((uint8_t *)p)[i] = (uint8_t)v; break;
        case dt::bf16: {
            float f = bf16_round((float)v);
            uint32_t u;
            std::memcpy(&u, &f, 4);
            ((uint16_t *)p)[i] = (uint16_t)(u >> 16);
            break;
        }
        default: ((float *)p)[i] = (float)v;
    }
}

bool run(const case_t &c, uint64_t seed, bool c_api, const char *expect_impl = "gemm:s8") {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    const bool b3 = c.batch > 1 || c.wbatch > 1;
    auto dims = [&](long b, long r, long k) {
        return b3 ? dnnl::memory::dims {b, r, k} : dnnl::memory::dims {r, k};
    };
    const tag plain = b3 ? tag::abc : tag::ab, wtag = c.wtrans ? (b3 ? tag::acb : tag::ba) : plain;
    dnnl::memory::desc sd(dims(c.batch, c.M, c.K), c.sdt, plain);
    dnnl::memory::desc wd(dims(c.wbatch, c.K, c.N), dt::s8, wtag);
    dnnl::memory::desc dd(dims(c.batch, c.M, c.N), c.ddt, plain);
    dnnl::memory::desc bd = c.bias ? dnnl::memory::desc(dims(1, 1, c.N), dt::f32, plain)
                                   : dnnl::memory::desc();
    dnnl::primitive_attr attr;
    if (!c.no_scales) {
        attr.set_scales_mask(DNNL_ARG_SRC, 0);
        attr.set_scales_mask(DNNL_ARG_WEIGHTS, c.wei_per_n ? 1 << (b3 ? 2 : 1) : 0);
        attr.set_scales_mask(DNNL_ARG_DST, 0);
    }
    if (c.szp) attr.set_zero_points_mask(DNNL_ARG_SRC, 0);
    if (c.dzp) attr.set_zero_points_mask(DNNL_ARG_DST, 0);
    dnnl::post_ops po;
    if (c.sum) po.append_sum(0.5f);
    if (c.relu) po.append_eltwise(dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    attr.set_post_ops(po);

    dnnl::matmul::primitive_desc pd(eng, sd, wd, bd, dd, attr);
    const std::string impl = pd.impl_info_str();
    if (impl.rfind(expect_impl, 0) != 0) {
        std::fprintf(stderr, "  impl %s, expected %s\n", impl.c_str(), expect_impl);
        return false;
    }
    dnnl::memory ms(sd, eng), mw(wd, eng), md(dd, eng);
    kt::rng_t r(seed);
    uint8_t *s8p = (uint8_t *)ms.get_data_handle();
    int8_t *w8p = (int8_t *)mw.get_data_handle();
    const long ns = c.batch * c.M * c.K, nw = c.wbatch * c.K * c.N, nd = c.batch * c.M * c.N;
    for (long i = 0; i < ns; ++i)
        s8p[i] = c.big > 0 ? (c.sdt == dt::u8 ? 255 : 127) : (uint8_t)r.next();
    for (long i = 0; i < nw; ++i) w8p[i] = c.big > 0 ? (i % 7 ? 127 : -128) : (int8_t)r.next();
    std::vector<double> old(nd);
    for (long i = 0; i < nd; ++i) {
        put(c.ddt, md.get_data_handle(), i, (double)(r.next() % 50) - (c.ddt == dt::u8 ? 0 : 25));
        old[i] = load(c.ddt, md.get_data_handle(), i);
    }
    std::vector<float> bias(c.N), ws(c.wei_per_n ? c.N : 1);
    for (auto &v : bias) v = ((int)(r.next() % 512) - 256) * 0.25f;
    for (size_t i = 0; i < ws.size(); ++i) ws[i] = c.no_scales ? 1.f : i % 3 == 1 ? 0.25f : 1.f;
    float ss = c.no_scales ? 1.f : 0.5f, ds = c.no_scales ? 1.f : 2.f;
    int32_t szp = c.szp, dzp = c.dzp;
    dnnl::memory mb = c.bias ? dnnl::memory(bd, eng, bias.data()) : dnnl::memory();
    dnnl::memory::desc one({1}, dt::f32, tag::a), onez({1}, dt::s32, tag::a);
    dnnl::memory mss(one, eng, &ss), mds(one, eng, &ds),
            mws(dnnl::memory::desc({(long)ws.size()}, dt::f32, tag::a), eng, ws.data());
    dnnl::memory mszp(onez, eng, &szp), mdzp(onez, eng, &dzp);

    // Reference: element (b, m, n) with logical offsets computed here.
    std::vector<double> want(nd);
    auto s_at = [&](long b, long m, long k) -> int64_t {
        const uint8_t v = s8p[(b * c.M + m) * c.K + k];
        return c.sdt == dt::s8 ? (int64_t)(int8_t)v : (int64_t)v;
    };
    auto w_at = [&](long b, long k, long n) -> int64_t {
        const long bb = c.wbatch == 1 ? 0 : b;
        return c.wtrans ? w8p[(bb * c.N + n) * c.K + k] : w8p[(bb * c.K + k) * c.N + n];
    };
    for (long b = 0; b < c.batch; ++b)
        for (long m = 0; m < c.M; ++m)
            for (long n = 0; n < c.N; ++n) {
                int64_t acc = 0;
                for (long k = 0; k < c.K; ++k) acc += (s_at(b, m, k) - c.szp) * w_at(b, k, n);
                const long i = (b * c.M + m) * c.N + n;
                double v = (double)acc * ss * ws[c.wei_per_n ? n : 0];
                if (c.bias) v += bias[n];
                if (c.sum) v += 0.5 * old[i];
                if (c.relu && v < 0) v = 0;
                v = v / ds + c.dzp;
                want[i] = store_ref(c.ddt, v);
            }

    std::unordered_map<int, dnnl::memory> args
            = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    if (!c.no_scales) {
        args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = mss;
        args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS] = mws;
        args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = mds;
    }
    if (c.bias) args[DNNL_ARG_BIAS] = mb;
    if (c.szp) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = mszp;
    if (c.dzp) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = mdzp;
    dnnl::matmul prim(pd);
    if (c_api) {
        std::vector<dnnl_exec_arg_t> ca;
        for (auto &kv : args) ca.push_back({kv.first, kv.second.get()});
        if (dnnl_primitive_execute(prim.get(), strm.get(), (int)ca.size(), ca.data())
                != dnnl_success)
            return false;
        dnnl_stream_wait(strm.get());
    } else {
        prim.execute(strm, args);
        strm.wait();
    }
    for (long i = 0; i < nd; ++i) {
        const double got = load(c.ddt, md.get_data_handle(), i);
        const double tol = c.big > 0 ? 4 * std::ldexp(std::fabs(want[i]), -24) : 0.0;
        if (!(std::fabs(got - want[i]) <= tol)) {
            std::fprintf(stderr, "  M=%ld N=%ld K=%ld at %ld: got %.9g want %.9g\n", c.M, c.N, c.K,
                    i, got, want[i]);
            return false;
        }
    }
    return true;
}

// 2D weights `any`: gemm:s8 answers with its packed panel layout (blocked,
// two inner blocks); plain ab weights reordered into it (the buffer first
// filled with 0x55, so padding the reorder failed to zero would corrupt the
// K groups of 4) give exactly the integer result; the layout reorders back
// to the same ab; the packed descriptor passed in is taken as it is.
// Shapes: N tails against every kernel's panel width (48, 16), K % 4 != 0,
// M = 1, s8 src and src zero points (column sums read from the panels).
bool packed_any_case(long M, long N, long K, dt sdt, int szp, dt ddt, uint64_t seed) {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    dnnl::memory::desc sd({M, K}, sdt, tag::ab), wplain({K, N}, dt::s8, tag::ab),
            wany({K, N}, dt::s8, tag::any), dd({M, N}, ddt, tag::ab);
    dnnl::primitive_attr attr;
    if (szp) attr.set_zero_points_mask(DNNL_ARG_SRC, 0);
    dnnl::matmul::primitive_desc pd(eng, sd, wany, dd, attr);
    const dnnl::memory::desc wd = pd.weights_desc();
    if (std::string(pd.impl_info_str()) != "gemm:s8" || wd.get_inner_nblks() != 2 || wd == wplain) {
        std::fprintf(stderr, "  any weights: impl %s, %d inner blocks\n", pd.impl_info_str(),
                wd.get_inner_nblks());
        return false;
    }
    dnnl::matmul::primitive_desc pd2(eng, sd, wd, dd, attr);
    if (std::string(pd2.impl_info_str()) != "gemm:s8" || pd2.weights_desc() != wd) {
        std::fprintf(stderr, "  packed weights passed in: impl %s\n", pd2.impl_info_str());
        return false;
    }
    kt::rng_t r(seed);
    dnnl::memory ms(sd, eng), mw(wplain, eng), mp(wd, eng), mb(wplain, eng), md(dd, eng);
    uint8_t *sp = (uint8_t *)ms.get_data_handle();
    int8_t *wp = (int8_t *)mw.get_data_handle();
    for (long i = 0; i < M * K; ++i) sp[i] = (uint8_t)r.next();
    for (long i = 0; i < K * N; ++i) wp[i] = (int8_t)r.next();
    std::memset(mp.get_data_handle(), 0x55, wd.get_size());
    dnnl::reorder(mw, mp).execute(strm, mw, mp);
    dnnl::reorder(mp, mb).execute(strm, mp, mb);
    strm.wait();
    if (std::memcmp(mb.get_data_handle(), wp, (size_t)(K * N)) != 0) {
        std::fprintf(stderr, "  weights ab -> packed -> ab is not the identity\n");
        return false;
    }
    int32_t zp = szp;
    dnnl::memory mzp(dnnl::memory::desc({1}, dt::s32, tag::a), eng, &zp);
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mp}, {DNNL_ARG_DST, md}};
    if (szp) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = mzp;
    dnnl::matmul(pd).execute(strm, args);
    strm.wait();
    for (long m = 0; m < M; ++m)
        for (long n = 0; n < N; ++n) {
            int64_t acc = 0;
            for (long k = 0; k < K; ++k) {
                const int64_t sv = sdt == dt::s8 ? (int64_t)(int8_t)sp[m * K + k] : (int64_t)sp[m * K + k];
                acc += (sv - szp) * wp[k * N + n];
            }
            const double got = load(ddt, md.get_data_handle(), m * N + n);
            if (got != (double)acc) { // |acc| < 2^24: exact in f32 too
                std::fprintf(stderr, "  packed M=%ld N=%ld K=%ld at (%ld, %ld): got %.9g want %lld\n", M, N, K, m,
                        n, got, (long long)acc);
                return false;
            }
        }
    return true;
}

void packed_any(int nthr) {
    struct sz_t {
        long M, N, K;
        dt sdt;
        int szp;
        dt ddt;
    };
    const sz_t cases[] = {{5, 100, 17, dt::u8, 0, dt::s32}, {33, 48, 64, dt::s8, 0, dt::f32},
            {1, 3, 3, dt::u8, 128, dt::s32}, {64, 130, 101, dt::s8, -3, dt::s32}, {17, 16, 4, dt::u8, 0, dt::f32}};
    int bad = 0, n = 0;
    for (const auto &c : cases)
        if (!packed_any_case(c.M, c.N, c.K, c.sdt, c.szp, c.ddt, 700 + n++)) ++bad;
    T.check(bad == 0,
            (std::to_string(nthr) + " thr: 2D any weights -> packed layout, reorder, exact results ("
                    + std::to_string(bad) + " of " + std::to_string(n) + " wrong)")
                    .c_str());
}

} // namespace

// The 8-bit stores at the ends of the range, with only a src scale (the
// scale folded into the tile's output): a NaN scale makes every output 0; a
// scale of 2^36 takes every nonzero sum past +-2^31, so the output is the
// type's bound of the sum's sign (0 for a zero sum).
void extremes() {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    const long M = 19, N = 37, K = 21;
    for (dt ddt : {dt::u8, dt::s8})
        for (float scale : {std::nanf(""), 68719476736.f}) {
            dnnl::memory::desc sd({M, K}, dt::u8, tag::ab), wd({K, N}, dt::s8, tag::ab), dd({M, N}, ddt, tag::ab);
            dnnl::primitive_attr attr;
            attr.set_scales_mask(DNNL_ARG_SRC, 0);
            dnnl::matmul::primitive_desc pd(eng, sd, wd, dd, attr);
            dnnl::memory ms(sd, eng), mw(wd, eng), md(dd, eng), msc({{1}, dt::f32, tag::a}, eng);
            kt::rng_t r(77);
            uint8_t *a = (uint8_t *)ms.get_data_handle();
            int8_t *b = (int8_t *)mw.get_data_handle();
            for (long i = 0; i < M * K; ++i) a[i] = (uint8_t)(r.next() % 4); // zeros too
            for (long i = 0; i < K * N; ++i) b[i] = (int8_t)(r.next() % 5) - 2;
            *(float *)msc.get_data_handle() = scale;
            dnnl::matmul(pd).execute(strm, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md},
                                                {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, msc}});
            strm.wait();
            const int8_t *ds = (const int8_t *)md.get_data_handle();
            const uint8_t *du = (const uint8_t *)md.get_data_handle();
            long bad = 0, zero_sums = 0;
            for (long m = 0; m < M; ++m)
                for (long n = 0; n < N; ++n) {
                    long acc = 0;
                    for (long k = 0; k < K; ++k) acc += (long)a[m * K + k] * b[k * N + n];
                    zero_sums += acc == 0;
                    long want = 0;
                    if (!std::isnan(scale) && acc != 0)
                        want = ddt == dt::u8 ? (acc > 0 ? 255 : 0) : (acc > 0 ? 127 : -128);
                    const long got = ddt == dt::u8 ? (long)du[m * N + n] : (long)ds[m * N + n];
                    bad += got != want;
                }
            const std::string what = std::string(ddt == dt::u8 ? "u8" : "s8") + " dst, src scale "
                    + (std::isnan(scale) ? "NaN: every output 0" : "2^36: the bound of the sum's sign") + " ("
                    + pd.impl_info_str() + ", " + std::to_string(zero_sums) + " zero sums)";
            T.check(bad == 0, what.c_str());
        }
}

int main() {
    for (int nthr : {1, 2}) kt::with_threads(nthr, [&] { extremes(); });
    for (int nthr : {1, 2}) kt::with_threads(nthr, [&] { packed_any(nthr); });
    const long sizes[] = {1, 3, 15, 16, 17, 63, 64, 65, 100};
    const dt dsts[] = {dt::f32, dt::s32, dt::s8, dt::u8, dt::bf16};
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            int n = 0, bad = 0;
            for (long M : sizes)
                for (long K : {1L, 3L, 17L, 64L, 100L}) {
                    case_t c;
                    c.sdt = n % 2 ? dt::s8 : dt::u8;
                    c.ddt = dsts[n % 5];
                    c.batch = n % 7 == 3 ? 3 : 1;
                    c.wbatch = c.batch > 1 && n % 2 ? 3 : 1;
                    c.M = M;
                    c.K = K;
                    c.N = sizes[(n * 4 + 1) % 9];
                    c.wtrans = n % 3 == 1;
                    c.szp = n % 4 == 1 ? (c.sdt == dt::u8 ? 128 : -3) : 0;
                    c.dzp = n % 5 == 2 ? 7 : 0;
                    c.sum = n % 6 == 4;
                    c.wei_per_n = !c.sum && n % 2 == 0;
                    c.bias = n % 3 != 2;
                    c.relu = n % 4 == 3;
                    if (!run(c, 500 + n, n % 9 == 0)) ++bad;
                    ++n;
                }
            const std::string what = std::to_string(nthr) + " thr: " + std::to_string(n)
                    + " matmul cases, " + std::to_string(bad) + " wrong";
            T.check(bad == 0, what.c_str());
            // Large K: sums far past 2^24 (exact s32 on this path).
            case_t big {dt::u8, dt::f32, 1, 1, 9, 50, 4100, false, 0, 0, false, false, false,
                    false, 1.f};
            case_t bigs = big;
            bigs.sdt = dt::s8;
            bigs.wtrans = true;
            bigs.szp = 5;
            T.check(run(big, 1, false) && run(bigs, 2, true),
                    (std::to_string(nthr) + " thr: K = 4100, |acc| > 2^24").c_str());
            // No attributes, s32 dst: the plain store, over tails and batch.
            bool plain_ok = true;
            int pn = 0;
            for (long M : {1L, 17L, 65L})
                for (long N : {3L, 48L, 100L}) {
                    case_t p {pn % 2 ? dt::s8 : dt::u8, dt::s32, pn % 3 == 0 ? 2L : 1L, 1, M, N,
                            17 + pn, pn % 2 == 1, 0, 0, false, false, false, false};
                    p.no_scales = true;
                    plain_ok &= run(p, 900 + pn, pn % 2 == 0);
                    ++pn;
                }
            case_t pbig = big;
            pbig.ddt = dt::s32;
            pbig.no_scales = true;
            plain_ok &= run(pbig, 3, false);
            T.check(plain_ok, (std::to_string(nthr) + " thr: plain s32 dst").c_str());
        });
    // What gemm:s8 leaves to the next implementation.
    {
        dnnl::engine eng(dnnl::engine::kind::cpu, 0);
        dnnl::memory::desc sd({4, 8}, dt::u8, tag::ab), wd({8, 5}, dt::s8, tag::ab),
                wu({8, 5}, dt::u8, tag::ab), dd({4, 5}, dt::f32, tag::ab);
        dnnl::primitive_attr zp;
        zp.set_zero_points_mask(DNNL_ARG_WEIGHTS, 0);
        const std::string a = dnnl::matmul::primitive_desc(eng, sd, wd, dd, zp).impl_info_str();
        const std::string b = dnnl::matmul::primitive_desc(eng, sd, wu, dd).impl_info_str();
        const std::string c = dnnl::matmul::primitive_desc(eng, sd, wd, dd).impl_info_str();
        T.check(a != "gemm:s8" && b != "gemm:s8" && c == "gemm:s8",
                "weights zero points and u8 weights go past gemm:s8; plain u8 x s8 takes it");
    }
    return T.finish();
}
