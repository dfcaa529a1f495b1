// The values test_bad_input.cpp passes: usable ones (a fresh engine,
// stream, descriptors, attribute, primitive and memory for every call),
// NULLs, and hostile values chosen by the parameter's type and name.
#ifndef KESTREL_TEST_BAD_INPUT_CTX_HPP
#define KESTREL_TEST_BAD_INPUT_CTX_HPP

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "dnnl.h"

namespace kb {

[[noreturn]] inline void setup_failed(const char *what) {
    std::fprintf(stderr, "bad_input: setting up %s failed\n", what);
    std::exit(1);
}
#define KB_OK(x) \
    do { \
        if ((x) != dnnl_success) setup_failed(#x); \
    } while (0)

// Everything a call may need, made fresh for each call.
struct ctx_t {
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    dnnl_memory_desc_t md = nullptr; // 2x16x8x8 f32 nchw
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_post_ops_t po = nullptr;
    dnnl_primitive_desc_t pd = nullptr; // eltwise relu over md
    dnnl_primitive_t prim = nullptr;
    dnnl_memory_t mem = nullptr;
    const_dnnl_memory_desc_t mds[3] {};
    dnnl_exec_arg_t args[2] {};
    alignas(64) unsigned char buf[1 << 16] {};
    void *handles[1] {};
    ctx_t() {
        KB_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        KB_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
        dnnl_dims_t d = {2, 16, 8, 8};
        KB_OK(dnnl_memory_desc_create_with_tag(&md, 4, d, dnnl_f32, dnnl_nchw));
        KB_OK(dnnl_primitive_attr_create(&attr));
        KB_OK(dnnl_post_ops_create(&po));
        KB_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
        KB_OK(dnnl_eltwise_forward_primitive_desc_create(
                &pd, eng, dnnl_forward_inference, dnnl_eltwise_relu, md, md, 0.f, 0.f, nullptr));
        KB_OK(dnnl_primitive_create(&prim, pd));
        KB_OK(dnnl_memory_create(&mem, md, eng, DNNL_MEMORY_ALLOCATE));
        mds[0] = mds[1] = mds[2] = md;
        args[0] = {DNNL_ARG_SRC, mem};
        args[1] = {DNNL_ARG_DST, mem};
        handles[0] = buf;
    }
    ~ctx_t() {
        dnnl_memory_destroy(mem);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_post_ops_destroy(po);
        dnnl_primitive_attr_destroy(attr);
        dnnl_memory_desc_destroy(md);
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
    ctx_t(const ctx_t &) = delete;
};

// Storage behind an output pointer, filled with a pattern the callee must
// leave alone when it fails; also the read-only arrays a call takes.
struct slot_t {
    static constexpr unsigned char pattern = 0xa5;
    alignas(64) unsigned char bytes[4096];
    bool used = false;
    void *out() {
        used = true;
        std::memset(bytes, pattern, sizeof(bytes));
        return bytes;
    }
    bool untouched() const {
        for (unsigned char b : bytes)
            if (b != pattern) return false;
        return true;
    }
    dnnl_dim_t dims[DNNL_MAX_NDIMS];
    int ints[DNNL_MAX_NDIMS];
    float floats[64];
    int8_t i8[64];
    int32_t i32[64];
    uint8_t u8[64] {}; // a blob of zeros: not a blob
};

enum class kind_t { valid, null, hostile };

struct case_t {
    const char *fn;
    int param;
    kind_t kind;
    int variant;
};

inline bool has(const char *s, const char *sub) { return std::strstr(s, sub) != nullptr; }
inline bool is(const std::string &a, const char *b) { return a == b; }

// Hostile values, by variant.
constexpr int n_enum_variants = 2; // far out of range, negative
constexpr int n_int_variants = 2;  // -1, huge
constexpr int n_dims_variants = 5; // negative, zero, huge (product overflows), runtime, one huge
inline const char *kind_name(kind_t k, int v) {
    if (k == kind_t::valid) return "valid";
    if (k == kind_t::null) return "NULL";
    static const char *names[] = {"hostile #0", "hostile #1", "hostile #2", "hostile #3", "hostile #4"};
    return names[v];
}

// A usable enum value for the function at hand.
template <typename T>
T valid_enum(const char *fn) {
    int v = 0;
    if constexpr (std::is_same_v<T, dnnl_prop_kind_t>) v = dnnl_forward_inference;
    if constexpr (std::is_same_v<T, dnnl_data_type_t>) v = dnnl_f32;
    if constexpr (std::is_same_v<T, dnnl_format_tag_t>) v = dnnl_nchw;
    if constexpr (std::is_same_v<T, dnnl_engine_kind_t>) v = dnnl_cpu;
    if constexpr (std::is_same_v<T, dnnl_fpmath_mode_t>) v = dnnl_fpmath_mode_strict;
    if constexpr (std::is_same_v<T, dnnl_scratchpad_mode_t>) v = dnnl_scratchpad_mode_library;
    if constexpr (std::is_same_v<T, dnnl_rnn_direction_t>) v = dnnl_unidirectional_left2right;
    if constexpr (std::is_same_v<T, dnnl_query_t>) v = has(fn, "memory_desc_query") ? dnnl_query_ndims_s32 : dnnl_query_src_md;
    if constexpr (std::is_same_v<T, dnnl_alg_kind_t>) {
        v = dnnl_eltwise_relu;
        if (has(fn, "binary")) v = dnnl_binary_add;
        if (has(fn, "pooling")) v = dnnl_pooling_max;
        if (has(fn, "convolution")) v = dnnl_convolution_direct;
        if (has(fn, "deconvolution")) v = dnnl_deconvolution_direct;
        if (has(fn, "softmax")) v = dnnl_softmax_accurate;
        if (has(fn, "lrn")) v = dnnl_lrn_across_channels;
        if (has(fn, "reduction")) v = dnnl_reduction_sum;
        if (has(fn, "resampling")) v = dnnl_resampling_nearest;
        if (has(fn, "rnn") || has(fn, "lstm") || has(fn, "gru")) v = dnnl_eltwise_tanh;
    }
    T t;
    std::memcpy(&t, &v, sizeof(t));
    return t;
}

inline int valid_int(const std::string &name) {
    if (is(name, "ndims")) return 4;
    if (is(name, "group_ndims") || is(name, "index") || is(name, "mask") || is(name, "level")
            || is(name, "enable") || is(name, "apply_to_int") || is(name, "value"))
        return 0;
    if (is(name, "arg")) return DNNL_ARG_SRC;
    if (is(name, "n") || is(name, "nargs")) return 2;
    return 1; // axis, concat_dimension, nhandles, ...
}

inline dnnl_dim_t valid_dim(const std::string &name) {
    if (is(name, "local_size") || is(name, "kernel_size")) return 3;
    if (is(name, "group_size") || is(name, "groups")) return 2;
    return 1;
}

// Parameters whose NULL oneDNN documents as allowed (or leaves to the
// implementation): only survival, no writes on failure and no leak are
// asked of them.
inline bool optional_name(const std::string &p) {
    static const char *names[] = {"attr", "bias_desc", "hint_fwd_pd", "dilates", "dilation", "stat_desc",
            "factors", "handle", "group_dims", "dst_desc", "src_iter_desc", "src_iter_c_desc",
            "weights_peephole_desc", "weights_projection_desc", "dst_iter_desc", "dst_iter_c_desc",
            "attention_desc", "diff_src_iter_desc", "diff_src_iter_c_desc", "diff_weights_peephole_desc",
            "diff_weights_projection_desc", "diff_bias_desc", "diff_dst_iter_desc", "diff_dst_iter_c_desc",
            "diff_attention_desc", "scales", "cache_blob", "blob", "mapped_ptr", "post_ops", "hint",
            // Documentation silent; Kestrel reads NULL as dense strides.
            "strides", "apply_to_int", "src2_desc"};
    for (const char *n : names)
        if (p == n) return true;
    return false;
}
inline bool optional_null(const case_t &cs, const std::vector<std::string> &names) {
    if (cs.kind != kind_t::null || cs.param < 0) return false;
    const std::string &p = names[cs.param];
    // oneDNN's RNN quantisation getters fill only the outputs they are given.
    if (has(cs.fn, "_get_rnn_") && (p == "scale" || p == "shift" || p == "count" || p == "mask"))
        return true;
    return optional_name(p);
}

// Functions with process-wide effects, and destroy (of the ctx's own
// handles), are only called with bad input.
inline bool skip_valid_call(const char *fn) {
    return has(fn, "_destroy") || has(fn, "set_max_cpu_isa") || has(fn, "set_cpu_isa_hints") || has(fn, "set_verbose")
            || has(fn, "set_jit") || has(fn, "set_primitive_cache_capacity") || has(fn, "set_default_fpmath");
}

inline bool expected_status(
        const case_t &cs, const std::vector<std::string> &names, dnnl_status_t r, dnnl_status_t baseline) {
    const bool destroy = has(cs.fn, "_destroy");
    if (cs.kind == kind_t::null) {
        if (destroy) return r == dnnl_success;
        if (optional_null(cs, names)) return true;
        if (r == dnnl_invalid_arguments) return true;
        // A function Kestrel does not implement says so whatever it is given.
        return r == dnnl_unimplemented && baseline == dnnl_unimplemented;
    }
    return r != dnnl_success; // hostile
}

// The argument for parameter `name` of type T.
template <typename T>
T make_arg(ctx_t &c, slot_t &s, const char *fn, const std::string &name, kind_t k, int v) {
    (void)c, (void)s, (void)fn, (void)name, (void)k, (void)v;
    if constexpr (std::is_pointer_v<T>) {
        if (k == kind_t::null) return nullptr;
        using P = std::remove_pointer_t<T>;
        using B = std::remove_cv_t<P>;
        // Handles.
        if constexpr (std::is_same_v<B, dnnl_engine>) return c.eng;
        else if constexpr (std::is_same_v<B, dnnl_stream>) return c.strm;
        else if constexpr (std::is_same_v<B, dnnl_memory_desc>) return c.md;
        else if constexpr (std::is_same_v<B, dnnl_primitive_attr>) return c.attr;
        else if constexpr (std::is_same_v<B, dnnl_post_ops>) return c.po;
        else if constexpr (std::is_same_v<B, dnnl_primitive_desc>) return c.pd;
        else if constexpr (std::is_same_v<B, dnnl_primitive>) return c.prim;
        else if constexpr (std::is_same_v<B, dnnl_memory>) return c.mem;
        // Read-only arrays.
        else if constexpr (std::is_same_v<P, const_dnnl_memory_desc_t const>) return c.mds;
        else if constexpr (std::is_same_v<P, const dnnl_exec_arg_t>) return c.args;
        else if constexpr (std::is_same_v<P, const char>) return "/tmp";
        else if constexpr (std::is_same_v<P, const dnnl_dim_t>) {
            dnnl_dim_t fill = 1;
            if (is(name, "dims") || is(name, "group_dims")) fill = 2;
            if (is(name, "offsets") || is(name, "dilates") || is(name, "dilation") || is(name, "padding_l")
                    || is(name, "padding_r"))
                fill = 0;
            if (is(name, "kernel")) fill = 3;
            for (auto &d : s.dims) d = fill;
            if (k == kind_t::hostile) {
                const dnnl_dim_t bad[] = {-5, 0, (dnnl_dim_t)1 << 40, DNNL_RUNTIME_DIM_VAL, INT64_MAX};
                if (v == 4) s.dims[0] = bad[v];
                else
                    for (auto &d : s.dims) d = bad[v];
            }
            return s.dims;
        } else if constexpr (std::is_same_v<P, const int>) {
            for (int i = 0; i < DNNL_MAX_NDIMS; ++i) s.ints[i] = i;
            return s.ints;
        } else if constexpr (std::is_same_v<P, const float>) {
            for (auto &f : s.floats) f = 1.f;
            return s.floats;
        } else if constexpr (std::is_same_v<P, const int8_t>) return s.i8;
        else if constexpr (std::is_same_v<P, const int32_t>) return s.i32;
        else if constexpr (std::is_same_v<P, const uint8_t>) return s.u8;
        else if constexpr (std::is_same_v<P, void>) return c.buf;
        else if constexpr (std::is_same_v<P, void *>) {
            if (has(fn, "memory_create_v2")) return c.handles;
            return static_cast<T>(s.out());
        } else {
            static_assert(!std::is_const_v<P>, "an input array type the table does not know");
            return static_cast<T>(s.out()); // an output the callee fills
        }
    } else if constexpr (std::is_enum_v<T>) {
        if (k != kind_t::hostile) return valid_enum<T>(fn);
        int bad = v == 0 ? 0x7fff0000 : -1;
        T t;
        std::memcpy(&t, &bad, sizeof(t));
        return t;
    } else if constexpr (std::is_same_v<T, int>) {
        if (k != kind_t::hostile) return valid_int(name);
        if (is(name, "ndims") && v == 1) return DNNL_MAX_NDIMS + 1;
        return v == 0 ? -1 : 0x7fffffff;
    } else if constexpr (std::is_same_v<T, dnnl_dim_t>) {
        if (k != kind_t::hostile) return valid_dim(name);
        return v == 0 ? -5 : INT64_MAX;
    } else if constexpr (std::is_same_v<T, float>) {
        return is(name, "epsilon") ? 1e-5f : 1.f;
    } else {
        return T {}; // unsigned flags, size_t, int8_t, uint8_t, int32_t
    }
}

// Which parameters get which bad values. Every one of these is invalid
// when negative. Too large is invalid only where the library can tell: a
// huge index or mask is legal until a primitive reads it (a query past the
// last input answers with a zero descriptor, as oneDNN's does), and a count
// larger than the array passed is the caller's overrun, not a detectable
// error, so those get -1 only.
inline bool hostile_int_name(const std::string &n) {
    static const char *names[] = {"ndims", "index", "mask", "arg", "n", "nargs", "axis", "softmax_axis",
            "concat_dimension", "group_ndims", "nhandles", "level", "capacity"};
    for (const char *x : names)
        if (n == x) return true;
    return false;
}
inline bool huge_int_invalid(const std::string &n) {
    return n == "ndims" || n == "axis" || n == "softmax_axis" || n == "concat_dimension" || n == "group_ndims"
            || n == "level";
}
inline bool hostile_dim_name(const std::string &n) {
    return n == "M" || n == "N" || n == "K" || n == "local_size" || n == "groups" || n == "group_size"
            || n == "kernel_size" || n == "stride_size" || n == "nnz";
}
inline bool hostile_dims_name(const char *fn, const std::string &n) {
    // Dims of a memory descriptor, and the strides and kernel of a
    // primitive: every one of the variants is invalid there (a runtime
    // dim is allowed in a memory descriptor, so not for those).
    return n == "dims" || n == "kernel" || (n == "strides" && has(fn, "primitive_desc_create"));
}

template <typename T>
void add_cases(std::vector<case_t> &out, const char *fn, int i, const std::string &name) {
    (void)fn, (void)i, (void)name, (void)out;
    if constexpr (std::is_pointer_v<T>) {
        out.push_back({fn, i, kind_t::null, 0});
        if constexpr (std::is_same_v<T, const dnnl_dim_t *>) {
            if (hostile_dims_name(fn, name))
                for (int v = 0; v < n_dims_variants; ++v) {
                    // Zero-sized and runtime dims are legal in a memory descriptor.
                    if (name == "dims" && (v == 1 || v == 3)) continue;
                    out.push_back({fn, i, kind_t::hostile, v});
                }
        }
    } else if constexpr (std::is_enum_v<T>) {
        for (int v = 0; v < n_enum_variants; ++v) out.push_back({fn, i, kind_t::hostile, v});
    } else if constexpr (std::is_same_v<T, int>) {
        if (hostile_int_name(name))
            for (int v = 0; v < n_int_variants; ++v)
                if (v == 0 || huge_int_invalid(name)) out.push_back({fn, i, kind_t::hostile, v});
    } else if constexpr (std::is_same_v<T, dnnl_dim_t>) {
        if (hostile_dim_name(name)) out.push_back({fn, i, kind_t::hostile, 0});
    }
}

template <typename... A, size_t... I>
void add_all(std::vector<case_t> &out, const char *fn, const std::vector<std::string> &names,
        std::index_sequence<I...>) {
    (void)out, (void)fn, (void)names;
    (add_cases<A>(out, fn, (int)I, names[I]), ...);
}

template <typename... A>
std::vector<case_t> cases(const char *fn, const std::vector<std::string> &names) {
    std::vector<case_t> out;
    add_all<A...>(out, fn, names, std::index_sequence_for<A...> {});
    return out;
}

// After a successful call: destroy the handles it created (getters lend
// handles the ctx owns; only creation, cloning and derived descriptors make
// new ones).
inline bool creates(const char *fn) {
    return has(fn, "create") || has(fn, "clone") || has(fn, "reshape") || has(fn, "permute");
}
template <typename T>
void release_output(const char *fn, slot_t &s) {
    if (!s.used || s.untouched() || !creates(fn)) return;
    if constexpr (std::is_same_v<T, dnnl_memory_desc_t *>) dnnl_memory_desc_destroy(*(dnnl_memory_desc_t *)s.bytes);
    if constexpr (std::is_same_v<T, dnnl_primitive_desc_t *>)
        dnnl_primitive_desc_destroy(*(dnnl_primitive_desc_t *)s.bytes);
    if constexpr (std::is_same_v<T, dnnl_primitive_t *>) dnnl_primitive_destroy(*(dnnl_primitive_t *)s.bytes);
    if constexpr (std::is_same_v<T, dnnl_primitive_attr_t *>)
        dnnl_primitive_attr_destroy(*(dnnl_primitive_attr_t *)s.bytes);
    if constexpr (std::is_same_v<T, dnnl_post_ops_t *>) dnnl_post_ops_destroy(*(dnnl_post_ops_t *)s.bytes);
    if constexpr (std::is_same_v<T, dnnl_memory_t *>) dnnl_memory_destroy(*(dnnl_memory_t *)s.bytes);
    if constexpr (std::is_same_v<T, dnnl_stream_t *>) dnnl_stream_destroy(*(dnnl_stream_t *)s.bytes);
    if constexpr (std::is_same_v<T, dnnl_engine_t *>) dnnl_engine_destroy(*(dnnl_engine_t *)s.bytes);
}
template <typename... A, size_t... I>
void release_outputs(const char *fn, slot_t *slots, std::index_sequence<I...>) {
    (void)fn, (void)slots;
    (release_output<A>(fn, slots[I]), ...);
}

// Execution with wrong, missing or mismatched arguments, on the ctx's
// eltwise primitive: each must be refused and leave dst alone.
inline void execute_cases(int &passed, int &failed, long &calls, bool) {
    struct exec_case_t {
        const char *what;
        int nargs;
        int arg0, arg1;
        int mem1; // 0: ctx memory, 1: memory with another shape, 2: NULL memory for dst
    };
    const exec_case_t list[] = {
            {"missing dst", 1, DNNL_ARG_SRC, 0, 0},
            {"missing src", 1, DNNL_ARG_DST, 0, 0},
            {"no arguments", 0, 0, 0, 0},
            {"dst of another shape", 2, DNNL_ARG_SRC, DNNL_ARG_DST, 1},
            {"weights instead of dst", 2, DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, 0},
            {"negative nargs", -1, DNNL_ARG_SRC, DNNL_ARG_DST, 0},
    };
    for (const auto &e : list) {
        ctx_t c;
        dnnl_memory_desc_t other = nullptr;
        dnnl_memory_t m1 = nullptr;
        dnnl_dims_t d = {2, 16, 8, 9};
        KB_OK(dnnl_memory_desc_create_with_tag(&other, 4, d, dnnl_f32, dnnl_nchw));
        std::vector<float> buf(2 * 16 * 8 * 9, 7.f);
        KB_OK(dnnl_memory_create(&m1, e.mem1 == 1 ? other : c.md, c.eng, buf.data()));
        dnnl_exec_arg_t args[2] = {{e.arg0, c.mem}, {e.arg1, m1}};
        dnnl_status_t st = dnnl_primitive_execute(c.prim, c.strm, e.nargs, args);
        ++calls;
        bool untouched = true;
        for (float x : buf) untouched = untouched && x == 7.f;
        if (st == dnnl_invalid_arguments && untouched) {
            ++passed;
        } else {
            ++failed;
            std::fprintf(stderr, "FAIL: execute with %s -> status %d%s\n", e.what, (int)st,
                    untouched ? "" : ", wrote into dst");
        }
        dnnl_memory_destroy(m1);
        dnnl_memory_desc_destroy(other);
    }
}

} // namespace kb

#endif
