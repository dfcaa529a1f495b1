// The grouped scale / zero-point tables of the weights-decompression tests:
// which dims of the (batch,) K x N weights a table has (the attribute's
// mask over them, a group of `group` rows along K) and where element
// (b, k, n) finds its entry. The test's own arithmetic, as oneDNN
// documents the masks; shared by test_matmul_wdecomp*.
#ifndef KESTREL_TEST_GEMM_WDECOMP_TABLES_HPP
#define KESTREL_TEST_GEMM_WDECOMP_TABLES_HPP

#include "dnnl.h"

namespace wdt {

struct table_t {
    bool on = false;
    int mask = 0; // over (batch,) K, N
    dnnl_dim_t group = 1; // along K
    dnnl_data_type_t dt = dnnl_f32;
};

// P: a problem with B (0: no batch dim), K and N.
template <typename P>
dnnl_dim_t table_count(const P &p, const table_t &t) {
    const int nd = p.B ? 3 : 2;
    dnnl_dim_t n = 1;
    if (p.B && (t.mask & 1)) n *= p.B;
    if (t.mask & (1 << (nd - 2))) n *= p.K / t.group;
    if (t.mask & (1 << (nd - 1))) n *= p.N;
    return n;
}
template <typename P>
dnnl_dim_t table_index(const P &p, const table_t &t, dnnl_dim_t b, dnnl_dim_t k, dnnl_dim_t n) {
    const int nd = p.B ? 3 : 2;
    dnnl_dim_t i = 0;
    if (p.B && (t.mask & 1)) i = b;
    if (t.mask & (1 << (nd - 2))) i = i * (p.K / t.group) + k / t.group;
    if (t.mask & (1 << (nd - 1))) i = i * p.N + n;
    return i;
}

} // namespace wdt

#endif
