# Tests of the GEMM engine, dnnl_sgemm, matmul and inner product.
check_PROGRAMS += test/gemm/test_gemm
TESTS += test/gemm/test_gemm
test_gemm_test_gemm_SOURCES = test/gemm/test_gemm.cpp
test_gemm_test_gemm_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/gemm/test_matmul
TESTS += test/gemm/test_matmul
test_gemm_test_matmul_SOURCES = test/gemm/test_matmul.cpp
test_gemm_test_matmul_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/gemm/test_inner_product
TESTS += test/gemm/test_inner_product
test_gemm_test_inner_product_SOURCES = test/gemm/test_inner_product.cpp
test_gemm_test_inner_product_LDADD = $(TEST_LIBS)
# Weights decompression: float src, s8/u8 weights, grouped scales and zero points.
check_PROGRAMS += test/gemm/test_matmul_wdecomp
TESTS += test/gemm/test_matmul_wdecomp
test_gemm_test_matmul_wdecomp_SOURCES = test/gemm/test_matmul_wdecomp.cpp
test_gemm_test_matmul_wdecomp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_gemm_test_matmul_wdecomp_LDADD = $(TEST_LIBS)
# bf16 x bf16 products on AVX512-BF16 (vdpbf16ps) inside gemm:cvt.
check_PROGRAMS += test/gemm/test_matmul_bf16_dot
TESTS += test/gemm/test_matmul_bf16_dot
test_gemm_test_matmul_bf16_dot_SOURCES = test/gemm/test_matmul_bf16_dot.cpp
test_gemm_test_matmul_bf16_dot_LDADD = $(TEST_LIBS)

check_PROGRAMS += test/gemm/test_matmul_wdecomp_s4
TESTS += test/gemm/test_matmul_wdecomp_s4
test_gemm_test_matmul_wdecomp_s4_SOURCES = test/gemm/test_matmul_wdecomp_s4.cpp
test_gemm_test_matmul_wdecomp_s4_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_gemm_test_matmul_wdecomp_s4_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/gemm/test_matmul_lowp
TESTS += test/gemm/test_matmul_lowp
test_gemm_test_matmul_lowp_SOURCES = test/gemm/test_matmul_lowp.cpp
test_gemm_test_matmul_lowp_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/gemm/test_matmul_int8_attr
TESTS += test/gemm/test_matmul_int8_attr
test_gemm_test_matmul_int8_attr_SOURCES = test/gemm/test_matmul_int8_attr.cpp
test_gemm_test_matmul_int8_attr_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/gemm/lowp_util.hpp
check_PROGRAMS += test/gemm/test_matmul_attr
TESTS += test/gemm/test_matmul_attr
test_gemm_test_matmul_attr_SOURCES = test/gemm/test_matmul_attr.cpp
test_gemm_test_matmul_attr_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/gemm/matmul_util.hpp
EXTRA_DIST += test/gemm/wdecomp_tables.hpp
check_PROGRAMS += test/gemm/test_ip_bwd
TESTS += test/gemm/test_ip_bwd
test_gemm_test_ip_bwd_SOURCES = test/gemm/test_ip_bwd.cpp
test_gemm_test_ip_bwd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_gemm_test_ip_bwd_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/gemm/test_dropout
TESTS += test/gemm/test_dropout
test_gemm_test_dropout_SOURCES = test/gemm/test_dropout.cpp
test_gemm_test_dropout_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_gemm_test_dropout_LDADD = $(TEST_LIBS)
check_PROGRAMS += test/gemm/test_gemm_s8
TESTS += test/gemm/test_gemm_s8
test_gemm_test_gemm_s8_SOURCES = test/gemm/test_gemm_s8.cpp
test_gemm_test_gemm_s8_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/gemm/test_gemm_s8_isa.sh
TESTS += test/gemm/test_gemm_s8_isa.sh
check_PROGRAMS += test/gemm/test_matmul_s8
TESTS += test/gemm/test_matmul_s8
test_gemm_test_matmul_s8_SOURCES = test/gemm/test_matmul_s8.cpp
test_gemm_test_matmul_s8_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/gemm/test_matmul_s8_isa.sh
TESTS += test/gemm/test_matmul_s8_isa.sh
EXTRA_DIST += test/gemm/test_gemm_isa.sh
TESTS += test/gemm/test_gemm_isa.sh
# int8 inner product (gemm:s8 and the reference) against a naive quantized
# loop; again with the ISA capped.
check_PROGRAMS += test/gemm/test_ip_s8
TESTS += test/gemm/test_ip_s8
test_gemm_test_ip_s8_SOURCES = test/gemm/test_ip_s8.cpp
test_gemm_test_ip_s8_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_gemm_test_ip_s8_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/gemm/test_ip_s8_isa.sh
TESTS += test/gemm/test_ip_s8_isa.sh

check_PROGRAMS += test/gemm/test_weights_panels
TESTS += test/gemm/test_weights_panels
test_gemm_test_weights_panels_SOURCES = test/gemm/test_weights_panels.cpp
test_gemm_test_weights_panels_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_gemm_test_weights_panels_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/gemm/test_weights_panels_isa.sh
TESTS += test/gemm/test_weights_panels_isa.sh
# fp8 matmul (gemm:cvt and the reference) against a naive double loop, and
# again with the ISA capped below AVX-512.
check_PROGRAMS += test/gemm/test_matmul_f8
TESTS += test/gemm/test_matmul_f8
test_gemm_test_matmul_f8_SOURCES = test/gemm/test_matmul_f8.cpp test/common/f8_naive.hpp
test_gemm_test_matmul_f8_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test/common
test_gemm_test_matmul_f8_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/gemm/test_matmul_f8_isa.sh
TESTS += test/gemm/test_matmul_f8_isa.sh
# Weights decompression into bf16 panels (bf16 src, fpmath bf16 applied to
# integers), and again with the ISA capped (f32 panels, GEMV, plain loops).
check_PROGRAMS += test/gemm/test_matmul_wdecomp_bf16
TESTS += test/gemm/test_matmul_wdecomp_bf16
test_gemm_test_matmul_wdecomp_bf16_SOURCES = test/gemm/test_matmul_wdecomp_bf16.cpp
test_gemm_test_matmul_wdecomp_bf16_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/test
test_gemm_test_matmul_wdecomp_bf16_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/gemm/test_matmul_wdecomp_bf16_isa.sh
TESTS += test/gemm/test_matmul_wdecomp_bf16_isa.sh
# gemm:cvt's converting packs (f16 / bf16 / f32 operands straight into the
# f32 kernel's panels), and again with the ISA capped at AVX2 and SSE41.
check_PROGRAMS += test/gemm/test_matmul_f16_pack
TESTS += test/gemm/test_matmul_f16_pack
test_gemm_test_matmul_f16_pack_SOURCES = test/gemm/test_matmul_f16_pack.cpp
test_gemm_test_matmul_f16_pack_LDADD = $(TEST_LIBS)
EXTRA_DIST += test/gemm/test_matmul_f16_pack_isa.sh
TESTS += test/gemm/test_matmul_f16_pack_isa.sh
