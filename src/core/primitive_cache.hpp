// The primitive cache: primitive descriptors that describe the same
// computation share one immutable primitive implementation.
//
// The key of a descriptor is a byte string (core/cache_key.hpp): the
// implementation list and index, the op desc (written by the kind's
// op_desc_t::serialize; kinds that do not write one are never cached), the
// attributes, the engine, the memory descriptors the implementation chose,
// the forward hint, and the thread count. Entries are kept in LRU order up
// to primitive_cache_capacity() (ONEDNN_PRIMITIVE_CACHE_CAPACITY,
// dnnl_set_primitive_cache_capacity; 0 turns the cache off).
//
// Thread-safe. When several threads ask for the same missing key at once,
// one creates the primitive and the others wait for it, so an
// implementation is never built twice for one key.
//
// Only the implementation is shared: each dnnl_primitive handle keeps its
// own copy of the descriptor and its own scratchpad (private buffer or
// arena attachment), see core/primitive.cpp.
#ifndef KESTREL_CORE_PRIMITIVE_CACHE_HPP
#define KESTREL_CORE_PRIMITIVE_CACHE_HPP

#include <cstdint>
#include <memory>
#include <string>

#include "core/primitive_desc.hpp"

namespace kestrel {

// The primitive for handle h: shared from the cache when h can be keyed
// and the cache is on, otherwise created anew.
// `hit` (if given) tells whether the primitive came from the cache.
status_t primitive_cache_get(const dnnl_primitive_desc &h, std::shared_ptr<primitive_t> &out,
        bool *hit = nullptr);

// Evicts least recently used entries down to `capacity`.
void primitive_cache_shrink(int capacity);

// The key of h; false when its kind does not serialize its op desc.
bool primitive_cache_key(const dnnl_primitive_desc &h, std::string &key);
// The part of that key that holds across processes of one library build
// (no addresses, no thread count): what a cache blob records.
bool primitive_identity_key(const dnnl_primitive_desc &h, std::string &key);

// Test hooks (internal, not exported).
struct primitive_cache_stats_t {
    uint64_t hits = 0, misses = 0;
    int size = 0;
};
primitive_cache_stats_t primitive_cache_stats();
void primitive_cache_clear();

} // namespace kestrel

#endif
