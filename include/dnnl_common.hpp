/* Kestrel: C++ API, common part (engine, stream, errors, handles).
 *
 * Source-compatible with the oneDNN v3.9 C++ API. Header-only; everything
 * here is a thin RAII layer over the C API declared in dnnl_common.h. */

#ifndef ONEAPI_DNNL_DNNL_COMMON_HPP
#define ONEAPI_DNNL_DNNL_COMMON_HPP

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dnnl_common.h"

/* Exceptions are used unless the translation unit is built without them;
 * the user may force the choice by defining DNNL_ENABLE_EXCEPTIONS. */
#ifndef DNNL_ENABLE_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) \
        || (defined(_MSC_VER) && !defined(__clang__))
#define DNNL_ENABLE_EXCEPTIONS 1
#else
#define DNNL_ENABLE_EXCEPTIONS 0
#endif
#endif

namespace dnnl {

/* ---------------------------------------------------------------- errors */

/* The exception type thrown by every wrapper whose C call fails. */
struct error : public std::exception {
    dnnl_status_t status;
    std::string message;

    error(dnnl_status_t status, std::string message)
        : status(status), message(std::move(message)) {}

    const char *what() const noexcept override { return message.c_str(); }

    /* Throws error(status, message) unless status is dnnl_success. */
    static void wrap_c_api(dnnl_status_t status, const std::string &message);
};

namespace detail {

/* Single exit point for every failure raised by the C++ layer. */
[[noreturn]] inline void raise(
        dnnl_status_t status, const std::string &message) {
#if DNNL_ENABLE_EXCEPTIONS
    throw error(status, message);
#else
    std::fprintf(stderr, "oneDNN error (status %d): %s\n", (int)status,
            message.c_str());
    std::abort();
#endif
}

/* Checks a C status; `what` names the operation that was attempted. */
inline void check(dnnl_status_t status, const char *what) {
    if (status != dnnl_success)
        raise(status, std::string("could not ") + what);
}

} // namespace detail

inline void error::wrap_c_api(
        dnnl_status_t status, const std::string &message) {
    if (status != dnnl_success) detail::raise(status, message);
}

/* --------------------------------------------------------------- handles */

/* Specialised per C handle type with a static `destructor` function. */
template <typename T>
struct handle_traits {};

/* Shared-ownership wrapper of a C handle. A weak handle never destroys the
 * object it refers to. Copies share ownership. */
template <typename T, typename traits = handle_traits<T>>
struct handle {
    handle() = default;
    handle(const handle<T, traits> &) = default;
    handle<T, traits> &operator=(const handle<T, traits> &) = default;
    handle(handle<T, traits> &&) = default;
    handle<T, traits> &operator=(handle<T, traits> &&) = default;

    explicit handle(T t, bool weak = false) { reset(t, weak); }

    void reset(T t, bool weak = false) {
        if (t == nullptr)
            data_.reset();
        else if (weak)
            data_.reset(t, &keep);
        else
            data_.reset(t, &destroy);
    }

    T get(bool allow_empty = false) const {
        T result = data_.get();
        if (!allow_empty && result == nullptr)
            detail::raise(dnnl_invalid_arguments, "object is not initialized");
        return result;
    }

    explicit operator T() const { return get(true); }
    explicit operator bool() const { return get(true) != nullptr; }

    bool operator==(const handle<T, traits> &other) const {
        return data_.get() == other.data_.get();
    }
    bool operator!=(const handle<T, traits> &other) const {
        return !(*this == other);
    }

private:
    typedef typename std::remove_pointer<T>::type object_type;
    static void keep(T) {}
    static void destroy(T t) { traits::destructor(t); }

    std::shared_ptr<object_type> data_;
};

/* Declares handle_traits<C_TYPE> whose destructor calls DESTROY_FN. */
#define KESTREL_DNNL_HANDLE_TRAITS(c_type, destroy_fn) \
    template <> \
    struct handle_traits<c_type> { \
        static dnnl_status_t destructor(c_type p) { return destroy_fn(p); } \
    };

KESTREL_DNNL_HANDLE_TRAITS(dnnl_engine_t, dnnl_engine_destroy)
KESTREL_DNNL_HANDLE_TRAITS(dnnl_stream_t, dnnl_stream_destroy)

/* Bitwise operators for scoped flag enumerations with unsigned storage. */
#define KESTREL_DNNL_BITMASK_OPS(E) \
    inline E operator|(E a, E b) { \
        return static_cast<E>( \
                static_cast<unsigned>(a) | static_cast<unsigned>(b)); \
    } \
    inline E operator&(E a, E b) { \
        return static_cast<E>( \
                static_cast<unsigned>(a) & static_cast<unsigned>(b)); \
    } \
    inline E operator^(E a, E b) { \
        return static_cast<E>( \
                static_cast<unsigned>(a) ^ static_cast<unsigned>(b)); \
    } \
    inline E operator~(E a) { \
        return static_cast<E>(~static_cast<unsigned>(a)); \
    } \
    inline E &operator|=(E &a, E b) { return a = a | b; } \
    inline E &operator&=(E &a, E b) { return a = a & b; } \
    inline E &operator^=(E &a, E b) { return a = a ^ b; }

/* ---------------------------------------------------------------- engine */

struct engine : public handle<dnnl_engine_t> {
    friend struct primitive;
    friend struct reorder;

    enum class kind {
        any = dnnl_any_engine,
        cpu = dnnl_cpu,
        gpu = dnnl_gpu,
    };

    using handle::handle;

    engine() = default;

    engine(kind akind, size_t index) {
        dnnl_engine_t e = nullptr;
        detail::check(dnnl_engine_create(&e, convert_to_c(akind), index),
                "create an engine");
        reset(e);
    }

    static size_t get_count(kind akind) {
        return dnnl_engine_get_count(convert_to_c(akind));
    }

    kind get_kind() const {
        dnnl_engine_kind_t k;
        detail::check(dnnl_engine_get_kind(get(), &k),
                "query the kind of an engine");
        return static_cast<kind>(k);
    }

    /* Returns a weak reference to the engine a primitive descriptor was
     * created on (any type with a get_engine() member works). */
    template <typename primitive_desc>
    static engine query(const primitive_desc &pd) {
        return pd.get_engine();
    }

private:
    static dnnl_engine_kind_t convert_to_c(kind akind) {
        return static_cast<dnnl_engine_kind_t>(akind);
    }
};

inline dnnl_engine_kind_t convert_to_c(engine::kind akind) {
    return static_cast<dnnl_engine_kind_t>(akind);
}

/* ---------------------------------------------------------------- stream */

struct stream : public handle<dnnl_stream_t> {
    enum class flags : unsigned {
        in_order = dnnl_stream_in_order,
        out_of_order = dnnl_stream_out_of_order,
        default_flags = dnnl_stream_default_flags,
#ifdef DNNL_EXPERIMENTAL_PROFILING
        profiling = dnnl_stream_profiling,
#endif
    };

    using handle::handle;

    stream() = default;

    explicit stream(
            const engine &aengine, flags aflags = flags::default_flags) {
        dnnl_stream_t s = nullptr;
        detail::check(dnnl_stream_create(&s, aengine.get(),
                              static_cast<unsigned>(aflags)),
                "create a stream");
        reset(s);
    }

    engine get_engine() const {
        dnnl_engine_t e = nullptr;
        detail::check(dnnl_stream_get_engine(get(), &e),
                "query the engine of a stream");
        return engine(e, true);
    }

    stream &wait() {
        detail::check(dnnl_stream_wait(get()), "wait on a stream");
        return *this;
    }
};

KESTREL_DNNL_BITMASK_OPS(stream::flags)

/* ------------------------------------------------- math/accumulation modes */

enum class fpmath_mode {
    strict = dnnl_fpmath_mode_strict,
    bf16 = dnnl_fpmath_mode_bf16,
    f16 = dnnl_fpmath_mode_f16,
    tf32 = dnnl_fpmath_mode_tf32,
    any = dnnl_fpmath_mode_any,
};

inline dnnl_fpmath_mode_t convert_to_c(fpmath_mode mode) {
    return static_cast<dnnl_fpmath_mode_t>(mode);
}

enum class accumulation_mode {
    strict = dnnl_accumulation_mode_strict,
    relaxed = dnnl_accumulation_mode_relaxed,
    any = dnnl_accumulation_mode_any,
    s32 = dnnl_accumulation_mode_s32,
    f32 = dnnl_accumulation_mode_f32,
    f16 = dnnl_accumulation_mode_f16,
};

inline dnnl_accumulation_mode_t convert_to_c(accumulation_mode mode) {
    return static_cast<dnnl_accumulation_mode_t>(mode);
}

} // namespace dnnl

#endif /* ONEAPI_DNNL_DNNL_COMMON_HPP */
