// NUMA topology and node-local allocation. With libnuma and more than one
// node the arena keeps a pool per node; otherwise everything is node 0 and
// memory comes from sysmem.
#ifndef KESTREL_SCRATCHPAD_NUMA_HPP
#define KESTREL_SCRATCHPAD_NUMA_HPP

#include <cstddef>

namespace kestrel {
namespace numa {

constexpr int max_nodes = 64;

// Number of nodes the arena serves (1 when NUMA is off or absent).
int num_nodes();
// Node of the calling thread, in [0, num_nodes()).
int current_node();

// Memory on `node`; falls back to plain aligned memory when the node-local
// allocation fails. `*placed` gets the node the memory is on, or -1 for the
// fallback. Free with free_on(); size must be given back.
void *alloc_on(size_t size, int node, int *placed);
void free_on(void *p, size_t size, int placed);

// Re-reads the topology (libnuma and ONEDNN_NUMA). Tests call it after
// changing the simulated machine; the library reads it once on first use.
void reinit();

} // namespace numa
} // namespace kestrel

#endif
