#include "scratchpad/sysmem.hpp"

#include <atomic>
#include <cstdlib>

namespace kestrel {
namespace sysmem {

namespace {
std::atomic<uint64_t> n_allocs {0}, n_frees {0};
std::atomic<long> budget {-1};

bool may_allocate() {
    long b = budget.load(std::memory_order_relaxed);
    while (b >= 0) {
        if (b == 0) return false;
        if (budget.compare_exchange_weak(b, b - 1)) return true;
    }
    return true;
}
} // namespace

void *alloc(size_t size, size_t alignment) {
    if (size == 0 || !may_allocate()) return nullptr;
    if (alignment < sizeof(void *)) alignment = sizeof(void *);
    void *p = nullptr;
    if (posix_memalign(&p, alignment, size) != 0) return nullptr;
    n_allocs.fetch_add(1, std::memory_order_relaxed);
    return p;
}

void free(void *p) {
    if (!p) return;
    n_frees.fetch_add(1, std::memory_order_relaxed);
    std::free(p);
}

counters_t counters() { return {n_allocs.load(), n_frees.load()}; }

void fail_after(long n) { budget.store(n < 0 ? -1 : n); }

} // namespace sysmem
} // namespace kestrel
