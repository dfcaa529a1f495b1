#include "scratchpad/numa.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "config.h"
#include "scratchpad/sysmem.hpp"

#ifdef KESTREL_HAVE_NUMA
#include <numa.h>
#include <sched.h>
#endif

namespace kestrel {
namespace numa {

namespace {

constexpr size_t page_alignment = 4096;

bool env_says_off() {
    const char *v = std::getenv("ONEDNN_NUMA");
    if (!v) v = std::getenv("DNNL_NUMA");
    return v && (!std::strcmp(v, "off") || !std::strcmp(v, "0") || !std::strcmp(v, "OFF"));
}

int read_nodes() {
#ifdef KESTREL_HAVE_NUMA
    if (env_says_off()) return 1;
    if (numa_available() < 0) return 1;
    int n = numa_num_configured_nodes();
    if (n < 1) return 1;
    return n > max_nodes ? max_nodes : n;
#else
    return 1;
#endif
}

std::atomic<int> cached_nodes {0};

} // namespace

int num_nodes() {
    int n = cached_nodes.load(std::memory_order_acquire);
    if (n == 0) {
        n = read_nodes();
        cached_nodes.store(n, std::memory_order_release);
    }
    return n;
}

void reinit() { cached_nodes.store(0, std::memory_order_release); }

int current_node() {
    if (num_nodes() <= 1) return 0;
#ifdef KESTREL_HAVE_NUMA
    int cpu = sched_getcpu();
    if (cpu < 0) return 0;
    int node = numa_node_of_cpu(cpu);
    if (node < 0 || node >= num_nodes()) return 0;
    return node;
#else
    return 0;
#endif
}

void *alloc_on(size_t size, int node, int *placed) {
#ifdef KESTREL_HAVE_NUMA
    if (num_nodes() > 1 && node >= 0) {
        void *p = numa_alloc_onnode(size, node);
        if (p) {
            *placed = node;
            return p;
        }
    }
#else
    (void)node;
#endif
    *placed = -1;
    return sysmem::alloc(size, page_alignment);
}

void free_on(void *p, size_t size, int placed) {
    if (!p) return;
#ifdef KESTREL_HAVE_NUMA
    if (placed >= 0) {
        numa_free(p, size);
        return;
    }
#endif
    (void)size;
    (void)placed;
    sysmem::free(p);
}

} // namespace numa
} // namespace kestrel
