// The byte strings that identify a primitive in the primitive cache.
//
// Two primitive descriptors may share one primitive implementation when
// their keys are equal, so a key must hold every value that changes what
// the implementation computes. Values are written field by field (never a
// struct's raw bytes: padding and pointers would make equal things differ);
// floats by their bits.
#ifndef KESTREL_CORE_CACHE_KEY_HPP
#define KESTREL_CORE_CACHE_KEY_HPP

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/memory_desc.hpp"

namespace kestrel {

class key_writer_t {
public:
    // A typical key (a convolution: its desc, attributes and the pd's
    // descriptors) is about 1.5 KiB: one allocation up front, and each
    // value a fixed-size copy into it (inlined; keys are built at every
    // creation, hits included).
    key_writer_t() { bytes_.resize(2048); }

    template <typename T>
    void put(const T &v) {
        static_assert(std::is_arithmetic<T>::value || std::is_enum<T>::value,
                "write a struct field by field");
        write(&v, sizeof(v));
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
        if (md.format_kind == dnnl_format_kind_opaque) {
            put(md.rnn_packed.nr);
            put(md.rnn_packed.k);
            put(md.rnn_packed.n);
            put(md.rnn_packed.n_first);
            put(md.rnn_packed.slice_bytes);
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
        write(s, n);
    }

    // The key, leaving the writer empty.
    std::string take() {
        bytes_.resize(used_);
        used_ = 0;
        return std::move(bytes_);
    }

private:
    template <typename T>
    void put_array(const T *a, int n) {
        static_assert(std::is_arithmetic<T>::value, "arrays of numbers only");
        write(a, sizeof(T) * (size_t)n);
    }

    void write(const void *p, size_t n) {
        if (n == 0) return;
        if (bytes_.size() - used_ < n) bytes_.resize(std::max(2 * bytes_.size(), used_ + n));
        std::memcpy(&bytes_[used_], p, n);
        used_ += n;
    }

    std::string bytes_; // [0, used_) written
    size_t used_ = 0;
};

} // namespace kestrel

#endif
