// The scenarios test_oom.cpp fails allocation by allocation. Each is a whole
// user flow through the C API that stops at the first status other than
// success, releases everything it made on every path, and returns that
// status.
#ifndef KESTREL_TEST_OOM_SCENARIOS_HPP
#define KESTREL_TEST_OOM_SCENARIOS_HPP

#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "dnnl.h"

namespace oom {

#define OOM_TRY(expr) \
    do { \
        dnnl_status_t st_ = (expr); \
        if (st_ != dnnl_success) return st_; \
    } while (0)

// Owners of C handles; each releases what it holds, whatever happened.
struct mds_t {
    std::vector<dnnl_memory_desc_t> v;
    dnnl_memory_desc_t *add() {
        v.push_back(nullptr);
        return &v.back();
    }
    ~mds_t() {
        for (auto m : v) dnnl_memory_desc_destroy(m);
    }
};
struct attr_h {
    dnnl_primitive_attr_t a = nullptr;
    ~attr_h() { dnnl_primitive_attr_destroy(a); }
};
struct po_h {
    dnnl_post_ops_t p = nullptr;
    ~po_h() { dnnl_post_ops_destroy(p); }
};
struct pd_h {
    dnnl_primitive_desc_t p = nullptr;
    ~pd_h() { dnnl_primitive_desc_destroy(p); }
};
struct prim_h {
    dnnl_primitive_t p = nullptr;
    ~prim_h() { dnnl_primitive_destroy(p); }
};
struct mem_h {
    dnnl_memory_t m = nullptr;
    mem_h() = default;
    mem_h(mem_h &&o) noexcept : m(o.m) { o.m = nullptr; }
    mem_h(const mem_h &) = delete;
    ~mem_h() { dnnl_memory_destroy(m); }
};

struct env_t {
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    ~env_t() {
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
    dnnl_status_t init() {
        OOM_TRY(dnnl_engine_create(&eng, dnnl_cpu, 0));
        return dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    }
};

inline dnnl_status_t md(dnnl_memory_desc_t *out, std::initializer_list<dnnl_dim_t> dims, dnnl_format_tag_t tag,
        dnnl_data_type_t dt = dnnl_f32) {
    dnnl_dims_t d = {};
    int n = 0;
    for (auto v : dims) d[n++] = v;
    return dnnl_memory_desc_create_with_tag(out, n, d, dt, tag);
}

// Descriptors, queries, submemory, reshape, permute, clone.
inline dnnl_status_t memory_descs() {
    mds_t m;
    OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
    dnnl_memory_desc_t plain = m.v.back();
    OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nChw16c));
    dnnl_dims_t dims = {2, 17, 5, 4}, strides = {17 * 20 + 3, 20, 4, 1};
    OOM_TRY(dnnl_memory_desc_create_with_strides(m.add(), 4, dims, dnnl_f32, strides));
    dnnl_dims_t sub = {1, 8, 5, 4}, off = {1, 4, 0, 0};
    OOM_TRY(dnnl_memory_desc_create_submemory(m.add(), plain, sub, off));
    dnnl_dims_t flat = {2, 17 * 20};
    OOM_TRY(dnnl_memory_desc_reshape(m.add(), plain, 2, flat));
    int perm[] = {0, 2, 3, 1};
    OOM_TRY(dnnl_memory_desc_permute_axes(m.add(), plain, perm));
    OOM_TRY(dnnl_memory_desc_clone(m.add(), plain));
    int nd = 0;
    OOM_TRY(dnnl_memory_desc_query(plain, dnnl_query_ndims_s32, &nd));
    return dnnl_memory_desc_get_size(plain) == 2 * 17 * 20 * sizeof(float) ? dnnl_success : dnnl_runtime_error;
}

// Memory objects: allocated, user-owned, handle changes.
inline dnnl_status_t memories() {
    env_t e;
    OOM_TRY(e.init());
    mds_t m;
    OOM_TRY(md(m.add(), {3, 33}, dnnl_ab));
    mem_h a, b;
    OOM_TRY(dnnl_memory_create(&a.m, m.v[0], e.eng, DNNL_MEMORY_ALLOCATE));
    static float user[3 * 33];
    OOM_TRY(dnnl_memory_create(&b.m, m.v[0], e.eng, user));
    OOM_TRY(dnnl_memory_set_data_handle(b.m, user + 0));
    void *h = nullptr;
    return dnnl_memory_get_data_handle(a.m, &h);
}

// Attributes with every kind of post-op and quantisation setting.
inline dnnl_status_t attributes() {
    attr_h a, c;
    po_h p;
    mds_t m;
    OOM_TRY(dnnl_primitive_attr_create(&a.a));
    OOM_TRY(dnnl_primitive_attr_set_scratchpad_mode(a.a, dnnl_scratchpad_mode_user));
    OOM_TRY(dnnl_primitive_attr_set_scales_mask(a.a, DNNL_ARG_SRC, 0));
    OOM_TRY(dnnl_primitive_attr_set_zero_points_mask(a.a, DNNL_ARG_DST, 0));
    OOM_TRY(dnnl_post_ops_create(&p.p));
    OOM_TRY(dnnl_post_ops_append_eltwise(p.p, dnnl_eltwise_relu, 0.5f, 0.f));
    OOM_TRY(dnnl_post_ops_append_sum(p.p, 1.f, 0, dnnl_data_type_undef));
    OOM_TRY(md(m.add(), {1, 8, 1, 1}, dnnl_nchw));
    OOM_TRY(dnnl_post_ops_append_binary(p.p, dnnl_binary_add, m.v[0]));
    OOM_TRY(dnnl_primitive_attr_set_post_ops(a.a, p.p));
    OOM_TRY(dnnl_primitive_attr_clone(&c.a, a.a));
    const_dnnl_post_ops_t got = nullptr;
    return dnnl_primitive_attr_get_post_ops(c.a, &got);
}

// One primitive, created and executed once: descriptor (with an attribute),
// queries, clone, primitive (through the cache when it is on), every
// argument it takes allocated by the library, execution.
using make_pd_t = std::function<dnnl_status_t(dnnl_primitive_desc_t *, dnnl_engine_t, const_dnnl_primitive_attr_t)>;

inline dnnl_status_t run_primitive(const make_pd_t &make, dnnl_scratchpad_mode_t mode) {
    env_t e;
    OOM_TRY(e.init());
    attr_h a;
    OOM_TRY(dnnl_primitive_attr_create(&a.a));
    OOM_TRY(dnnl_primitive_attr_set_scratchpad_mode(a.a, mode));
    pd_h pd, copy;
    OOM_TRY(make(&pd.p, e.eng, a.a));
    OOM_TRY(dnnl_primitive_desc_clone(&copy.p, pd.p));
    const char *impl = nullptr;
    OOM_TRY(dnnl_primitive_desc_query(pd.p, dnnl_query_impl_info_str, 0, &impl));
    prim_h prim;
    OOM_TRY(dnnl_primitive_create(&prim.p, pd.p));

    static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST,
            DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_WORKSPACE,
            DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1, DNNL_ARG_MULTIPLE_SRC + 2, DNNL_ARG_SCRATCHPAD,
            DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1};
    std::vector<mem_h> mems;
    std::vector<dnnl_exec_arg_t> exec;
    mems.reserve(sizeof(args) / sizeof(args[0]));
    for (int arg : args) {
        const_dnnl_memory_desc_t amd = dnnl_primitive_desc_query_md(pd.p, dnnl_query_exec_arg_md, arg);
        if (!amd || dnnl_memory_desc_get_size(amd) == 0) continue;
        mems.emplace_back();
        OOM_TRY(dnnl_memory_create(&mems.back().m, amd, e.eng, DNNL_MEMORY_ALLOCATE));
        void *h = nullptr;
        OOM_TRY(dnnl_memory_get_data_handle(mems.back().m, &h));
        std::memset(h, 0, dnnl_memory_desc_get_size(amd));
        exec.push_back({arg, mems.back().m});
    }
    OOM_TRY(dnnl_primitive_execute(prim.p, e.strm, (int)exec.size(), exec.data()));
    return dnnl_stream_wait(e.strm);
}

struct scenario_t {
    const char *name;
    std::function<dnnl_status_t()> run;
};
struct primitive_scenario_t {
    const char *name;
    std::function<dnnl_status_t(dnnl_scratchpad_mode_t)> run;
};

inline std::vector<scenario_t> scenarios() {
    return {{"memory descriptors", memory_descs}, {"memory objects", memories}, {"attributes", attributes}};
}

inline std::vector<primitive_scenario_t> make_primitive_scenarios() {
    auto prim = [](const char *name, make_pd_t make) {
        return primitive_scenario_t {name, [make](dnnl_scratchpad_mode_t mode) { return run_primitive(make, mode); }};
    };
    static const dnnl_dims_t one = {1, 1}, two = {2, 2}, zero = {0, 0}, three = {3, 3};
    return {
            prim("reorder nchw->nChw16c",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
                        OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nChw16c));
                        return dnnl_reorder_primitive_desc_create(pd, m.v[0], eng, m.v[1], eng, a);
                    }),
            prim("convolution 3x3 (any layouts)",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {2, 19, 9, 7}, dnnl_format_tag_any));
                        OOM_TRY(md(m.add(), {35, 19, 3, 3}, dnnl_format_tag_any));
                        OOM_TRY(md(m.add(), {35}, dnnl_a));
                        OOM_TRY(md(m.add(), {2, 35, 9, 7}, dnnl_format_tag_any));
                        return dnnl_convolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference,
                                dnnl_convolution_direct, m.v[0], m.v[1], m.v[2], m.v[3], one, zero, one, one, a);
                    }),
            prim("convolution 3x3 nchw (gemm)",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {2, 5, 9, 7}, dnnl_nchw));
                        OOM_TRY(md(m.add(), {6, 5, 3, 3}, dnnl_oihw));
                        OOM_TRY(md(m.add(), {2, 6, 4, 3}, dnnl_nchw));
                        return dnnl_convolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference,
                                dnnl_convolution_direct, m.v[0], m.v[1], nullptr, m.v[2], two, zero, zero, zero, a);
                    }),
            prim("deconvolution",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {2, 5, 4, 3}, dnnl_nchw));
                        OOM_TRY(md(m.add(), {6, 5, 3, 3}, dnnl_oihw));
                        OOM_TRY(md(m.add(), {2, 6, 9, 7}, dnnl_nchw));
                        return dnnl_deconvolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference,
                                dnnl_deconvolution_direct, m.v[0], m.v[1], nullptr, m.v[2], two, zero, zero, zero,
                                a);
                    }),
            prim("matmul", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {37, 65}, dnnl_ab));
                OOM_TRY(md(m.add(), {65, 29}, dnnl_ab));
                OOM_TRY(md(m.add(), {37, 29}, dnnl_ab));
                return dnnl_matmul_primitive_desc_create(pd, eng, m.v[0], m.v[1], nullptr, m.v[2], a);
            }),
            prim("inner product",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {5, 33}, dnnl_nc));
                        OOM_TRY(md(m.add(), {17, 33}, dnnl_oi));
                        OOM_TRY(md(m.add(), {5, 17}, dnnl_nc));
                        return dnnl_inner_product_forward_primitive_desc_create(
                                pd, eng, dnnl_forward_inference, m.v[0], m.v[1], nullptr, m.v[2], a);
                    }),
            prim("max pooling (training, workspace)",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {2, 17, 9, 7}, dnnl_nChw16c));
                        OOM_TRY(md(m.add(), {2, 17, 4, 3}, dnnl_nChw16c));
                        return dnnl_pooling_forward_primitive_desc_create(pd, eng, dnnl_forward_training,
                                dnnl_pooling_max, m.v[0], m.v[1], two, three, zero, zero, zero, a);
                    }),
            prim("eltwise gelu", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {3, 35}, dnnl_ab));
                return dnnl_eltwise_forward_primitive_desc_create(
                        pd, eng, dnnl_forward_inference, dnnl_eltwise_gelu_erf, m.v[0], m.v[0], 0.f, 0.f, a);
            }),
            prim("binary add (broadcast)",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
                        OOM_TRY(md(m.add(), {1, 17, 1, 1}, dnnl_nchw));
                        return dnnl_binary_primitive_desc_create(pd, eng, dnnl_binary_add, m.v[0], m.v[1], m.v[0], a);
                    }),
            prim("softmax", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {7, 45}, dnnl_ab));
                return dnnl_softmax_forward_primitive_desc_create(
                        pd, eng, dnnl_forward_inference, dnnl_softmax_accurate, m.v[0], m.v[0], 1, a);
            }),
            prim("batch normalization",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
                        return dnnl_batch_normalization_forward_primitive_desc_create(pd, eng, dnnl_forward_training,
                                m.v[0], m.v[0], 1e-5f, dnnl_use_scale | dnnl_use_shift, a);
                    }),
            prim("layer normalization",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {3, 5, 33}, dnnl_abc));
                        return dnnl_layer_normalization_forward_primitive_desc_create(
                                pd, eng, dnnl_forward_training, m.v[0], m.v[0], nullptr, 1e-5f, dnnl_use_scale, a);
                    }),
            prim("group normalization",
                    [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                        mds_t m;
                        OOM_TRY(md(m.add(), {2, 18, 5, 4}, dnnl_nchw));
                        return dnnl_group_normalization_forward_primitive_desc_create(
                                pd, eng, dnnl_forward_inference, m.v[0], m.v[0], 3, 1e-5f, dnnl_use_shift, a);
                    }),
            prim("lrn", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
                return dnnl_lrn_forward_primitive_desc_create(pd, eng, dnnl_forward_training,
                        dnnl_lrn_across_channels, m.v[0], m.v[0], 5, 1e-4f, 0.75f, 1.f, a);
            }),
            prim("concat", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {2, 3, 5, 4}, dnnl_nchw));
                OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
                OOM_TRY(md(m.add(), {2, 20, 5, 4}, dnnl_format_tag_any));
                const_dnnl_memory_desc_t srcs[] = {m.v[0], m.v[1]};
                return dnnl_concat_primitive_desc_create(pd, eng, m.v[2], 2, 1, srcs, a);
            }),
            prim("sum", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
                OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nhwc));
                const_dnnl_memory_desc_t srcs[] = {m.v[0], m.v[1], m.v[0]};
                const float scales[] = {1.f, 0.5f, 2.f};
                return dnnl_sum_primitive_desc_create(pd, eng, m.v[0], 3, scales, srcs, a);
            }),
            prim("reduction", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
                OOM_TRY(md(m.add(), {2, 1, 5, 4}, dnnl_nchw));
                return dnnl_reduction_primitive_desc_create(pd, eng, dnnl_reduction_mean, m.v[0], m.v[1], 0.f, 0.f, a);
            }),
            prim("resampling", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
                OOM_TRY(md(m.add(), {2, 17, 10, 8}, dnnl_nchw));
                return dnnl_resampling_forward_primitive_desc_create(pd, eng, dnnl_forward_inference,
                        dnnl_resampling_linear, nullptr, m.v[0], m.v[1], a);
            }),
            prim("prelu", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {2, 17, 5, 4}, dnnl_nchw));
                OOM_TRY(md(m.add(), {1, 17, 1, 1}, dnnl_nchw));
                return dnnl_prelu_forward_primitive_desc_create(
                        pd, eng, dnnl_forward_inference, m.v[0], m.v[1], m.v[0], a);
            }),
            prim("shuffle", [](dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const_dnnl_primitive_attr_t a) {
                mds_t m;
                OOM_TRY(md(m.add(), {2, 18, 5, 4}, dnnl_nchw));
                return dnnl_shuffle_forward_primitive_desc_create(
                        pd, eng, dnnl_forward_inference, m.v[0], m.v[0], 1, 3, a);
            }),
    };
}

// Built once, before any injection: the test's own allocations are not what
// is being checked.
inline const std::vector<primitive_scenario_t> &primitive_scenarios() {
    static const std::vector<primitive_scenario_t> list = make_primitive_scenarios();
    return list;
}

// The primitive cache on: creation stores and finds entries. Leaves the
// cache off and empty, so live allocations are comparable.
struct cache_on_t {
    cache_on_t() { dnnl_set_primitive_cache_capacity(16); }
    ~cache_on_t() { dnnl_set_primitive_cache_capacity(0); }
};
inline dnnl_status_t with_cache() {
    cache_on_t on;
    auto &conv = primitive_scenarios()[1];
    dnnl_status_t st = conv.run(dnnl_scratchpad_mode_library);
    if (st == dnnl_success) st = conv.run(dnnl_scratchpad_mode_library);
    return st;
}

// Verbose level 2 formats a line per creation and execution; stdout goes
// to /dev/null meanwhile.
struct quiet_stdout_t {
    int saved;
    quiet_stdout_t() {
        std::fflush(stdout);
        saved = dup(1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        close(null);
        dnnl_set_verbose(2);
    }
    ~quiet_stdout_t() {
        dnnl_set_verbose(0);
        std::fflush(stdout);
        dup2(saved, 1);
        close(saved);
    }
};
inline dnnl_status_t with_verbose() {
    quiet_stdout_t quiet;
    return primitive_scenarios()[4].run(dnnl_scratchpad_mode_library);
}

inline void warm_up() {
    for (const auto &s : scenarios()) s.run();
    for (const auto &s : primitive_scenarios()) {
        s.run(dnnl_scratchpad_mode_library);
        s.run(dnnl_scratchpad_mode_user);
    }
    with_cache();
    with_verbose();
}

} // namespace oom

#endif
