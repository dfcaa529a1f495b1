// Small helpers shared by Kestrel's C++ correctness tests. Tests compare an
// optimized implementation with the reference one through the public C API,
// so they need deterministic data, tolerant comparison and thread control.
#ifndef KESTREL_TEST_KT_TEST_HPP
#define KESTREL_TEST_KT_TEST_HPP

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "dnnl.h"

namespace kt {

// Aborts the test program (not the library) with a message.
#define KT_OK(expr) \
    do { \
        dnnl_status_t kt_st_ = (expr); \
        if (kt_st_ != dnnl_success) { \
            std::fprintf(stderr, "%s:%d: %s -> status %d\n", __FILE__, __LINE__, #expr, (int)kt_st_); \
            std::exit(1); \
        } \
    } while (0)

#define KT_EXPECT(cond) \
    do { \
        if (!(cond)) { \
            std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            std::exit(1); \
        } \
    } while (0)

// Deterministic pseudo-random numbers (xorshift).
struct rng_t {
    uint64_t s;
    explicit rng_t(uint64_t seed) : s(seed * 0x9e3779b97f4a7c15ull + 1) {}
    uint32_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return (uint32_t)(s >> 11);
    }
    // Uniform in [lo, hi).
    float uniform(float lo, float hi) { return lo + (hi - lo) * (next() & 0xffffff) / 16777216.f; }
    // Small integers in [lo, hi]; sums of them are exact in f32.
    float small_int(int lo, int hi) { return (float)(lo + (int)(next() % (uint32_t)(hi - lo + 1))); }
};

inline void fill(std::vector<float> &v, uint64_t seed, float lo = -1.f, float hi = 1.f) {
    rng_t r(seed);
    for (auto &x : v) x = r.uniform(lo, hi);
}

// Largest |a-b| / max(1, |b|) over the two arrays; +inf if a NaN differs.
inline double max_rel_diff(const float *a, const float *b, size_t n) {
    double worst = 0;
    for (size_t i = 0; i < n; ++i) {
        if (std::isnan(a[i]) != std::isnan(b[i])) return INFINITY;
        if (std::isnan(a[i])) continue;
        double d = std::fabs((double)a[i] - b[i]) / std::fmax(1.0, std::fabs((double)b[i]));
        if (d > worst) worst = d;
    }
    return worst;
}

// Runs f() with TBB limited to n threads.
template <typename F>
void with_threads(int n, F f) {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)n);
    f();
}

// RAII holders for C handles used in tests.
struct md_t {
    dnnl_memory_desc_t h = nullptr;
    md_t() = default;
    explicit md_t(dnnl_memory_desc_t x) : h(x) {}
    md_t(const md_t &) = delete;
    ~md_t() { dnnl_memory_desc_destroy(h); }
    operator const_dnnl_memory_desc_t() const { return h; }
};

inline dnnl_memory_desc_t make_md(std::initializer_list<dnnl_dim_t> dims, dnnl_data_type_t dt,
        dnnl_format_tag_t tag) {
    dnnl_dims_t d = {};
    int n = 0;
    for (auto v : dims) d[n++] = v;
    dnnl_memory_desc_t md = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, n, d, dt, tag));
    return md;
}

// The fields of a blocked memory descriptor, as dnnl_memory_desc_query
// returns them (pointers into the descriptor: valid while it lives).
struct md_fields_t {
    int ndims = 0, inner_nblks = 0;
    dnnl_data_type_t dt = dnnl_data_type_undef;
    const dnnl_dims_t *dims = nullptr, *padded_dims = nullptr, *inner_blks = nullptr, *inner_idxs = nullptr,
                      *strides = nullptr;
    explicit md_fields_t(const_dnnl_memory_desc_t md) {
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &ndims));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_dims, &dims));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_padded_dims, &padded_dims));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &inner_nblks));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_inner_blks, &inner_blks));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &inner_idxs));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_strides, &strides));
    }
};

// The name of the implementation a primitive desc chose.
inline std::string impl_name(const_dnnl_primitive_desc_t pd) {
    const char *s = nullptr;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &s));
    return s ? s : "";
}

// Closing line counted by test/summary.sh: "N passed, M failed".
struct tally_t {
    int passed = 0, failed = 0;
    void check(bool ok, const char *what) {
        if (ok) {
            ++passed;
        } else {
            ++failed;
            std::fprintf(stderr, "FAIL: %s\n", what);
        }
    }
    int finish() const {
        std::printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
};

} // namespace kt

#endif
