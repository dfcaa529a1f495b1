// Scratchpad booking. An implementation books named regions while its
// primitive descriptor is created; the sizes are then fixed. At execution a
// grantor maps each key to a pointer inside the buffer granted for that run.
//
// Layout of one granted buffer:
//   [shared regions][slab 0][slab 1]...[slab nthr-1]
// Each slab holds every per-thread region once. When the arena serves
// several NUMA nodes, slabs may instead be leased one by one on the node of
// the thread that uses them (see grantor_t).
#ifndef KESTREL_SCRATCHPAD_REGISTRY_HPP
#define KESTREL_SCRATCHPAD_REGISTRY_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kestrel {
namespace scratchpad {

using key_t = uint32_t;
constexpr size_t default_align = 64;

class registry_t {
public:
    struct entry_t {
        key_t key;
        size_t offset; // in the shared part, or inside a slab
        size_t size;
        bool per_thread;
    };

    // Books `size` bytes under `key`. A per-thread region is booked once and
    // exists nthr() times. Booking a key twice is a programming error and
    // keeps the first booking. Zero sizes book nothing.
    void book(key_t key, size_t size, size_t align = default_align);
    void book_per_thread(key_t key, size_t size, size_t align = default_align);
    // Books every region of another registry under keys offset by `base`,
    // so a reusable component (GEMM packing, say) books into its caller.
    void book_nested(key_t base, const registry_t &other);

    const entry_t *find(key_t key) const;
    size_t shared_size() const { return shared_size_; }
    size_t slab_size() const { return slab_size_; }
    int nthr() const { return nthr_; }
    // Bytes of the whole buffer: shared part plus nthr slabs.
    size_t size() const;
    bool empty() const { return size() == 0; }

    // Number of slabs; defaults to the threads available when the first
    // per-thread region is booked.
    void set_nthr(int nthr) { nthr_ = nthr < 1 ? 1 : nthr; }

private:
    std::vector<entry_t> entries_;
    size_t shared_size_ = 0;
    size_t slab_size_ = 0;
    int nthr_ = 0;
};

// Supplies per-thread slabs leased one by one (NUMA-aware arena).
class slab_source_t {
public:
    virtual ~slab_source_t() = default;
    virtual char *slab(int ithr) const = 0;
};

class grantor_t {
public:
    grantor_t() = default;
    grantor_t(const registry_t *reg, char *base, const slab_source_t *slabs = nullptr)
        : reg_(reg), base_(base), slabs_(slabs) {}

    // The region booked under `key`; for a per-thread region, the copy of
    // thread slot ithr (0 <= ithr < nthr()). nullptr if nothing was booked.
    template <typename T = char>
    T *get(key_t key, int ithr = 0) const {
        return reinterpret_cast<T *>(get_raw(key, ithr));
    }
    int nthr() const { return reg_ ? reg_->nthr() : 1; }

private:
    char *get_raw(key_t key, int ithr) const;

    const registry_t *reg_ = nullptr;
    char *base_ = nullptr;
    const slab_source_t *slabs_ = nullptr;
};

} // namespace scratchpad
} // namespace kestrel

#endif
