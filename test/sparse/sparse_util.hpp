// Sparse operands for the sparse tests, built from a dense matrix the test
// owns: the dense matrix is the naive reference's input, and CSR and COO are
// written here from their definition (oneDNN's documentation), sharing no
// code with the library.
#ifndef KESTREL_TEST_SPARSE_UTIL_HPP
#define KESTREL_TEST_SPARSE_UTIL_HPP

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kt_test.hpp"

namespace sp {

// A rows x cols matrix of small integers in [-4, 4] \ {0}; a share
// `zero_frac` of the entries (exactly round(zero_frac * size)) is then set
// to zero at random positions.
inline std::vector<float> make_dense(int64_t rows, int64_t cols, double zero_frac, uint64_t seed) {
    kt::rng_t r(seed);
    std::vector<float> a((size_t)(rows * cols));
    for (auto &x : a) {
        int v = (int)r.small_int(1, 4);
        x = (float)(r.next() & 1 ? v : -v);
    }
    std::vector<size_t> idx(a.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    for (size_t i = idx.size(); i > 1; --i) std::swap(idx[i - 1], idx[r.next() % i]);
    const size_t nzero = (size_t)(zero_frac * (double)a.size() + 0.5);
    for (size_t i = 0; i < nzero; ++i) a[idx[i]] = 0.f;
    return a;
}

struct csr_t {
    std::vector<float> val;
    std::vector<int32_t> idx, ptr;
};

inline csr_t to_csr(const std::vector<float> &a, int64_t rows, int64_t cols) {
    csr_t c;
    c.ptr.push_back(0);
    for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
            const float v = a[(size_t)(i * cols + j)];
            if (v == 0.f) continue;
            c.val.push_back(v);
            c.idx.push_back((int32_t)j);
        }
        c.ptr.push_back((int32_t)c.val.size());
    }
    return c;
}

struct coo_t {
    std::vector<float> val;
    std::vector<int32_t> row, col;
};

// Entries row by row, or (shuffled) in a random order.
inline coo_t to_coo(const std::vector<float> &a, int64_t rows, int64_t cols, bool shuffled, uint64_t seed) {
    coo_t c;
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
            const float v = a[(size_t)(i * cols + j)];
            if (v == 0.f) continue;
            c.val.push_back(v);
            c.row.push_back((int32_t)i);
            c.col.push_back((int32_t)j);
        }
    if (shuffled) {
        kt::rng_t r(seed);
        for (size_t i = c.val.size(); i > 1; --i) {
            const size_t k = r.next() % i;
            std::swap(c.val[i - 1], c.val[k]);
            std::swap(c.row[i - 1], c.row[k]);
            std::swap(c.col[i - 1], c.col[k]);
        }
    }
    return c;
}

// Naive dense matmul, row-major: dst[M x N] = a[M x K] * b[K x N], summed
// in double (exact for the small integers used here).
inline std::vector<float> naive_matmul(const std::vector<float> &a, const std::vector<float> &b,
        int64_t M, int64_t K, int64_t N) {
    std::vector<float> d((size_t)(M * N));
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k) acc += (double)a[(size_t)(m * K + k)] * b[(size_t)(k * N + n)];
            d[(size_t)(m * N + n)] = (float)acc;
        }
    return d;
}

} // namespace sp

#endif
