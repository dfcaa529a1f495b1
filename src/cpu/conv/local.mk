# Convolution and deconvolution, forward and backward.
libkestrel_la_SOURCES += \
	src/cpu/conv/conv_pd.hpp src/cpu/conv/conv_pd.cpp \
	src/cpu/conv/conv_epilogue.hpp src/cpu/conv/conv_epilogue.cpp \
	src/cpu/conv/conv_impls.hpp \
	src/cpu/conv/ref_conv.cpp \
	src/cpu/conv/direct_conv.hpp src/cpu/conv/direct_conv.cpp \
	src/cpu/conv/direct_conv_avx512.cpp src/cpu/conv/direct_conv_avx2.cpp \
	src/cpu/conv/direct_conv_tile.inc \
	src/cpu/conv/gemm_conv.cpp src/cpu/conv/conv_s8.cpp \
	src/cpu/conv/conv_s8_direct.hpp src/cpu/conv/conv_s8_direct.cpp \
	src/cpu/conv/conv_s8_direct_avx512.cpp src/cpu/conv/conv_s8_direct_avx2.cpp \
	src/cpu/conv/conv_bf16_direct.hpp src/cpu/conv/conv_bf16_direct.cpp \
	src/cpu/conv/conv_bf16_direct_avx512.cpp src/cpu/conv/skip_columns.hpp \
	src/cpu/conv/conv_dw_fused.cpp src/cpu/conv/dw_conv.cpp src/cpu/conv/dw_conv_row.inc \
	src/cpu/conv/conv_nxc_wrap.hpp src/cpu/conv/conv_nxc_wrap.cpp \
	src/cpu/conv/gemm_deconv.cpp \
	src/cpu/conv/conv_list.cpp \
	src/cpu/conv/conv_bwd.hpp src/cpu/conv/conv_bwd.cpp \
	src/cpu/conv/conv_bwd_cols.hpp src/cpu/conv/conv_bwd_cols.cpp \
	src/cpu/conv/direct_conv_bwd.hpp src/cpu/conv/direct_conv_bwd.cpp \
	src/cpu/conv/direct_conv_bwd_w_avx512.cpp \
	src/api/convolution.cpp src/api/deconvolution.cpp
