// A race planted on purpose inside a body run through Kestrel's threading
// layer. Built only with ThreadSanitizer; tsan_canary.sh passes only when
// TSan reports it, so the TSan setup (annotations, ignorelist) can never
// again hide races inside parallel bodies without CI noticing.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include <tbb/global_control.h>

#include "cpu/threading.hpp"

int main() {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 2);
    int shared = 0;
    // Both chunks wait for each other with relaxed atomics (which order
    // nothing), so they run on two threads, then both write `shared`. The
    // writes are staggered, again through a relaxed flag: TSan can miss two
    // accesses that land at the same instant (each checks the shadow before
    // the other has stored it), which failed one run in five on a 2-core
    // machine. One after the other, with no happens-before between them, it
    // reports every time.
    std::atomic<int> arrived {0};
    std::atomic<int> first_written {0};
    kestrel::parallel(2, [&](int ithr, int) {
        arrived.fetch_add(1, std::memory_order_relaxed);
        auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (arrived.load(std::memory_order_relaxed) < 2 && std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
        if (ithr == 1) {
            while (first_written.load(std::memory_order_relaxed) == 0
                    && std::chrono::steady_clock::now() < until)
                std::this_thread::yield();
        }
        shared += ithr + 1; // the planted race
        if (ithr == 0) first_written.store(1, std::memory_order_relaxed);
    });
    std::printf("tsan_canary: shared = %d (a race must have been reported above)\n", shared);
    return 0;
}
