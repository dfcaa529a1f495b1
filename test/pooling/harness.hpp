// Test harness of the pooling-family tests: runs every implementation a
// primitive descriptor offers (walking dnnl_primitive_desc_next_impl) on the
// same logical inputs and hands back the logical outputs, so optimized
// implementations can be compared with the reference one ("ref:any").
#ifndef KESTREL_TEST_POOLING_HARNESS_HPP
#define KESTREL_TEST_POOLING_HARNESS_HPP

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/kt_test.hpp"
#include "core/memory_desc.hpp"
#include "cpu/types.hpp"

namespace kt {

struct env_t {
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    env_t() {
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    }
    ~env_t() {
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
};

using values_t = std::map<int, std::vector<float>>; // arg -> logical values

// Logical element count of a descriptor.
inline size_t nelems(const_dnnl_memory_desc_t md) {
    return (size_t)kestrel::mdw_t(md).nelems();
}

// Executes `pd` once: inputs get the logical values from `in` (rounded to the
// memory's type), the whole buffer is zeroed first so padding is zero;
// outputs listed in `outs` are read back as logical f32 values.
inline values_t exec_pd(env_t &env, const_dnnl_primitive_desc_t pd, const values_t &in,
        const std::vector<int> &outs) {
    std::vector<dnnl_exec_arg_t> args;
    std::vector<dnnl_memory_t> mems;
    std::vector<std::vector<char>> bufs;
    auto add = [&](int arg) -> const_dnnl_memory_desc_t {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
        KT_EXPECT(md != nullptr);
        size_t sz = dnnl_memory_desc_get_size(md);
        bufs.emplace_back(sz + 64, (char)0);
        dnnl_memory_t m = nullptr;
        KT_OK(dnnl_memory_create(&m, md, env.eng, bufs.back().data()));
        mems.push_back(m);
        args.push_back({arg, m});
        return md;
    };
    for (auto &kv : in) {
        const_dnnl_memory_desc_t md = add(kv.first);
        kestrel::mdw_t w(md);
        KT_EXPECT(kv.second.size() == nelems(md));
        for (size_t l = 0; l < kv.second.size(); ++l)
            kestrel::store_f32(w.data_type(), bufs.back().data(), w.off_l((dnnl_dim_t)l), kv.second[l]);
    }
    std::vector<size_t> out_buf;
    for (int a : outs) {
        add(a);
        out_buf.push_back(bufs.size() - 1);
    }
    const_dnnl_memory_desc_t spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (spmd && dnnl_memory_desc_get_size(spmd) > 0) add(DNNL_ARG_SCRATCHPAD);
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd));
    KT_OK(dnnl_primitive_execute(p, env.strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(env.strm));
    values_t res;
    for (size_t i = 0; i < outs.size(); ++i) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, outs[i]);
        kestrel::mdw_t w(md);
        std::vector<float> v(nelems(md));
        for (size_t l = 0; l < v.size(); ++l)
            v[l] = kestrel::load_f32(w.data_type(), bufs[out_buf[i]].data(), w.off_l((dnnl_dim_t)l));
        res[outs[i]] = std::move(v);
    }
    dnnl_primitive_destroy(p);
    for (auto m : mems) dnnl_memory_destroy(m);
    return res;
}

struct impl_run_t {
    std::string name;
    values_t outs;
};

// Runs every implementation of the descriptor that `make` creates. The
// inputs are generated once by `gen` from the first implementation's
// descriptors (all implementations share the logical shapes).
inline std::vector<impl_run_t> run_all(env_t &env,
        const std::function<dnnl_status_t(dnnl_primitive_desc_t *)> &make,
        const std::function<values_t(const_dnnl_primitive_desc_t)> &gen, const std::vector<int> &outs) {
    std::vector<impl_run_t> runs;
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(make(&pd));
    values_t in = gen(pd);
    do {
        runs.push_back({impl_name(pd), exec_pd(env, pd, in, outs)});
    } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
    dnnl_primitive_desc_destroy(pd);
    return runs;
}

// Random logical values for an argument of `pd`.
inline std::vector<float> random_for(const_dnnl_primitive_desc_t pd, int arg, uint64_t seed,
        float lo = -2.f, float hi = 2.f) {
    const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    std::vector<float> v(nelems(md));
    fill(v, seed, lo, hi);
    // Values representable in the memory's type, so every implementation
    // reads the same numbers.
    if (kestrel::mdw_t(md).data_type() == dnnl_bf16)
        for (auto &x : v) x = kestrel::bf16_to_f32(kestrel::f32_to_bf16(x));
    return v;
}

// max |a - b| / (atol + rtol * |b|) <= 1 for every element.
inline bool close(const std::vector<float> &a, const std::vector<float> &b, double rtol, double atol,
        const char *what) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i])) {
            if (std::isnan(a[i]) != std::isnan(b[i])) return false;
            continue;
        }
        double d = std::fabs((double)a[i] - b[i]);
        if (d > atol + rtol * std::fabs((double)b[i])) {
            std::fprintf(stderr, "  %s: element %zu: %.9g vs ref %.9g\n", what, i, a[i], b[i]);
            return false;
        }
    }
    return true;
}

} // namespace kt

#endif
