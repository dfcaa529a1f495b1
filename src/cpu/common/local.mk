# Helpers shared by the channel-wise kinds (pooling, normalizations, LRN,
# resampling, reduction): layout classification and vectorised channel runs.
libkestrel_la_SOURCES += \
	src/cpu/common/common.hpp src/cpu/common/common.cpp \
	src/cpu/common/bwd_pd.hpp \
	src/cpu/common/dropout.hpp src/cpu/common/dropout.cpp \
	src/cpu/common/vec_ops.cpp src/cpu/common/vec_ops_body.inc
