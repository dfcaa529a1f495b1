// Helpers of the zero-padding and post-op tests, written against the public
// C++ API only: the physical offset of a logical element comes from the
// descriptor's public fields (strides, inner blocks), never from the
// library's own layout code.
#ifndef KESTREL_TEST_ZPAD_ZP_UTIL_HPP
#define KESTREL_TEST_ZPAD_ZP_UTIL_HPP

#include <cstring>
#include <functional>
#include <map>
#include <vector>

#include "common/kt_test.hpp"
#include "dnnl.hpp"

namespace zp {

using dim = dnnl::memory::dim;
using dims = dnnl::memory::dims;

// Offset (in elements) of logical position pos, padding positions included.
inline dim offset(const dnnl::memory::desc &md, const dims &pos) {
    const dims strides = md.get_strides();
    const int nblks = md.get_inner_nblks();
    const dims ib = md.get_inner_blks(), ii = md.get_inner_idxs();
    const int nd = md.get_ndims();
    dims blk(nd, 1);
    for (int i = 0; i < nblks; ++i) blk[ii[i]] *= ib[i];
    dim off = 0;
    for (int d = 0; d < nd; ++d) off += pos[d] / blk[d] * strides[d];
    // Inside the block: the last inner block varies fastest.
    dims rest(nd);
    for (int d = 0; d < nd; ++d) rest[d] = pos[d] % blk[d];
    dim mult = 1;
    dims seen(nd, 1);
    for (int i = nblks - 1; i >= 0; --i) {
        const int d = (int)ii[i];
        off += rest[d] / seen[d] % ib[i] * mult;
        seen[d] *= ib[i];
        mult *= ib[i];
    }
    return off;
}

// Calls f(pos, is_padding) for every position inside the padded dims.
inline void walk(const dnnl::memory::desc &md, const std::function<void(const dims &, bool)> &f) {
    const dims pd = md.get_padded_dims(), d = md.get_dims();
    const int nd = md.get_ndims();
    dim total = 1;
    for (int i = 0; i < nd; ++i) total *= pd[i];
    dims pos(nd, 0);
    for (dim l = 0; l < total; ++l) {
        dim r = l;
        bool pad = false;
        for (int i = nd - 1; i >= 0; --i) {
            pos[i] = r % pd[i];
            r /= pd[i];
            pad = pad || pos[i] >= d[i];
        }
        f(pos, pad);
    }
}

// Row-major logical index of pos.
inline dim logical(const dnnl::memory::desc &md, const dims &pos) {
    const dims d = md.get_dims();
    dim l = 0;
    for (size_t i = 0; i < d.size(); ++i) l = l * d[i] + pos[i];
    return l;
}

inline dim nelems(const dnnl::memory::desc &md) {
    const int nd = md.get_ndims();
    const dims d = md.get_dims();
    dim n = 1;
    for (int i = 0; i < nd; ++i) n *= d[(size_t)i];
    return n;
}

// A f32 memory whose buffer this holder owns; its padding starts zero.
struct buf_t {
    dnnl::memory::desc md;
    std::vector<float> data;
    dnnl::memory mem;
    buf_t(const dnnl::engine &eng, const dnnl::memory::desc &m)
        : md(m), data(m.get_size() / sizeof(float) + 1, 0.f), mem(m, eng, data.data()) {}
    // Writes logical values v (row-major) into their places.
    void put(const std::vector<float> &v) {
        walk(md, [&](const dims &pos, bool pad) {
            if (!pad) data[(size_t)offset(md, pos)] = v[(size_t)logical(md, pos)];
        });
    }
    std::vector<float> get() const {
        std::vector<float> v((size_t)nelems(md));
        walk(md, [&](const dims &pos, bool pad) {
            if (!pad) v[(size_t)logical(md, pos)] = data[(size_t)offset(md, pos)];
        });
        return v;
    }
    // Every byte of the buffer (dnnl_memory_desc_get_size) set to a NaN.
    void poison() {
        const uint32_t nan_bits = 0x7fc0deadu;
        std::vector<uint32_t> w(md.get_size() / 4, nan_bits);
        std::memcpy(data.data(), w.data(), w.size() * 4);
    }
    // Number of padding elements whose bits are not +0.0.
    long bad_padding() const {
        long bad = 0;
        walk(md, [&](const dims &pos, bool pad) {
            if (!pad) return;
            uint32_t bits;
            std::memcpy(&bits, &data[(size_t)offset(md, pos)], 4);
            bad += bits != 0u;
        });
        return bad;
    }
};

// Deterministic input values: halves of small integers, never zero, so
// sums are exact in f32 whatever their order.
inline std::vector<float> values(dim n, int seed) {
    std::vector<float> v((size_t)n);
    for (dim i = 0; i < n; ++i) v[(size_t)i] = (float)((i * 7 + seed * 5) % 9 - 4) + 0.5f;
    return v;
}

} // namespace zp

#endif
