// Execution allocates nothing. Every primitive kind Kestrel implements is
// created for a few problems, and every implementation that accepts a
// problem (walked with dnnl_primitive_desc_next_impl, so the optimized
// kernels and the references both) is executed: once to warm up, then
// several times more with every allocation counted. Steady-state executions
// must make none, in each scratchpad mode (global arena, private buffer,
// user scratchpad) and with TBB limited to 1 and to 2 threads. dnnl_sgemm
// is held to the same rule after its first call.
//
// What is counted: every form of operator new (replaced here), and the C
// allocation calls the library's own objects make (malloc, calloc, realloc,
// aligned_alloc, memalign, posix_memalign; the link wraps them with
// -Wl,--wrap, and the library is linked statically into this program).
// libtbb's own internal allocations are not Kestrel's and are not counted;
// anything TBB asks of operator new is.
//
// NOALLOC_TRACE=1 prints the call stack of each counted allocation.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <functional>
#include <new>
#include <unordered_map>
#include <string>
#include <vector>

#include <execinfo.h>
#include <unistd.h>

#include <tbb/parallel_for.h>

#include "dnnl.h"
#include "dnnl.hpp"
#include "core/primitive.hpp"
#include "kt_test.hpp"

// --------------------------------------------------------------- the hooks
extern "C" {
void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
void *__real_memalign(size_t a, size_t n);
int __real_posix_memalign(void **p, size_t a, size_t n);
}

namespace {
std::atomic<bool> counting {false};
std::atomic<long> n_new {0}, n_c {0};
bool trace = false;
thread_local bool in_trace = false;

void print_stack() {
    if (in_trace) return;
    in_trace = true;
    void *frames[48];
    int n = backtrace(frames, 48);
    backtrace_symbols_fd(frames, n, 2);
    (void)!write(2, "--\n", 3);
    in_trace = false;
}

inline void seen(std::atomic<long> &counter) {
    if (!counting.load(std::memory_order_relaxed)) return;
    counter.fetch_add(1, std::memory_order_relaxed);
    if (trace) print_stack();
}

void *new_impl(size_t n, size_t align) {
    seen(n_new);
    if (n == 0) n = 1;
    if (align <= alignof(std::max_align_t)) return __real_malloc(n);
    return __real_aligned_alloc(align, (n + align - 1) / align * align);
}
// Not inlined into operator delete: GCC would then see free() of what
// operator new returned and warn (the pair is malloc/free underneath).
[[gnu::noinline]] void delete_impl(void *p) { std::free(p); }
} // namespace

extern "C" {
void *__wrap_malloc(size_t n) {
    seen(n_c);
    return __real_malloc(n);
}
void *__wrap_calloc(size_t k, size_t n) {
    seen(n_c);
    return __real_calloc(k, n);
}
void *__wrap_realloc(void *p, size_t n) {
    seen(n_c);
    return __real_realloc(p, n);
}
void *__wrap_aligned_alloc(size_t a, size_t n) {
    seen(n_c);
    return __real_aligned_alloc(a, n);
}
void *__wrap_memalign(size_t a, size_t n) {
    seen(n_c);
    return __real_memalign(a, n);
}
int __wrap_posix_memalign(void **p, size_t a, size_t n) {
    seen(n_c);
    return __real_posix_memalign(p, a, n);
}
}

void *operator new(size_t n) {
    void *p = new_impl(n, alignof(std::max_align_t));
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n) { return operator new(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept { return new_impl(n, alignof(std::max_align_t)); }
void *operator new[](size_t n, const std::nothrow_t &) noexcept { return new_impl(n, alignof(std::max_align_t)); }
void *operator new(size_t n, std::align_val_t a) {
    void *p = new_impl(n, (size_t)a);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
void *operator new(size_t n, std::align_val_t a, const std::nothrow_t &) noexcept { return new_impl(n, (size_t)a); }
void *operator new[](size_t n, std::align_val_t a, const std::nothrow_t &) noexcept { return new_impl(n, (size_t)a); }
void operator delete(void *p) noexcept { delete_impl(p); }
void operator delete[](void *p) noexcept { delete_impl(p); }
void operator delete(void *p, size_t) noexcept { delete_impl(p); }
void operator delete[](void *p, size_t) noexcept { delete_impl(p); }
void operator delete(void *p, std::align_val_t) noexcept { delete_impl(p); }
void operator delete[](void *p, std::align_val_t) noexcept { delete_impl(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept { delete_impl(p); }
void operator delete[](void *p, size_t, std::align_val_t) noexcept { delete_impl(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { delete_impl(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { delete_impl(p); }

// ------------------------------------------------------------- the cases
namespace {

constexpr int steady_runs = 4;

kt::tally_t t;
long n_checked = 0; // (problem, implementation, mode, threads) combinations

struct window_t {
    long news = 0, cs = 0;
    long total() const { return news + cs; }
};

// Counts what f() allocates.
template <typename F>
window_t count(F f) {
    long n0 = n_new.load(), c0 = n_c.load();
    counting.store(true);
    f();
    counting.store(false);
    return {n_new.load() - n0, n_c.load() - c0};
}

using mds_t = std::vector<dnnl_memory_desc_t>;

struct mds_owner_t {
    mds_t v;
    ~mds_owner_t() {
        for (auto m : v) dnnl_memory_desc_destroy(m);
    }
    const_dnnl_memory_desc_t add(const std::vector<dnnl_dim_t> &dims, dnnl_format_tag_t tag,
            dnnl_data_type_t dt = dnnl_f32) {
        dnnl_dims_t d = {};
        int n = 0;
        for (auto x : dims) d[n++] = x;
        dnnl_memory_desc_t m = nullptr;
        KT_OK(dnnl_memory_desc_create_with_tag(&m, n, d, dt, tag));
        v.push_back(m);
        return m;
    }
};

// Creates the descriptor of one problem with attribute `a`.
using make_pd_t = std::function<dnnl_status_t(dnnl_primitive_desc_t *, dnnl_engine_t, const_dnnl_primitive_attr_t)>;
// Adds post-ops, scales and zero points to the attribute.
using set_attr_t = std::function<void(dnnl_primitive_attr_t)>;

struct case_t {
    std::string name;
    make_pd_t make;
    set_attr_t set_attr;
};

dnnl_engine_t eng = nullptr;
dnnl_stream_t strm = nullptr;

// Scales and zero points are passed as memories the pd does not describe;
// one generous buffer of each serves every mask used here.
constexpr dnnl_dim_t quant_len = 4096;
dnnl_memory_t scales_mem = nullptr, zps_mem = nullptr;

void fill(dnnl_memory_t m) {
    const_dnnl_memory_desc_t md = nullptr;
    KT_OK(dnnl_memory_get_memory_desc(m, &md));
    void *h = nullptr;
    KT_OK(dnnl_memory_get_data_handle(m, &h));
    size_t bytes = dnnl_memory_desc_get_size(md);
    dnnl_data_type_t dt = dnnl_data_type_undef;
    KT_OK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
    if (dt == dnnl_f32) {
        float *f = static_cast<float *>(h);
        for (size_t i = 0; i < bytes / sizeof(float); ++i) f[i] = 0.25f + 0.125f * (float)(i % 7);
    } else {
        std::memset(h, 1, bytes);
    }
}

dnnl_memory_t make_mem(const_dnnl_memory_desc_t md) {
    dnnl_memory_t m = nullptr;
    KT_OK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    fill(m);
    return m;
}

// Every argument any primitive here may take.
std::vector<int> candidate_args() {
    std::vector<int> a = {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS,
            DNNL_ARG_DST, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_WORKSPACE,
            DNNL_ARG_SCRATCHPAD, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_DST};
    for (int i = 0; i < 4; ++i) a.push_back(DNNL_ARG_MULTIPLE_SRC + i);
    for (int i = 0; i < 4; ++i) a.push_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1);
    return a;
}

const int quant_targets[] = {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};

// One primitive with its arguments, ready to run.
struct bound_t {
    dnnl_primitive_t prim = nullptr;
    std::vector<dnnl_memory_t> mems;
    std::vector<dnnl_exec_arg_t> args;
    ~bound_t() {
        dnnl_primitive_destroy(prim);
        for (auto m : mems) dnnl_memory_destroy(m);
    }
    dnnl_status_t run() const {
        dnnl_status_t st = dnnl_primitive_execute(prim, strm, (int)args.size(), args.data());
        if (st != dnnl_success) return st;
        return dnnl_stream_wait(strm);
    }
};

void bind(bound_t &b, const_dnnl_primitive_desc_t pd) {
    KT_OK(dnnl_primitive_create(&b.prim, pd));
    for (int arg : candidate_args()) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
        if (!md || dnnl_memory_desc_get_size(md) == 0) continue;
        b.mems.push_back(make_mem(md));
        b.args.push_back({arg, b.mems.back()});
    }
    for (int target : quant_targets) {
        b.args.push_back({DNNL_ARG_ATTR_SCALES | target, scales_mem});
        b.args.push_back({DNNL_ARG_ATTR_ZERO_POINTS | target, zps_mem});
    }
}

// Runs one implementation: warm-up, then steady_runs counted executions.
void check_impl(const std::string &what, const_dnnl_primitive_desc_t pd) {
    bound_t b;
    bind(b, pd);
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            dnnl_status_t st = b.run();
            std::string label = what + ", " + std::to_string(nthr) + " thread(s)";
            if (st != dnnl_success) {
                std::fprintf(stderr, "%s: warm-up status %d\n", label.c_str(), (int)st);
                t.check(false, label.c_str());
                return;
            }
            dnnl_status_t steady = dnnl_success;
            window_t w = count([&] {
                for (int i = 0; i < steady_runs && steady == dnnl_success; ++i) steady = b.run();
            });
            ++n_checked;
            if (w.total() != 0 || steady != dnnl_success)
                std::fprintf(stderr, "%s: %ld operator new, %ld C allocations in %d executions (status %d)\n",
                        label.c_str(), w.news, w.cs, steady_runs, (int)steady);
            t.check(w.total() == 0 && steady == dnnl_success, label.c_str());
        });
    }
}

const char *mode_name(int mode) {
    switch (mode) {
        case 0: return "global arena";
        case 1: return "private scratchpad";
        default: return "user scratchpad";
    }
}

// Every implementation of one problem, in one scratchpad mode.
void check_case(const case_t &c, int mode) {
    using kestrel::scratchpad_policy_t;
    kestrel::set_library_scratchpad_policy(
            mode == 1 ? scratchpad_policy_t::private_buffer : scratchpad_policy_t::global_arena);
    dnnl_primitive_attr_t a = nullptr;
    KT_OK(dnnl_primitive_attr_create(&a));
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(
            a, mode == 2 ? dnnl_scratchpad_mode_user : dnnl_scratchpad_mode_library));
    if (c.set_attr) c.set_attr(a);
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = c.make(&pd, eng, a);
    dnnl_primitive_attr_destroy(a);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: descriptor status %d\n", c.name.c_str(), (int)st);
        t.check(false, c.name.c_str());
        return;
    }
    int n_impls = 0;
    do {
        const char *impl = nullptr;
        KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
        check_impl(c.name + " [" + impl + "], " + mode_name(mode), pd);
        ++n_impls;
    } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
    dnnl_primitive_desc_destroy(pd);
    std::printf("%s, %s: %d implementation(s)\n", c.name.c_str(), mode_name(mode), n_impls);
}

// ---------------------------------------------------------- the problems
const dnnl_dims_t d0 = {0, 0}, d1 = {1, 1}, d2 = {2, 2}, d3 = {3, 3};

// (Dims are taken as vectors: the lambdas keep them.)
using dims_t = std::vector<dnnl_dim_t>;

// Convolution backward data or weights, weights `any`, no hint.
make_pd_t conv_bwd(bool data, dims_t src, dims_t wei, bool bias, dims_t dst, dnnl_format_tag_t st,
        const dnnl_dim_t *strides, const dnnl_dim_t *pad) {
    return [=](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
        mds_owner_t m;
        auto s = m.add(src, st);
        auto w = m.add(wei, dnnl_format_tag_any);
        auto b = bias ? m.add({dst[1]}, dnnl_a) : nullptr;
        auto d = m.add(dst, st);
        if (data)
            return dnnl_convolution_backward_data_primitive_desc_create(
                    pd, e, dnnl_convolution_direct, s, w, d, strides, d0, pad, pad, nullptr, a);
        return dnnl_convolution_backward_weights_primitive_desc_create(
                pd, e, dnnl_convolution_direct, s, w, b, d, strides, d0, pad, pad, nullptr, a);
    };
}

make_pd_t conv(dims_t src, dims_t wei, bool bias, dims_t dst, dnnl_format_tag_t st, dnnl_format_tag_t wt,
        const dnnl_dim_t *strides, const dnnl_dim_t *pad, bool deconv = false) {
    return [=](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
        mds_owner_t m;
        auto s = m.add(src, st);
        auto w = m.add(wei, wt);
        auto b = bias ? m.add({dst[1]}, dnnl_a) : nullptr;
        auto d = m.add(dst, st);
        if (deconv)
            return dnnl_deconvolution_forward_primitive_desc_create(pd, e, dnnl_forward_inference,
                    dnnl_deconvolution_direct, s, w, b, d, strides, d0, pad, pad, a);
        return dnnl_convolution_forward_primitive_desc_create(
                pd, e, dnnl_forward_inference, dnnl_convolution_direct, s, w, b, d, strides, d0, pad, pad, a);
    };
}

make_pd_t matmul(dims_t src, dims_t wei, dims_t dst, dnnl_format_tag_t tag, dnnl_data_type_t sdt = dnnl_f32,
        dnnl_data_type_t wdt = dnnl_f32, bool bias = false) {
    return [=](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
        mds_owner_t m;
        auto s = m.add(src, tag, sdt);
        auto w = m.add(wei, tag, wdt);
        auto d = m.add(dst, tag);
        const_dnnl_memory_desc_t b = nullptr;
        if (bias) {
            std::vector<dnnl_dim_t> bd(dst.size(), 1);
            bd.back() = dst.back();
            dnnl_dims_t dd = {};
            for (size_t i = 0; i < bd.size(); ++i) dd[i] = bd[i];
            dnnl_memory_desc_t bm = nullptr;
            KT_OK(dnnl_memory_desc_create_with_tag(&bm, (int)bd.size(), dd, dnnl_f32, tag));
            m.v.push_back(bm);
            b = bm;
        }
        return dnnl_matmul_primitive_desc_create(pd, e, s, w, b, d, a);
    };
}

make_pd_t pooling(dnnl_alg_kind_t alg, dnnl_prop_kind_t prop, dnnl_format_tag_t tag) {
    return [=](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
        mds_owner_t m;
        auto s = m.add({2, 19, 9, 7}, tag);
        auto d = m.add({2, 19, 5, 4}, tag);
        const dnnl_dims_t pad_r = {1, 1};
        return dnnl_pooling_forward_primitive_desc_create(pd, e, prop, alg, s, d, d2, d3, d0, d1, pad_r, a);
    };
}

make_pd_t same_shape(std::function<dnnl_status_t(dnnl_primitive_desc_t *, dnnl_engine_t,
                             const_dnnl_primitive_attr_t, const_dnnl_memory_desc_t)>
                             f,
        dims_t dims, dnnl_format_tag_t tag) {
    return [=](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
        mds_owner_t m;
        return f(pd, e, a, m.add(dims, tag));
    };
}

set_attr_t with_post_ops(dims_t bin_dims, dnnl_format_tag_t bin_tag, bool sum) {
    return [=](dnnl_primitive_attr_t a) {
        dnnl_post_ops_t po = nullptr;
        KT_OK(dnnl_post_ops_create(&po));
        if (sum) KT_OK(dnnl_post_ops_append_sum(po, 0.5f, 0, dnnl_data_type_undef));
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.1f, 0.f));
        if (!bin_dims.empty()) {
            mds_owner_t m;
            KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, m.add(bin_dims, bin_tag)));
        }
        KT_OK(dnnl_primitive_attr_set_post_ops(a, po));
        dnnl_post_ops_destroy(po);
    };
}

std::vector<case_t> cases() {
    std::vector<case_t> c;
    auto any = dnnl_format_tag_any;
    // Convolution: blocked direct (layouts chosen by the library), im2col,
    // 1x1, depthwise (groups), with and without post-ops.
    c.push_back({"conv 3x3 any layouts", conv({2, 32, 10, 9}, {48, 32, 3, 3}, true, {2, 48, 10, 9}, any, any, d1, d1),
            nullptr});
    c.push_back({"conv 3x3 any layouts + post-ops",
            conv({2, 32, 10, 9}, {48, 32, 3, 3}, true, {2, 48, 10, 9}, any, any, d1, d1),
            with_post_ops({1, 48, 1, 1}, dnnl_nchw, true)});
    c.push_back({"conv 3x3 nchw stride 2 (im2col)",
            conv({2, 5, 9, 7}, {6, 5, 3, 3}, true, {2, 6, 5, 4}, dnnl_nchw, dnnl_oihw, d2, d1), nullptr});
    c.push_back({"conv 3x3 nhwc", conv({2, 8, 9, 7}, {12, 8, 3, 3}, false, {2, 12, 9, 7}, dnnl_nhwc, any, d1, d1),
            with_post_ops({}, dnnl_nchw, false)});
    c.push_back({"conv 1x1 nchw", conv({2, 16, 7, 6}, {24, 16, 1, 1}, true, {2, 24, 7, 6}, dnnl_nchw, dnnl_oihw, d1, d0),
            with_post_ops({1, 24, 1, 1}, dnnl_nchw, true)});
    c.push_back({"conv 1x1 nhwc", conv({2, 16, 7, 6}, {24, 16, 1, 1}, false, {2, 24, 7, 6}, dnnl_nhwc, any, d1, d0),
            nullptr});
    c.push_back({"conv depthwise 3x3",
            conv({2, 16, 8, 8}, {16, 1, 1, 3, 3}, true, {2, 16, 8, 8}, dnnl_nchw, dnnl_goihw, d1, d1), nullptr});
    c.push_back({"conv depthwise 3x3 any",
            conv({2, 32, 8, 8}, {32, 1, 1, 3, 3}, false, {2, 32, 8, 8}, any, any, d1, d1), nullptr});
    c.push_back({"conv grouped 3x3", conv({2, 8, 6, 6}, {2, 6, 4, 3, 3}, true, {2, 12, 6, 6}, dnnl_nchw, dnnl_goihw, d1, d1),
            nullptr});
    // Backward on nChw16c: the direct paths (bwd_d through the nested
    // forward driver, whose partial rows need 3 oc blocks of 3x3), then GEMM.
    c.push_back({"conv bwd_d 3x3 nChw16c",
            conv_bwd(true, {2, 19, 6, 9}, {40, 19, 3, 3}, false, {2, 40, 6, 9}, dnnl_nChw16c, d1, d1), nullptr});
    c.push_back({"conv bwd_w 3x3 nChw16c",
            conv_bwd(false, {2, 19, 6, 9}, {40, 19, 3, 3}, true, {2, 40, 6, 9}, dnnl_nChw16c, d1, d1), nullptr});
    c.push_back({"deconv 3x3 stride 2",
            conv({2, 5, 4, 3}, {6, 5, 3, 3}, true, {2, 6, 9, 7}, dnnl_nchw, dnnl_oihw, d2, d0, true), nullptr});
    c.push_back({"deconv 3x3 any + post-ops", conv({2, 16, 5, 5}, {16, 16, 3, 3}, false, {2, 16, 5, 5}, any, any, d1, d1, true),
            with_post_ops({}, dnnl_nchw, true)});
    // Matmul and inner product.
    c.push_back({"matmul 37x65x29", matmul({37, 65}, {65, 29}, {37, 29}, dnnl_ab), nullptr});
    c.push_back({"matmul 3x1x130 (skinny)", matmul({3, 130}, {130, 1}, {3, 1}, dnnl_ab), nullptr});
    c.push_back({"matmul batched 2x33x17x40 + bias + post-ops",
            matmul({2, 33, 40}, {2, 40, 17}, {2, 33, 17}, dnnl_abc, dnnl_f32, dnnl_f32, true),
            with_post_ops({1, 1, 17}, dnnl_abc, true)});
    c.push_back({"matmul scales + post-ops", matmul({37, 65}, {65, 29}, {37, 29}, dnnl_ab), [](dnnl_primitive_attr_t a) {
                     KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_SRC, 0));
                     KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_WEIGHTS, 2));
                     KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_DST, 0));
                     with_post_ops({37, 29}, dnnl_ab, false)(a);
                 }});
    // int8 convolution, channels-last with `any` weights (the direct VNNI
    // kernel where the CPU has it): the output stage in registers, then
    // through the tile buffer with post-ops.
    auto conv_s8 = [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
        mds_owner_t m;
        return dnnl_convolution_forward_primitive_desc_create(pd, e, dnnl_forward_inference, dnnl_convolution_direct,
                m.add({2, 20, 9, 7}, dnnl_nhwc, dnnl_s8), m.add({24, 20, 3, 3}, dnnl_format_tag_any, dnnl_s8),
                m.add({24}, dnnl_a), m.add({2, 24, 9, 7}, dnnl_nhwc, dnnl_u8), d1, d0, d1, d1, a);
    };
    c.push_back({"conv int8 nhwc s8 src, zero points, scales", conv_s8, [](dnnl_primitive_attr_t a) {
                     KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_WEIGHTS, 1));
                     KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_DST, 0));
                     KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_SRC, 0));
                     KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_DST, 0));
                 }});
    c.push_back({"conv int8 nhwc + post-ops", conv_s8, with_post_ops({1, 24, 1, 1}, dnnl_nchw, true)});
    // int8 on nChw16c src and nChw8c dst: the channels-last kernel on
    // copies in the scratchpad (conv_nxc_wrap), a sum reading dst.
    auto conv_s8_blk = [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
        mds_owner_t m;
        return dnnl_convolution_forward_primitive_desc_create(pd, e, dnnl_forward_inference, dnnl_convolution_direct,
                m.add({2, 20, 9, 7}, dnnl_nChw16c, dnnl_u8), m.add({24, 20, 3, 3}, dnnl_format_tag_any, dnnl_s8),
                m.add({24}, dnnl_a), m.add({2, 24, 9, 7}, dnnl_nChw8c, dnnl_s8), d1, d0, d1, d1, a);
    };
    c.push_back({"conv int8 nChw16c -> nChw8c, sum", conv_s8_blk, [](dnnl_primitive_attr_t a) {
                     dnnl_post_ops_t po;
                     KT_OK(dnnl_post_ops_create(&po));
                     KT_OK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
                     KT_OK(dnnl_primitive_attr_set_post_ops(a, po));
                     dnnl_post_ops_destroy(po);
                 }});
    // bf16 convolution, channels-last with `any` weights (the direct
    // AVX512-BF16 kernels where the CPU has them): bias and relu in
    // registers, then through the tile buffer with post-ops.
    auto conv_bf16 = [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
        mds_owner_t m;
        return dnnl_convolution_forward_primitive_desc_create(pd, e, dnnl_forward_inference, dnnl_convolution_direct,
                m.add({2, 21, 9, 7}, dnnl_nhwc, dnnl_bf16), m.add({24, 21, 3, 3}, dnnl_format_tag_any, dnnl_bf16),
                m.add({24}, dnnl_a), m.add({2, 24, 9, 7}, dnnl_nhwc, dnnl_bf16), d1, d0, d1, d1, a);
    };
    c.push_back({"conv bf16 nhwc, relu", conv_bf16, [](dnnl_primitive_attr_t a) {
                     dnnl_post_ops_t po;
                     KT_OK(dnnl_post_ops_create(&po));
                     KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
                     KT_OK(dnnl_primitive_attr_set_post_ops(a, po));
                     dnnl_post_ops_destroy(po);
                 }});
    c.push_back({"conv bf16 nhwc + post-ops", conv_bf16, with_post_ops({1, 24, 1, 1}, dnnl_nchw, true)});
    // 3 input channels, 7x7 stride 2, wide rows: the folded kernel rows,
    // whose weights copy lives in the scratchpad.
    c.push_back({"conv bf16 nhwc 7x7 s2, 3 channels",
            [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                mds_owner_t m;
                return dnnl_convolution_forward_primitive_desc_create(pd, e, dnnl_forward_inference,
                        dnnl_convolution_direct, m.add({1, 3, 12, 40}, dnnl_nhwc, dnnl_bf16),
                        m.add({64, 3, 7, 7}, dnnl_format_tag_any, dnnl_bf16), m.add({64}, dnnl_a),
                        m.add({1, 64, 6, 20}, dnnl_nhwc, dnnl_bf16), d2, d0, d3, d3, a);
            },
            [](dnnl_primitive_attr_t) {}});
    c.push_back({"matmul u8 x s8 -> f32 zero points", matmul({19, 70}, {70, 23}, {19, 23}, dnnl_ab, dnnl_u8, dnnl_s8),
            [](dnnl_primitive_attr_t a) {
                KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_WEIGHTS, 2));
                KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_SRC, 0));
            }});
    c.push_back({"inner product nc", [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                     mds_owner_t m;
                     return dnnl_inner_product_forward_primitive_desc_create(pd, e, dnnl_forward_inference,
                             m.add({5, 33}, dnnl_nc), m.add({17, 33}, dnnl_oi), m.add({17}, dnnl_a),
                             m.add({5, 17}, dnnl_nc), a);
                 },
            with_post_ops({1, 17}, dnnl_nc, true)});
    c.push_back({"inner product nchw", [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                     mds_owner_t m;
                     return dnnl_inner_product_forward_primitive_desc_create(pd, e, dnnl_forward_training,
                             m.add({4, 8, 3, 3}, dnnl_nchw), m.add({10, 8, 3, 3}, dnnl_format_tag_any), nullptr,
                             m.add({4, 10}, dnnl_nc), a);
                 },
            nullptr});
    // Pooling.
    for (auto tag : {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c, dnnl_nChw8c}) {
        std::string tn = tag == dnnl_nchw ? "nchw" : tag == dnnl_nhwc ? "nhwc" : tag == dnnl_nChw16c ? "nChw16c" : "nChw8c";
        c.push_back({"max pooling training " + tn, pooling(dnnl_pooling_max, dnnl_forward_training, tag), nullptr});
        c.push_back({"max pooling inference " + tn, pooling(dnnl_pooling_max, dnnl_forward_inference, tag), nullptr});
        c.push_back({"avg pooling incl. padding " + tn,
                pooling(dnnl_pooling_avg_include_padding, dnnl_forward_inference, tag), nullptr});
        c.push_back({"avg pooling excl. padding " + tn,
                pooling(dnnl_pooling_avg_exclude_padding, dnnl_forward_inference, tag), nullptr});
    }
    // Normalizations.
    for (auto tag : {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c}) {
        std::string tn = tag == dnnl_nchw ? "nchw" : tag == dnnl_nhwc ? "nhwc" : "nChw16c";
        c.push_back({"batch norm training " + tn,
                same_shape(
                        [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a,
                                const_dnnl_memory_desc_t md) {
                            return dnnl_batch_normalization_forward_primitive_desc_create(pd, e,
                                    dnnl_forward_training, md, md, 1e-5f,
                                    dnnl_use_scale | dnnl_use_shift | dnnl_fuse_norm_relu, a);
                        },
                        {2, 19, 5, 4}, tag),
                nullptr});
        c.push_back({"batch norm inference global stats " + tn,
                same_shape(
                        [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a,
                                const_dnnl_memory_desc_t md) {
                            return dnnl_batch_normalization_forward_primitive_desc_create(pd, e,
                                    dnnl_forward_inference, md, md, 1e-5f, dnnl_use_global_stats | dnnl_use_scale,
                                    a);
                        },
                        {2, 19, 5, 4}, tag),
                nullptr});
        c.push_back({"group norm " + tn,
                same_shape(
                        [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a,
                                const_dnnl_memory_desc_t md) {
                            return dnnl_group_normalization_forward_primitive_desc_create(pd, e,
                                    dnnl_forward_training, md, md, 4, 1e-5f, dnnl_use_scale | dnnl_use_shift, a);
                        },
                        {2, 32, 5, 4}, tag),
                nullptr});
        c.push_back({"lrn across " + tn,
                same_shape(
                        [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a,
                                const_dnnl_memory_desc_t md) {
                            return dnnl_lrn_forward_primitive_desc_create(pd, e, dnnl_forward_training,
                                    dnnl_lrn_across_channels, md, md, 5, 1e-4f, 0.75f, 1.f, a);
                        },
                        {2, 19, 5, 4}, tag),
                nullptr});
        c.push_back({"lrn within " + tn,
                same_shape(
                        [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a,
                                const_dnnl_memory_desc_t md) {
                            return dnnl_lrn_forward_primitive_desc_create(pd, e, dnnl_forward_inference,
                                    dnnl_lrn_within_channel, md, md, 3, 1e-4f, 0.75f, 1.f, a);
                        },
                        {2, 19, 5, 4}, tag),
                nullptr});
    }
    for (auto flags : {0u, (unsigned)(dnnl_use_scale | dnnl_use_shift), (unsigned)dnnl_use_global_stats}) {
        c.push_back({"layer norm flags " + std::to_string(flags),
                same_shape(
                        [flags](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a,
                                const_dnnl_memory_desc_t md) {
                            return dnnl_layer_normalization_forward_primitive_desc_create(pd, e,
                                    dnnl_forward_training, md, md, nullptr, 1e-5f, flags, a);
                        },
                        {3, 5, 67}, dnnl_abc),
                nullptr});
    }
    // Element-wise family.
    for (auto alg : {dnnl_eltwise_relu, dnnl_eltwise_gelu_erf, dnnl_eltwise_tanh, dnnl_eltwise_exp,
                 dnnl_eltwise_logistic, dnnl_eltwise_clip, dnnl_eltwise_swish}) {
        c.push_back({"eltwise alg " + std::to_string((int)alg),
                same_shape(
                        [alg](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a,
                                const_dnnl_memory_desc_t md) {
                            return dnnl_eltwise_forward_primitive_desc_create(
                                    pd, e, dnnl_forward_training, alg, md, md, 0.5f, 2.f, a);
                        },
                        {3, 35, 7}, dnnl_abc),
                nullptr});
    }
    c.push_back({"binary add broadcast + post-ops",
            [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                mds_owner_t m;
                auto s = m.add({2, 17, 5, 4}, dnnl_nchw);
                return dnnl_binary_primitive_desc_create(
                        pd, e, dnnl_binary_add, s, m.add({1, 17, 1, 1}, dnnl_nchw), s, a);
            },
            with_post_ops({1, 17, 1, 1}, dnnl_nchw, true)});
    c.push_back({"binary mul nhwc + nchw", [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                     mds_owner_t m;
                     auto s = m.add({2, 17, 5, 4}, dnnl_nhwc);
                     return dnnl_binary_primitive_desc_create(
                             pd, e, dnnl_binary_mul, s, m.add({2, 17, 5, 4}, dnnl_nchw), s, a);
                 },
            nullptr});
    c.push_back({"binary max blocked", [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                     mds_owner_t m;
                     auto s = m.add({2, 33, 5, 4}, dnnl_nChw16c);
                     return dnnl_binary_primitive_desc_create(pd, e, dnnl_binary_max, s, s, s, a);
                 },
            nullptr});
    for (auto alg : {dnnl_softmax_accurate, dnnl_softmax_log})
        for (auto tag : {dnnl_ab, dnnl_nchw, dnnl_nChw16c}) {
            bool two = tag == dnnl_ab;
            c.push_back({"softmax alg " + std::to_string((int)alg) + " tag " + std::to_string((int)tag),
                    [alg, tag, two](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                        mds_owner_t m;
                        auto md = two ? m.add({7, 45}, tag) : m.add({2, 19, 5, 4}, tag);
                        return dnnl_softmax_forward_primitive_desc_create(
                                pd, e, dnnl_forward_training, alg, md, md, 1, a);
                    },
                    nullptr});
        }
    for (auto alg : {dnnl_reduction_sum, dnnl_reduction_max, dnnl_reduction_mean, dnnl_reduction_norm_lp_sum}) {
        c.push_back({"reduction alg " + std::to_string((int)alg),
                [alg](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                    mds_owner_t m;
                    return dnnl_reduction_primitive_desc_create(pd, e, alg, m.add({2, 17, 5, 4}, dnnl_nchw),
                            m.add({2, 1, 5, 1}, dnnl_nchw), 2.f, 0.f, a);
                },
                nullptr});
    }
    c.push_back({"reduction to scalar", [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                     mds_owner_t m;
                     return dnnl_reduction_primitive_desc_create(pd, e, dnnl_reduction_sum,
                             m.add({3, 1000}, dnnl_ab), m.add({1, 1}, dnnl_ab), 0.f, 0.f, a);
                 },
            nullptr});
    for (auto alg : {dnnl_resampling_nearest, dnnl_resampling_linear})
        for (auto tag : {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c}) {
            c.push_back({"resampling alg " + std::to_string((int)alg) + " tag " + std::to_string((int)tag),
                    [alg, tag](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                        mds_owner_t m;
                        return dnnl_resampling_forward_primitive_desc_create(pd, e, dnnl_forward_training, alg,
                                nullptr, m.add({2, 17, 5, 4}, tag), m.add({2, 17, 9, 11}, tag), a);
                    },
                    nullptr});
        }
    for (auto tag : {dnnl_nchw, dnnl_nhwc}) {
        c.push_back({"shuffle tag " + std::to_string((int)tag),
                same_shape(
                        [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a,
                                const_dnnl_memory_desc_t md) {
                            return dnnl_shuffle_forward_primitive_desc_create(
                                    pd, e, dnnl_forward_training, md, md, 1, 3, a);
                        },
                        {2, 18, 5, 4}, tag),
                nullptr});
        c.push_back({"prelu per-channel tag " + std::to_string((int)tag),
                [tag](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                    mds_owner_t m;
                    auto s = m.add({2, 17, 5, 4}, tag);
                    return dnnl_prelu_forward_primitive_desc_create(
                            pd, e, dnnl_forward_training, s, m.add({1, 17, 1, 1}, tag), s, a);
                },
                nullptr});
    }
    // Reorders, sum, concat.
    struct ro_t {
        dnnl_format_tag_t from, to;
        dnnl_data_type_t sdt, ddt;
    };
    for (auto r : {ro_t {dnnl_nchw, dnnl_nChw16c, dnnl_f32, dnnl_f32}, ro_t {dnnl_nChw16c, dnnl_nchw, dnnl_f32, dnnl_f32},
                 ro_t {dnnl_nchw, dnnl_nhwc, dnnl_f32, dnnl_f32}, ro_t {dnnl_nchw, dnnl_nchw, dnnl_f32, dnnl_f32},
                 ro_t {dnnl_nchw, dnnl_nChw8c, dnnl_f32, dnnl_f32}, ro_t {dnnl_nhwc, dnnl_nchw, dnnl_f32, dnnl_s8},
                 ro_t {dnnl_nchw, dnnl_nhwc, dnnl_u8, dnnl_f32}}) {
        c.push_back({"reorder " + std::to_string((int)r.from) + "->" + std::to_string((int)r.to) + " dt "
                        + std::to_string((int)r.sdt) + "->" + std::to_string((int)r.ddt),
                [r](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                    mds_owner_t m;
                    return dnnl_reorder_primitive_desc_create(
                            pd, m.add({2, 35, 6, 5}, r.from, r.sdt), e, m.add({2, 35, 6, 5}, r.to, r.ddt), e, a);
                },
                nullptr});
    }
    c.push_back({"reorder ab->ba 64x48 (transpose)",
            [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                mds_owner_t m;
                return dnnl_reorder_primitive_desc_create(
                        pd, m.add({64, 48}, dnnl_ab), e, m.add({64, 48}, dnnl_ba), e, a);
            },
            nullptr});
    c.push_back({"reorder with scales", [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                     mds_owner_t m;
                     return dnnl_reorder_primitive_desc_create(pd, m.add({2, 35, 6, 5}, dnnl_nchw), e,
                             m.add({2, 35, 6, 5}, dnnl_nhwc, dnnl_s8), e, a);
                 },
            [](dnnl_primitive_attr_t a) {
                KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_SRC, 0));
                KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_DST, 0));
            }});
    for (auto tag : {dnnl_nchw, dnnl_nhwc}) {
        c.push_back({"sum of 3 to tag " + std::to_string((int)tag),
                [tag](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                    mds_owner_t m;
                    auto p = m.add({2, 17, 5, 4}, dnnl_nchw);
                    const_dnnl_memory_desc_t srcs[] = {p, m.add({2, 17, 5, 4}, tag), p};
                    const float scales[] = {1.f, 0.5f, 2.f};
                    return dnnl_sum_primitive_desc_create(pd, e, m.add({2, 17, 5, 4}, tag), 3, scales, srcs, a);
                },
                nullptr});
        c.push_back({"concat of 3 axis 1 to tag " + std::to_string((int)tag),
                [tag](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                    mds_owner_t m;
                    const_dnnl_memory_desc_t srcs[] = {
                            m.add({2, 3, 5, 4}, tag), m.add({2, 17, 5, 4}, dnnl_nchw), m.add({2, 4, 5, 4}, tag)};
                    return dnnl_concat_primitive_desc_create(pd, e, m.add({2, 24, 5, 4}, tag), 3, 1, srcs, a);
                },
                nullptr});
    }
    c.push_back({"concat axis 0 any", [](dnnl_primitive_desc_t *pd, dnnl_engine_t e, const_dnnl_primitive_attr_t a) {
                     mds_owner_t m;
                     const_dnnl_memory_desc_t srcs[] = {m.add({2, 17, 5, 4}, dnnl_nchw), m.add({3, 17, 5, 4}, dnnl_nchw)};
                     return dnnl_concat_primitive_desc_create(
                             pd, e, m.add({5, 17, 5, 4}, dnnl_format_tag_any), 2, 0, srcs, a);
                 },
            nullptr});
    return c;
}

// dnnl_sgemm: one shape per path (skinny, packed, transposed, K = 0), each
// called once to warm up, then counted, on 1 and 2 threads.
void check_sgemm() {
    struct shape_t {
        char ta, tb;
        dnnl_dim_t M, N, K;
    };
    const shape_t shapes[] = {{'N', 'N', 64, 48, 80}, {'T', 'N', 37, 29, 65}, {'N', 'T', 129, 70, 33},
            {'T', 'T', 16, 300, 20}, {'N', 'N', 3, 200, 50}, {'N', 'N', 500, 2, 40}, {'N', 'N', 8, 8, 0},
            {'N', 'N', 256, 256, 256}};
    for (const auto &s : shapes) {
        dnnl_dim_t lda = s.ta == 'N' ? s.K : s.M, ldb = s.tb == 'N' ? s.N : s.K;
        if (lda < 1) lda = 1;
        if (ldb < 1) ldb = 1;
        std::vector<float> A((size_t)(s.M * s.K) + 1, 0.5f), B((size_t)(s.K * s.N) + 1, 0.25f),
                C((size_t)(s.M * s.N), 1.f);
        for (int nthr : {1, 2}) {
            kt::with_threads(nthr, [&] {
                std::string label = "sgemm " + std::string(1, s.ta) + std::string(1, s.tb) + " "
                        + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K) + ", "
                        + std::to_string(nthr) + " thread(s)";
                dnnl_status_t st = dnnl_sgemm(
                        s.ta, s.tb, s.M, s.N, s.K, 1.f, A.data(), lda, B.data(), ldb, 0.f, C.data(), s.N);
                window_t w = count([&] {
                    for (int i = 0; i < steady_runs && st == dnnl_success; ++i)
                        st = dnnl_sgemm(
                                s.ta, s.tb, s.M, s.N, s.K, 1.f, A.data(), lda, B.data(), ldb, 0.5f, C.data(), s.N);
                });
                ++n_checked;
                if (w.total() != 0 || st != dnnl_success)
                    std::fprintf(stderr, "%s: %ld operator new, %ld C allocations (status %d)\n", label.c_str(),
                            w.news, w.cs, (int)st);
                t.check(w.total() == 0 && st == dnnl_success, label.c_str());
            });
        }
    }
    // Changing shapes between calls: after every shape has been seen once,
    // a round over all of them allocates nothing either.
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            std::vector<float> A(300 * 300, 0.5f), B(300 * 300, 0.25f), C(300 * 300, 0.f);
            auto round = [&] {
                for (const auto &s : shapes)
                    KT_OK(dnnl_sgemm(s.ta, s.tb, s.M, s.N, s.K, 1.f, A.data(), s.ta == 'N' ? std::max<dnnl_dim_t>(s.K, 1) : s.M,
                            B.data(), s.tb == 'N' ? s.N : std::max<dnnl_dim_t>(s.K, 1), 0.f, C.data(), s.N));
            };
            round();
            window_t w = count(round);
            ++n_checked;
            std::string label = "sgemm, every shape in turn, " + std::to_string(nthr) + " thread(s)";
            if (w.total() != 0)
                std::fprintf(stderr, "%s: %ld operator new, %ld C allocations\n", label.c_str(), w.news, w.cs);
            t.check(w.total() == 0, label.c_str());
        });
    }
}

// The C++ wrapper adds nothing: primitive::execute with a map the caller
// built once, and reorder::execute(stream, src, dst).
void check_cpp_api() {
    using namespace dnnl;
    engine e(engine::kind::cpu, 0);
    stream s(e);
    memory::desc md({2, 17, 5, 4}, memory::data_type::f32, memory::format_tag::nchw);
    memory::desc blocked({2, 17, 5, 4}, memory::data_type::f32, memory::format_tag::nChw16c);
    memory src(md, e), dst(md, e), bdst(blocked, e);
    std::fill_n(static_cast<float *>(src.get_data_handle()), 2 * 17 * 5 * 4, 0.5f);
    eltwise_forward elt(eltwise_forward::primitive_desc(
            e, prop_kind::forward_inference, algorithm::eltwise_relu, md, md, 0.f, 0.f));
    const std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    reorder ro(src, bdst);
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            elt.execute(s, args);
            ro.execute(s, src, bdst);
            s.wait();
            window_t w = count([&] {
                for (int i = 0; i < steady_runs; ++i) {
                    elt.execute(s, args);
                    ro.execute(s, src, bdst);
                    s.wait();
                }
            });
            n_checked += 2;
            std::string label = "C++ API eltwise and reorder, " + std::to_string(nthr) + " thread(s)";
            if (w.total() != 0)
                std::fprintf(stderr, "%s: %ld operator new, %ld C allocations\n", label.c_str(), w.news, w.cs);
            t.check(w.total() == 0, label.c_str());
        });
    }
}

// The counting itself: an allocation made inside the window is seen.
void check_the_counter() {
    // Through volatile pointers, so the compiler cannot elide the pairs.
    static void *(*volatile c_alloc)(size_t) = std::malloc;
    static std::vector<int> *volatile v = nullptr;
    window_t w = count([] {
        v = new std::vector<int>(3);
        delete v;
        void *p = c_alloc(10);
        std::free(p);
    });
    t.check(w.news == 2 && w.cs >= 1, "the counter sees operator new and malloc");
}

} // namespace

int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    trace = std::getenv("NOALLOC_TRACE") != nullptr;
    if (trace) {
        // backtrace() loads its unwinder on first use, allocating.
        void *f[2];
        backtrace(f, 2);
    }
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    {
        mds_owner_t m;
        scales_mem = make_mem(m.add({quant_len}, dnnl_a));
        zps_mem = make_mem(m.add({quant_len}, dnnl_a, dnnl_s32));
        void *h = nullptr;
        KT_OK(dnnl_memory_get_data_handle(zps_mem, &h));
        std::memset(h, 0, quant_len * sizeof(int32_t));
    }
    // TBB starts its workers (and allocates for them) on first use.
    kt::with_threads(2, [] {
        std::atomic<int> sink {0};
        for (int i = 0; i < 10; ++i)
            tbb::parallel_for(0, 64, [&](int j) { sink.fetch_add(j, std::memory_order_relaxed); });
    });
    check_the_counter();

    auto list = cases();
    kt::with_threads(2, [&] {
        for (int mode = 0; mode < 3; ++mode)
            for (const auto &c : list) check_case(c, mode);
    });
    check_sgemm();
    check_cpp_api();
    std::printf("%zu problems x 3 scratchpad modes, every implementation, 1 and 2 threads, plus sgemm: "
                "%ld combinations checked, %d executions each\n",
            list.size(), n_checked, steady_runs);
    dnnl_memory_destroy(scales_mem);
    dnnl_memory_destroy(zps_mem);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
