// Shared by Kestrel's fuzz targets: a reader that turns the fuzzer's bytes
// into mostly valid problems (bounded sizes, known enum values) with a few
// hostile fields, and a runner that executes a primitive descriptor once
// with memories made from its own queried descriptors.
//
// Each target defines LLVMFuzzerTestOneInput. Built with clang's
// -fsanitize=fuzzer it is a libFuzzer target; built by any compiler with
// replay_main.cpp it replays corpus files (the regression test of `make check`).
#ifndef KESTREL_TEST_FUZZ_COMMON_HPP
#define KESTREL_TEST_FUZZ_COMMON_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dnnl.h"

namespace kfuzz {

// A finding of the target itself (the library broke a promise the sanitizers
// cannot see, e.g. a descriptor it accepted refuses to execute): abort, so
// libFuzzer saves the input.
#define KFUZZ_REQUIRE(cond, what) \
    do { \
        if (!(cond)) { \
            std::fprintf(stderr, "fuzz finding: %s (%s:%d)\n", what, __FILE__, __LINE__); \
            std::abort(); \
        } \
    } while (0)

// Reads the input front to back; past its end every read returns zero, and
// zero always decodes to the plain, valid choice.
class reader_t {
public:
    reader_t(const uint8_t *data, size_t size) : p_(data), n_(size) {}
    uint8_t u8() { return n_ ? (--n_, *p_++) : 0; }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= (uint32_t)u8() << (8 * i);
        return v;
    }
    // Uniform-ish in [lo, hi].
    int64_t range(int64_t lo, int64_t hi) {
        if (hi <= lo) return lo;
        uint64_t span = (uint64_t)(hi - lo) + 1;
        uint64_t v = span > 256 ? u32() : u8();
        return lo + (int64_t)(v % span);
    }
    // True with probability about percent/100 (never on exhausted input).
    bool chance(int percent) { return u8() % 100 >= (unsigned)(100 - percent) ; }
    template <typename T, size_t N>
    T pick(const T (&options)[N]) {
        return options[u8() % N];
    }
    // A small float, exact in every data type the library stores.
    float small_float() { return (float)((int)(u8() % 9) - 4) * 0.5f; }
    size_t left() const { return n_; }

private:
    const uint8_t *p_;
    size_t n_;
};

// Whether this input carries a hostile field: decided once per input, so
// most inputs are whole valid problems.
struct hostility_t {
    bool on = false;
    int which = 0;
    explicit hostility_t(reader_t &r) {
        uint8_t b = r.u8();
        on = b >= 230;
        which = b % 8;
    }
    // True when the hostile field of kind k is this input's one.
    bool is(int k) const { return on && which == k; }
};

// A hostile value for a dimension: negative, huge, runtime, zero.
inline dnnl_dim_t hostile_dim(reader_t &r) {
    const dnnl_dim_t options[] = {-1, 0, DNNL_RUNTIME_DIM_VAL, (dnnl_dim_t)1 << 40,
            INT64_MAX, INT64_MIN, (dnnl_dim_t)1 << 31, -7};
    return r.pick(options);
}

inline dnnl_data_type_t pick_dt(reader_t &r, bool hostile) {
    if (hostile) return (dnnl_data_type_t)r.range(0, 40);
    const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s8,
            dnnl_u8, dnnl_s32};
    return r.pick(dts);
}

// A layout for an ndims-dimensional tensor: plain orders, channel-blocked
// ones, `any`, and rarely any value of the enum at all.
inline dnnl_format_tag_t pick_tag(reader_t &r, int ndims, bool allow_any) {
    uint8_t b = r.u8();
    if (b >= 250) return (dnnl_format_tag_t)r.range(0, dnnl_format_tag_last + 4);
    if (allow_any && b % 7 == 6) return dnnl_format_tag_any;
    switch (ndims) {
        case 1: return dnnl_a;
        case 2: {
            const dnnl_format_tag_t t[] = {dnnl_ab, dnnl_ba, dnnl_ab, dnnl_AB16b16a};
            return t[b % 4];
        }
        case 3: {
            const dnnl_format_tag_t t[] = {dnnl_abc, dnnl_acb, dnnl_abc, dnnl_aBc16b, dnnl_aBc8b, dnnl_bac};
            return t[b % 6];
        }
        case 4: {
            const dnnl_format_tag_t t[] = {dnnl_abcd, dnnl_acdb, dnnl_abcd, dnnl_aBcd16b,
                    dnnl_aBcd8b, dnnl_cdba, dnnl_ABcd16b16a, dnnl_Abcd16a};
            return t[b % 8];
        }
        case 5: {
            const dnnl_format_tag_t t[] = {dnnl_abcde, dnnl_acdeb, dnnl_abcde, dnnl_aBcde16b, dnnl_aBcde8b};
            return t[b % 5];
        }
        case 6: return dnnl_abcdef;
        default: return dnnl_format_tag_undef;
    }
}

inline dnnl_engine_t engine() {
    static dnnl_engine_t e = [] {
        dnnl_engine_t x = nullptr;
        dnnl_engine_create(&x, dnnl_cpu, 0);
        return x;
    }();
    return e;
}

inline dnnl_stream_t stream() {
    static dnnl_stream_t s = [] {
        dnnl_stream_t x = nullptr;
        dnnl_stream_create(&x, engine(), dnnl_stream_default_flags);
        return x;
    }();
    return s;
}

// Owns every memory descriptor a target makes, so no early return leaks.
struct mds_t {
    std::vector<dnnl_memory_desc_t> all;
    ~mds_t() {
        for (auto m : all) dnnl_memory_desc_destroy(m);
    }
    // A descriptor by tag, or null when the library refuses it.
    dnnl_memory_desc_t tag(int ndims, const dnnl_dim_t *dims, dnnl_data_type_t dt, dnnl_format_tag_t t) {
        dnnl_memory_desc_t m = nullptr;
        if (dnnl_memory_desc_create_with_tag(&m, ndims, dims, dt, t) != dnnl_success) return nullptr;
        all.push_back(m);
        return m;
    }
    void keep(dnnl_memory_desc_t m) {
        if (m) all.push_back(m);
    }
};

// Owns an attribute and its post-ops.
struct attr_t {
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_post_ops_t po = nullptr;
    attr_t() { dnnl_primitive_attr_create(&attr); }
    ~attr_t() {
        if (po) dnnl_post_ops_destroy(po);
        dnnl_primitive_attr_destroy(attr);
    }
};

inline int64_t product(int ndims, const dnnl_dim_t *dims) {
    int64_t n = 1;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] < 0 || dims[i] > (1 << 20)) return INT64_MAX;
        n *= dims[i];
        if (n > ((int64_t)1 << 40)) return INT64_MAX;
    }
    return n;
}

// Appends up to three post-ops (sum, eltwise, binary against a broadcast of
// dst, prelu) to attr for a primitive whose dst has these dims; sometimes a
// hostile one (bad algorithm, mismatched binary source).
inline void add_post_ops(reader_t &r, attr_t &a, mds_t &mds, int ndims, const dnnl_dim_t *dst_dims,
        bool hostile, bool allow_sum = true) {
    int n = (int)r.range(0, 3);
    if (n == 0) return;
    if (dnnl_post_ops_create(&a.po) != dnnl_success) return;
    for (int i = 0; i < n; ++i) {
        switch (r.u8() % 4) {
            case 0:
                if (allow_sum) {
                    dnnl_data_type_t dt = r.chance(20) ? pick_dt(r, false) : dnnl_data_type_undef;
                    dnnl_post_ops_append_sum(a.po, r.small_float(), 0, dt);
                    break;
                }
                // fall through
            case 1: {
                const dnnl_alg_kind_t algs[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_elu,
                        dnnl_eltwise_square, dnnl_eltwise_abs, dnnl_eltwise_sqrt, dnnl_eltwise_linear,
                        dnnl_eltwise_soft_relu, dnnl_eltwise_hardsigmoid, dnnl_eltwise_logistic,
                        dnnl_eltwise_exp, dnnl_eltwise_gelu_tanh, dnnl_eltwise_swish, dnnl_eltwise_log,
                        dnnl_eltwise_clip, dnnl_eltwise_clip_v2, dnnl_eltwise_pow, dnnl_eltwise_gelu_erf,
                        dnnl_eltwise_round, dnnl_eltwise_mish, dnnl_eltwise_hardswish,
                        dnnl_eltwise_relu_use_dst_for_bwd};
                dnnl_alg_kind_t alg = hostile && r.chance(30) ? (dnnl_alg_kind_t)(r.u32() & 0x3ffff) : r.pick(algs);
                dnnl_post_ops_append_eltwise(a.po, alg, r.small_float(), r.small_float());
                break;
            }
            case 2: {
                const dnnl_alg_kind_t algs[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max,
                        dnnl_binary_min, dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge,
                        dnnl_binary_gt, dnnl_binary_le, dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne};
                dnnl_dims_t d;
                // Per dimension: the full extent or a broadcast 1.
                uint8_t mask = r.u8();
                for (int k = 0; k < ndims; ++k) d[k] = (mask >> k) & 1 ? 1 : dst_dims[k];
                int nd = ndims;
                if (hostile && r.chance(40)) {
                    if (r.chance(50)) nd = (int)r.range(0, 7);
                    else d[r.range(0, ndims - 1)] = hostile_dim(r);
                }
                dnnl_data_type_t dt = r.chance(20) ? pick_dt(r, hostile) : dnnl_f32;
                dnnl_memory_desc_t md = mds.tag(nd, d, dt, pick_tag(r, nd, hostile));
                if (md) dnnl_post_ops_append_binary(a.po, r.pick(algs), md);
                break;
            }
            default: {
                int mask = hostile && r.chance(30) ? (int)r.u32() : (int)(r.u8() % 4);
                dnnl_post_ops_append_prelu(a.po, mask);
                break;
            }
        }
    }
    dnnl_primitive_attr_set_post_ops(a.attr, a.po);
}

// Asks for scales on some of the arguments; masks are mostly 0 (one value),
// sometimes a per-dimension mask, rarely anything.
inline void add_scales(reader_t &r, attr_t &a, const int *args, int nargs, bool hostile) {
    for (int i = 0; i < nargs; ++i) {
        if (!r.chance(25)) continue;
        int mask = 0;
        uint8_t b = r.u8();
        if (b >= 200) mask = hostile ? (int)r.u32() : (int)(b % 4);
        dnnl_primitive_attr_set_scales_mask(a.attr, args[i], mask);
    }
}

inline void add_zero_points(reader_t &r, attr_t &a, const int *args, int nargs) {
    for (int i = 0; i < nargs; ++i)
        if (r.chance(10)) dnnl_primitive_attr_set_zero_points_mask(a.attr, args[i], 0);
}

// Fills a buffer of the given type with small deterministic values.
inline void fill(void *p, size_t bytes, dnnl_data_type_t dt, uint32_t seed) {
    uint32_t s = seed * 2654435761u + 12345u;
    auto next = [&s] {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        return s;
    };
    switch (dt) {
        case dnnl_f32: {
            float *f = static_cast<float *>(p);
            for (size_t i = 0; i < bytes / 4; ++i) f[i] = (float)((int)(next() % 9) - 4) * 0.25f;
            break;
        }
        case dnnl_s32: {
            int32_t *v = static_cast<int32_t *>(p);
            for (size_t i = 0; i < bytes / 4; ++i) v[i] = (int32_t)(next() % 7) - 3;
            break;
        }
        case dnnl_bf16:
        case dnnl_f16: {
            // Multiples of 0.5 in [-2, 2]; the same bits mean different values
            // in the two types, both of them finite.
            const uint16_t bf[] = {0xc000, 0xbf80, 0xbf00, 0x0000, 0x3f00, 0x3f80, 0x4000};
            const uint16_t hf[] = {0xc000, 0xbc00, 0xb800, 0x0000, 0x3800, 0x3c00, 0x4000};
            uint16_t *v = static_cast<uint16_t *>(p);
            const uint16_t *tab = dt == dnnl_bf16 ? bf : hf;
            for (size_t i = 0; i < bytes / 2; ++i) v[i] = tab[next() % 7];
            break;
        }
        case dnnl_s8: {
            int8_t *v = static_cast<int8_t *>(p);
            for (size_t i = 0; i < bytes; ++i) v[i] = (int8_t)((int)(next() % 9) - 4);
            break;
        }
        default: {
            uint8_t *v = static_cast<uint8_t *>(p);
            for (size_t i = 0; i < bytes; ++i) v[i] = (uint8_t)(next() % 5);
            break;
        }
    }
}

inline int md_ndims(const_dnnl_memory_desc_t md) {
    int nd = 0;
    if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) != dnnl_success) return 0;
    return nd;
}

inline dnnl_data_type_t md_dt(const_dnnl_memory_desc_t md) {
    dnnl_data_type_t dt = dnnl_data_type_undef;
    if (md) dnnl_memory_desc_query(md, dnnl_query_data_type, &dt);
    return dt;
}

// The arguments a primitive of the families fuzzed here may take.
inline std::vector<int> candidate_args() {
    std::vector<int> a = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2, DNNL_ARG_WEIGHTS,
            DNNL_ARG_BIAS, DNNL_ARG_DST, DNNL_ARG_WORKSPACE, DNNL_ARG_SCRATCHPAD};
    for (int i = 0; i < 8; ++i) {
        a.push_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1);
        a.push_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_WEIGHTS);
    }
    return a;
}

// Bytes dnnl_memory_create allocates for md: its size plus the offset0
// elements in front of it (a submemory's), which get_size leaves out.
inline size_t alloc_bytes(const_dnnl_memory_desc_t md) {
    dnnl_dim_t off = 0;
    dnnl_data_type_t dt = dnnl_data_type_undef;
    dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &off);
    dnnl_memory_desc_query(md, dnnl_query_data_type, &dt);
    const size_t size = dnnl_memory_desc_get_size(md), elt = dnnl_data_type_size(dt);
    if (off < 0 || elt == 0 || (size_t)off > ((size_t)1 << 40) / elt) return SIZE_MAX;
    return size + (size_t)off * elt;
}

inline bool has_runtime_dims(const_dnnl_memory_desc_t md) {
    int nd = md_ndims(md);
    const dnnl_dims_t *dims = nullptr;
    if (nd <= 0 || dnnl_memory_desc_query(md, dnnl_query_dims, &dims) != dnnl_success || !dims) return false;
    for (int i = 0; i < nd; ++i)
        if ((*dims)[i] == DNNL_RUNTIME_DIM_VAL) return true;
    return false;
}

// Memories for one execution, released on every path.
struct exec_mems_t {
    std::vector<dnnl_memory_t> mems;
    std::vector<dnnl_exec_arg_t> args;
    ~exec_mems_t() {
        for (auto m : mems) dnnl_memory_destroy(m);
    }
    // False when the descriptor is too large to run quickly, or describes
    // runtime dimensions (the caller then names concrete ones).
    bool add(int arg, const_dnnl_memory_desc_t md, uint32_t seed) {
        if (has_runtime_dims(md)) return false;
        if (alloc_bytes(md) > ((size_t)64 << 20)) return false;
        const size_t bytes = dnnl_memory_desc_get_size(md);
        dnnl_memory_t m = nullptr;
        dnnl_status_t st = dnnl_memory_create(&m, md, engine(), DNNL_MEMORY_ALLOCATE);
        if (st == dnnl_out_of_memory) return false;
        KFUZZ_REQUIRE(st == dnnl_success, "a queried descriptor makes no memory");
        mems.push_back(m);
        void *p = nullptr;
        dnnl_memory_get_data_handle(m, &p);
        if (p && bytes) fill(p, bytes, md_dt(md), seed);
        args.push_back({arg, m});
        return true;
    }
    // A plain vector for a scale or zero point argument, as long as the
    // tensor it applies to, so that any mask the library accepted finds its
    // values. The library ignores it when the attribute names no such one.
    bool add_quant(int arg, const_dnnl_memory_desc_t of, dnnl_data_type_t dt, uint32_t seed) {
        int nd = md_ndims(of);
        const dnnl_dims_t *dims = nullptr;
        int64_t n = 1;
        if (nd > 0 && dnnl_memory_desc_query(of, dnnl_query_dims, &dims) == dnnl_success && dims)
            n = product(nd, *dims);
        if (n <= 0) n = 1;
        if (n > (1 << 22)) return false;
        dnnl_dim_t d = n;
        dnnl_memory_desc_t md = nullptr;
        if (dnnl_memory_desc_create_with_tag(&md, 1, &d, dt, dnnl_a) != dnnl_success) return false;
        bool ok = add(arg, md, seed);
        dnnl_memory_desc_destroy(md);
        return ok;
    }
};

// Gives the concrete descriptor of an argument the primitive descriptor
// leaves with runtime dimensions (null: none).
typedef const_dnnl_memory_desc_t (*concrete_fn)(void *ctx, int arg);

// Creates the primitive, executes it once with fresh memories and checks
// success: the implementation the descriptor names, then sometimes the
// next ones (up to three in all).
inline void run(dnnl_primitive_desc_t pd, reader_t &r, concrete_fn concrete = nullptr, void *cctx = nullptr) {
    int impls = 1 + (int)(r.u8() % 3);
    for (int n = 0; n < impls; ++n) {
        if (n > 0 && dnnl_primitive_desc_next_impl(pd) != dnnl_success) return;
        exec_mems_t em;
        bool ok = true;
        uint32_t seed = 1;
        for (int arg : candidate_args()) {
            const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
            if (md_ndims(md) == 0) continue;
            if (has_runtime_dims(md)) md = concrete ? concrete(cctx, arg) : nullptr;
            ok = ok && md && em.add(arg, md, seed++);
        }
        const int quant_of[] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
        for (int q : quant_of) {
            const_dnnl_memory_desc_t of = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, q);
            if (md_ndims(of) == 0) continue;
            if (has_runtime_dims(of)) of = concrete ? concrete(cctx, q) : nullptr;
            if (!of) continue;
            ok = ok && em.add_quant(DNNL_ARG_ATTR_SCALES | q, of, dnnl_f32, seed++);
            ok = ok && em.add_quant(DNNL_ARG_ATTR_ZERO_POINTS | q, of, dnnl_s32, seed++);
        }
        if (!ok) return;
        dnnl_primitive_t prim = nullptr;
        dnnl_status_t st = dnnl_primitive_create(&prim, pd);
        if (st == dnnl_out_of_memory) return;
        KFUZZ_REQUIRE(st == dnnl_success, "an accepted descriptor makes no primitive");
        st = dnnl_primitive_execute(prim, stream(), (int)em.args.size(), em.args.data());
        dnnl_status_t wst = dnnl_stream_wait(stream());
        dnnl_primitive_destroy(prim);
        if (st == dnnl_out_of_memory) return;
        if (st != dnnl_success) std::fprintf(stderr, "execute returned status %d\n", (int)st);
        KFUZZ_REQUIRE(st == dnnl_success, "an accepted descriptor does not execute");
        KFUZZ_REQUIRE(wst == dnnl_success, "stream wait failed");
    }
}

} // namespace kfuzz

#endif
