# Pooling-family kinds: pooling, batch/layer/group normalization, LRN,
# resampling, reduction (forward), and their C entry points.
libkestrel_la_SOURCES += \
	src/cpu/pooling/common.hpp src/cpu/pooling/common.cpp \
	src/cpu/pooling/vec_ops.cpp src/cpu/pooling/vec_ops_body.inc \
	src/cpu/pooling/pooling_pd.hpp src/cpu/pooling/pooling_pd.cpp \
	src/cpu/pooling/pooling.cpp src/cpu/pooling/pooling_ncsp.cpp \
	src/cpu/pooling/pooling_int8.cpp \
	src/api/pooling.cpp
libkestrel_la_SOURCES += \
	src/cpu/pooling/bnorm_pd.hpp src/cpu/pooling/bnorm_pd.cpp \
	src/cpu/pooling/bnorm.cpp \
	src/api/batch_normalization.cpp
libkestrel_la_SOURCES += \
	src/cpu/pooling/reduction_pd.hpp src/cpu/pooling/reduction_pd.cpp \
	src/cpu/pooling/reduction.cpp \
	src/api/reduction.cpp
libkestrel_la_SOURCES += \
	src/cpu/pooling/lnorm_pd.hpp src/cpu/pooling/lnorm_pd.cpp \
	src/cpu/pooling/lnorm.cpp \
	src/api/layer_normalization.cpp
libkestrel_la_SOURCES += \
	src/cpu/pooling/gnorm_pd.hpp src/cpu/pooling/gnorm_pd.cpp \
	src/cpu/pooling/gnorm.cpp \
	src/api/group_normalization.cpp
libkestrel_la_SOURCES += \
	src/cpu/pooling/lrn_pd.hpp src/cpu/pooling/lrn_pd.cpp \
	src/cpu/pooling/lrn.cpp \
	src/api/lrn.cpp
libkestrel_la_SOURCES += \
	src/cpu/pooling/resampling_pd.hpp src/cpu/pooling/resampling_pd.cpp \
	src/cpu/pooling/resampling.cpp \
	src/api/resampling.cpp
