// Matmul implementations in dispatch order: fastest first, reference last.
#include "cpu/gemm/matmul.hpp"
#include "cpu/gemm/matmul_packed.hpp"
#include "cpu/gemm/matmul_s8.hpp"
#include "cpu/gemm/matmul_sparse.hpp"

namespace kestrel {

const impl_entry_t matmul_impl_list[] = {
        {"sparse:f32", make_pd<sparse_matmul_t::pd_t>},
        {"sparse:packed", make_pd<packed_matmul_t::pd_t>},
        {"gemm:s8", make_pd<s8_matmul_t::pd_t>},
        {"gemm", make_pd<gemm_matmul_t::pd_t>},
        {"ref:any", make_pd<ref_matmul_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
