// Matmul with packed sparse weights (weights compression, sparse:packed) at
// 50%, 90% and 99% zeros against the dense matmul of the same shape and
// types (Kestrel only): f32, and u8 src x s8 weights -> f32 dst; M = 128
// and M = 1 (one row of activations, as in inference). Packed and dense
// runs alternate (three rounds, median of the round medians) so that load
// from other processes hits both alike. The packing reorder is done once,
// outside the timing. Not a test.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>

#include "anchor_timing.hpp"
#include "dnnl.h"

namespace {

double time_matmul(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_primitive_desc_t pd, dnnl_memory_t sm,
        dnnl_memory_t wm, dnnl_memory_t dm) {
    dnnl_primitive_t p;
    if (dnnl_primitive_create(&p, pd) != dnnl_success) return -1;
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
    const double s = bench::median_seconds([&] {
        dnnl_primitive_execute(p, strm, 3, args);
        dnnl_stream_wait(strm);
    });
    (void)eng;
    dnnl_primitive_destroy(p);
    return s;
}

void bench_shape(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_dim_t M, dnnl_dim_t K, dnnl_dim_t N, double zf,
        dnnl_data_type_t sdt, dnnl_data_type_t wdt) {
    const size_t ssz = sdt == dnnl_f32 ? 4 : 1, wsz = wdt == dnnl_f32 ? 4 : 1;
    std::vector<uint8_t> src((size_t)(M * K) * ssz, 1), wei((size_t)(K * N) * wsz, 0), dst((size_t)(M * N) * 4);
    uint64_t s = 88172645463325252ull;
    dnnl_dim_t nnz = 0;
    for (dnnl_dim_t i = 0; i < K * N; ++i) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        if ((double)(s % 1000000) / 1e6 < zf) continue;
        ++nnz;
        if (wdt == dnnl_f32) {
            const float v = 0.5f + (float)(s % 7);
            std::memcpy(&wei[(size_t)i * 4], &v, 4);
        } else {
            wei[(size_t)i] = (uint8_t)(1 + s % 7);
        }
    }
    if (sdt == dnnl_f32)
        for (size_t i = 0; i < src.size() / 4; ++i) {
            const float v = 0.25f;
            std::memcpy(&src[i * 4], &v, 4);
        }
    dnnl_dims_t sd = {M, K}, wd = {K, N}, dd = {M, N};
    dnnl_memory_desc_t smd, wmd, pmd0, dmd;
    dnnl_memory_desc_create_with_tag(&smd, 2, sd, sdt, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&wmd, 2, wd, wdt, dnnl_ab);
    dnnl_memory_desc_create_with_packed_encoding(&pmd0, 2, wd, wdt, nnz);
    dnnl_memory_desc_create_with_tag(&dmd, 2, dd, dnnl_f32, dnnl_ab);
    dnnl_primitive_desc_t ppd, dpd, rpd;
    if (dnnl_matmul_primitive_desc_create(&ppd, eng, smd, pmd0, nullptr, dmd, nullptr) != dnnl_success
            || dnnl_matmul_primitive_desc_create(&dpd, eng, smd, wmd, nullptr, dmd, nullptr) != dnnl_success) {
        std::printf("unimplemented\n");
        return;
    }
    const_dnnl_memory_desc_t pmd = dnnl_primitive_desc_query_md(ppd, dnnl_query_weights_md, 0);
    dnnl_memory_t sm, wm, pm, dm;
    dnnl_memory_create(&sm, smd, eng, src.data());
    dnnl_memory_create(&wm, wmd, eng, wei.data());
    void *h[3] = {DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE};
    dnnl_memory_create_v2(&pm, pmd, eng, 3, h);
    dnnl_memory_create(&dm, dmd, eng, dst.data());
    dnnl_reorder_primitive_desc_create(&rpd, wmd, eng, pmd, eng, nullptr);
    dnnl_primitive_t r;
    dnnl_primitive_create(&r, rpd);
    dnnl_exec_arg_t rargs[] = {{DNNL_ARG_FROM, wm}, {DNNL_ARG_TO, pm}};
    dnnl_primitive_execute(r, strm, 2, rargs);
    dnnl_stream_wait(strm);
    const char *pi = "", *di = "";
    dnnl_primitive_desc_query(ppd, dnnl_query_impl_info_str, 0, &pi);
    dnnl_primitive_desc_query(dpd, dnnl_query_impl_info_str, 0, &di);
    double tps[3], tds[3];
    for (int round = 0; round < 3; ++round) {
        tps[round] = time_matmul(eng, strm, ppd, sm, pm, dm);
        tds[round] = time_matmul(eng, strm, dpd, sm, wm, dm);
    }
    std::sort(tps, tps + 3);
    std::sort(tds, tds + 3);
    const double tp = tps[1], td = tds[1];
    std::printf("%s x %s  M=%-5ld K=%-5ld N=%-5ld zeros %4.1f%%  packed (%s) %8.3f ms   dense (%s) %8.3f ms   "
                "speed-up %5.2fx\n",
            sdt == dnnl_f32 ? "f32" : "u8", wdt == dnnl_f32 ? "f32" : "s8", (long)M, (long)K, (long)N, zf * 100,
            pi, tp * 1e3, di, td * 1e3, td / tp);
    dnnl_primitive_destroy(r);
    for (auto p : {ppd, dpd, rpd}) dnnl_primitive_desc_destroy(p);
    for (auto m : {sm, wm, pm, dm}) dnnl_memory_destroy(m);
    for (auto m : {smd, wmd, pmd0, dmd}) dnnl_memory_desc_destroy(m);
}

} // namespace

int main() {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    for (double zf : {0.5, 0.9, 0.99})
        for (dnnl_dim_t M : {128, 1})
            for (dnnl_dim_t KN : {1024, 4096}) {
                bench_shape(eng, strm, M, KN, KN, zf, dnnl_f32, dnnl_f32);
                bench_shape(eng, strm, M, KN, KN, zf, dnnl_u8, dnnl_s8);
            }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
