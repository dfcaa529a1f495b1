# The f32 GEMM engine and its microkernels, the shared post-op helper,
# matmul, inner product and dnnl_sgemm.
libkestrel_la_SOURCES += \
	src/cpu/post_ops.hpp src/cpu/post_ops.cpp \
	src/cpu/gemm/gemm.hpp src/cpu/gemm/gemm.cpp \
	src/cpu/gemm/kernels.hpp \
	src/cpu/gemm/kernels_portable.cpp \
	src/cpu/gemm/kernels_avx2.cpp \
	src/cpu/gemm/kernels_avx512.cpp \
	src/cpu/gemm/gemm_s8.hpp src/cpu/gemm/gemm_s8.cpp \
	src/cpu/gemm/kernels_s8.hpp src/cpu/gemm/kernels_s8_direct.hpp \
	src/cpu/gemm/kernels_s8_portable.cpp \
	src/cpu/gemm/kernels_s8_avx2.cpp \
	src/cpu/gemm/kernels_s8_avxvnni.cpp \
	src/cpu/gemm/kernels_s8_avx512.cpp \
	src/cpu/gemm/gemm_util.hpp src/cpu/gemm/gemm_util.cpp \
	src/cpu/gemm/gemm_cvt.hpp src/cpu/gemm/gemm_cvt.cpp \
	src/cpu/gemm/gemm_bf16.hpp src/cpu/gemm/gemm_bf16.cpp \
	src/cpu/gemm/matmul_pd.hpp src/cpu/gemm/matmul_out.hpp src/cpu/gemm/matmul.hpp src/cpu/gemm/matmul.cpp \
	src/cpu/gemm/matmul_s8.hpp src/cpu/gemm/matmul_s8.cpp src/cpu/gemm/s8_out.hpp \
	src/cpu/gemm/matmul_sparse.hpp src/cpu/gemm/matmul_sparse.cpp \
	src/cpu/gemm/matmul_packed.hpp src/cpu/gemm/matmul_packed.cpp \
	src/cpu/gemm/packed_kernels.hpp src/cpu/gemm/packed_kernels_portable.cpp \
	src/cpu/gemm/packed_kernels_avx2.cpp src/cpu/gemm/packed_kernels_avx512.cpp \
	src/cpu/gemm/matmul_list.cpp \
	src/cpu/gemm/inner_product_pd.hpp src/cpu/gemm/inner_product.hpp \
	src/cpu/gemm/inner_product.cpp src/cpu/gemm/ip_s8.cpp src/cpu/gemm/inner_product_list.cpp \
	src/cpu/gemm/inner_product_bwd.hpp src/cpu/gemm/inner_product_bwd.cpp \
	src/api/gemm.cpp src/api/matmul.cpp src/api/inner_product.cpp
