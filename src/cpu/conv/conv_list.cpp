// What serves a convolution / deconvolution forward, fastest first.
#include "cpu/conv/conv_bf16_direct.hpp"
#include "cpu/conv/conv_impls.hpp"
#include "cpu/conv/conv_nxc_wrap.hpp"

namespace kestrel {

const impl_entry_t conv_fwd_impl_list[] = {
        {"dw:avx512:nCx16c", make_pd<dw_conv_fwd_t::pd_t>},
        {"dw:avx512:nhwc", make_pd<dw_conv_fwd_t::pd_nxc_t>},
        {"dw:avx2:nCx8c", make_pd<dw_conv_fwd_t::pd_8c_t>},
        {"dw:avx2:nhwc", make_pd<dw_conv_fwd_t::pd_nxc_8c_t>},
        {"direct:avx512_bf16:nhwc", make_pd<bf16_direct_conv_fwd_t::pd_t>},
        {"direct:avx512:nCx16c", make_pd<direct_conv_fwd_t::pd_t>},
        {"direct:avx2:nCx8c", make_pd<direct_conv_fwd_t::pd_8c_t>},
        {"direct:avx512:nhwc", make_pd<direct_conv_fwd_t::pd_nxc_t>},
        {"direct:avx2:nhwc", make_pd<direct_conv_fwd_t::pd_nxc_8c_t>},
        {"direct:avx512:nchw", make_pd<direct_conv_fwd_t::pd_ncx_t>},
        {"direct:avx2:nchw", make_pd<direct_conv_fwd_t::pd_ncx_8c_t>},
        {"direct:avx512_vnni:nhwc:s8", make_pd<s8_direct_conv_fwd_t::pd_t>},
        {"direct:avx2_vnni:nhwc:s8", make_pd<s8_direct_conv_fwd_t::pd_avx2_t>},
        // Low precision on blocked / channels-first data: the entries above
        // (or the GEMM routes below) on a channels-last copy.
        {"nxc_wrap", make_pd<conv_nxc_wrap_fwd_t::pd_t>},
        {"gemm:1x1", make_pd<gemm_conv_fwd_t::pd_1x1_t>},
        {"gemm:im2col", make_pd<gemm_conv_fwd_t::pd_t>},
        {"gemm:s8", make_pd<gemm_s8_conv_fwd_t::pd_t>},
        {"ref:any", make_pd<ref_conv_fwd_t::pd_t>},
        // Only problems with a depthwise post-op, which every entry above
        // declines; last, so ordinary problems never see it decline.
        {"gemm:1x1+dw", make_pd<dw_fused_conv_fwd_t::pd_t>},
        {nullptr, nullptr},
};

const impl_entry_t deconv_fwd_impl_list[] = {
        {"gemm:col2im:deconv", make_pd<gemm_deconv_fwd_t::pd_t>},
        {"ref:any:deconv", make_pd<ref_conv_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
