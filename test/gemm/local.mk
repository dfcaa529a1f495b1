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
check_PROGRAMS += test/gemm/test_matmul_lowp
TESTS += test/gemm/test_matmul_lowp
test_gemm_test_matmul_lowp_SOURCES = test/gemm/test_matmul_lowp.cpp
test_gemm_test_matmul_lowp_LDADD = $(TEST_LIBS)
