// Helpers of the f32 matmul tests: plain or transposed tensors of small
// integers, execution through the C API, and the run of the first
// implementation and the reference against a naive expected dst.
#ifndef KESTREL_TEST_GEMM_MATMUL_UTIL_HPP
#define KESTREL_TEST_GEMM_MATMUL_UTIL_HPP

#include <cstring>
#include <string>
#include <vector>

#include "../common/kt_test.hpp"
#include "../common/naive_attr.hpp"
#include "../common/naive_gemm.hpp"

namespace mm {

inline kt::tally_t T;
inline dnnl_engine_t eng;
inline dnnl_stream_t strm;

struct tensor_t {
    dnnl_memory_desc_t md = nullptr;
    std::vector<float> data;
    tensor_t() = default;
    tensor_t(const tensor_t &) = delete;
    ~tensor_t() { dnnl_memory_desc_destroy(md); }
    void init(int nd, const dnnl_dim_t *dims, const dnnl_dim_t *strides, uint64_t seed) {
        if (strides)
            KT_OK(dnnl_memory_desc_create_with_strides(&md, nd, dims, dnnl_f32, strides));
        else
            KT_OK(dnnl_memory_desc_create_with_tag(&md, nd, dims, dnnl_f32, plain(nd)));
        data.assign(dnnl_memory_desc_get_size(md) / sizeof(float) + 1, 0.f);
        kt::rng_t r(seed);
        for (auto &v : data) v = r.small_int(-3, 3);
    }
    static dnnl_format_tag_t plain(int nd) {
        const dnnl_format_tag_t t[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd,
                dnnl_abcde};
        return t[nd];
    }
};

struct arg_t {
    int arg;
    const_dnnl_memory_desc_t md;
    float *data;
};

inline dnnl_status_t execute(const_dnnl_primitive_desc_t pd, const std::vector<arg_t> &args) {
    dnnl_primitive_t p;
    dnnl_status_t st = dnnl_primitive_create(&p, pd);
    if (st != dnnl_success) return st;
    std::vector<dnnl_exec_arg_t> ea;
    std::vector<dnnl_memory_t> mems;
    for (auto &a : args) {
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, a.md, eng, a.data));
        mems.push_back(m);
        ea.push_back({a.arg, m});
    }
    st = dnnl_primitive_execute(p, strm, (int)ea.size(), ea.data());
    if (st == dnnl_success) st = dnnl_stream_wait(strm);
    for (auto m : mems) dnnl_memory_destroy(m);
    dnnl_primitive_destroy(p);
    return st;
}

// Runs the first implementation, then (passes 2) the reference (walking next_impl);
// each result must match `want` within `tol` (see na::apply). Returns the
// first implementation's name through `first`.
inline bool check_impls(dnnl_primitive_desc_t pd, std::vector<arg_t> args, int dst_idx, size_t dst_n,
        const std::vector<float> &want, const std::vector<double> &tol, std::string &first, const char *what,
        int passes = 2) {
    first = kt::impl_name(pd);
    const std::vector<float> init(args[dst_idx].data, args[dst_idx].data + dst_n);
    bool ok = true;
    for (int pass = 0; pass < passes; ++pass) {
        if (pass == 1)
            while (kt::impl_name(pd).rfind("ref", 0) != 0)
                if (dnnl_primitive_desc_next_impl(pd) != dnnl_success) return false;
        std::vector<float> out = init;
        args[dst_idx].data = out.data();
        if (execute(pd, args) != dnnl_success) return false;
        const std::string w = std::string(what) + " [" + kt::impl_name(pd) + "]";
        ok = na::match(out, want, tol, w.c_str()) && ok;
    }
    return ok;
}

// Logical values of a test tensor (plain or transposed strides).
inline std::vector<float> logical(const tensor_t &t) {
    std::vector<float> v;
    KT_EXPECT(na::logical(t.md, t.data.data(), v));
    return v;
}

inline na::dims_t dims_of(int nd, const dnnl_dim_t *d) { return na::dims_t(d, d + nd); }

} // namespace mm

#endif
