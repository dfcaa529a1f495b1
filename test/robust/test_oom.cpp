// Allocation-failure injection. Every allocation Kestrel makes (operator new
// in all its forms, and the aligned allocations of memory objects, private
// scratchpads and the arena, which come from posix_memalign) is failed in
// turn, one per run of a scenario. Each failing run must return success or
// dnnl_out_of_memory (never another status, a crash or a terminate), leak
// nothing (live allocations back to where they were), and the run after it,
// with no failure, must succeed. The scenarios cover memory descriptors,
// memory objects, attributes and post-ops, descriptor creation, primitive
// creation through the primitive cache, execution in every scratchpad mode,
// and verbose formatting.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "dnnl.h"
#include "core/primitive.hpp"
#include "scratchpad/sysmem.hpp"
#include "kt_test.hpp"

// --------------------------------------------------------------- the hooks
namespace {
std::atomic<long> live {0};       // allocations not yet released
std::atomic<long> countdown {-1}; // fail when it reaches 0; -1: never
std::atomic<bool> injected {false};
std::atomic<bool> trap_here {false}; // OOM_TRAP=name:n raises SIGTRAP at that point, for gdb

bool should_fail() {
    long c = countdown.load(std::memory_order_relaxed);
    while (c >= 0) {
        if (countdown.compare_exchange_weak(c, c - 1)) {
            if (c == 0) {
                injected.store(true);
                if (trap_here.load()) std::raise(SIGTRAP);
                return true;
            }
            return false;
        }
    }
    return false;
}

// (Not posix_memalign: the test's own calls to it would be wrapped too.)
void *hooked_alloc(size_t n, size_t align) {
    if (should_fail()) return nullptr;
    if (n == 0) n = 1;
    void *p = align <= alignof(std::max_align_t) ? std::malloc(n) : std::aligned_alloc(align, (n + align - 1) / align * align);
    if (p) live.fetch_add(1, std::memory_order_relaxed);
    return p;
}
// Not inlined into operator delete: GCC would then see free() of what
// operator new returned and warn (the pair is malloc/free underneath).
[[gnu::noinline]] void hooked_free(void *p) {
    if (!p) return;
    live.fetch_sub(1, std::memory_order_relaxed);
    std::free(p);
}
} // namespace

void *operator new(size_t n) {
    void *p = hooked_alloc(n, alignof(std::max_align_t));
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n) { return operator new(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept { return hooked_alloc(n, alignof(std::max_align_t)); }
void *operator new[](size_t n, const std::nothrow_t &) noexcept { return hooked_alloc(n, alignof(std::max_align_t)); }
void *operator new(size_t n, std::align_val_t a) {
    void *p = hooked_alloc(n, (size_t)a);
    if (!p) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
void *operator new(size_t n, std::align_val_t a, const std::nothrow_t &) noexcept { return hooked_alloc(n, (size_t)a); }
void *operator new[](size_t n, std::align_val_t a, const std::nothrow_t &) noexcept {
    return hooked_alloc(n, (size_t)a);
}
void operator delete(void *p) noexcept { hooked_free(p); }
void operator delete[](void *p) noexcept { hooked_free(p); }
void operator delete(void *p, size_t) noexcept { hooked_free(p); }
void operator delete[](void *p, size_t) noexcept { hooked_free(p); }
void operator delete(void *p, std::align_val_t) noexcept { hooked_free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { hooked_free(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept { hooked_free(p); }
void operator delete[](void *p, size_t, std::align_val_t) noexcept { hooked_free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { hooked_free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { hooked_free(p); }

// Kestrel's aligned allocations (memory objects, private scratchpads, the
// arena) all go through sysmem, which calls posix_memalign: the link wraps
// that call (-Wl,--wrap=posix_memalign) to fail it in turn, and sysmem's own
// counters tell how many of them are live.
extern "C" int __real_posix_memalign(void **p, size_t align, size_t n);
extern "C" int __wrap_posix_memalign(void **p, size_t align, size_t n) {
    if (should_fail()) return ENOMEM;
    return __real_posix_memalign(p, align, n);
}

namespace {
long live_now() {
    auto c = kestrel::sysmem::counters();
    return live.load() + (long)(c.allocs - c.frees);
}
} // namespace

#include "oom_scenarios.hpp"

// ----------------------------------------------------------------- driver
namespace {

kt::tally_t t;
long points = 0;

// The test's own containers allocate too; when the failed allocation was
// one of those, std::bad_alloc reaches here (the library never lets one
// out) and that point is not counted.
dnnl_status_t run_once(const std::function<dnnl_status_t()> &s, bool &test_side) {
    test_side = false;
    try {
        return s();
    } catch (const std::bad_alloc &) {
        test_side = true;
        return dnnl_out_of_memory;
    }
}

// Runs `s` with the n-th allocation failing, for n = 0, 1, ... until a run
// makes fewer than n + 1 allocations.
void inject(const char *name, const std::function<dnnl_status_t()> &s) {
    bool test_side = false, again_side = false;
    if (run_once(s, test_side) != dnnl_success) {
        t.check(false, (std::string(name) + ": runs without injection").c_str());
        return;
    }
    bool ok = true;
    long n = 0;
    for (;; ++n) {
        long live0 = live_now();
        injected.store(false);
        const char *trap = std::getenv("OOM_TRAP");
        trap_here.store(trap && std::string(trap) == std::string(name) + ":" + std::to_string(n));
        countdown.store(n);
        dnnl_status_t st = run_once(s, test_side);
        trap_here.store(false);
        countdown.store(-1);
        if (!injected.load()) {
            if (st != dnnl_success) {
                std::fprintf(stderr, "%s: status %d with no allocation failed\n", name, (int)st);
                ok = false;
            }
            break;
        }
        long leaked = live_now() - live0;
        dnnl_status_t again = run_once(s, again_side);
        if (!test_side) ++points;
        if ((st != dnnl_success && st != dnnl_out_of_memory) || leaked != 0 || again != dnnl_success) {
            std::fprintf(stderr, "%s: allocation %ld failed -> status %d, %ld leaked, next run status %d\n", name,
                    n, (int)st, leaked, (int)again);
            ok = false;
            if (n > 4000) break;
        }
    }
    std::printf("%s: %ld allocation points injected\n", name, n);
    t.check(ok, name);
}

} // namespace

int main() {
    using kestrel::scratchpad_policy_t;
    // Cache entries and one-time state are not leaks: warm everything up,
    // then run with the cache off (the cache scenario turns it on itself).
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    oom::warm_up();
    kt::with_threads(2, [] {
        dnnl_set_primitive_cache_capacity(0);
        for (const auto &sc : oom::scenarios()) inject(sc.name, sc.run);
        for (const auto &sc : oom::primitive_scenarios())
            inject((std::string(sc.name) + " (user scratchpad)").c_str(),
                    [&] { return sc.run(dnnl_scratchpad_mode_user); });
        kestrel::set_library_scratchpad_policy(scratchpad_policy_t::private_buffer);
        for (const auto &sc : oom::primitive_scenarios())
            inject((std::string(sc.name) + " (private scratchpad)").c_str(),
                    [&] { return sc.run(dnnl_scratchpad_mode_library); });
        kestrel::set_library_scratchpad_policy(scratchpad_policy_t::global_arena);
        for (const auto &sc : oom::primitive_scenarios())
            inject((std::string(sc.name) + " (global arena)").c_str(),
                    [&] { return sc.run(dnnl_scratchpad_mode_library); });
        inject("primitive cache on", [] { return oom::with_cache(); });
        inject("verbose formatting", [] { return oom::with_verbose(); });
    });
    std::printf("%ld allocation points injected in all\n", points);
    return t.finish();
}
