// CPU ISA hints (dnnl_set_cpu_isa_hints / dnnl_get_cpu_isa_hints and
// ONEDNN_CPU_ISA_HINTS), as oneDNN documents them: a hint may be set until
// the library first reads it (a get, or the first kernel choice); after
// that a set returns dnnl_runtime_error and the hint stays. prefer_ymm on
// an AVX-512 machine makes every family take its 256-bit kernel: the
// packed-weights matmul's name says avx2, and it and the GEMM matmul give
// the naive reference's results exactly (small integers, |sum| <= 37 * 16,
// exact in f32 in any order).
//
// Modes (argv[1]): none or "set" (set before any use, then frozen by get),
// "env" (run with ONEDNN_CPU_ISA_HINTS=PREFER_YMM: no set needed, set
// fails), "late" (a primitive is created first: the set fails).
// test_isa_hints.sh runs the other two.
#include <cstring>
#include <string>
#include <vector>

#include "dnnl.h"
#include "kt_test.hpp"

namespace {

kt::tally_t t;
dnnl_engine_t eng;

bool cpu_has(dnnl_cpu_isa_t isa) { return ((unsigned)dnnl_get_effective_cpu_isa() & (unsigned)isa) == (unsigned)isa; }

// The packed kernel a hint should select on this CPU.
std::string expected_packed(bool ymm) {
    if (cpu_has(dnnl_cpu_isa_avx512_core) && !ymm) return "sparse:packed:avx512";
    if (cpu_has(dnnl_cpu_isa_avx2)) return "sparse:packed:avx2";
    return "sparse:packed:portable";
}

dnnl_memory_desc_t plain(int64_t r, int64_t c) {
    dnnl_dims_t d = {r, c};
    dnnl_memory_desc_t md;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, 2, d, dnnl_f32, dnnl_ab));
    return md;
}

void exec(dnnl_primitive_desc_t pd, std::vector<dnnl_exec_arg_t> args) {
    dnnl_primitive_t p;
    dnnl_stream_t s;
    KT_OK(dnnl_primitive_create(&p, pd));
    KT_OK(dnnl_stream_create(&s, eng, dnnl_stream_default_flags));
    KT_OK(dnnl_primitive_execute(p, s, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(s));
    dnnl_stream_destroy(s);
    dnnl_primitive_destroy(p);
}

// f32 matmul with packed weights (packed = true) or dense weights, checked
// against a naive product; returns the implementation's name.
std::string matmul_check(bool packed, const char *what) {
    const int64_t M = 9, K = 37, N = 35;
    kt::rng_t r(packed ? 11 : 12);
    std::vector<float> a((size_t)(M * K)), b((size_t)(K * N)), d((size_t)(M * N), -1.f), ref((size_t)(M * N));
    for (auto &x : a) x = r.small_int(-4, 4);
    for (auto &x : b) x = r.next() % 3 ? 0.f : r.small_int(-4, 4);
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            double s = 0;
            for (int64_t k = 0; k < K; ++k) s += (double)a[(size_t)(m * K + k)] * b[(size_t)(k * N + n)];
            ref[(size_t)(m * N + n)] = (float)s;
        }
    dnnl_memory_desc_t smd = plain(M, K), dmd = plain(M, N), bmd = plain(K, N), wmd;
    dnnl_dims_t wd = {K, N};
    if (packed) KT_OK(dnnl_memory_desc_create_with_packed_encoding(&wmd, 2, wd, dnnl_f32, 0));
    else KT_OK(dnnl_memory_desc_clone(&wmd, bmd));
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd, nullptr, dmd, nullptr));
    const std::string name = kt::impl_name(pd);
    dnnl_memory_t sm, dm, bm, wm;
    KT_OK(dnnl_memory_create(&sm, smd, eng, a.data()));
    KT_OK(dnnl_memory_create(&dm, dmd, eng, d.data()));
    KT_OK(dnnl_memory_create(&bm, bmd, eng, b.data()));
    if (packed) {
        const_dnnl_memory_desc_t pmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        void *h[3] = {DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE};
        KT_OK(dnnl_memory_create_v2(&wm, pmd, eng, 3, h));
        dnnl_primitive_desc_t rpd;
        KT_OK(dnnl_reorder_primitive_desc_create(&rpd, bmd, eng, pmd, eng, nullptr));
        exec(rpd, {{DNNL_ARG_FROM, bm}, {DNNL_ARG_TO, wm}});
        dnnl_primitive_desc_destroy(rpd);
    } else {
        wm = bm;
    }
    exec(pd, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}});
    t.check(d == ref, what);
    if (packed) dnnl_memory_destroy(wm);
    for (auto m : {sm, dm, bm}) dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);
    for (auto m : {smd, dmd, bmd, wmd}) dnnl_memory_desc_destroy(m);
    return name;
}

void both_matmuls(bool ymm) {
    const std::string got = matmul_check(true, "packed-weights matmul under the hint: exact");
    t.check(got == expected_packed(ymm), ("packed kernel under the hint: " + got).c_str());
    matmul_check(false, "dense f32 matmul (GEMM) under the hint: exact");
}

} // namespace

int main(int argc, char **argv) {
    const std::string mode = argc > 1 ? argv[1] : "set";
    if (mode == "set") {
        t.check(dnnl_set_cpu_isa_hints((dnnl_cpu_isa_hints_t)7) == dnnl_invalid_arguments, "unknown hint: invalid_arguments");
        t.check(dnnl_set_cpu_isa_hints(dnnl_cpu_isa_no_hints) == dnnl_success, "set no_hints before use");
        t.check(dnnl_set_cpu_isa_hints(dnnl_cpu_isa_prefer_ymm) == dnnl_success, "set prefer_ymm before use");
        t.check(dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_prefer_ymm, "get returns what was set");
        t.check(dnnl_set_cpu_isa_hints(dnnl_cpu_isa_no_hints) == dnnl_runtime_error, "set after get: runtime_error");
        t.check(dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_prefer_ymm, "the hint stays after a refused set");
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        both_matmuls(true);
    } else if (mode == "env") {
        t.check(dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_prefer_ymm, "ONEDNN_CPU_ISA_HINTS=PREFER_YMM is read");
        t.check(dnnl_set_cpu_isa_hints(dnnl_cpu_isa_no_hints) == dnnl_runtime_error, "set after the env hint was read: runtime_error");
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        both_matmuls(true);
    } else { // late
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        both_matmuls(false);
        t.check(dnnl_set_cpu_isa_hints(dnnl_cpu_isa_prefer_ymm) == dnnl_runtime_error,
                "set after a primitive was created: runtime_error");
        t.check(dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_no_hints, "no hint by default");
        both_matmuls(false);
    }
    dnnl_engine_destroy(eng);
    return t.finish();
}
