// GFLOP/s of dnnl_sgemm and f32 matmul on a few shapes: several timed
// repetitions after a warm-up, the median reported. Not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "dnnl.h"

namespace {

template <typename F>
double median_seconds(int reps, F f) {
    f(); // warm-up: packs, arena, caches
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void bench_sgemm(dnnl_dim_t M, dnnl_dim_t N, dnnl_dim_t K, char ta, char tb) {
    std::vector<float> A(M * K, 0.5f), B(K * N, 0.25f), C(M * N, 0.f);
    const dnnl_dim_t lda = ta == 'N' ? K : M, ldb = tb == 'N' ? N : K;
    double s = median_seconds(7, [&] {
        dnnl_sgemm(ta, tb, M, N, K, 1.f, A.data(), lda, B.data(), ldb, 0.f, C.data(), N);
    });
    std::printf("sgemm  %c%c M=%-5ld N=%-5ld K=%-5ld %8.2f GFLOP/s  (%.3f ms)\n", ta, tb, (long)M,
            (long)N, (long)K, 2.0 * M * N * K / s * 1e-9, s * 1e3);
}

void bench_matmul(dnnl_dim_t B, dnnl_dim_t M, dnnl_dim_t N, dnnl_dim_t K) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    dnnl_dims_t sd = {B, M, K}, wd = {B, K, N}, dd = {B, M, N};
    dnnl_memory_desc_t s, w, d;
    dnnl_memory_desc_create_with_tag(&s, 3, sd, dnnl_f32, dnnl_abc);
    dnnl_memory_desc_create_with_tag(&w, 3, wd, dnnl_f32, dnnl_abc);
    dnnl_memory_desc_create_with_tag(&d, 3, dd, dnnl_f32, dnnl_abc);
    dnnl_primitive_desc_t pd;
    if (dnnl_matmul_primitive_desc_create(&pd, eng, s, w, nullptr, d, nullptr) != dnnl_success) {
        std::printf("matmul B=%ld M=%ld N=%ld K=%ld: not created\n", (long)B, (long)M, (long)N, (long)K);
        return;
    }
    const char *impl = "";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    dnnl_primitive_t p;
    dnnl_primitive_create(&p, pd);
    dnnl_memory_t ms, mw, md;
    dnnl_memory_create(&ms, s, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&mw, w, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&md, d, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    double sec = median_seconds(7, [&] { dnnl_primitive_execute(p, strm, 3, args); });
    std::printf("matmul B=%-3ld M=%-5ld N=%-5ld K=%-5ld %8.2f GFLOP/s  (%.3f ms, %s)\n", (long)B, (long)M,
            (long)N, (long)K, 2.0 * B * M * N * K / sec * 1e-9, sec * 1e3, impl);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mw);
    dnnl_memory_destroy(md);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(s);
    dnnl_memory_desc_destroy(w);
    dnnl_memory_desc_destroy(d);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
}

} // namespace

int main() {
    bench_sgemm(1024, 1024, 1024, 'N', 'N');
    bench_sgemm(1024, 1024, 1024, 'T', 'T');
    bench_sgemm(256, 256, 256, 'N', 'N');
    bench_sgemm(1, 4096, 1024, 'N', 'N');
    bench_sgemm(4096, 64, 576, 'N', 'N'); // im2col-like
    bench_matmul(1, 512, 512, 512);
    bench_matmul(64, 64, 64, 64);
    bench_matmul(8, 128, 768, 768);
    return 0;
}
