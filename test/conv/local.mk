# Tests of convolution and deconvolution forward.
EXTRA_DIST += test/conv/conv_harness.hpp test/conv/conv_prb.hpp test/conv/bf16_values.hpp
check_PROGRAMS += test/conv/test_conv
TESTS += test/conv/test_conv
test_conv_test_conv_SOURCES = test/conv/test_conv.cpp
test_conv_test_conv_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/conv/test_conv_api
TESTS += test/conv/test_conv_api
test_conv_test_conv_api_SOURCES = test/conv/test_conv_api.cpp
test_conv_test_conv_api_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_api_LDADD = $(TEST_LIBS)
# The same suites under ONEDNN_MAX_CPU_ISA=AVX2 (run from the build root).
EXTRA_DIST += test/conv/test_conv_avx2.sh
TESTS += test/conv/test_conv_avx2.sh
check_PROGRAMS += test/conv/test_conv_attr
TESTS += test/conv/test_conv_attr
test_conv_test_conv_attr_SOURCES = test/conv/test_conv_attr.cpp
test_conv_test_conv_attr_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_attr_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/conv/test_conv_bwd
TESTS += test/conv/test_conv_bwd
test_conv_test_conv_bwd_SOURCES = test/conv/test_conv_bwd.cpp
test_conv_test_conv_bwd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_bwd_LDADD = $(TEST_LIBS)
# The backward suite under ONEDNN_MAX_CPU_ISA=AVX2 and SSE41.
EXTRA_DIST += test/conv/test_conv_bwd_isa.sh
TESTS += test/conv/test_conv_bwd_isa.sh
# Convolution with one eltwise post-op (fused at the direct kernels' store)
# against a naive reference in the test; again capped at AVX2.
check_PROGRAMS += test/conv/test_conv_fused_eltwise
TESTS += test/conv/test_conv_fused_eltwise
test_conv_test_conv_fused_eltwise_SOURCES = test/conv/test_conv_fused_eltwise.cpp
test_conv_test_conv_fused_eltwise_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_fused_eltwise_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/conv/test_conv_fused_eltwise_avx2.sh
TESTS += test/conv/test_conv_fused_eltwise_avx2.sh
check_PROGRAMS += test/conv/test_conv_bf16
TESTS += test/conv/test_conv_bf16
test_conv_test_conv_bf16_SOURCES = test/conv/test_conv_bf16.cpp
test_conv_test_conv_bf16_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_bf16_LDADD = $(TEST_LIBS)
# The bf16 suite under ONEDNN_MAX_CPU_ISA=AVX2 and the baseline.
EXTRA_DIST += test/conv/test_conv_bf16_isa.sh
TESTS += test/conv/test_conv_bf16_isa.sh
# int8 convolution (gemm:s8, the reference, int8 deconvolution through the
# reference) against a naive quantized loop; again with the ISA capped.
check_PROGRAMS += test/conv/test_conv_s8
TESTS += test/conv/test_conv_s8
test_conv_test_conv_s8_SOURCES = test/conv/test_conv_s8.cpp
test_conv_test_conv_s8_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_s8_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/conv/test_conv_s8_isa.sh
TESTS += test/conv/test_conv_s8_isa.sh
# Zero points per channel (mask 1 << 1) on int8 convolution and
# deconvolution: the reference implementation, exact against a naive loop.
check_PROGRAMS += test/conv/test_conv_zp_channel
TESTS += test/conv/test_conv_zp_channel
test_conv_test_conv_zp_channel_SOURCES = test/conv/test_conv_zp_channel.cpp
test_conv_test_conv_zp_channel_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_zp_channel_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/conv/test_dw_post_op
TESTS += test/conv/test_dw_post_op
test_conv_test_dw_post_op_SOURCES = test/conv/test_dw_post_op.cpp
test_conv_test_dw_post_op_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_dw_post_op_LDADD = $(TEST_LIBS)
# 1x1 convolution with a fused depthwise 3x3 (gemm:1x1+dw) against a
# naive two-stage reference.
check_PROGRAMS += test/conv/test_conv_dw_fusion
TESTS += test/conv/test_conv_dw_fusion
test_conv_test_conv_dw_fusion_SOURCES = test/conv/test_conv_dw_fusion.cpp
test_conv_test_conv_dw_fusion_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_dw_fusion_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/conv/test_conv_dw_fusion_isa.sh
TESTS += test/conv/test_conv_dw_fusion_isa.sh
# bf16 on channel-blocked layouts: forward through the direct kernels on f32
# copies, backward through the GEMM route; again with the ISA capped.
check_PROGRAMS += test/conv/test_conv_bf16_blocked
TESTS += test/conv/test_conv_bf16_blocked
test_conv_test_conv_bf16_blocked_SOURCES = test/conv/test_conv_bf16_blocked.cpp
test_conv_test_conv_bf16_blocked_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_bf16_blocked_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/conv/test_conv_bf16_blocked_isa.sh
TESTS += test/conv/test_conv_bf16_blocked_isa.sh
# Backward data on nCx16c / nCx8c through the direct kernels (and what they
# leave to the GEMM path), checked by implementation name against a naive
# gather; test_conv_bwd_isa.sh reruns it with the ISA capped.
check_PROGRAMS += test/conv/test_conv_bwd_direct
TESTS += test/conv/test_conv_bwd_direct
test_conv_test_conv_bwd_direct_SOURCES = test/conv/test_conv_bwd_direct.cpp
test_conv_test_conv_bwd_direct_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_bwd_direct_LDADD = $(TEST_LIBS)
# f32 channels-last convolution through the direct kernels (direct:*:nhwc)
# against a naive loop in the test; again capped at AVX2 and SSE41.
check_PROGRAMS += test/conv/test_conv_nhwc
TESTS += test/conv/test_conv_nhwc
test_conv_test_conv_nhwc_SOURCES = test/conv/test_conv_nhwc.cpp
test_conv_test_conv_nhwc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_nhwc_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/conv/test_conv_nhwc_isa.sh
TESTS += test/conv/test_conv_nhwc_isa.sh

# f32 depthwise convolution (dw:avx512:nCx16c / nhwc, dw:avx2:nCx8c / nhwc),
# and again with the ISA capped at AVX2 and SSE41
check_PROGRAMS += test/conv/test_conv_dw
TESTS += test/conv/test_conv_dw
test_conv_test_conv_dw_SOURCES = test/conv/test_conv_dw.cpp
test_conv_test_conv_dw_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_dw_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/conv/test_conv_dw_isa.sh
TESTS += test/conv/test_conv_dw_isa.sh
# Direct int8 convolution (direct:avx512_vnni:nhwc:s8) against a naive
# loop and bit-for-bit against gemm:s8; again with the ISA capped below
# AVX512-VNNI, where gemm:s8 serves.
check_PROGRAMS += test/conv/test_conv_s8_direct
TESTS += test/conv/test_conv_s8_direct
test_conv_test_conv_s8_direct_SOURCES = test/conv/test_conv_s8_direct.cpp
test_conv_test_conv_s8_direct_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_s8_direct_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/conv/test_conv_s8_direct_isa.sh
TESTS += test/conv/test_conv_s8_direct_isa.sh
# Direct bf16 convolution (direct:avx512_bf16:nhwc, vdpbf16ps) against a
# naive loop; again with the ISA capped below AVX512-BF16 (GEMM route).
check_PROGRAMS += test/conv/test_conv_bf16_direct
TESTS += test/conv/test_conv_bf16_direct
test_conv_test_conv_bf16_direct_SOURCES = test/conv/test_conv_bf16_direct.cpp
test_conv_test_conv_bf16_direct_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_bf16_direct_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/conv/test_conv_bf16_direct_isa.sh
TESTS += test/conv/test_conv_bf16_direct_isa.sh

check_PROGRAMS += test/conv/test_conv_nxc_wrap
TESTS += test/conv/test_conv_nxc_wrap
test_conv_test_conv_nxc_wrap_SOURCES = test/conv/test_conv_nxc_wrap.cpp
test_conv_test_conv_nxc_wrap_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_conv_test_conv_nxc_wrap_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/conv/test_conv_nxc_wrap_isa.sh
TESTS += test/conv/test_conv_nxc_wrap_isa.sh
