// Test harness of the convolution tests: builds problems, fills memories of
// any layout from logical values (padding of blocked layouts is filled with
// NaN so a kernel that reads it shows up), runs every implementation a
// primitive descriptor offers, and reads logical results back.
#ifndef KESTREL_TEST_CONV_CONV_HARNESS_HPP
#define KESTREL_TEST_CONV_CONV_HARNESS_HPP

#include <cmath>
#include <list>
#include <map>
#include <string>
#include <vector>

#include "common/kt_test.hpp"
#include "core/memory_desc.hpp"
#include "cpu/types.hpp"

namespace ktc {

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

inline size_t nelems(const_dnnl_memory_desc_t md) { return (size_t)kestrel::mdw_t(md).nelems(); }

// Executes `pd` once on the logical inputs `in`; `dst_init` is the logical
// dst content before execution (for sum post-ops). Returns logical dst.
inline std::vector<float> exec_pd(env_t &env, const_dnnl_primitive_desc_t pd, const values_t &in,
        const std::vector<float> &dst_init, dnnl_status_t *st_out = nullptr) {
    std::vector<dnnl_exec_arg_t> args;
    std::vector<dnnl_memory_t> mems;
    std::vector<std::vector<char>> bufs;
    std::list<kt::md_t> own; // descriptors of scale arguments
    bufs.reserve(in.size() + 1);
    auto add = [&](int arg, const std::vector<float> &vals) -> const_dnnl_memory_desc_t {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
        if (arg & DNNL_ARG_ATTR_SCALES) {
            own.emplace_back(kt::make_md({(dnnl_dim_t)vals.size()}, dnnl_f32, dnnl_a));
            md = own.back();
        }
        KT_EXPECT(md != nullptr);
        kestrel::mdw_t w(md);
        size_t sz = dnnl_memory_desc_get_size(md);
        bufs.emplace_back(sz + 64, (char)0);
        char *p = bufs.back().data();
        // NaN everywhere (f32 only), then the logical values.
        if (w.data_type() == dnnl_f32)
            for (size_t i = 0; i < sz / 4; ++i) reinterpret_cast<float *>(p)[i] = NAN;
        KT_EXPECT(vals.size() == nelems(md));
        for (size_t l = 0; l < vals.size(); ++l) kestrel::store_f32(w.data_type(), p, w.off_l((dnnl_dim_t)l), vals[l]);
        dnnl_memory_t m = nullptr;
        KT_OK(dnnl_memory_create(&m, md, env.eng, p));
        mems.push_back(m);
        args.push_back({arg, m});
        return md;
    };
    for (auto &kv : in) add(kv.first, kv.second);
    const_dnnl_memory_desc_t dmd = add(DNNL_ARG_DST, dst_init);
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    dnnl_status_t st = dnnl_primitive_execute(prim, env.strm, (int)args.size(), args.data());
    if (st_out)
        *st_out = st;
    else
        KT_OK(st);
    std::vector<float> out(nelems(dmd));
    kestrel::mdw_t w(dmd);
    const char *p = bufs.back().data();
    for (size_t l = 0; l < out.size(); ++l) out[l] = kestrel::load_f32(w.data_type(), p, w.off_l((dnnl_dim_t)l));
    dnnl_primitive_destroy(prim);
    for (auto m : mems) dnnl_memory_destroy(m);
    return out;
}

// Runs every implementation of `pd` (walking next_impl from the first) and
// returns name -> logical dst. The pd ends positioned on its last impl.
inline std::map<std::string, std::vector<float>> exec_all(env_t &env, dnnl_primitive_desc_t pd,
        const values_t &in, const std::vector<float> &dst_init) {
    std::map<std::string, std::vector<float>> r;
    do {
        r[kt::impl_name(pd)] = exec_pd(env, pd, in, dst_init);
    } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
    return r;
}

} // namespace ktc

#endif
