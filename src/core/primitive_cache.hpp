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

// The primitive-descriptor cache, in front of the implementation list
// walk: a problem created before (same kind, op desc, attributes, engine,
// implementation list and thread count, no forward hint) gets a copy of
// the pd the walk chose then, without constructing and declining the
// candidates before it again. Same capacity as the primitive cache (0 turns
// both off); shrunk and cleared with it. Creations with a hint (backward)
// and creations while verbose mode prints dispatch or check lines always
// walk the list.
//
// pd_cache_key: false when the problem is not cached (see above).
bool pd_cache_key(const op_desc_t &desc, const attr_t &attr, const dnnl_engine *engine, impl_list_t list,
        const dnnl_primitive_desc *hint, std::string &key);
// A copy of the cached pd and its index in the list; false on a miss.
bool pd_cache_find(const std::string &key, std::unique_ptr<pd_t> &pd, int &impl_idx);
// Records a copy of `pd` (what the walk chose) under `key`.
void pd_cache_put(const std::string &key, const pd_t &pd, int impl_idx);

// Test hooks (internal, not exported).
struct primitive_cache_stats_t {
    uint64_t hits = 0, misses = 0;
    int size = 0;
    uint64_t pd_hits = 0, pd_misses = 0; // of the pd cache
    int pd_size = 0;
};
primitive_cache_stats_t primitive_cache_stats();
void primitive_cache_clear();

} // namespace kestrel

#endif
