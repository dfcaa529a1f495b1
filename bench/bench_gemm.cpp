// GFLOP/s of dnnl_sgemm, f32 matmul, dnnl_gemm_u8s8s32 and u8 x s8 matmul on the shapes of
// bench/anchor_shapes.hpp (the anchor program runs the same ones on oneDNN
// 2.x and OpenBLAS): the median call after a warm-up. Not a test.
// `--machine` prints "BENCH kestrel <shape> <GFLOP/s>" lines for
// bench/compare.sh instead of the human-readable table.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>

#include "anchor_shapes.hpp"
#include "anchor_timing.hpp"
#include "dnnl.h"

namespace {

bool machine = false;

void bench_sgemm(const bench::sgemm_shape_t &sh) {
    const dnnl_dim_t M = sh.M, N = sh.N, K = sh.K;
    const char ta = sh.ta, tb = sh.tb;
    std::vector<float> A(M * K, 0.5f), B(K * N, 0.25f), C(M * N, 0.f);
    const dnnl_dim_t lda = ta == 'N' ? K : M, ldb = tb == 'N' ? N : K;
    double s = bench::median_seconds([&] {
        dnnl_sgemm(ta, tb, M, N, K, 1.f, A.data(), lda, B.data(), ldb, 0.f, C.data(), N);
    });
    char id[96];
    if (machine) return bench::machine_line("kestrel", sh.id(id, sizeof(id)), sh.flop() / s * 1e-9);
    std::printf("sgemm  %c%c M=%-5ld N=%-5ld K=%-5ld %8.2f GFLOP/s  (%.3f ms)\n", ta, tb, (long)M,
            (long)N, (long)K, 2.0 * M * N * K / s * 1e-9, s * 1e3);
}

void bench_matmul(const bench::matmul_shape_t &sh) {
    const dnnl_dim_t B = sh.B, M = sh.M, N = sh.N, K = sh.K;
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
    for (dnnl_memory_t m : {ms, mw, md}) { // same contents as the anchor's
        void *h = nullptr;
        const_dnnl_memory_desc_t md_of = nullptr;
        dnnl_memory_get_data_handle(m, &h);
        dnnl_memory_get_memory_desc(m, &md_of);
        std::memset(h, 0, dnnl_memory_desc_get_size(md_of));
    }
    double sec = bench::median_seconds([&] {
        dnnl_primitive_execute(p, strm, 3, args);
        dnnl_stream_wait(strm);
    });
    char id[96];
    if (machine)
        bench::machine_line("kestrel", sh.id(id, sizeof(id)), sh.flop() / sec * 1e-9);
    else
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

void bench_gemm_u8s8s32(const bench::int8_shape_t &sh) {
    const dnnl_dim_t M = sh.M, N = sh.N, K = sh.K;
    std::vector<uint8_t> A(M * K, 3);
    std::vector<int8_t> B(K * N, -2);
    std::vector<int32_t> C(M * N, 0);
    const int32_t co = 0;
    double s = bench::median_seconds([&] {
        dnnl_gemm_u8s8s32('N', 'N', 'F', M, N, K, 1.f, A.data(), K, 0, B.data(), N, 0, 0.f,
                C.data(), N, &co);
    });
    char id[96];
    sh.id(id, sizeof(id), "gemm_u8s8s32");
    if (machine) return bench::machine_line("kestrel", id, sh.flop() / s * 1e-9);
    std::printf("%-28s %8.2f GOP/s  (%.3f ms)\n", id, sh.flop() / s * 1e-9, s * 1e3);
}

void bench_int8_matmul(const bench::int8_shape_t &sh) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    dnnl_dims_t sd = {sh.M, sh.K}, wd = {sh.K, sh.N}, dd = {sh.M, sh.N};
    dnnl_memory_desc_t s, w, d;
    dnnl_memory_desc_create_with_tag(&s, 2, sd, dnnl_u8, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&w, 2, wd, dnnl_s8, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&d, 2, dd, dnnl_s32, dnnl_ab);
    dnnl_primitive_desc_t pd;
    char id[96];
    sh.id(id, sizeof(id), "matmul_u8s8s32");
    if (dnnl_matmul_primitive_desc_create(&pd, eng, s, w, nullptr, d, nullptr) != dnnl_success) {
        std::printf("%s: not created\n", id);
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
    for (dnnl_memory_t m : {ms, mw, md}) { // same contents as the anchor's
        void *h = nullptr;
        const_dnnl_memory_desc_t md_of = nullptr;
        dnnl_memory_get_data_handle(m, &h);
        dnnl_memory_get_memory_desc(m, &md_of);
        std::memset(h, 1, dnnl_memory_desc_get_size(md_of));
    }
    double sec = bench::median_seconds([&] {
        dnnl_primitive_execute(p, strm, 3, args);
        dnnl_stream_wait(strm);
    });
    if (machine)
        bench::machine_line("kestrel", id, sh.flop() / sec * 1e-9);
    else
        std::printf("%-28s %8.2f GOP/s  (%.3f ms, %s)\n", id, sh.flop() / sec * 1e-9, sec * 1e3, impl);
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

// Inner product forward inference, 2D src, weights `any` (the layout the
// library prefers, as a framework would ask), no bias.
void bench_ip_fwd(const bench::ip_fwd_shape_t &sh) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    dnnl_dims_t sd = {sh.mb, sh.ic}, wd = {sh.oc, sh.ic}, dd = {sh.mb, sh.oc};
    dnnl_memory_desc_t s, wany, d;
    dnnl_memory_desc_create_with_tag(&s, 2, sd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_create_with_tag(&wany, 2, wd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_create_with_tag(&d, 2, dd, dnnl_f32, dnnl_ab);
    char id[96];
    sh.id(id, sizeof(id));
    dnnl_primitive_desc_t pd;
    if (dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, s, wany, nullptr,
                d, nullptr)
            != dnnl_success) {
        std::printf("%s: not created\n", id);
        return;
    }
    const char *impl = "";
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    dnnl_primitive_t p;
    dnnl_primitive_create(&p, pd);
    dnnl_memory_t ms, mw, md;
    dnnl_memory_create(&ms, s, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&mw, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), eng, DNNL_MEMORY_ALLOCATE);
    dnnl_memory_create(&md, d, eng, DNNL_MEMORY_ALLOCATE);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    for (dnnl_memory_t m : {ms, mw, md}) { // same contents as the anchor's
        void *h = nullptr;
        const_dnnl_memory_desc_t md_of = nullptr;
        dnnl_memory_get_data_handle(m, &h);
        dnnl_memory_get_memory_desc(m, &md_of);
        std::memset(h, 0, dnnl_memory_desc_get_size(md_of));
    }
    double sec = bench::median_seconds([&] {
        dnnl_primitive_execute(p, strm, 3, args);
        dnnl_stream_wait(strm);
    });
    if (machine)
        bench::machine_line("kestrel", id, sh.flop() / sec * 1e-9);
    else
        std::printf("%-28s %8.2f GFLOP/s  (%.3f ms, %s)\n", id, sh.flop() / sec * 1e-9, sec * 1e3, impl);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mw);
    dnnl_memory_destroy(md);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(s);
    dnnl_memory_desc_destroy(wany);
    dnnl_memory_desc_destroy(d);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
}

} // namespace

int main(int argc, char **argv) {
    machine = bench::machine_mode(argc, argv);
    char id[96];
    for (const auto &s : bench::sgemm_shapes)
        if (bench::selected(s.id(id, sizeof(id)))) bench_sgemm(s);
    for (const auto &s : bench::matmul_shapes)
        if (bench::selected(s.id(id, sizeof(id)))) bench_matmul(s);
    for (const auto &s : bench::ip_fwd_shapes)
        if (bench::selected(s.id(id, sizeof(id)))) bench_ip_fwd(s);
    for (const auto &s : bench::int8_shapes)
        if (bench::selected(s.id(id, sizeof(id), "gemm_u8s8s32"))) bench_gemm_u8s8s32(s);
    for (const auto &s : bench::int8_shapes)
        if (bench::selected(s.id(id, sizeof(id), "matmul_u8s8s32"))) bench_int8_matmul(s);
    return 0;
}
