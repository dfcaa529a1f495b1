// Packed sparse weights (weights compression): reorder dense -> packed and
// packed -> dense, and matmul with dense src and packed weights, against a
// naive dense matmul written here; f32 and int8 (u8/s8 src, s8 weights,
// f32/s32/s8/u8 dst); sparsities 0%, 50%, 90%, 99%, 100%; odd shapes (N
// not a multiple of the 16-column panel, M not a multiple of any kernel's
// row block (8 AVX-512, 6 AVX2, 4 plain C++) and M = 1 over several panels,
// K odd); 1 and 2 threads; three scratchpad modes through the C API and the
// C++ API; the kernel the ISA cap selects (test_packed_isa.sh reruns
// everything capped at AVX2 and SSE41); s8 and u8 extremes summed exactly
// in s32; the buffer sizes each descriptor reports; bad input, and packed
// offsets that point outside the values buffer.
//
// Tolerance: none. Entries are integers in [-4, 4] (src u8: [0, 4]) and
// K <= 37, so every sum is an integer of magnitude <= 592: exact in f32 in
// any order and in s32; the dst conversion (saturation to s8/u8) is then
// exact arithmetic the reference repeats. The f32 -> s8 compression test
// uses non-integers, and the reference rounds them to nearest even and
// saturates, as a reorder does.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/primitive.hpp"
#include "dnnl.hpp"
#include "sparse_util.hpp"

namespace {

dnnl_engine_t eng;
kt::tally_t t;

struct shape_t {
    int64_t M, K, N;
};
const shape_t shapes[] = {{1, 1, 1}, {7, 13, 5}, {5, 37, 33}, {40, 8, 17}, {3, 16, 32}, {1, 19, 100},
        {17, 24, 48}, {13, 33, 31}};
const double sparsities[] = {0.0, 0.5, 0.9, 0.99, 1.0};

struct types_t {
    dnnl_data_type_t s, w, d;
};
const types_t type_sets[] = {{dnnl_f32, dnnl_f32, dnnl_f32}, {dnnl_u8, dnnl_s8, dnnl_u8},
        {dnnl_u8, dnnl_s8, dnnl_f32}, {dnnl_s8, dnnl_s8, dnnl_s32}, {dnnl_s8, dnnl_s8, dnnl_s8}};

size_t dt_size(dnnl_data_type_t dt) { return dt == dnnl_f32 || dt == dnnl_s32 ? 4 : 1; }

// Values (exact small integers, or already rounded) as dt bytes.
std::vector<uint8_t> as_bytes(const std::vector<float> &v, dnnl_data_type_t dt) {
    std::vector<uint8_t> b(v.size() * dt_size(dt));
    for (size_t i = 0; i < v.size(); ++i) {
        if (dt == dnnl_f32) std::memcpy(&b[i * 4], &v[i], 4);
        else if (dt == dnnl_s32) { int32_t x = (int32_t)v[i]; std::memcpy(&b[i * 4], &x, 4); }
        else if (dt == dnnl_s8) b[i] = (uint8_t)(int8_t)v[i];
        else b[i] = (uint8_t)v[i];
    }
    return b;
}

float sat(float v, dnnl_data_type_t dt) {
    if (dt == dnnl_s8) return std::fmin(std::fmax(v, -128.f), 127.f);
    if (dt == dnnl_u8) return std::fmin(std::fmax(v, 0.f), 255.f);
    return v;
}

std::vector<float> src_values(int64_t M, int64_t K, dnnl_data_type_t dt, uint64_t seed) {
    kt::rng_t r(seed);
    std::vector<float> a((size_t)(M * K));
    for (auto &x : a) x = dt == dnnl_u8 ? r.small_int(0, 4) : r.small_int(-4, 4);
    return a;
}

dnnl_memory_desc_t plain(int64_t r, int64_t c, dnnl_data_type_t dt, dnnl_format_tag_t tag = dnnl_ab) {
    dnnl_dims_t d = {r, c};
    dnnl_memory_desc_t md;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, 2, d, dt, tag));
    return md;
}

void run_prim(dnnl_primitive_desc_t pd, std::vector<dnnl_exec_arg_t> args, int mode, dnnl_status_t *st_out = nullptr) {
    dnnl_primitive_t p;
    KT_OK(dnnl_primitive_create(&p, pd));
    dnnl_memory_t spm = nullptr;
    if (mode == 2) {
        KT_OK(dnnl_memory_create(&spm, dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0), eng,
                DNNL_MEMORY_ALLOCATE));
        args.push_back({DNNL_ARG_SCRATCHPAD, spm});
    }
    dnnl_stream_t st;
    KT_OK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
    dnnl_status_t s = dnnl_primitive_execute(p, st, (int)args.size(), args.data());
    if (st_out) *st_out = s;
    else KT_OK(s);
    KT_OK(dnnl_stream_wait(st));
    dnnl_stream_destroy(st);
    dnnl_memory_destroy(spm);
    dnnl_primitive_destroy(p);
}

// Packed weights memory of pd's weights descriptor, filled by a reorder
// from dense `w` (dt bytes, ab). Owns its three buffers.
struct packed_w_t {
    std::vector<uint8_t> buf[3];
    dnnl_memory_t mem = nullptr;
    packed_w_t(const_dnnl_memory_desc_t pmd, const std::vector<uint8_t> &w, dnnl_data_type_t wdt, int mode) {
        void *h[3];
        for (int i = 0; i < 3; ++i) {
            buf[i].assign(dnnl_memory_desc_get_size_v2(pmd, i) + 1, 0xAB);
            h[i] = buf[i].data();
        }
        KT_OK(dnnl_memory_create_v2(&mem, pmd, eng, 3, h));
        int64_t K, N;
        dnnl_dims_t *dims;
        KT_OK(dnnl_memory_desc_query(pmd, dnnl_query_dims, &dims));
        K = (*dims)[0];
        N = (*dims)[1];
        dnnl_memory_desc_t dmd = plain(K, N, wdt);
        dnnl_memory_t dm;
        KT_OK(dnnl_memory_create(&dm, dmd, eng, const_cast<uint8_t *>(w.data())));
        dnnl_primitive_desc_t rpd;
        KT_OK(dnnl_reorder_primitive_desc_create(&rpd, dmd, eng, pmd, eng, nullptr));
        t.check(kt::impl_name(rpd) == "reorder:packed", "reorder to packed is reorder:packed");
        run_prim(rpd, {{DNNL_ARG_FROM, dm}, {DNNL_ARG_TO, mem}}, mode);
        dnnl_primitive_desc_destroy(rpd);
        dnnl_memory_destroy(dm);
        dnnl_memory_desc_destroy(dmd);
        // The byte past each reported size is untouched: the sizes are the
        // worst case the reorder writes.
        for (int i = 0; i < 3; ++i) t.check(buf[i].back() == 0xAB, "reorder stays inside the reported sizes");
    }
    ~packed_w_t() { dnnl_memory_destroy(mem); }
};

std::vector<float> reference(const std::vector<float> &a, const std::vector<float> &b, const shape_t &s,
        dnnl_data_type_t ddt) {
    auto r = sp::naive_matmul(a, b, s.M, s.K, s.N);
    for (auto &x : r) x = sat(x, ddt);
    return r;
}

std::vector<uint8_t> run_c(const shape_t &s, const types_t &ty, int mode, const std::vector<float> &a,
        const std::vector<float> &b, std::string &impl, std::vector<float> *round_trip) {
    kestrel::set_library_scratchpad_policy(mode == 1 ? kestrel::scratchpad_policy_t::private_buffer
                                                     : kestrel::scratchpad_policy_t::global_arena);
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(
            attr, mode == 2 ? dnnl_scratchpad_mode_user : dnnl_scratchpad_mode_library));
    dnnl_memory_desc_t smd = plain(s.M, s.K, ty.s, dnnl_format_tag_any), dmd = plain(s.M, s.N, ty.d, dnnl_format_tag_any);
    dnnl_memory_desc_t wmd;
    dnnl_dims_t wd = {s.K, s.N};
    int64_t nnz = 0;
    for (float x : b) nnz += x != 0.f;
    KT_OK(dnnl_memory_desc_create_with_packed_encoding(&wmd, 2, wd, ty.w, nnz));
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd, nullptr, dmd, attr));
    impl = kt::impl_name(pd);
    const_dnnl_memory_desc_t pmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const int64_t NP = (s.N + 15) / 16;
    t.check(dnnl_memory_desc_get_size_v2(pmd, 0) == (size_t)(s.K * s.N) * dt_size(ty.w)
                    && dnnl_memory_desc_get_size_v2(pmd, 1) == (size_t)(NP + 1) * 4
                    && dnnl_memory_desc_get_size_v2(pmd, 2) == (size_t)(NP * s.K) * 2
                    && dnnl_memory_desc_get_size_v2(wmd, 0) == 0,
            "packed buffer sizes");
    packed_w_t pw(pmd, as_bytes(b, ty.w), ty.w, mode);
    std::vector<uint8_t> src = as_bytes(a, ty.s);
    std::vector<uint8_t> out((size_t)(s.M * s.N) * dt_size(ty.d), 0xCD);
    dnnl_memory_t sm, om;
    KT_OK(dnnl_memory_create(&sm, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), eng, src.data()));
    KT_OK(dnnl_memory_create(&om, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), eng, out.data()));
    run_prim(pd, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, pw.mem}, {DNNL_ARG_DST, om}}, mode);
    if (round_trip) { // packed -> dense f32
        dnnl_memory_desc_t fmd = plain(s.K, s.N, dnnl_f32);
        round_trip->assign((size_t)(s.K * s.N), NAN);
        dnnl_memory_t fm;
        KT_OK(dnnl_memory_create(&fm, fmd, eng, round_trip->data()));
        dnnl_primitive_desc_t rpd;
        KT_OK(dnnl_reorder_primitive_desc_create(&rpd, pmd, eng, fmd, eng, nullptr));
        run_prim(rpd, {{DNNL_ARG_FROM, pw.mem}, {DNNL_ARG_TO, fm}}, mode);
        dnnl_primitive_desc_destroy(rpd);
        dnnl_memory_destroy(fm);
        dnnl_memory_desc_destroy(fmd);
    }
    dnnl_memory_destroy(sm);
    dnnl_memory_destroy(om);
    dnnl_primitive_desc_destroy(pd);
    for (auto m : {smd, dmd, wmd}) dnnl_memory_desc_destroy(m);
    dnnl_primitive_attr_destroy(attr);
    kestrel::set_library_scratchpad_policy(kestrel::scratchpad_policy_t::global_arena);
    return out;
}

// The C++ API, as oneDNN's weights-compression example does it.
std::vector<uint8_t> run_cpp(const shape_t &s, const types_t &ty, const std::vector<float> &a,
        const std::vector<float> &b) {
    using namespace dnnl;
    using dt = memory::data_type;
    engine e(engine::kind::cpu, 0);
    stream strm(e);
    const dt sdt = (dt)ty.s, wdt = (dt)ty.w, ddt = (dt)ty.d;
    memory::dim nnz = 0;
    for (float x : b) nnz += x != 0.f;
    matmul::primitive_desc pd(e, memory::desc({s.M, s.K}, sdt, memory::format_tag::any),
            memory::desc::packed({s.K, s.N}, wdt, nnz), memory::desc({s.M, s.N}, ddt, memory::format_tag::any));
    auto pmd = pd.weights_desc();
    std::vector<std::vector<char>> bufs(pmd.get_num_handles());
    std::vector<void *> hs;
    for (int h = 0; h < pmd.get_num_handles(); ++h) {
        bufs[h].resize(pmd.get_size(h));
        hs.push_back(bufs[h].data());
    }
    memory wm(pmd, e, hs);
    std::vector<uint8_t> wb = as_bytes(b, ty.w), sb = as_bytes(a, ty.s);
    memory dense_w({{s.K, s.N}, wdt, memory::format_tag::ab}, e, wb.data());
    reorder(dense_w, wm).execute(strm, dense_w, wm);
    memory sm(pd.src_desc(), e, sb.data());
    memory om(pd.dst_desc(), e);
    matmul(pd).execute(strm, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, om}});
    strm.wait();
    const uint8_t *p = static_cast<const uint8_t *>(om.get_data_handle());
    return std::vector<uint8_t>(p, p + (size_t)(s.M * s.N) * dt_size(ty.d));
}

// The kernel ISA the implementation's name should carry under the cap.
std::string expected_impl() {
    const unsigned isa = (unsigned)dnnl_get_effective_cpu_isa();
    auto within = [&](unsigned t) { return (isa & t) == t; };
    if (within(dnnl_cpu_isa_avx512_core)) return "sparse:packed:avx512";
    if (within(dnnl_cpu_isa_avx2)) return "sparse:packed:avx2";
    return "sparse:packed:portable";
}

void sweep() {
    const std::string want = expected_impl();
    int seed = 1;
    for (const shape_t &s : shapes)
        for (double zf : sparsities)
            for (const types_t &ty : type_sets)
                for (int nthr = 1; nthr <= 2; ++nthr)
                    for (int mode = 0; mode < 3; ++mode) {
                        auto a = src_values(s.M, s.K, ty.s, (uint64_t)seed++);
                        auto b = sp::make_dense(s.K, s.N, zf, (uint64_t)seed++);
                        const auto ref = as_bytes(reference(a, b, s, ty.d), ty.d);
                        std::string impl;
                        std::vector<uint8_t> got;
                        std::vector<float> rt;
                        kt::with_threads(nthr, [&] { got = run_c(s, ty, mode, a, b, impl, &rt); });
                        char what[200];
                        std::snprintf(what, sizeof what, "C API types %d/%d/%d M%lld K%lld N%lld zero %.2f thr %d mode %d (%s)",
                                (int)ty.s, (int)ty.w, (int)ty.d, (long long)s.M, (long long)s.K, (long long)s.N, zf,
                                nthr, mode, impl.c_str());
                        t.check(impl == want && got == ref, what);
                        t.check(rt == b, "round trip dense -> packed -> dense");
                        if (mode == 0) {
                            std::vector<uint8_t> g2;
                            kt::with_threads(nthr, [&] { g2 = run_cpp(s, ty, a, b); });
                            t.check(g2 == ref, "C++ API, as the weights-compression example");
                        }
                    }
}

// f32 dense -> s8 packed: rounded to nearest even, saturated; values that
// round to 0 are not stored.
void convert() {
    const int64_t K = 3, N = 18;
    std::vector<float> w((size_t)(K * N));
    const float pool[] = {0.3f, -0.4f, 2.5f, 3.5f, -2.5f, 300.f, -300.f, 1.f, 0.f, 0.5f, -0.5f, 126.6f};
    for (size_t i = 0; i < w.size(); ++i) w[i] = pool[i % 12];
    dnnl_dims_t d = {K, N};
    dnnl_memory_desc_t wmd, smd = plain(2, K, dnnl_u8), dmd = plain(2, N, dnnl_s32);
    KT_OK(dnnl_memory_desc_create_with_packed_encoding(&wmd, 2, d, dnnl_s8, 0));
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd, nullptr, dmd, nullptr));
    const_dnnl_memory_desc_t pmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    packed_w_t pw(pmd, as_bytes(w, dnnl_f32), dnnl_f32, 0);
    std::vector<float> back((size_t)(K * N), NAN);
    dnnl_memory_desc_t fmd = plain(K, N, dnnl_f32);
    dnnl_memory_t fm;
    KT_OK(dnnl_memory_create(&fm, fmd, eng, back.data()));
    dnnl_primitive_desc_t rpd;
    KT_OK(dnnl_reorder_primitive_desc_create(&rpd, pmd, eng, fmd, eng, nullptr));
    run_prim(rpd, {{DNNL_ARG_FROM, pw.mem}, {DNNL_ARG_TO, fm}}, 0);
    bool ok = true;
    for (size_t i = 0; i < w.size(); ++i) ok = ok && back[i] == sat(std::nearbyint(w[i]), dnnl_s8);
    t.check(ok, "f32 -> s8 packed: round to nearest even, saturate");
    // The stored count: entries nonzero after rounding (0.3, -0.4, 0.5,
    // -0.5 and 0 are not stored).
    const int32_t *off = static_cast<const int32_t *>(static_cast<const void *>(pw.buf[1].data()));
    int32_t expect = 0;
    for (float x : w) expect += std::nearbyint(x) != 0.f;
    t.check(off[2] == expect, "zeros after rounding are not stored");
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(fm);
    dnnl_primitive_desc_destroy(pd);
    for (auto m : {wmd, smd, dmd, fmd}) dnnl_memory_desc_destroy(m);
}

// Integer extremes: u8 src up to 255 and s8 src down to -128 against s8
// weights at -128 and 127, every product's sign, summed over K = 301 into
// s32 dst. Exact: |sum| <= 301 * 255 * 128 < 2^24, so the double reference
// holds it exactly and so does f32; the kernels must match it bit for bit.
void extremes() {
    const shape_t s = {9, 301, 40};
    const float upool[] = {255.f, 0.f, 1.f, 128.f, 254.f, 127.f};
    const float spool[] = {-128.f, 127.f, -1.f, 0.f, 1.f, -127.f};
    const float wpool[] = {-128.f, 127.f, -127.f, 1.f, -1.f};
    const types_t sets[] = {{dnnl_u8, dnnl_s8, dnnl_s32}, {dnnl_s8, dnnl_s8, dnnl_s32}, {dnnl_u8, dnnl_s8, dnnl_u8}};
    int seed = 5000;
    for (const types_t &ty : sets)
        for (double zf : {0.0, 0.5})
            for (int nthr = 1; nthr <= 2; ++nthr) {
                kt::rng_t r((uint64_t)seed++);
                std::vector<float> a((size_t)(s.M * s.K)), b = sp::make_dense(s.K, s.N, zf, (uint64_t)seed++);
                for (auto &x : a) x = (ty.s == dnnl_u8 ? upool : spool)[r.next() % 6];
                for (auto &x : b)
                    if (x != 0.f) x = wpool[r.next() % 5];
                const auto ref = as_bytes(reference(a, b, s, ty.d), ty.d);
                std::string impl;
                std::vector<uint8_t> got;
                kt::with_threads(nthr, [&] { got = run_c(s, ty, 0, a, b, impl, nullptr); });
                char what[160];
                std::snprintf(what, sizeof what, "int8 extremes src %d dst %d zero %.1f thr %d (%s)", (int)ty.s,
                        (int)ty.d, zf, nthr, impl.c_str());
                t.check(got == ref, what);
            }
}

void bad_input() {
    const int64_t M = 3, K = 5, N = 20;
    dnnl_dims_t wd = {K, N}, wrong = {K + 1, N};
    dnnl_memory_desc_t smd = plain(M, K, dnnl_f32), dmd = plain(M, N, dnnl_f32), wmd, wbad, dense_w = plain(K, N, dnnl_f32);
    KT_OK(dnnl_memory_desc_create_with_packed_encoding(&wmd, 2, wd, dnnl_f32, 10));
    KT_OK(dnnl_memory_desc_create_with_packed_encoding(&wbad, 2, wrong, dnnl_f32, 10));
    dnnl_primitive_desc_t pd = nullptr;
    t.check(dnnl_matmul_primitive_desc_create(&pd, eng, smd, wbad, nullptr, dmd, nullptr) == dnnl_invalid_arguments,
            "packed weights with wrong dims: invalid_arguments");
    dnnl_primitive_desc_destroy(pd);
    pd = nullptr;
    // Unlaid (user-made) packed descriptor as a reorder dst: unimplemented.
    t.check(dnnl_reorder_primitive_desc_create(&pd, dense_w, eng, wmd, eng, nullptr) == dnnl_unimplemented,
            "reorder to a packed descriptor no implementation laid out: unimplemented");
    dnnl_primitive_desc_destroy(pd);
    pd = nullptr;
    // Bias and attributes: unimplemented, as oneDNN on CPU.
    dnnl_memory_desc_t bmd = plain(1, N, dnnl_f32);
    t.check(dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd, bmd, dmd, nullptr) == dnnl_unimplemented,
            "packed weights with bias: unimplemented");
    dnnl_primitive_desc_destroy(pd);
    pd = nullptr;
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd, nullptr, dmd, nullptr));
    const_dnnl_memory_desc_t pmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    std::vector<float> w((size_t)(K * N), 1.f), src((size_t)(M * K), 1.f), out((size_t)(M * N), 7.f);
    packed_w_t pw(pmd, as_bytes(w, dnnl_f32), dnnl_f32, 0);
    dnnl_memory_t sm, om, dwm, half;
    KT_OK(dnnl_memory_create(&sm, smd, eng, src.data()));
    KT_OK(dnnl_memory_create(&om, dmd, eng, out.data()));
    KT_OK(dnnl_memory_create(&dwm, dense_w, eng, w.data()));
    void *h[3] = {pw.buf[0].data(), pw.buf[1].data(), DNNL_MEMORY_NONE};
    KT_OK(dnnl_memory_create_v2(&half, pmd, eng, 3, h));
    auto untouched = [&] {
        for (float x : out)
            if (x != 7.f) return false;
        return true;
    };
    dnnl_status_t st;
    run_prim(pd, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, dwm}, {DNNL_ARG_DST, om}}, 0, &st);
    t.check(st == dnnl_invalid_arguments && untouched(), "dense weights where packed expected: invalid_arguments, dst untouched");
    run_prim(pd, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, half}, {DNNL_ARG_DST, om}}, 0, &st);
    t.check(st == dnnl_invalid_arguments && untouched(), "packed weights without a bitmask: invalid_arguments, dst untouched");
    run_prim(pd, {{DNNL_ARG_SRC, pw.mem}, {DNNL_ARG_WEIGHTS, pw.mem}, {DNNL_ARG_DST, om}}, 0, &st);
    t.check(st == dnnl_invalid_arguments && untouched(), "packed buffer as the dense src: invalid_arguments, dst untouched");
    // A packed memory handed to a dense matmul.
    dnnl_primitive_desc_t dpd;
    KT_OK(dnnl_matmul_primitive_desc_create(&dpd, eng, smd, dense_w, nullptr, dmd, nullptr));
    run_prim(dpd, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, pw.mem}, {DNNL_ARG_DST, om}}, 0, &st);
    t.check(st == dnnl_invalid_arguments && untouched(), "packed weights to a dense matmul: invalid_arguments, dst untouched");
    run_prim(pd, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, pw.mem}, {DNNL_ARG_DST, om}}, 0, &st);
    t.check(st == dnnl_success && out[0] == (float)K, "the good call works after the bad ones");
    // Offsets the masks contradict: a panel whose counted values would run
    // past the values buffer (or start before it) is not read, and its
    // columns come out 0; the other panel is unaffected. (ASan checks that
    // nothing outside the buffers is read.)
    int32_t *off = reinterpret_cast<int32_t *>(pw.buf[1].data());
    const int32_t saved[2] = {off[0], off[1]};
    auto columns_are = [&](float first16, float rest) {
        for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n)
                if (out[(size_t)(m * N + n)] != (n < 16 ? first16 : rest)) return false;
        return true;
    };
    off[0] = (int32_t)(K * N) - 1;
    run_prim(pd, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, pw.mem}, {DNNL_ARG_DST, om}}, 0, &st);
    t.check(st == dnnl_success && columns_are(0.f, (float)K), "panel offset past the values: its columns 0, others right");
    off[0] = saved[0];
    off[1] = -3;
    run_prim(pd, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, pw.mem}, {DNNL_ARG_DST, om}}, 0, &st);
    t.check(st == dnnl_success && columns_are((float)K, 0.f), "negative panel offset: its columns 0, others right");
    off[1] = saved[1];
    for (auto m : {sm, om, dwm, half}) dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(dpd);
    dnnl_primitive_desc_destroy(pd);
    for (auto m : {smd, dmd, wmd, wbad, dense_w, bmd}) dnnl_memory_desc_destroy(m);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    sweep();
    convert();
    extremes();
    bad_input();
    dnnl_engine_destroy(eng);
    return t.finish();
}
