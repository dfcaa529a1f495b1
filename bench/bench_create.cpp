// Creation latency (issue 11): the time to create a primitive descriptor and
// its primitive, for the problems of bench::create_shapes (convolution,
// matmul, eltwise, reorder), in microseconds, median of many creations.
// "miss": the primitive cache at capacity 0, so every creation builds the
// primitive; "hit": the default capacity, the same problem created before.
// The anchor (`anchor_onednn --create`) does the same on oneDNN 2.x.
// `--machine` prints "BENCH kestrel create_<miss|hit>_<what> <microseconds>"
// lines for bench/compare.sh. Not a test.
#include <cstdio>
#include <cstdlib>

#include "anchor_shapes.hpp"
#include "anchor_timing.hpp"
#include "dnnl.h"

namespace {

dnnl_memory_desc_t md4(dnnl_dim_t a, dnnl_dim_t b, dnnl_dim_t c, dnnl_dim_t d, dnnl_format_tag_t tag) {
    const dnnl_dims_t dims = {a, b, c, d};
    dnnl_memory_desc_t m = nullptr;
    dnnl_memory_desc_create_with_tag(&m, 4, dims, dnnl_f32, tag);
    return m;
}

dnnl_memory_desc_t md2(dnnl_dim_t a, dnnl_dim_t b) {
    const dnnl_dims_t dims = {a, b};
    dnnl_memory_desc_t m = nullptr;
    dnnl_memory_desc_create_with_tag(&m, 2, dims, dnnl_f32, dnnl_ab);
    return m;
}

// One creation of pd + primitive and their destruction, as the anchor's
// C++ objects do when they leave scope. The memory descriptors are created
// inside too: the anchor's C++ memory::desc objects are built each time.
dnnl_status_t create_once(dnnl_engine_t eng, bench::create_kind_t kind) {
    using K = bench::create_kind_t;
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = dnnl_success;
    dnnl_memory_desc_t a = nullptr, b = nullptr, c = nullptr;
    switch (kind) {
        case K::conv: {
            a = md4(1, 64, 56, 56, dnnl_nhwc);
            b = md4(64, 64, 3, 3, dnnl_format_tag_any);
            c = md4(1, 64, 56, 56, dnnl_nhwc);
            const dnnl_dims_t one = {1, 1};
            st = dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                    dnnl_convolution_direct, a, b, nullptr, c, one, nullptr, one, one, nullptr);
            break;
        }
        case K::matmul:
            a = md2(128, 3072);
            b = md2(3072, 768);
            c = md2(128, 768);
            st = dnnl_matmul_primitive_desc_create(&pd, eng, a, b, nullptr, c, nullptr);
            break;
        case K::eltwise:
            a = md4(16, 64, 56, 56, dnnl_nchw);
            st = dnnl_eltwise_forward_primitive_desc_create(
                    &pd, eng, dnnl_forward_inference, dnnl_eltwise_relu, a, a, 0.f, 0.f, nullptr);
            break;
        case K::reorder:
            a = md4(16, 64, 56, 56, dnnl_nchw);
            c = md4(16, 64, 56, 56, dnnl_nChw16c);
            st = dnnl_reorder_primitive_desc_create(&pd, a, eng, c, eng, nullptr);
            break;
    }
    if (st == dnnl_success) {
        dnnl_primitive_t p = nullptr;
        st = dnnl_primitive_create(&p, pd);
        if (st == dnnl_success) dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }
    for (dnnl_memory_desc_t m : {a, b, c})
        if (m) dnnl_memory_desc_destroy(m);
    return st;
}

} // namespace

int main(int argc, char **argv) {
    const bool machine = bench::machine_mode(argc, argv);
    dnnl_engine_t eng;
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success) {
        std::fprintf(stderr, "bench_create: no CPU engine\n");
        return 1;
    }
    int capacity = 0;
    dnnl_get_primitive_cache_capacity(&capacity);
    char id[96];
    for (const auto &c : bench::create_shapes)
        for (bool hit : {false, true}) {
            if (!bench::selected(c.id(id, sizeof(id), hit))) continue;
            dnnl_set_primitive_cache_capacity(hit ? capacity : 0);
            dnnl_status_t st = dnnl_success;
            const double sec = bench::median_seconds(
                    [&] {
                        const dnnl_status_t s = create_once(eng, c.kind);
                        if (s != dnnl_success) st = s;
                    },
                    20, 0.1);
            dnnl_set_primitive_cache_capacity(capacity);
            if (st != dnnl_success) {
                if (machine)
                    bench::refusal_line("kestrel", id, "not_created");
                else
                    std::printf("%-48s not created (%d)\n", id, (int)st);
            } else if (machine) {
                bench::machine_line("kestrel", id, sec * 1e6); // microseconds
            } else {
                std::printf("%-48s %10.2f us\n", id, sec * 1e6);
            }
        }
    dnnl_engine_destroy(eng);
    return 0;
}
