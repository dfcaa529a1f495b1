// Recurrent implementations in dispatch order.
#include "cpu/rnn/rnn_bwd.hpp"
#include "cpu/rnn/rnn_fwd.hpp"
#include "cpu/rnn/rnn_int8.hpp"

namespace kestrel {

const impl_entry_t rnn_fwd_impl_list[] = {
        {"gemm:f32", make_pd<gemm_rnn_fwd_t::pd_t>},
        {"gemm:int8", make_pd<gemm_rnn_int8_fwd_t::pd_t>},
        {nullptr, nullptr},
};

const impl_entry_t rnn_bwd_impl_list[] = {
        {"gemm:f32", make_pd<gemm_rnn_bwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
