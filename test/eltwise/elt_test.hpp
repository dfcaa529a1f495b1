// Helpers of the element-wise tests: memories filled and read by logical
// index (through the library's own layout helper), primitive runs, and the
// walk to the reference implementation.
#ifndef KESTREL_TEST_ELTWISE_ELT_TEST_HPP
#define KESTREL_TEST_ELTWISE_ELT_TEST_HPP

#include <functional>
#include <map>

#include "../common/kt_test.hpp"
#include "core/memory_desc.hpp"
#include "cpu/types.hpp"

namespace et {

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

// A memory with its own zeroed buffer (padding included).
struct mem_t {
    dnnl_memory_t m = nullptr;
    std::vector<char> buf;
    kestrel::memory_desc_t md;
    mem_t(const_dnnl_memory_desc_t d, dnnl_engine_t eng) : md(*d) {
        buf.assign(kestrel::mdw_t(md).size() + 64, 0);
        KT_OK(dnnl_memory_create(&m, d, eng, buf.data()));
    }
    mem_t(const mem_t &) = delete;
    ~mem_t() { dnnl_memory_destroy(m); }
    kestrel::dim_t nelems() const { return kestrel::mdw_t(md).nelems(); }
    float get(kestrel::dim_t l) const {
        return kestrel::load_f32(md.data_type, buf.data(), kestrel::mdw_t(md).off_l(l));
    }
    void set(kestrel::dim_t l, float v) {
        kestrel::store_f32(md.data_type, buf.data(), kestrel::mdw_t(md).off_l(l), v);
    }
    void fill(uint64_t seed, float lo, float hi) {
        kt::rng_t r(seed);
        for (kestrel::dim_t l = 0; l < nelems(); ++l) set(l, r.uniform(lo, hi));
    }
    std::vector<float> values() const {
        std::vector<float> v((size_t)nelems());
        for (kestrel::dim_t l = 0; l < nelems(); ++l) v[(size_t)l] = get(l);
        return v;
    }
    // True when every padded element is zero.
    bool padding_zero() const {
        kestrel::mdw_t w(md);
        std::vector<char> seen(buf.size(), 0);
        const size_t es = w.dt_size();
        for (kestrel::dim_t l = 0; l < nelems(); ++l)
            std::memset(&seen[(size_t)w.off_l(l) * es], 1, es);
        for (size_t i = 0; i < w.size(); ++i)
            if (!seen[i] && buf[i] != 0) return false;
        return true;
    }
};

inline void run(const_dnnl_primitive_desc_t pd, dnnl_stream_t s,
        std::vector<dnnl_exec_arg_t> args) {
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd));
    KT_OK(dnnl_primitive_execute(p, s, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(s));
    dnnl_primitive_destroy(p);
}

// Moves pd to the reference implementation; false if there is none.
inline bool to_reference(dnnl_primitive_desc_t pd) {
    while (kt::impl_name(pd).rfind("ref", 0) != 0)
        if (dnnl_primitive_desc_next_impl(pd) != dnnl_success) return false;
    return true;
}

inline dnnl_memory_desc_t md(const std::vector<kestrel::dim_t> &dims, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_dims_t d = {};
    for (size_t i = 0; i < dims.size(); ++i) d[i] = dims[i];
    dnnl_memory_desc_t r = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&r, (int)dims.size(), d, dt, tag));
    return r;
}

// |a - b| <= rel * |b| + abs, NaNs equal to NaNs; reports the first miss.
inline bool close(const std::vector<float> &a, const std::vector<float> &b, double rel,
        double abs, const char *what) {
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) && std::isnan(b[i])) continue;
        if (a[i] == b[i]) continue;
        double d = std::fabs((double)a[i] - b[i]);
        if (!(d <= rel * std::fabs((double)b[i]) + abs)) {
            std::fprintf(stderr, "%s: [%zu] got %.9g want %.9g\n", what, i, a[i], b[i]);
            return false;
        }
    }
    return true;
}

constexpr double f32_eps = 1.0 / (1 << 23); // one ulp at 1.0
constexpr double bf16_eps = 1.0 / (1 << 7);

} // namespace et

#endif
