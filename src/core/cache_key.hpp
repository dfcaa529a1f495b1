// The byte strings that identify a primitive in the primitive cache.
//
// Two primitive descriptors may share one primitive implementation when
// their keys are equal, so a key must hold every value that changes what
// the implementation computes. Values are written field by field (never a
// struct's raw bytes: padding and pointers would make equal things differ);
// floats by their bits.
#ifndef KESTREL_CORE_CACHE_KEY_HPP
#define KESTREL_CORE_CACHE_KEY_HPP

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/memory_desc.hpp"

namespace kestrel {

class key_writer_t {
public:
    // A typical key (a convolution: its desc, attributes and the pd's
    // descriptors) is about 1.5 KiB: one allocation up front.
    key_writer_t() { bytes_.reserve(2048); }

    template <typename T>
    void put(const T &v) {
        static_assert(std::is_arithmetic<T>::value || std::is_enum<T>::value,
                "write a struct field by field");
        bytes_.append(reinterpret_cast<const char *>(&v), sizeof(v));
    }

    // Only what mdw_t::equal looks at, so equal layouts give equal keys
    // (apart from strides of unit dims, which merely cost a cache miss).
    // Arrays go in as one run of bytes each (their length is fixed by
    // ndims and inner_nblks, written before them).
    void put(const memory_desc_t &md) {
        const int n = md.ndims >= 0 && md.ndims <= max_ndims ? md.ndims : 0;
        put(md.ndims);
        put(md.data_type);
        put(md.format_kind);
        put_array(md.dims, n);
        if (md.format_kind == dnnl_format_kind_sparse) {
            put(md.sparse.encoding);
            put(md.sparse.nnz);
            put(md.sparse.metadata_types[0]);
            put(md.sparse.metadata_types[1]);
        }
        if (md.format_kind != dnnl_blocked) return;
        put(md.offset0);
        put_array(md.padded_dims, n);
        put_array(md.padded_offsets, n);
        put_array(md.blocking.strides, n);
        const int nb = md.blocking.inner_nblks >= 0 && md.blocking.inner_nblks <= max_ndims
                ? md.blocking.inner_nblks
                : 0;
        put(md.blocking.inner_nblks);
        put_array(md.blocking.inner_blks, nb);
        put_array(md.blocking.inner_idxs, nb);
    }

    template <typename T>
    void put(const std::vector<T> &v) {
        put((uint64_t)v.size());
        for (const T &x : v) put(x);
    }

    void put_str(const char *s) {
        const size_t n = s ? std::strlen(s) : 0;
        put((uint64_t)n);
        if (n) bytes_.append(s, n);
    }

    const std::string &bytes() const { return bytes_; }
    // The key, leaving the writer empty.
    std::string take() { return std::move(bytes_); }

private:
    template <typename T>
    void put_array(const T *a, int n) {
        static_assert(std::is_arithmetic<T>::value, "arrays of numbers only");
        bytes_.append(reinterpret_cast<const char *>(a), sizeof(T) * (size_t)n);
    }

    std::string bytes_;
};

} // namespace kestrel

#endif
