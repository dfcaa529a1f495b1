# Normalizations: batch, layer and group normalization, and LRN.
libkestrel_la_SOURCES += \
	src/cpu/norm/bnorm_pd.hpp src/cpu/norm/bnorm_pd.cpp \
	src/cpu/norm/bnorm.cpp src/cpu/norm/bnorm_bwd.cpp src/cpu/norm/norm_bwd.hpp src/cpu/norm/norm_bwd_pd.hpp \
	src/api/batch_normalization.cpp
libkestrel_la_SOURCES += \
	src/cpu/norm/lnorm_pd.hpp src/cpu/norm/lnorm_pd.cpp \
	src/cpu/norm/lnorm.cpp src/cpu/norm/lnorm_bwd.cpp \
	src/api/layer_normalization.cpp
libkestrel_la_SOURCES += \
	src/cpu/norm/gnorm_pd.hpp src/cpu/norm/gnorm_pd.cpp \
	src/cpu/norm/gnorm.cpp src/cpu/norm/gnorm_bwd.cpp \
	src/api/group_normalization.cpp
libkestrel_la_SOURCES += \
	src/cpu/norm/lrn_pd.hpp src/cpu/norm/lrn_pd.cpp \
	src/cpu/norm/lrn.cpp src/cpu/norm/lrn_bwd.cpp \
	src/api/lrn.cpp
