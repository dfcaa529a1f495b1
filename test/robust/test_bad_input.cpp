// Bad input, table-driven over every function of the C API. The table is
// the header itself (gen-bad-input.sh lists the functions and their
// parameter names; each parameter's type is deduced from the function).
// For every parameter of pointer type the function is called with NULL
// there and usable values everywhere else; for every enum, count, index,
// dims array and the like, with hostile values (out of range, negative,
// zero, huge, overflowing, runtime dims, ndims 0 and 13). Each call must:
//   - return the documented status: dnnl_invalid_arguments for a NULL that
//     is not optional, success for destroy(NULL), never success for a
//     hostile value (functions that return no status must return 0/NULL);
//   - write nothing into the caller's outputs when it fails;
//   - leak nothing (operator new is counted, across libdnnl.so too).
// Where oneDNN's documentation allows NULL (attr, bias, hints, dilation...)
// the call only has to survive, write nothing on failure and leak nothing.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dnnl.h"

// ------------------------------------------------------ allocation counter
namespace {
std::atomic<long> live {0};
void *counted(size_t n) {
    void *p = std::malloc(n ? n : 1);
    if (p) live.fetch_add(1, std::memory_order_relaxed);
    return p;
}
[[gnu::noinline]] void uncounted(void *p) {
    if (!p) return;
    live.fetch_sub(1, std::memory_order_relaxed);
    std::free(p);
}
void *counted_aligned(size_t n, size_t a) {
    void *p = std::aligned_alloc(a, (n + a - 1) / a * a);
    if (p) live.fetch_add(1, std::memory_order_relaxed);
    return p;
}
} // namespace
void *operator new(size_t n) {
    void *p = counted(n);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n) { return operator new(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept { return counted(n); }
void *operator new[](size_t n, const std::nothrow_t &) noexcept { return counted(n); }
void *operator new(size_t n, std::align_val_t a) {
    void *p = counted_aligned(n, (size_t)a);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void *p) noexcept { uncounted(p); }
void operator delete[](void *p) noexcept { uncounted(p); }
void operator delete(void *p, size_t) noexcept { uncounted(p); }
void operator delete[](void *p, size_t) noexcept { uncounted(p); }
void operator delete(void *p, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void *p, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void *p, size_t, std::align_val_t) noexcept { uncounted(p); }

#include "bad_input_ctx.hpp"

namespace {

int passed = 0, failed = 0;
bool checking_leaks = false; // the first pass warms up one-time state
long calls = 0;

void fail(const std::string &what) {
    ++failed;
    std::fprintf(stderr, "FAIL: %s\n", what.c_str());
}

template <typename R, typename... A, size_t... I>
R call_with(R (*f)(A...), kb::ctx_t &c, kb::slot_t *slots, const std::vector<std::string> &names,
        const kb::case_t &cs, std::index_sequence<I...>) {
    (void)c, (void)slots, (void)names, (void)cs;
    return f(kb::make_arg<A>(c, slots[I], cs.fn, names[I], (int)I == cs.param ? cs.kind : kb::kind_t::valid,
            cs.variant)...);
}

template <typename R, typename... A>
void run_case(R (*f)(A...), const kb::case_t &cs, const std::vector<std::string> &names, R baseline) {
    constexpr size_t n = sizeof...(A);
    kb::ctx_t c;
    kb::slot_t slots[n == 0 ? 1 : n];
    long live0 = live.load();
    R r = call_with(f, c, slots, names, cs, std::index_sequence_for<A...> {});
    ++calls;
    bool success = true, ok_status = true;
    if constexpr (std::is_same_v<R, dnnl_status_t>) {
        success = r == dnnl_success;
        ok_status = kb::expected_status(cs, names, r, baseline);
    } else if (cs.kind != kb::kind_t::valid && !kb::optional_null(cs, names)) {
        ok_status = r == R {};
    }
    bool untouched = true;
    for (size_t i = 0; i < n; ++i)
        if (slots[i].used && !success && !slots[i].untouched()) untouched = false;
    // Release what a successful call produced, then count what is left.
    if constexpr (std::is_same_v<R, dnnl_status_t>)
        if (success) kb::release_outputs<A...>(cs.fn, slots, std::index_sequence_for<A...> {});
    const long leaked = live.load() - live0;
    if (ok_status && untouched && (success || !checking_leaks || leaked == 0)) {
        ++passed;
        return;
    }
    std::string what = cs.fn + std::string("(") + (cs.param >= 0 ? names[cs.param] : "") + " = "
            + kb::kind_name(cs.kind, cs.variant) + ")";
    if (!ok_status) {
        if constexpr (std::is_same_v<R, dnnl_status_t>) what += " -> status " + std::to_string((int)r);
        else what += " -> returned a value";
    }
    if (!untouched) what += " wrote into an output";
    if (!success && checking_leaks && leaked) what += " leaked " + std::to_string(leaked);
    fail(what);
}

template <typename R, typename... A>
void matrix(const char *name, R (*f)(A...), const char *param_names) {
    std::vector<std::string> names;
    for (const char *p = param_names; *p;) {
        const char *e = std::strchr(p, ' ');
        names.emplace_back(p, e ? (size_t)(e - p) : std::strlen(p));
        p = e ? e + 1 : p + std::strlen(p);
    }
    if (names.size() != sizeof...(A)) {
        fail(std::string(name) + ": parameter names do not match the function");
        return;
    }
    // The call with usable values everywhere: its status is the baseline a
    // stub is recognised by.
    R baseline {};
    if (!kb::skip_valid_call(name)) {
        kb::ctx_t c;
        kb::slot_t slots[sizeof...(A) == 0 ? 1 : sizeof...(A)];
        kb::case_t cs {name, -1, kb::kind_t::valid, 0};
        baseline = call_with(f, c, slots, names, cs, std::index_sequence_for<A...> {});
        if constexpr (std::is_same_v<R, dnnl_status_t>)
            if (baseline == dnnl_success) kb::release_outputs<A...>(cs.fn, slots, std::index_sequence_for<A...> {});
    }
    for (const auto &cs : kb::cases<A...>(name, names)) run_case(f, cs, names, baseline);
}

} // namespace

int main() {
    for (int pass = 0; pass < 2; ++pass) {
        checking_leaks = pass == 1;
        passed = failed = 0;
        calls = 0;
#define KB_FN(fn, params) matrix(#fn, fn, params);
#include "bad_input_fns.inc"
#undef KB_FN
        kb::execute_cases(passed, failed, calls, checking_leaks);
    }
    std::printf("%ld calls with bad input over every C API function\n", calls);
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
