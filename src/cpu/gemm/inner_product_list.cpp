// Inner product forward implementations in dispatch order: fastest first,
// reference last.
#include "cpu/gemm/inner_product.hpp"

namespace kestrel {

const impl_entry_t ip_fwd_impl_list[] = {
        {"gemm", make_pd<gemm_ip_fwd_t::pd_t>},
        {"gemm:s8", make_pd<gemm_s8_ip_fwd_t::pd_t>},
        {"ref:any", make_pd<ref_ip_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
