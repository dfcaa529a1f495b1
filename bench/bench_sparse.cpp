// CSR-src matmul at 90% and 99% zeros against the dense f32 matmul of the
// same shape (Kestrel only): median time after a warm-up, and the speed-up
// over dense. Not a test.
#include <cstdio>
#include <cstdint>
#include <vector>

#include "anchor_timing.hpp"
#include "dnnl.h"

namespace {

struct csr_t {
    std::vector<float> val;
    std::vector<int32_t> idx, ptr;
};

// An M x K matrix with a share `zero_frac` of zeros, spread evenly by a
// fixed pseudo-random draw.
csr_t make_csr(dnnl_dim_t M, dnnl_dim_t K, double zero_frac, std::vector<float> &dense) {
    csr_t c;
    uint64_t s = 88172645463325252ull;
    dense.assign((size_t)(M * K), 0.f);
    c.ptr.push_back(0);
    for (dnnl_dim_t m = 0; m < M; ++m) {
        for (dnnl_dim_t k = 0; k < K; ++k) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if ((double)(s % 1000000) / 1e6 < zero_frac) continue;
            const float v = 0.5f + (float)(s % 7);
            dense[(size_t)(m * K + k)] = v;
            c.val.push_back(v);
            c.idx.push_back((int32_t)k);
        }
        c.ptr.push_back((int32_t)c.val.size());
    }
    return c;
}

double run(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_memory_desc_t smd, dnnl_memory_t sm,
        const_dnnl_memory_desc_t wmd, dnnl_memory_t wm, const_dnnl_memory_desc_t dmd, dnnl_memory_t dm,
        const char **impl) {
    dnnl_primitive_desc_t pd;
    if (dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd, nullptr, dmd, nullptr) != dnnl_success) return -1;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, impl);
    dnnl_primitive_t p;
    dnnl_primitive_create(&p, pd);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
    const double s = bench::median_seconds([&] {
        dnnl_primitive_execute(p, strm, 3, args);
        dnnl_stream_wait(strm);
    });
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    return s;
}

void bench_shape(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_dim_t M, dnnl_dim_t K, dnnl_dim_t N, double zf) {
    std::vector<float> dense, wei((size_t)(K * N), 0.25f), dst((size_t)(M * N));
    csr_t c = make_csr(M, K, zf, dense);
    dnnl_dims_t sd = {M, K}, wd = {K, N}, dd = {M, N};
    dnnl_memory_desc_t csr_md, dense_md, wmd, dmd;
    dnnl_memory_desc_create_with_csr_encoding(&csr_md, 2, sd, dnnl_f32, (dnnl_dim_t)c.val.size(), dnnl_s32, dnnl_s32);
    dnnl_memory_desc_create_with_tag(&dense_md, 2, sd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&wmd, 2, wd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&dmd, 2, dd, dnnl_f32, dnnl_ab);
    void *h[3] = {c.val.data(), c.idx.data(), c.ptr.data()};
    dnnl_memory_t csr_m, dense_m, wm, dm;
    dnnl_memory_create_v2(&csr_m, csr_md, eng, 3, h);
    dnnl_memory_create(&dense_m, dense_md, eng, dense.data());
    dnnl_memory_create(&wm, wmd, eng, wei.data());
    dnnl_memory_create(&dm, dmd, eng, dst.data());
    const char *si = "", *di = "";
    const double ts = run(eng, strm, csr_md, csr_m, wmd, wm, dmd, dm, &si);
    const double td = run(eng, strm, dense_md, dense_m, wmd, wm, dmd, dm, &di);
    std::printf("M=%-5ld K=%-5ld N=%-5ld zeros %4.1f%%  nnz %-8zu  csr (%s) %8.3f ms   dense (%s) %8.3f ms   "
                "speed-up %5.2fx\n",
            (long)M, (long)K, (long)N, zf * 100, c.val.size(), si, ts * 1e3, di, td * 1e3, td / ts);
    for (auto m : {csr_m, dense_m, wm, dm}) dnnl_memory_destroy(m);
    for (auto m : {csr_md, dense_md, wmd, dmd}) dnnl_memory_desc_destroy(m);
}

} // namespace

int main() {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    for (double zf : {0.9, 0.99}) {
        bench_shape(eng, strm, 512, 512, 512, zf);
        bench_shape(eng, strm, 1024, 1024, 256, zf);
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
