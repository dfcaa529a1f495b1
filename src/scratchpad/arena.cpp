#include "scratchpad/arena.hpp"

#include <new>

#include "core/verbose.hpp"

namespace kestrel {
namespace scratchpad {

namespace {
constexpr size_t granule = 4096;
size_t round_to_granule(size_t s) { return (s + granule - 1) / granule * granule; }
} // namespace

arena_t &arena_t::global() {
    // Never destroyed: primitives with static storage duration may detach
    // after every other static object is gone.
    static arena_t *a = new arena_t;
    return *a;
}

void arena_t::attach() {
    std::lock_guard<std::mutex> g(users_mu_);
    ++users_;
}

void arena_t::detach() {
    bool released = false;
    {
        std::lock_guard<std::mutex> g(users_mu_);
        if (users_ > 0 && --users_ == 0) {
            release_free_blocks();
            released = true;
        }
    }
    // Outside the lock: report() reads the statistics, which take it.
    if (released) report("released");
}

void arena_t::note_held(long delta) {
    size_t now = held_total_.fetch_add((size_t)delta) + (size_t)delta;
    size_t hw = high_water_.load();
    while (now > hw && !high_water_.compare_exchange_weak(hw, now)) {}
}

void arena_t::release_free_blocks() {
    const int used = pools_used_.load();
    for (int n = 0; n < used; ++n) {
        pool_t &p = pools_[n];
        std::lock_guard<std::mutex> g(p.mu);
        for (const block_t &b : p.free) {
            numa::free_on(b.ptr, b.size, b.placed);
            sys_frees_.fetch_add(1);
            p.held -= b.size;
            note_held(-(long)b.size);
        }
        p.blocks -= p.free.size();
        p.free.clear();
        // The list's own memory goes too, unless a lease still out will
        // come back to it (swapping with an empty vector allocates nothing).
        if (p.blocks == 0) std::vector<block_t>().swap(p.free);
    }
}

bool arena_t::lease(size_t size, int node, block_t &b) {
    if (node < 0 || node >= numa::max_nodes) node = 0;
    int used = pools_used_.load();
    while (node >= used && !pools_used_.compare_exchange_weak(used, node + 1)) {}
    pool_t &p = pools_[node];
    block_t victim {};
    {
        std::lock_guard<std::mutex> g(p.mu);
        // Smallest free block that fits.
        int best = -1, largest = -1;
        for (int i = 0; i < (int)p.free.size(); ++i) {
            if (p.free[i].size >= size && (best < 0 || p.free[i].size < p.free[best].size))
                best = i;
            if (largest < 0 || p.free[i].size > p.free[largest].size) largest = i;
        }
        if (best >= 0) {
            b = p.free[best];
            p.free[best] = p.free.back();
            p.free.pop_back();
            leases_.fetch_add(1);
            return true;
        }
        // Nothing fits: the largest free block is too small to ever serve
        // this size, so it is replaced rather than kept beside a new one.
        if (largest >= 0) {
            victim = p.free[largest];
            p.free[largest] = p.free.back();
            p.free.pop_back();
            p.held -= victim.size;
            --p.blocks;
        }
    }
    if (victim.ptr) {
        numa::free_on(victim.ptr, victim.size, victim.placed);
        sys_frees_.fetch_add(1);
        note_held(-(long)victim.size);
    }
    size_t sz = round_to_granule(size);
    block_t nb {};
    nb.ptr = static_cast<char *>(numa::alloc_on(sz, node, &nb.placed));
    if (!nb.ptr) return false;
    nb.size = sz;
    nb.node = node;
    {
        std::lock_guard<std::mutex> g(p.mu);
        try {
            p.free.reserve(p.blocks + 1);
        } catch (const std::bad_alloc &) {
            numa::free_on(nb.ptr, nb.size, nb.placed);
            return false;
        }
        ++p.blocks;
        p.held += sz;
    }
    sys_allocs_.fetch_add(1);
    note_held((long)sz);
    leases_.fetch_add(1);
    b = nb;
    return true;
}

void arena_t::give_back(const block_t &b) noexcept {
    if (!b.ptr) return;
    pool_t &p = pools_[b.node];
    std::lock_guard<std::mutex> g(p.mu);
    p.free.push_back(b); // within the capacity reserved for every block
    leases_.fetch_sub(1);
}

arena_stats_t arena_t::stats() const {
    arena_stats_t s {};
    s.nodes = numa::num_nodes();
    for (int n = 0; n < numa::max_nodes; ++n) {
        std::lock_guard<std::mutex> g(pools_[n].mu);
        s.held[n] = pools_[n].held;
        s.held_total += pools_[n].held;
    }
    s.high_water = high_water_.load();
    s.leases_in_flight = leases_.load();
    {
        std::lock_guard<std::mutex> g(users_mu_);
        s.users = users_;
    }
    s.sys_allocs = sys_allocs_.load();
    s.sys_frees = sys_frees_.load();
    return s;
}

void arena_t::report(const char *event) const {
    if (!verbose::enabled(verbose::level_exec, verbose::component_scratchpad)) return;
    arena_stats_t s = stats();
    char nodes[512];
    size_t o = 0;
    for (int n = 0; n < s.nodes && o < sizeof(nodes) - 32; ++n)
        o += (size_t)snprintf(nodes + o, sizeof(nodes) - o, "%snode%d:%zu", n ? " " : "", n, s.held[n]);
    verbose::print("scratchpad,arena,%s,held:%zu,%s,leases_in_flight:%d,high_water:%zu,users:%d",
            event, s.held_total, nodes, s.leases_in_flight, s.high_water, s.users);
}

// ------------------------------------------------------------ exec_lease_t

bool exec_lease_t::acquire(arena_t &arena, const registry_t &reg) {
    arena_ = &arena;
    reg_ = &reg;
    int node = numa::current_node();
    split_ = numa::num_nodes() > 1 && reg.slab_size() > 0 && reg.nthr() <= max_split_slabs;
    if (split_)
        for (int i = 0; i < reg.nthr(); ++i) slabs_[i] = block_t {};
    size_t main_size = split_ ? reg.shared_size() : reg.size();
    if (main_size == 0) return true;
    return arena.lease(main_size, node, main_);
}

char *exec_lease_t::slab(int ithr) const {
    block_t &s = slabs_[ithr];
    if (!s.ptr && !arena_->lease(reg_->slab_size(), numa::current_node(), s)) {
        failed_.store(true, std::memory_order_relaxed);
        return nullptr;
    }
    return s.ptr;
}

exec_lease_t::~exec_lease_t() {
    if (!arena_) return;
    arena_->give_back(main_);
    if (split_)
        for (int i = 0; i < reg_->nthr(); ++i) arena_->give_back(slabs_[i]);
}

} // namespace scratchpad
} // namespace kestrel
