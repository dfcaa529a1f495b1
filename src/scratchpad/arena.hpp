// The process-wide scratchpad arena (library mode, global policy).
//
// A primitive leases a block for each execution and gives it back after, so
// any thread may execute any primitive and the same primitive may run on
// several threads at once: each execution in flight holds its own block.
// Blocks are kept for reuse; serial executions of N primitives hold
// max(sizes), not the sum. With several NUMA nodes there is one pool per
// node and a lease is served from the node of the calling thread.
#ifndef KESTREL_SCRATCHPAD_ARENA_HPP
#define KESTREL_SCRATCHPAD_ARENA_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "scratchpad/numa.hpp"
#include "scratchpad/registry.hpp"

namespace kestrel {
namespace scratchpad {

// A plain aggregate so that arrays of it cost nothing to construct; a
// value-initialised block ({}) is empty: ptr == nullptr means "no block".
struct block_t {
    char *ptr;
    size_t size;
    int node; // pool it belongs to
    int placed; // node the memory is on, -1 for plain memory
};

struct arena_stats_t {
    int nodes;
    size_t held[numa::max_nodes]; // bytes per pool, free and leased
    size_t held_total;
    size_t high_water; // most bytes ever held at once
    int leases_in_flight;
    int users; // primitives attached
    uint64_t sys_allocs; // system allocations made by the arena
    uint64_t sys_frees;
};

class arena_t {
public:
    static arena_t &global();

    // Primitives that may lease attach at creation and detach at
    // destruction; the last detach returns every block to the system.
    void attach();
    void detach();

    // A block of at least `size` bytes from `node`'s pool; false when the
    // system has no memory to give.
    bool lease(size_t size, int node, block_t &b);
    void give_back(const block_t &b) noexcept;

    arena_stats_t stats() const;
    // Prints the statistics as a verbose line (only when verbose is on).
    void report(const char *event) const;

private:
    arena_t() = default;
    struct pool_t {
        mutable std::mutex mu;
        std::vector<block_t> free;
        size_t held = 0;
        // Blocks the pool owns, leased or free. The free list's capacity is
        // kept at least this large (reserved when a block is made, where a
        // failure can still be reported), so that giving a block back, which
        // runs in a destructor, never allocates.
        size_t blocks = 0;
    };
    void release_free_blocks();
    void note_held(long delta);

    pool_t pools_[numa::max_nodes];
    // Pools [0, pools_used_) have been leased from at least once: the
    // others hold nothing, so releasing skips their locks (a primitive's
    // destruction releases, and creation on a cache hit is microseconds).
    std::atomic<int> pools_used_ {1};
    mutable std::mutex users_mu_;
    int users_ = 0;
    std::atomic<int> leases_ {0};
    std::atomic<size_t> held_total_ {0};
    std::atomic<size_t> high_water_ {0};
    std::atomic<uint64_t> sys_allocs_ {0}, sys_frees_ {0};
};

// The scratchpad of one execution in global mode: leases on construction,
// gives back on destruction. Per-thread slabs are leased lazily, on the node
// of the thread that first asks for them, when the arena serves several
// nodes; otherwise everything lives in one block.
class exec_lease_t : public slab_source_t {
public:
    exec_lease_t() = default;
    ~exec_lease_t() override;
    exec_lease_t(const exec_lease_t &) = delete;
    exec_lease_t &operator=(const exec_lease_t &) = delete;

    bool acquire(arena_t &arena, const registry_t &reg);
    char *base() const { return main_.ptr; }
    bool split_slabs() const { return split_; }
    char *slab(int ithr) const override;
    // True when a lazily leased slab could not be had.
    bool failed() const { return failed_.load(std::memory_order_relaxed); }

    static constexpr int max_split_slabs = 256;

private:
    arena_t *arena_ = nullptr;
    const registry_t *reg_ = nullptr;
    block_t main_ {};
    bool split_ = false;
    // Only the first reg_->nthr() entries are used, and only when split_;
    // acquire() clears them, so a plain execution pays nothing for them.
    mutable block_t slabs_[max_split_slabs];
    mutable std::atomic<bool> failed_ {false};
};

} // namespace scratchpad
} // namespace kestrel

#endif
