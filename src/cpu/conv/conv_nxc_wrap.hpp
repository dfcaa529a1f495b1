// Low-precision convolution forward on channel-blocked or channels-first
// data through the channels-last kernels.
//
// The int8 and bf16 direct kernels read channels-last (nwc/nhwc/ndhwc)
// data only; with src or dst fixed to nCx16c, nCx8c or ncx, the only other
// route is the reference loop, thousands of times slower. This one runs
// the first implementation of the list that accepts the same problem on
// dense channels-last data (an "inner" pd, made at creation with the same
// attributes and weights), around it:
//   - src is copied into a dense channels-last buffer in the scratchpad,
//   - dst too when a sum post-op reads it,
//   - the inner primitive runs on those buffers,
//   - its dst buffer is copied into the user's dst (whose padded channels
//     the execution entry point zeroes, as for every output).
// Taken for u8/s8/bf16/f16 src whose data layouts are a single channel
// block (any size) or plain with channels not innermost, any strides;
// channels-first data only when the inner implementation is a direct
// kernel (else that route serves ncx itself). f32 has its own blocked and
// channels-first kernels and is declined.
#ifndef KESTREL_CPU_CONV_CONV_NXC_WRAP_HPP
#define KESTREL_CPU_CONV_CONV_NXC_WRAP_HPP

#include <memory>
#include <string>

#include "core/primitive.hpp"
#include "cpu/conv/conv_pd.hpp"

namespace kestrel {

struct conv_nxc_wrap_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, conv_nxc_wrap_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return name_.empty() ? "nxc_wrap" : name_.c_str(); }
        status_t init(dnnl_engine *engine) override;

        std::string name_; // "<inner>+nxc"
        // The inner problem's pd (immutable once made; clones share it)
        // and its channels-last data descriptors.
        std::shared_ptr<const kestrel::pd_t> inner;
        memory_desc_t src_nxc = zero_md(), dst_nxc = zero_md();
        bool with_sum = false;
    };
    explicit conv_nxc_wrap_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
    std::shared_ptr<primitive_t> inner_;
};

} // namespace kestrel

#endif
