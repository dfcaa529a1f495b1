// Helpers of the low-precision matmul tests: typed buffers filled with
// small integers, execution through the C API, and the run of the first
// implementation and the reference against a naive expected dst.
#ifndef KESTREL_TEST_GEMM_LOWP_UTIL_HPP
#define KESTREL_TEST_GEMM_LOWP_UTIL_HPP

#include <cstring>
#include <string>
#include <vector>

#include "../common/kt_test.hpp"
#include "../common/naive_attr.hpp"
#include "../common/naive_gemm.hpp"

namespace lp {

inline kt::tally_t T;
inline dnnl_engine_t eng;
inline dnnl_stream_t strm;

inline const dnnl_dim_t R = DNNL_RUNTIME_DIM_VAL;

inline size_t dt_size(dnnl_data_type_t dt) {
    return dt == dnnl_f32 || dt == dnnl_s32 ? 4 : (dt == dnnl_bf16 || dt == dnnl_f16) ? 2 : 1;
}

inline uint16_t to_bf16(float f) { // exact for the small integers used here
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return (uint16_t)(b >> 16);
}
inline uint16_t to_f16(float f) { // small integers only: |f| < 2048
    if (f == 0.f) return 0;
    uint16_t sign = f < 0 ? 0x8000 : 0;
    float a = f < 0 ? -f : f;
    int e = 0;
    while (a >= 2.f) a /= 2.f, ++e;
    return (uint16_t)(sign | ((e + 15) << 10) | (uint16_t)((a - 1.f) * 1024.f));
}
inline float from_bf16(uint16_t v) {
    uint32_t b = (uint32_t)v << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// A tensor: its md and bytes, filled with small integers of its type.
struct buf_t {
    dnnl_memory_desc_t md = nullptr;
    std::vector<uint8_t> bytes;
    dnnl_data_type_t dt = dnnl_f32;
    buf_t() = default;
    buf_t(const buf_t &) = delete;
    ~buf_t() { dnnl_memory_desc_destroy(md); }
    void init_md(dnnl_memory_desc_t m, dnnl_data_type_t t, uint64_t seed, int lo = -3, int hi = 3) {
        md = m;
        dt = t;
        bytes.assign(dnnl_memory_desc_get_size(md) + 8, 0);
        kt::rng_t r(seed);
        for (size_t i = 0; i < bytes.size() / dt_size(dt); ++i) set(i, r.small_int(lo, hi));
    }
    void init(std::initializer_list<dnnl_dim_t> dims, dnnl_data_type_t t, dnnl_format_tag_t tag, uint64_t seed,
            int lo = -3, int hi = 3) {
        init_md(kt::make_md(dims, t, tag), t, seed, lo, hi);
    }
    void set(size_t i, float v) {
        switch (dt) {
            case dnnl_f32: reinterpret_cast<float *>(bytes.data())[i] = v; break;
            case dnnl_s32: reinterpret_cast<int32_t *>(bytes.data())[i] = (int32_t)v; break;
            case dnnl_bf16: reinterpret_cast<uint16_t *>(bytes.data())[i] = to_bf16(v); break;
            case dnnl_f16: reinterpret_cast<uint16_t *>(bytes.data())[i] = to_f16(v); break;
            case dnnl_s8: reinterpret_cast<int8_t *>(bytes.data())[i] = (int8_t)v; break;
            case dnnl_u8: bytes[i] = (uint8_t)(v < 0 ? -v : v); break;
            default: break;
        }
    }
    float get(size_t i) const {
        switch (dt) {
            case dnnl_f32: return reinterpret_cast<const float *>(bytes.data())[i];
            case dnnl_s32: return (float)reinterpret_cast<const int32_t *>(bytes.data())[i];
            case dnnl_bf16: return from_bf16(reinterpret_cast<const uint16_t *>(bytes.data())[i]);
            case dnnl_s8: return (float)reinterpret_cast<const int8_t *>(bytes.data())[i];
            case dnnl_u8: return (float)bytes[i];
            default: return 0.f;
        }
    }
};

struct arg_t {
    int arg;
    const_dnnl_memory_desc_t md;
    void *data;
};

inline dnnl_status_t execute(const_dnnl_primitive_desc_t pd, const std::vector<arg_t> &args) {
    dnnl_primitive_t p;
    dnnl_status_t st = dnnl_primitive_create(&p, pd);
    if (st != dnnl_success) return st;
    std::vector<dnnl_exec_arg_t> ea;
    for (auto &a : args) {
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, a.md, eng, a.data));
        ea.push_back({a.arg, m});
    }
    st = dnnl_primitive_execute(p, strm, (int)ea.size(), ea.data());
    for (auto &e : ea) dnnl_memory_destroy(e.memory);
    dnnl_primitive_destroy(p);
    return st;
}

// Logical values of a buffer (plain strided layouts only).
inline std::vector<float> logical(const buf_t &b) {
    std::vector<float> v;
    KT_EXPECT(na::logical(b.md, b.bytes.data(), v));
    return v;
}

// Runs the first implementation (must start with `first`), then the
// reference, on copies of dst (args[0]); each dst must match `want`.
inline bool vs_naive(dnnl_primitive_desc_t pd, std::vector<arg_t> args, const buf_t &d, const std::vector<float> &want,
        const std::vector<double> &tol, const char *first, int nthr, const char *what) {
    bool ok = kt::impl_name(pd).rfind(first, 0) == 0;
    if (!ok) std::fprintf(stderr, "  first impl: %s\n", kt::impl_name(pd).c_str());
    const size_t n = dnnl_memory_desc_get_size(d.md);
    for (int pass = 0; pass < 2 && ok; ++pass) {
        std::vector<uint8_t> out(d.bytes.begin(), d.bytes.begin() + n);
        kt::with_threads(nthr, [&] {
            if (pass == 1)
                while (ok && kt::impl_name(pd).rfind("ref", 0) != 0)
                    ok = dnnl_primitive_desc_next_impl(pd) == dnnl_success;
            args[0].data = out.data();
            ok = ok && execute(pd, args) == dnnl_success;
        });
        std::vector<float> got;
        ok = ok && na::logical(d.md, out.data(), got);
        const std::string w = std::string(what) + " [" + kt::impl_name(pd) + "]";
        ok = ok && na::match(got, want, tol, w.c_str());
    }
    return ok;
}

// The naive chain of make_attr (scales set by the caller).
inline std::vector<na::post_op_t> naive_chain(int po) {
    if (po == 1) return {na::sum_op(0.5f), na::eltwise_op(dnnl_eltwise_relu, 0.f, 0.f)};
    if (po == 2) return {na::eltwise_op(dnnl_eltwise_linear, 0.5f, 1.f)};
    return {};
}

inline dnnl_primitive_attr_t make_attr(int po, bool scales, int wei_mask) {
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    dnnl_post_ops_t ops;
    KT_OK(dnnl_post_ops_create(&ops));
    if (po == 1) {
        KT_OK(dnnl_post_ops_append_sum(ops, 0.5f, 0, dnnl_data_type_undef));
        KT_OK(dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_relu, 0.f, 0.f));
    } else if (po == 2) {
        KT_OK(dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_linear, 0.5f, 1.f));
    }
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, ops));
    dnnl_post_ops_destroy(ops);
    if (scales) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, wei_mask));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    }
    return attr;
}

} // namespace lp

#endif
