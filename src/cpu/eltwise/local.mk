# Element-wise primitives: eltwise, binary, softmax, shuffle, prelu.
libkestrel_la_SOURCES += \
	src/cpu/eltwise/common.hpp \
	src/cpu/eltwise/src_dst_pd.hpp \
	src/cpu/eltwise/post_rows.hpp \
	src/cpu/eltwise/bcast.hpp \
	src/cpu/eltwise/kernels.hpp \
	src/cpu/eltwise/kernels_avx512.cpp \
	src/cpu/eltwise/kernels_avx2.cpp \
	src/cpu/eltwise/eltwise_pd.hpp \
	src/cpu/eltwise/eltwise.hpp \
	src/cpu/eltwise/eltwise.cpp \
	src/cpu/eltwise/eltwise_bwd.cpp \
	src/api/eltwise.cpp
EXTRA_DIST += \
	src/cpu/eltwise/simd/avx512.inc \
	src/cpu/eltwise/simd/avx2.inc \
	src/cpu/eltwise/simd/common.inc \
	src/cpu/eltwise/simd/math.inc \
	src/cpu/eltwise/simd/eltwise.inc \
	src/cpu/eltwise/simd/binary.inc \
	src/cpu/eltwise/simd/softmax.inc \
	src/cpu/eltwise/simd/eltwise_bwd.inc
libkestrel_la_SOURCES += \
	src/cpu/eltwise/binary_pd.hpp \
	src/cpu/eltwise/binary.hpp \
	src/cpu/eltwise/binary.cpp \
	src/api/binary.cpp
libkestrel_la_SOURCES += \
	src/cpu/eltwise/softmax_pd.hpp \
	src/cpu/eltwise/softmax.cpp \
	src/cpu/eltwise/softmax_bwd.cpp \
	src/api/softmax.cpp \
	src/cpu/eltwise/shuffle.hpp \
	src/cpu/eltwise/shuffle.cpp \
	src/api/shuffle.cpp \
	src/cpu/eltwise/prelu.hpp \
	src/cpu/eltwise/prelu.cpp \
	src/cpu/eltwise/prelu_bwd.cpp \
	src/api/prelu.cpp
