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

// One primitive with src, weights and dst: make_pd(engine) creates its
// descriptor (nullptr when refused); the memories take the descriptors the
// primitive reports and are filled with `fill` bytes, as the anchor's are.
// The median execution is printed as a machine line or through human(sec, impl).
template <class MakePd, class Human>
void bench_primitive(const char *id, double flop, int fill, MakePd make_pd, Human human) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    dnnl_primitive_desc_t pd = make_pd(eng);
    if (pd) {
        const char *impl = "";
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
        dnnl_primitive_t p;
        dnnl_primitive_create(&p, pd);
        dnnl_memory_t m[3];
        const dnnl_query_t which[3] = {dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md};
        for (int i = 0; i < 3; ++i) {
            const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, which[i], 0);
            dnnl_memory_create(&m[i], md, eng, DNNL_MEMORY_ALLOCATE);
            void *h = nullptr;
            dnnl_memory_get_data_handle(m[i], &h);
            std::memset(h, fill, dnnl_memory_desc_get_size(md));
        }
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, m[0]}, {DNNL_ARG_WEIGHTS, m[1]}, {DNNL_ARG_DST, m[2]}};
        double sec = bench::median_seconds([&] {
            dnnl_primitive_execute(p, strm, 3, args);
            dnnl_stream_wait(strm);
        });
        if (machine)
            bench::machine_line("kestrel", id, flop / sec * 1e-9);
        else
            human(sec, impl);
        for (dnnl_memory_t x : m)
            dnnl_memory_destroy(x);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    } else if (machine) {
        bench::refusal_line("kestrel", id, "primitive_desc_not_created");
    } else {
        std::printf("%s: not created\n", id);
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
}

// The descriptor of a primitive over three plain (or `any`) tensors: the
// mds are created, handed to create() and destroyed again.
template <class Create>
dnnl_primitive_desc_t pd_of(int nd, const dnnl_dims_t sd, dnnl_data_type_t st, dnnl_format_tag_t sf,
        const dnnl_dims_t wd, dnnl_data_type_t wt, dnnl_format_tag_t wf, const dnnl_dims_t dd,
        dnnl_data_type_t dt, Create create) {
    dnnl_memory_desc_t s, w, d;
    dnnl_memory_desc_create_with_tag(&s, nd, sd, st, sf);
    dnnl_memory_desc_create_with_tag(&w, nd, wd, wt, wf);
    dnnl_memory_desc_create_with_tag(&d, nd, dd, dt, sf);
    dnnl_primitive_desc_t pd = nullptr;
    if (create(&pd, s, w, d) != dnnl_success) pd = nullptr;
    dnnl_memory_desc_destroy(s);
    dnnl_memory_desc_destroy(w);
    dnnl_memory_desc_destroy(d);
    return pd;
}

dnnl_primitive_desc_t matmul_pd(dnnl_engine_t eng, int nd, const dnnl_dims_t sd, dnnl_data_type_t st,
        const dnnl_dims_t wd, dnnl_data_type_t wt, const dnnl_dims_t dd, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    return pd_of(nd, sd, st, tag, wd, wt, tag, dd, dt, [&](dnnl_primitive_desc_t *pd, auto s, auto w, auto d) {
        return dnnl_matmul_primitive_desc_create(pd, eng, s, w, nullptr, d, nullptr);
    });
}

void bench_matmul(const bench::matmul_shape_t &sh) {
    const dnnl_dim_t B = sh.B, M = sh.M, N = sh.N, K = sh.K;
    char id[96];
    sh.id(id, sizeof(id));
    const dnnl_dims_t sd = {B, M, K}, wd = {B, K, N}, dd = {B, M, N};
    bench_primitive(
            id, sh.flop(), 0,
            [&](dnnl_engine_t eng) { return matmul_pd(eng, 3, sd, dnnl_f32, wd, dnnl_f32, dd, dnnl_f32, dnnl_abc); },
            [&](double sec, const char *impl) {
                std::printf("matmul B=%-3ld M=%-5ld N=%-5ld K=%-5ld %8.2f GFLOP/s  (%.3f ms, %s)\n", (long)B,
                        (long)M, (long)N, (long)K, 2.0 * B * M * N * K / sec * 1e-9, sec * 1e3, impl);
            });
}

// A 2D f32 problem src (ab) x weights (`any`: the layout the library
// prefers, as a framework with constant weights asks) -> dst (ab);
// `create` makes the pd from the three descriptors.
template <typename F>
void bench_wany(const char *id, double flop, const dnnl_dims_t sd, const dnnl_dims_t wd, const dnnl_dims_t dd,
        F create) {
    bench_primitive(
            id, flop, 0,
            [&](dnnl_engine_t eng) {
                return pd_of(2, sd, dnnl_f32, dnnl_ab, wd, dnnl_f32, dnnl_format_tag_any, dd, dnnl_f32,
                        [&](dnnl_primitive_desc_t *pd, auto s, auto w, auto d) { return create(eng, pd, s, w, d); });
            },
            [&](double sec, const char *impl) {
                std::printf("%-28s %8.2f GFLOP/s  (%.3f ms, %s)\n", id, flop / sec * 1e-9, sec * 1e3, impl);
            });
}

// 2D f32 matmul with weights `any` (bench::matmul_wany_shapes).
void bench_matmul_wany(const bench::matmul_wany_shape_t &sh) {
    char id[96];
    sh.id(id, sizeof(id));
    const dnnl_dims_t sd = {sh.M, sh.K}, wd = {sh.K, sh.N}, dd = {sh.M, sh.N};
    bench_wany(id, sh.flop(), sd, wd, dd, [](dnnl_engine_t eng, dnnl_primitive_desc_t *pd, auto s, auto w, auto d) {
        return dnnl_matmul_primitive_desc_create(pd, eng, s, w, nullptr, d, nullptr);
    });
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
    char id[96];
    sh.id(id, sizeof(id), "matmul_u8s8s32");
    const dnnl_dims_t sd = {sh.M, sh.K}, wd = {sh.K, sh.N}, dd = {sh.M, sh.N};
    bench_primitive(
            id, sh.flop(), 1,
            [&](dnnl_engine_t eng) { return matmul_pd(eng, 2, sd, dnnl_u8, wd, dnnl_s8, dd, dnnl_s32, dnnl_ab); },
            [&](double sec, const char *impl) {
                std::printf("%-28s %8.2f GOP/s  (%.3f ms, %s)\n", id, sh.flop() / sec * 1e-9, sec * 1e3, impl);
            });
}

// Inner product forward inference, 2D src, weights `any`, no bias.
void bench_ip_fwd(const bench::ip_fwd_shape_t &sh) {
    char id[96];
    sh.id(id, sizeof(id));
    const dnnl_dims_t sd = {sh.mb, sh.ic}, wd = {sh.oc, sh.ic}, dd = {sh.mb, sh.oc};
    bench_wany(id, sh.flop(), sd, wd, dd, [](dnnl_engine_t eng, dnnl_primitive_desc_t *pd, auto s, auto w, auto d) {
        return dnnl_inner_product_forward_primitive_desc_create(pd, eng, dnnl_forward_inference, s, w, nullptr, d,
                nullptr);
    });
}

// Low-precision matmul (bench::lp_matmul_shapes): bf16 or f16 throughout,
// or bf16 src/dst with s8 / s4 weights decompressed inside the matmul
// (fpmath bf16 applied to integers, f32 scales per N and per K group).
void bench_lp_matmul(const bench::lp_matmul_shape_t &sh) {
    char id[96];
    sh.id(id, sizeof(id));
    const bool wdec = !std::strncmp(sh.dt, "bf16w", 5);
    const dnnl_data_type_t act = !std::strcmp(sh.dt, "f16") ? dnnl_f16 : dnnl_bf16;
    const dnnl_data_type_t wdt = !wdec ? act : !std::strcmp(sh.dt, "bf16ws4") ? dnnl_s4 : dnnl_s8;
    const dnnl_dims_t sd = {sh.M, sh.K}, wd = {sh.K, sh.N}, dd = {sh.M, sh.N};
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    dnnl_primitive_attr_t attr;
    dnnl_primitive_attr_create(&attr);
    const dnnl_dims_t groups = {bench::wdec_group, 1};
    if (wdec) {
        dnnl_primitive_attr_set_fpmath_mode_v2(attr, dnnl_fpmath_mode_bf16, 1);
        dnnl_primitive_attr_set_scales(attr, DNNL_ARG_WEIGHTS, 3, 2, groups, dnnl_f32);
    }
    dnnl_primitive_desc_t pd = pd_of(2, sd, act, dnnl_ab, wd, wdt, dnnl_ab, dd, act,
            [&](dnnl_primitive_desc_t *p, auto s, auto w, auto d) {
                return dnnl_matmul_primitive_desc_create(p, eng, s, w, nullptr, d, attr);
            });
    dnnl_primitive_attr_destroy(attr);
    if (!pd) {
        if (machine)
            bench::refusal_line("kestrel", id, "primitive_desc_not_created");
        else
            std::printf("%-28s not created\n", id);
    } else {
        const char *impl = "";
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
        dnnl_primitive_t p;
        dnnl_primitive_create(&p, pd);
        const dnnl_query_t which[3] = {dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md};
        dnnl_memory_t m[4] = {};
        for (int i = 0; i < 3; ++i) {
            const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, which[i], 0);
            dnnl_memory_create(&m[i], md, eng, DNNL_MEMORY_ALLOCATE);
            void *h = nullptr;
            dnnl_memory_get_data_handle(m[i], &h);
            std::memset(h, i == 1 && wdec ? 0x11 : 0, dnnl_memory_desc_get_size(md));
        }
        int nargs = 3;
        std::vector<float> scales;
        if (wdec) { // (K / group) x N scales, 1/64 each
            scales.assign((sh.K / bench::wdec_group) * sh.N, 1.f / 64);
            const dnnl_dims_t scd = {(dnnl_dim_t)scales.size()};
            dnnl_memory_desc_t smd;
            dnnl_memory_desc_create_with_tag(&smd, 1, scd, dnnl_f32, dnnl_a);
            dnnl_memory_create(&m[3], smd, eng, scales.data());
            dnnl_memory_desc_destroy(smd);
            nargs = 4;
        }
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, m[0]}, {DNNL_ARG_WEIGHTS, m[1]}, {DNNL_ARG_DST, m[2]},
                {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, m[3]}};
        dnnl_status_t st = dnnl_success;
        const double sec = bench::median_seconds([&] {
            st = dnnl_primitive_execute(p, strm, nargs, args);
            dnnl_stream_wait(strm);
        });
        if (st != dnnl_success)
            machine ? bench::refusal_line("kestrel", id, "execution_failed")
                    : (void)std::printf("%s: execution failed (%d)\n", id, (int)st);
        else if (machine)
            bench::machine_line("kestrel", id, sh.flop() / sec * 1e-9);
        else
            std::printf("%-28s %8.2f GFLOP/s  (%.3f ms, %s)\n", id, sh.flop() / sec * 1e-9, sec * 1e3, impl);
        for (dnnl_memory_t x : m)
            if (x) dnnl_memory_destroy(x);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }
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
    for (const auto &s : bench::matmul_wany_shapes)
        if (bench::selected(s.id(id, sizeof(id)))) bench_matmul_wany(s);
    for (const auto &s : bench::ip_fwd_shapes)
        if (bench::selected(s.id(id, sizeof(id)))) bench_ip_fwd(s);
    for (const auto &s : bench::int8_shapes)
        if (bench::selected(s.id(id, sizeof(id), "gemm_u8s8s32"))) bench_gemm_u8s8s32(s);
    for (const auto &s : bench::int8_shapes)
        if (bench::selected(s.id(id, sizeof(id), "matmul_u8s8s32"))) bench_int8_matmul(s);
    for (const auto &s : bench::lp_matmul_shapes)
        if (bench::selected(s.id(id, sizeof(id)))) bench_lp_matmul(s);
    return 0;
}
