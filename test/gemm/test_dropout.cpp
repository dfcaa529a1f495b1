// The dropout attribute on matmul, against a naive reference written here:
// its own Philox-4x32-10 (checked against the published known-answer
// vectors), its own matmul, bias and post-op arithmetic. Covers the mask
// (given, format any, absent), p = 0 and p = 1, the drop rate, determinism
// over thread counts and implementations, bf16 dst, the C and C++ APIs, and
// bad input (p outside [0, 1], missing arguments, a wrong mask, other kinds).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"
#include "common/kt_test.hpp"

namespace kestrel {
void philox4x32_10(uint32_t seed, uint64_t counter, uint32_t out[4]);
}

namespace {

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

kt::tally_t t;

// ---------------------------------------------------------------- reference

// Philox-4x32-10 with a 64-bit key and a 128-bit counter, as in the paper.
void ref_philox(const uint32_t key_in[2], const uint32_t ctr_in[4], uint32_t out[4]) {
    uint32_t ctr[4] = {ctr_in[0], ctr_in[1], ctr_in[2], ctr_in[3]};
    uint32_t key[2] = {key_in[0], key_in[1]};
    for (int round = 0; round < 10; ++round) {
        uint64_t a = (uint64_t)0xD2511F53u * ctr[0];
        uint64_t b = (uint64_t)0xCD9E8D57u * ctr[2];
        uint32_t next[4];
        next[0] = (uint32_t)(b >> 32) ^ ctr[1] ^ key[0];
        next[1] = (uint32_t)(b & 0xffffffffu);
        next[2] = (uint32_t)(a >> 32) ^ ctr[3] ^ key[1];
        next[3] = (uint32_t)(a & 0xffffffffu);
        std::memcpy(ctr, next, sizeof ctr);
        key[0] += 0x9E3779B9u;
        key[1] += 0xBB67AE85u;
    }
    std::memcpy(out, ctr, sizeof ctr);
}

// Kestrel's documented rule: element i (row-major over dst) draws lane i % 4
// of Philox(key = {seed, 0}, counter = {i / 4 low, i / 4 high, 0, 0}) and is
// kept when the draw is at least ceil(p * 2^32).
bool ref_kept(int32_t seed, uint64_t i, float p) {
    const uint32_t key[2] = {(uint32_t)seed, 0};
    const uint64_t c = i / 4;
    const uint32_t ctr[4] = {(uint32_t)c, (uint32_t)(c >> 32), 0, 0};
    uint32_t r[4];
    ref_philox(key, ctr, r);
    const double threshold = std::ceil((double)p * 4294967296.0);
    return (double)r[i % 4] >= threshold;
}

float bf16_round(float x) { // round to nearest even, as the library stores bf16
    uint32_t u;
    std::memcpy(&u, &x, 4);
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    std::memcpy(&x, &u, 4);
    return x;
}

float from_bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

struct problem_t {
    int64_t B, M, K, N;
    bool bias, relu, add;
    dt ddt;
    float p;
    int32_t seed;
    enum { mask_given, mask_any, mask_none } mask;
};

struct result_t {
    std::vector<float> dst;
    std::vector<uint8_t> mask;
    std::string impl;
};

// dst = post_ops(dropout(src x wei + bias)); tol[i] bounds the f32
// rounding error of element i: the dot product's gamma_K * sum|a b|, scaled
// by 1 / (1 - p), plus the final rounding of dst.
void reference(const problem_t &pb, const std::vector<float> &a, const std::vector<float> &w,
        const std::vector<float> &bias, const std::vector<float> &add, std::vector<float> &out,
        std::vector<uint8_t> &mask, std::vector<double> &tol) {
    const int64_t n = pb.B * pb.M * pb.N;
    out.assign(n, 0.f);
    mask.assign(n, 0);
    tol.assign(n, 0.0);
    const double u = std::ldexp(1.0, -24);
    const double scale = pb.p < 1.f ? 1.0 / (1.0 - pb.p) : 0.0;
    for (int64_t b = 0; b < pb.B; ++b)
        for (int64_t m = 0; m < pb.M; ++m)
            for (int64_t j = 0; j < pb.N; ++j) {
                double acc = 0, mag = 0;
                for (int64_t k = 0; k < pb.K; ++k) {
                    const double x = (double)a[(b * pb.M + m) * pb.K + k] * w[(b * pb.K + k) * pb.N + j];
                    acc += x;
                    mag += std::fabs(x);
                }
                if (pb.bias) {
                    acc += bias[j];
                    mag += std::fabs(bias[j]);
                }
                const int64_t i = (b * pb.M + m) * pb.N + j;
                const bool keep = ref_kept(pb.seed, (uint64_t)i, pb.p);
                mask[i] = keep;
                double v = keep ? acc * scale : 0.0;
                double err = keep ? ((pb.K + 2) * u * mag + u * std::fabs(acc)) * scale : 0.0;
                if (pb.relu) v = v > 0 ? v : 0;
                if (pb.add) {
                    v += add[j];
                    err += u * std::fabs(v);
                }
                const double dst_u = pb.ddt == dt::bf16 ? std::ldexp(1.0, -8) : u;
                out[i] = (float)v;
                tol[i] = 2 * err + dst_u * std::fabs(v) + 1e-30;
            }
}

// ---------------------------------------------------------------- library

result_t run(const problem_t &pb, const std::vector<float> &a, const std::vector<float> &w,
        const std::vector<float> &bias, const std::vector<float> &add, bool force_ref) {
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    memory::desc amd({pb.B, pb.M, pb.K}, dt::f32, tag::abc);
    memory::desc wmd({pb.B, pb.K, pb.N}, dt::f32, tag::abc);
    memory::desc bmd({1, 1, pb.N}, dt::f32, tag::abc);
    memory::desc dmd({pb.B, pb.M, pb.N}, pb.ddt, tag::abc);
    memory::desc addmd({1, 1, pb.N}, dt::f32, tag::abc);
    primitive_attr attr;
    memory::desc mask_md;
    if (pb.mask == problem_t::mask_given) mask_md = memory::desc({pb.B, pb.M, pb.N}, dt::u8, tag::abc);
    if (pb.mask == problem_t::mask_any) mask_md = memory::desc({pb.B, pb.M, pb.N}, dt::u8, tag::any);
    attr.set_dropout(mask_md);
    post_ops po;
    // A sum post-op makes the GEMM path decline dropout: the reference runs.
    if (force_ref) po.append_sum(0.f);
    if (pb.relu) po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    if (pb.add) po.append_binary(algorithm::binary_add, addmd);
    attr.set_post_ops(po);
    matmul::primitive_desc pd = pb.bias ? matmul::primitive_desc(eng, amd, wmd, bmd, dmd, attr)
                                        : matmul::primitive_desc(eng, amd, wmd, dmd, attr);
    result_t r;
    r.impl = pd.impl_info_str();
    memory A(amd, eng, (void *)a.data()), W(wmd, eng, (void *)w.data());
    memory Bm(bmd, eng, (void *)bias.data()), Add(addmd, eng, (void *)add.data());
    memory D(dmd, eng);
    std::memset(D.get_data_handle(), 0, dmd.get_size());
    float p = pb.p;
    int32_t seed = pb.seed;
    memory P(memory::desc({1}, dt::f32, tag::a), eng, &p);
    memory S(memory::desc({1}, dt::s32, tag::a), eng, &seed);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, A}, {DNNL_ARG_WEIGHTS, W}, {DNNL_ARG_DST, D},
            {DNNL_ARG_ATTR_DROPOUT_PROBABILITY, P}, {DNNL_ARG_ATTR_DROPOUT_SEED, S}};
    if (pb.bias) args[DNNL_ARG_BIAS] = Bm;
    if (pb.add) args[DNNL_ARG_ATTR_MULTIPLE_POST_OP((force_ref ? 1 : 0) + (pb.relu ? 1 : 0)) | DNNL_ARG_SRC_1] = Add;
    memory Mk;
    const memory::desc qmask = pd.query_md(query::exec_arg_md, DNNL_ARG_ATTR_DROPOUT_MASK);
    if (pb.mask != problem_t::mask_none) {
        t.check(qmask.get_data_type() == dt::u8 && qmask.get_dims() == dmd.get_dims()
                        && qmask.get_strides() == dmd.get_strides(),
                "the mask's exec_arg_md is u8 with dst's dims and layout");
        Mk = memory(qmask, eng);
        std::memset(Mk.get_data_handle(), 0xAB, qmask.get_size());
        args[DNNL_ARG_ATTR_DROPOUT_MASK] = Mk;
    } else {
        t.check(qmask.get_ndims() == 0, "no mask: its exec_arg_md is a zero descriptor");
    }
    matmul(pd).execute(s, args);
    s.wait();
    const int64_t n = pb.B * pb.M * pb.N;
    r.dst.resize(n);
    if (pb.ddt == dt::f32) {
        std::memcpy(r.dst.data(), D.get_data_handle(), n * 4);
    } else {
        const uint16_t *h = static_cast<const uint16_t *>(D.get_data_handle());
        for (int64_t i = 0; i < n; ++i) r.dst[i] = from_bf16(h[i]);
    }
    if (pb.mask != problem_t::mask_none) {
        const uint8_t *m = static_cast<const uint8_t *>(Mk.get_data_handle());
        r.mask.assign(m, m + n);
    }
    return r;
}

void check_problem(const problem_t &pb, const char *what) {
    std::vector<float> a(pb.B * pb.M * pb.K), w(pb.B * pb.K * pb.N), bias(pb.N), add(pb.N);
    kt::fill(a, 11 + pb.M, -1.f, 1.f);
    kt::fill(w, 12 + pb.N, -1.f, 1.f);
    kt::fill(bias, 13, -1.f, 1.f);
    kt::fill(add, 14, -0.5f, 0.5f);
    std::vector<float> ref;
    std::vector<uint8_t> ref_mask;
    std::vector<double> tol;
    reference(pb, a, w, bias, add, ref, ref_mask, tol);
    std::vector<uint8_t> first_mask;
    std::vector<float> first_dst;
    for (int force_ref = 0; force_ref < 2; ++force_ref)
        for (int nthr : {1, 2}) {
            result_t r;
            kt::with_threads(nthr, [&] { r = run(pb, a, w, bias, add, force_ref); });
            std::string label = std::string(what) + " [" + r.impl + ", " + std::to_string(nthr) + " thr]";
            bool ok = true;
            for (size_t i = 0; i < ref.size() && ok; ++i) {
                const float expect = pb.ddt == dt::bf16 ? bf16_round(ref[i]) : ref[i];
                if (std::fabs((double)r.dst[i] - expect) > tol[i]) {
                    std::fprintf(stderr, "  %s: dst[%zu] = %g, expected %g (tol %g)\n", label.c_str(), i,
                            r.dst[i], expect, tol[i]);
                    ok = false;
                }
            }
            t.check(ok, (label + ": dst matches the naive reference").c_str());
            if (pb.mask != problem_t::mask_none)
                t.check(r.mask == ref_mask, (label + ": mask matches the reference draws").c_str());
            if (first_dst.empty()) {
                first_dst = r.dst;
                first_mask = r.mask;
            } else {
                t.check(r.mask == first_mask, (label + ": same mask for every impl and thread count").c_str());
            }
        }
}

// ---------------------------------------------------------------- C API and bad input

void c_api_and_bad_input() {
    dnnl_engine_t eng;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    dnnl_stream_t st;
    KT_OK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
    kt::md_t a(kt::make_md({4, 5}, dnnl_f32, dnnl_ab)), w(kt::make_md({5, 6}, dnnl_f32, dnnl_ab)),
            d(kt::make_md({4, 6}, dnnl_f32, dnnl_ab)), m(kt::make_md({4, 6}, dnnl_u8, dnnl_ab)),
            mf32(kt::make_md({4, 6}, dnnl_f32, dnnl_ab)), mbad(kt::make_md({4, 7}, dnnl_u8, dnnl_ab)),
            one_f(kt::make_md({1}, dnnl_f32, dnnl_a)), one_s(kt::make_md({1}, dnnl_s32, dnnl_a));

    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    const_dnnl_memory_desc_t got = nullptr;
    KT_OK(dnnl_primitive_attr_get_dropout(attr, &got));
    int nd = -1;
    KT_OK(dnnl_memory_desc_query(got, dnnl_query_ndims_s32, &nd));
    t.check(nd == 0, "get_dropout on a fresh attr: a zero descriptor");
    t.check(dnnl_primitive_attr_set_dropout(attr, mf32) == dnnl_invalid_arguments,
            "set_dropout with an f32 mask: invalid_arguments");
    t.check(dnnl_primitive_attr_set_dropout(nullptr, m) == dnnl_invalid_arguments,
            "set_dropout on a null attr: invalid_arguments");
    t.check(dnnl_primitive_attr_get_dropout(attr, nullptr) == dnnl_invalid_arguments,
            "get_dropout into null: invalid_arguments");
    KT_OK(dnnl_primitive_attr_set_dropout(attr, m));
    KT_OK(dnnl_primitive_attr_get_dropout(attr, &got));
    dnnl_data_type_t gdt = dnnl_data_type_undef;
    KT_OK(dnnl_memory_desc_query(got, dnnl_query_data_type, &gdt));
    KT_OK(dnnl_memory_desc_query(got, dnnl_query_ndims_s32, &nd));
    t.check(gdt == dnnl_u8 && nd == 2, "get_dropout returns the mask descriptor that was set");

    // Runtime dims: the draw needs dst's dims at creation.
    {
        const dnnl_dims_t rt = {DNNL_RUNTIME_DIM_VAL, 5}, rd = {DNNL_RUNTIME_DIM_VAL, 6};
        dnnl_memory_desc_t ra = nullptr, rdst = nullptr;
        KT_OK(dnnl_memory_desc_create_with_tag(&ra, 2, rt, dnnl_f32, dnnl_ab));
        KT_OK(dnnl_memory_desc_create_with_tag(&rdst, 2, rd, dnnl_f32, dnnl_ab));
        dnnl_primitive_attr_t nomask;
        KT_OK(dnnl_primitive_attr_create(&nomask));
        dnnl_memory_desc_t zero = nullptr;
        KT_OK(dnnl_memory_desc_create_with_tag(&zero, 0, rt, dnnl_f32, dnnl_format_tag_undef));
        KT_OK(dnnl_primitive_attr_set_dropout(nomask, zero));
        dnnl_primitive_desc_t rpd = nullptr;
        t.check(dnnl_matmul_primitive_desc_create(&rpd, eng, ra, w, nullptr, rdst, nomask) == dnnl_unimplemented,
                "matmul with runtime dims and dropout: unimplemented");
        KT_OK(dnnl_primitive_attr_destroy(nomask));
        for (auto h : {ra, rdst, zero}) KT_OK(dnnl_memory_desc_destroy(h));
    }
    // Other kinds refuse the attribute.
    dnnl_primitive_desc_t epd = nullptr;
    t.check(dnnl_eltwise_forward_primitive_desc_create(&epd, eng, dnnl_forward_training,
                    dnnl_eltwise_relu, d, d, 0.f, 0.f, attr)
                    == dnnl_unimplemented,
            "eltwise with dropout: unimplemented");
    // A mask whose dims differ from dst's.
    dnnl_primitive_attr_t battr;
    KT_OK(dnnl_primitive_attr_create(&battr));
    KT_OK(dnnl_primitive_attr_set_dropout(battr, mbad));
    dnnl_primitive_desc_t bpd = nullptr;
    t.check(dnnl_matmul_primitive_desc_create(&bpd, eng, a, w, nullptr, d, battr) == dnnl_invalid_arguments,
            "matmul with a mask of other dims: invalid_arguments");
    KT_OK(dnnl_primitive_attr_destroy(battr));

    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, a, w, nullptr, d, attr));
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<float> av(20, 1.f), wv(30, 1.f), dv(24, -7.f);
    std::vector<uint8_t> mv(24, 9);
    float p = 0.5f;
    int32_t seed = 42;
    dnnl_memory_t A, W, D, M, P, S;
    KT_OK(dnnl_memory_create(&A, a, eng, av.data()));
    KT_OK(dnnl_memory_create(&W, w, eng, wv.data()));
    KT_OK(dnnl_memory_create(&D, d, eng, dv.data()));
    KT_OK(dnnl_memory_create(&M, m, eng, mv.data()));
    KT_OK(dnnl_memory_create(&P, one_f, eng, &p));
    KT_OK(dnnl_memory_create(&S, one_s, eng, &seed));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, A}, {DNNL_ARG_WEIGHTS, W}, {DNNL_ARG_DST, D},
            {DNNL_ARG_ATTR_DROPOUT_MASK, M}, {DNNL_ARG_ATTR_DROPOUT_PROBABILITY, P},
            {DNNL_ARG_ATTR_DROPOUT_SEED, S}};
    auto untouched = [&] {
        for (float x : dv)
            if (x != -7.f) return false;
        for (uint8_t x : mv)
            if (x != 9) return false;
        return true;
    };
    for (float bad : {-0.25f, 1.5f, NAN}) {
        p = bad;
        t.check(dnnl_primitive_execute(prim, st, 6, args) == dnnl_invalid_arguments && untouched(),
                "p outside [0, 1] or NaN: invalid_arguments, nothing written");
    }
    p = 0.5f;
    t.check(dnnl_primitive_execute(prim, st, 5, args) == dnnl_invalid_arguments && untouched(),
            "missing seed: invalid_arguments, nothing written");
    dnnl_exec_arg_t no_mask[] = {{DNNL_ARG_SRC, A}, {DNNL_ARG_WEIGHTS, W}, {DNNL_ARG_DST, D},
            {DNNL_ARG_ATTR_DROPOUT_PROBABILITY, P}, {DNNL_ARG_ATTR_DROPOUT_SEED, S}};
    t.check(dnnl_primitive_execute(prim, st, 5, no_mask) == dnnl_invalid_arguments && untouched(),
            "missing mask: invalid_arguments, nothing written");
    KT_OK(dnnl_primitive_execute(prim, st, 6, args));
    KT_OK(dnnl_stream_wait(st));
    bool ok = true;
    for (int i = 0; i < 24; ++i) {
        const bool keep = ref_kept(42, (uint64_t)i, 0.5f);
        ok = ok && mv[i] == (keep ? 1 : 0) && dv[i] == (keep ? 10.f : 0.f);
    }
    t.check(ok, "C API: 4x5x6 of ones with p = 0.5: kept elements are 10, mask as drawn");

    for (auto h : {A, W, D, M, P, S}) KT_OK(dnnl_memory_destroy(h));
    KT_OK(dnnl_primitive_destroy(prim));
    KT_OK(dnnl_primitive_desc_destroy(pd));
    KT_OK(dnnl_primitive_attr_destroy(attr));
    KT_OK(dnnl_stream_destroy(st));
    KT_OK(dnnl_engine_destroy(eng));
}

// u8 x s8 -> f32 on the int8 engine: integer sums are exact in f32, and a
// kept value is sum * (1 / (1 - p)) with that factor rounded to f32 first,
// as the rule says, so the comparison is exact.
void int8_case() {
    const int64_t M = 9, K = 20, N = 33;
    const float p = 0.4f;
    const int32_t seed = 17;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    memory::desc amd({M, K}, dt::u8, tag::ab), wmd({K, N}, dt::s8, tag::ab), dmd({M, N}, dt::f32, tag::ab);
    memory::desc mmd({M, N}, dt::u8, tag::ab);
    primitive_attr attr;
    attr.set_dropout(mmd);
    matmul::primitive_desc pd(eng, amd, wmd, dmd, attr);
    std::vector<uint8_t> a(M * K), mask(M * N, 7);
    std::vector<int8_t> w(K * N);
    kt::rng_t r(3);
    for (auto &x : a) x = (uint8_t)(r.next() % 256);
    for (auto &x : w) x = (int8_t)((int)(r.next() % 256) - 128);
    std::vector<float> d(M * N, -1.f);
    float pv = p;
    int32_t sv = seed;
    memory A(amd, eng, a.data()), W(wmd, eng, w.data()), D(dmd, eng, d.data()), Mk(mmd, eng, mask.data());
    memory P(memory::desc({1}, dt::f32, tag::a), eng, &pv), S(memory::desc({1}, dt::s32, tag::a), eng, &sv);
    matmul(pd).execute(s, {{DNNL_ARG_SRC, A}, {DNNL_ARG_WEIGHTS, W}, {DNNL_ARG_DST, D}, {DNNL_ARG_ATTR_DROPOUT_MASK, Mk},
                                  {DNNL_ARG_ATTR_DROPOUT_PROBABILITY, P}, {DNNL_ARG_ATTR_DROPOUT_SEED, S}});
    s.wait();
    const float scale = 1.f / (1.f - p);
    bool ok = true;
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            int64_t acc = 0;
            for (int64_t k = 0; k < K; ++k) acc += (int64_t)a[m * K + k] * w[k * N + n];
            const bool keep = ref_kept(seed, (uint64_t)(m * N + n), p);
            const float want = keep ? (float)acc * scale : 0.f;
            ok = ok && d[m * N + n] == want && mask[m * N + n] == (keep ? 1 : 0);
        }
    t.check(ok, ("u8 x s8 matmul with dropout [" + std::string(pd.impl_info_str()) + "]: exact").c_str());
}

// The drop rate over many elements, and p = 0 / p = 1.
void rates() {
    for (float p : {0.f, 0.1f, 0.5f, 0.9f, 1.f}) {
        const uint64_t n = 200000;
        uint64_t dropped = 0;
        for (uint64_t i = 0; i < n; ++i) dropped += !ref_kept(7, i, p);
        // Binomial: 6 standard deviations is a bound the fixed seed must meet.
        const double mean = n * (double)p, sd = std::sqrt(n * (double)p * (1 - p));
        char what[96];
        std::snprintf(what, sizeof what, "drop rate at p = %.1f: %llu of %llu", p,
                (unsigned long long)dropped, (unsigned long long)n);
        t.check(std::fabs(dropped - mean) <= 6 * sd + (p == 0 || p == 1 ? 0 : 1), what);
    }
}

} // namespace

int main() {
    // Published known-answer vectors of Philox-4x32-10 (Random123).
    {
        const uint32_t k0[2] = {0, 0}, c0[4] = {0, 0, 0, 0};
        uint32_t r[4], lib[4];
        ref_philox(k0, c0, r);
        t.check(r[0] == 0x6627e8d5u && r[1] == 0xe169c58du && r[2] == 0xbc57ac4cu && r[3] == 0x9b00dbd8u,
                "test's Philox: zero key and counter give the published vector");
        kestrel::philox4x32_10(0, 0, lib);
        t.check(std::memcmp(r, lib, sizeof r) == 0, "library's Philox agrees on the zero vector");
        const uint32_t kf[2] = {0xffffffffu, 0xffffffffu}, cf[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
        ref_philox(kf, cf, r);
        t.check(r[0] == 0x408f276du && r[1] == 0x41c83b0eu && r[2] == 0xa20bc7c6u && r[3] == 0x6d5451fdu,
                "test's Philox: all-ones key and counter give the published vector");
        for (uint64_t c : {1ull, 12345ull, 0x123456789abcdefull}) {
            const uint32_t key[2] = {0xdeadbeefu, 0}, ctr[4] = {(uint32_t)c, (uint32_t)(c >> 32), 0, 0};
            ref_philox(key, ctr, r);
            kestrel::philox4x32_10(0xdeadbeefu, c, lib);
            t.check(std::memcmp(r, lib, sizeof r) == 0, "library's Philox agrees with the test's");
        }
    }
    rates();
    using P = problem_t;
    check_problem({1, 7, 5, 9, false, false, false, dt::f32, 0.5f, 1, P::mask_given}, "7x5x9 p=.5");
    check_problem({2, 17, 33, 19, true, false, false, dt::f32, 0.25f, -3, P::mask_any}, "2x17x33x19 bias p=.25 any");
    check_problem({3, 16, 64, 48, true, true, true, dt::f32, 0.75f, 99, P::mask_given}, "3x16x64x48 relu+add");
    check_problem({1, 31, 40, 65, false, true, false, dt::f32, 0.1f, 5, P::mask_none}, "31x40x65 no mask");
    check_problem({1, 9, 12, 35, true, false, false, dt::bf16, 0.5f, 8, P::mask_given}, "9x12x35 bf16 dst");
    check_problem({1, 8, 8, 8, false, false, false, dt::f32, 0.f, 3, P::mask_given}, "p = 0 keeps all");
    check_problem({1, 8, 8, 8, true, false, true, dt::f32, 1.f, 3, P::mask_given}, "p = 1 drops all");
    c_api_and_bad_input();
    int8_case();
    return t.finish();
}
