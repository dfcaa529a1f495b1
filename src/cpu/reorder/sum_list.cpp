#include "cpu/reorder/sum_pd.hpp"

namespace kestrel {

const impl_entry_t sum_impl_list[] = {
        {"sum:dense_simd", make_pd<sum_dense_t::pd_t>},
        {"sum:ref", make_pd<sum_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
