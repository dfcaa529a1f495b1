#include "cpu/reorder/reorder_impls.hpp"

namespace kestrel {

const impl_entry_t reorder_impl_list[] = {
        {"reorder:rnn_packed", make_pd<reorder_rnn_packed_t::pd_t>},
        {"reorder:rnn_quant", make_pd<reorder_rnn_quant_t::pd_t>},
        {"reorder:packed", make_pd<reorder_packed_t::pd_t>},
        {"reorder:sub_byte", make_pd<reorder_sub_byte_t::pd_t>},
        {"reorder:direct_copy", make_pd<reorder_direct_copy_t::pd_t>},
        {"reorder:transpose16_avx512", make_pd<reorder_transpose_t::pd_t>},
        {"reorder:blocked_simd", make_pd<reorder_blocked_t::pd_t>},
        {"reorder:generic", make_pd<reorder_generic_t::pd_t>},
        {"reorder:ref", make_pd<reorder_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
