libkestrel_la_SOURCES += \
	src/cpu/isa.hpp src/cpu/isa.cpp \
	src/cpu/prefetch.hpp \
	src/cpu/simd.hpp \
	src/cpu/threading.hpp src/cpu/threading.cpp \
	src/cpu/types.hpp \
	src/cpu/math/eltwise_math.hpp
# One fragment per primitive kind.
include src/cpu/reorder/local.mk
include src/cpu/eltwise/local.mk
include src/cpu/common/local.mk
include src/cpu/pooling/local.mk
include src/cpu/norm/local.mk
include src/cpu/resampling/local.mk
include src/cpu/reduction/local.mk
include src/cpu/gemm/local.mk
include src/cpu/conv/local.mk
include src/cpu/rnn/local.mk
