// The byte strings that identify a primitive in the primitive cache.
//
// Two primitive descriptors may share one primitive implementation when
// their keys are equal, so a key must hold every value that changes what
// the implementation computes. Values are written field by field (never a
// struct's raw bytes: padding and pointers would make equal things differ);
// floats by their bits.
#ifndef KESTREL_CORE_CACHE_KEY_HPP
#define KESTREL_CORE_CACHE_KEY_HPP

#include <string>
#include <type_traits>
#include <vector>

#include "core/memory_desc.hpp"

namespace kestrel {

class key_writer_t {
public:
    template <typename T>
    void put(const T &v) {
        static_assert(std::is_arithmetic<T>::value || std::is_enum<T>::value,
                "write a struct field by field");
        bytes_.append(reinterpret_cast<const char *>(&v), sizeof(v));
    }

    // Only what mdw_t::equal looks at, so equal layouts give equal keys
    // (apart from strides of unit dims, which merely cost a cache miss).
    void put(const memory_desc_t &md) {
        put(md.ndims);
        put(md.data_type);
        put(md.format_kind);
        for (int d = 0; d < md.ndims; ++d) put(md.dims[d]);
        if (md.format_kind == dnnl_format_kind_sparse) {
            put(md.sparse.encoding);
            put(md.sparse.nnz);
            put(md.sparse.metadata_types[0]);
            put(md.sparse.metadata_types[1]);
        }
        if (md.format_kind != dnnl_blocked) return;
        put(md.offset0);
        for (int d = 0; d < md.ndims; ++d) {
            put(md.padded_dims[d]);
            put(md.padded_offsets[d]);
            put(md.blocking.strides[d]);
        }
        put(md.blocking.inner_nblks);
        for (int i = 0; i < md.blocking.inner_nblks; ++i) {
            put(md.blocking.inner_blks[i]);
            put(md.blocking.inner_idxs[i]);
        }
    }

    template <typename T>
    void put(const std::vector<T> &v) {
        put((uint64_t)v.size());
        for (const T &x : v) put(x);
    }

    void put_str(const char *s) {
        const std::string str = s ? s : "";
        put((uint64_t)str.size());
        bytes_ += str;
    }

    const std::string &bytes() const { return bytes_; }

private:
    std::string bytes_;
};

} // namespace kestrel

#endif
