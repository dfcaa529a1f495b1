# Normalizations: batch, layer and group normalization, and LRN.
libkestrel_la_SOURCES += \
	src/cpu/norm/bnorm_pd.hpp src/cpu/norm/bnorm_pd.cpp \
	src/cpu/norm/bnorm.cpp \
	src/api/batch_normalization.cpp
libkestrel_la_SOURCES += \
	src/cpu/norm/lnorm_pd.hpp src/cpu/norm/lnorm_pd.cpp \
	src/cpu/norm/lnorm.cpp \
	src/api/layer_normalization.cpp
libkestrel_la_SOURCES += \
	src/cpu/norm/gnorm_pd.hpp src/cpu/norm/gnorm_pd.cpp \
	src/cpu/norm/gnorm.cpp \
	src/api/group_normalization.cpp
libkestrel_la_SOURCES += \
	src/cpu/norm/lrn_pd.hpp src/cpu/norm/lrn_pd.cpp \
	src/cpu/norm/lrn.cpp \
	src/api/lrn.cpp
