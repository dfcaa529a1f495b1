#include "cpu/reorder/concat_pd.hpp"

namespace kestrel {

const impl_entry_t concat_impl_list[] = {
        {"concat:dense_copy", make_pd<concat_dense_t::pd_t>},
        {"concat:ref", make_pd<concat_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
