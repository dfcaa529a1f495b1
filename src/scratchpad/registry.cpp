#include "scratchpad/registry.hpp"

#include "cpu/threading.hpp"

namespace kestrel {
namespace scratchpad {

namespace {
size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
} // namespace

void registry_t::book(key_t key, size_t size, size_t align) {
    if (size == 0 || find(key)) return;
    if (align < default_align) align = default_align;
    size_t off = align_up(shared_size_, align);
    entries_.push_back({key, off, size, false});
    shared_size_ = off + size;
}

void registry_t::book_per_thread(key_t key, size_t size, size_t align) {
    if (size == 0 || find(key)) return;
    if (align < default_align) align = default_align;
    if (nthr_ == 0) nthr_ = max_threads();
    size_t off = align_up(slab_size_, align);
    entries_.push_back({key, off, size, true});
    slab_size_ = off + size;
}

void registry_t::book_nested(key_t base, const registry_t &other) {
    for (const auto &e : other.entries_) {
        if (e.per_thread) {
            if (nthr_ == 0) nthr_ = other.nthr_;
            book_per_thread(base + e.key, e.size);
        } else {
            book(base + e.key, e.size);
        }
    }
}

const registry_t::entry_t *registry_t::find(key_t key) const {
    for (const auto &e : entries_)
        if (e.key == key) return &e;
    return nullptr;
}

size_t registry_t::size() const {
    size_t s = align_up(shared_size_, default_align);
    if (slab_size_) s += (size_t)nthr_ * align_up(slab_size_, default_align);
    return s;
}

char *grantor_t::get_raw(key_t key, int ithr) const {
    if (!reg_) return nullptr;
    const auto *e = reg_->find(key);
    if (!e) return nullptr;
    if (!e->per_thread) return base_ + e->offset;
    if (ithr < 0 || ithr >= reg_->nthr()) return nullptr;
    if (slabs_) {
        char *slab = slabs_->slab(ithr);
        return slab ? slab + e->offset : nullptr;
    }
    size_t slab = align_up(reg_->slab_size(), default_align);
    return base_ + align_up(reg_->shared_size(), default_align) + (size_t)ithr * slab + e->offset;
}

} // namespace scratchpad
} // namespace kestrel
