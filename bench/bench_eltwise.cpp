// Memory-bound primitives against a plain copy. Each problem works on
// tensors far larger than the caches (64 MiB of f32 src); its rate is
// (bytes read + bytes written) / time, shown next to the rate of a parallel
// copy of the same src size measured the same way (one copy run after each
// primitive run, so both see the same machine state). Median of the runs.
// A ratio near 1 means the primitive moves data as fast as the memory
// system allows. Numbers on a shared machine are indicative only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include <tbb/parallel_for.h>

#include "anchor_shapes.hpp"
#include "anchor_timing.hpp"
#include "dnnl.h"

namespace {

#define CHECK(expr) \
    do { \
        dnnl_status_t s_ = (expr); \
        if (s_ != dnnl_success) { \
            std::fprintf(stderr, "%s -> %d\n", #expr, (int)s_); \
            std::exit(1); \
        } \
    } while (0)

constexpr int reps = 9;

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// A memory with its own buffer filled with values in [-2, 2), starting
// at a 64-byte boundary as memory the library allocates does (and as the
// anchor's does): a std::vector's 16-byte alignment would time unaligned
// vector loads and stores on one side only.
struct mem_t {
    dnnl_memory_t m = nullptr;
    std::vector<float> store;
    float *buf = nullptr;
    size_t n = 0;
    mem_t(const_dnnl_memory_desc_t md, dnnl_engine_t eng) {
        n = dnnl_memory_desc_get_size(md) / sizeof(float) + 1;
        store.resize(n + 16);
        buf = store.data() + (64 - reinterpret_cast<uintptr_t>(store.data()) % 64) % 64 / sizeof(float);
        for (size_t i = 0; i < n; ++i) buf[i] = (float)((i * 2654435761u) % 4096) / 1024.f - 2.f;
        CHECK(dnnl_memory_create(&m, md, eng, buf));
    }
    ~mem_t() { dnnl_memory_destroy(m); }
};

dnnl_memory_desc_t md(std::initializer_list<dnnl_dim_t> dims, dnnl_format_tag_t tag) {
    dnnl_dims_t d = {};
    int n = 0;
    for (auto v : dims) d[n++] = v;
    dnnl_memory_desc_t r = nullptr;
    CHECK(dnnl_memory_desc_create_with_tag(&r, n, d, dnnl_f32, tag));
    return r;
}

// Parallel copy of `bytes` in cache-line-aligned chunks.
void copy(char *dst, const char *src, size_t bytes) {
    const size_t chunk = 1 << 20;
    tbb::parallel_for(size_t(0), (bytes + chunk - 1) / chunk, [&](size_t i) {
        size_t off = i * chunk, n = std::min(chunk, bytes - off);
        std::memcpy(dst + off, src + off, n);
    });
}

void run(dnnl_engine_t eng, dnnl_stream_t strm, const char *what, dnnl_primitive_desc_t pd,
        std::vector<int> in_args) {
    std::vector<mem_t *> mems;
    std::vector<dnnl_exec_arg_t> args;
    double bytes = 0;
    size_t src_bytes = 0;
    for (int a : in_args) {
        const_dnnl_memory_desc_t d = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a);
        mems.push_back(new mem_t(d, eng));
        args.push_back({a, mems.back()->m});
        bytes += (double)dnnl_memory_desc_get_size(d);
        if (a == DNNL_ARG_SRC) src_bytes = dnnl_memory_desc_get_size(d);
    }
    const_dnnl_memory_desc_t dd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    mems.push_back(new mem_t(dd, eng));
    args.push_back({DNNL_ARG_DST, mems.back()->m});
    bytes += (double)dnnl_memory_desc_get_size(dd);

    const char *name = nullptr;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name));
    dnnl_primitive_t prim = nullptr;
    CHECK(dnnl_primitive_create(&prim, pd));
    std::vector<char> csrc(src_bytes), cdst(src_bytes);
    std::memset(csrc.data(), 1, src_bytes);
    std::memset(cdst.data(), 0, src_bytes);
    // Warm-up: page in every buffer once.
    CHECK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    copy(cdst.data(), csrc.data(), src_bytes);
    std::vector<double> tp, tc;
    for (int r = 0; r < reps; ++r) {
        double t0 = now_s();
        CHECK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
        CHECK(dnnl_stream_wait(strm));
        double t1 = now_s();
        copy(cdst.data(), csrc.data(), src_bytes);
        double t2 = now_s();
        tp.push_back(t1 - t0);
        tc.push_back(t2 - t1);
    }
    const double gp = bytes / median(tp) / 1e9, gc = 2.0 * src_bytes / median(tc) / 1e9;
    std::printf("%-34s %-12s %8.1f MiB %7.2f ms %7.2f GB/s | copy %7.2f GB/s | ratio %.2f\n", what,
            name, bytes / 1048576.0, median(tp) * 1e3, gp, gc, gp / gc);
    dnnl_primitive_destroy(prim);
    for (auto *m : mems) delete m;
    dnnl_primitive_desc_destroy(pd);
}

// `--machine`: the memory-bound problems of bench/anchor_shapes.hpp, timed
// as the anchor times them, one "BENCH kestrel <shape> <GB/s>" line each.
void machine_mem(dnnl_engine_t eng, dnnl_stream_t strm) {
    using K = bench::mem_kind_t;
    for (const auto &s : bench::mem_shapes) {
        char id[128];
        if (!bench::selected(s.id(id, sizeof(id)))) continue;
        const dnnl_format_tag_t tag = s.w == 0 ? dnnl_ab
                : s.layout == bench::layout_t::nchw ? dnnl_nchw
                : s.layout == bench::layout_t::nhwc ? dnnl_nhwc
                                                    : dnnl_nChw16c;
        dnnl_memory_desc_t sd = s.w == 0 ? md({s.n, s.c}, tag) : md({s.n, s.c, s.h, s.w}, tag);
        dnnl_memory_desc_t dd = nullptr;
        dnnl_primitive_desc_t pd = nullptr;
        std::vector<int> args = {DNNL_ARG_SRC, DNNL_ARG_DST};
        switch (s.kind) {
            case K::copy: CHECK(dnnl_reorder_primitive_desc_create(&pd, sd, eng, sd, eng, nullptr)); break;
            case K::relu:
            case K::gelu_erf:
            case K::gelu_tanh: {
                const dnnl_alg_kind_t alg = s.kind == K::relu ? dnnl_eltwise_relu
                        : s.kind == K::gelu_erf               ? dnnl_eltwise_gelu_erf
                                                              : dnnl_eltwise_gelu_tanh;
                CHECK(dnnl_eltwise_forward_primitive_desc_create(
                        &pd, eng, dnnl_forward_inference, alg, sd, sd, 0.f, 0.f, nullptr));
                break;
            }
            case K::pool_max:
            case K::pool_avg: {
                dd = md({s.n, s.c, (s.h - 1) / 2 + 1, (s.w - 1) / 2 + 1}, tag);
                dnnl_dims_t st = {2, 2}, k = {3, 3}, dil = {0, 0}, pad = {1, 1};
                CHECK(dnnl_pooling_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                        s.kind == K::pool_max ? dnnl_pooling_max : dnnl_pooling_avg_exclude_padding, sd,
                        dd, st, k, dil, pad, pad, nullptr));
                break;
            }
            case K::bnorm_infer:
            case K::bnorm_train: {
                const bool train = s.kind == K::bnorm_train;
                const unsigned flags = (train ? 0u : (unsigned)dnnl_use_global_stats)
                        | dnnl_use_scale | dnnl_use_shift;
                CHECK(dnnl_batch_normalization_forward_primitive_desc_create(&pd, eng,
                        train ? dnnl_forward_training : dnnl_forward_inference, sd, sd, 1e-5f, flags,
                        nullptr));
                args.insert(args.end(), {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_SCALE, DNNL_ARG_SHIFT});
                break;
            }
            case K::softmax:
                CHECK(dnnl_softmax_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                        dnnl_softmax_accurate, sd, sd, s.axis, nullptr));
                break;
        }
        std::vector<mem_t *> mems;
        std::vector<dnnl_exec_arg_t> ea;
        double bytes = 0;
        for (int a : args) {
            const_dnnl_memory_desc_t d = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a);
            mems.push_back(new mem_t(d, eng));
            std::memset(mems.back()->buf, 0, mems.back()->n * sizeof(float));
            ea.push_back({a, mems.back()->m});
            bytes += (double)dnnl_memory_desc_get_size(d);
        }
        dnnl_primitive_t prim = nullptr;
        CHECK(dnnl_primitive_create(&prim, pd));
        const double sec = bench::median_seconds([&] {
            CHECK(dnnl_primitive_execute(prim, strm, (int)ea.size(), ea.data()));
            CHECK(dnnl_stream_wait(strm));
        });
        bench::machine_line("kestrel", id, bytes / sec * 1e-9);
        dnnl_primitive_destroy(prim);
        for (auto *m : mems) delete m;
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_desc_destroy(sd);
        if (dd) dnnl_memory_desc_destroy(dd);
    }
}

} // namespace

int main(int argc, char **argv) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    if (bench::machine_mode(argc, argv)) {
        machine_mem(eng, strm);
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
        return 0;
    }
    // 16 x 64 x 128 x 128 f32 = 64 MiB.
    const dnnl_dim_t N = 16, C = 64, H = 128, W = 128;
    dnnl_memory_desc_t nchw = md({N, C, H, W}, dnnl_nchw), nhwc = md({N, C, H, W}, dnnl_nhwc);
    dnnl_memory_desc_t blk = md({N, C, H, W}, dnnl_nChw16c), chan = md({1, C, 1, 1}, dnnl_nchw);
    dnnl_memory_desc_t rows = md({16384, 1024}, dnnl_ab);
    dnnl_primitive_desc_t pd;
    std::printf("%-34s %-12s %12s %10s %12s   %s\n", "problem", "impl", "read+written", "time",
            "rate", "same-size copy");

    struct elt_t {
        const char *what;
        dnnl_alg_kind_t alg;
    } elts[] = {{"eltwise relu nchw", dnnl_eltwise_relu}, {"eltwise gelu_tanh nchw", dnnl_eltwise_gelu_tanh},
            {"eltwise exp nchw", dnnl_eltwise_exp}};
    for (const auto &e : elts) {
        CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, e.alg,
                nchw, nchw, 0.f, 0.f, nullptr));
        run(eng, strm, e.what, pd, {DNNL_ARG_SRC});
    }
    CHECK(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, nchw, nchw, nchw, nullptr));
    run(eng, strm, "binary add same shape nchw", pd, {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1});
    CHECK(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, nhwc, chan, nhwc, nullptr));
    run(eng, strm, "binary add per channel nhwc", pd, {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1});
    CHECK(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, blk, chan, blk, nullptr));
    run(eng, strm, "binary add per channel nChw16c", pd, {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1});
    CHECK(dnnl_softmax_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_softmax_accurate, rows, rows, 1, nullptr));
    run(eng, strm, "softmax 16384x1024 axis 1", pd, {DNNL_ARG_SRC});
    CHECK(dnnl_softmax_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_softmax_accurate, nchw, nchw, 1, nullptr));
    run(eng, strm, "softmax nchw axis C", pd, {DNNL_ARG_SRC});
    CHECK(dnnl_prelu_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, nhwc, chan,
            nhwc, nullptr));
    run(eng, strm, "prelu per channel nhwc", pd, {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS});
    CHECK(dnnl_shuffle_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, nchw, nchw,
            1, 4, nullptr));
    run(eng, strm, "shuffle nchw group 4", pd, {DNNL_ARG_SRC});

    dnnl_memory_desc_t pool_dst = md({N, C, H / 2, W / 2}, dnnl_nChw16c);
    dnnl_dims_t st = {2, 2}, k = {2, 2}, dil = {0, 0}, pad = {0, 0};
    if (dnnl_pooling_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                dnnl_pooling_max, blk, pool_dst, st, k, dil, pad, pad, nullptr)
            == dnnl_success)
        run(eng, strm, "pooling max 2x2/2 nChw16c", pd, {DNNL_ARG_SRC});
    if (dnnl_batch_normalization_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                blk, blk, 1e-5f, dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift, nullptr)
            == dnnl_success)
        run(eng, strm, "batch norm inference nChw16c", pd,
                {DNNL_ARG_SRC, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_SCALE, DNNL_ARG_SHIFT});

    for (auto *m : {nchw, nhwc, blk, chan, rows, pool_dst}) dnnl_memory_desc_destroy(m);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
