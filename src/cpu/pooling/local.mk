# Pooling: descriptor, the vectorised and plain-layout kernels, int8.
libkestrel_la_SOURCES += \
	src/cpu/pooling/pooling_pd.hpp src/cpu/pooling/pooling_pd.cpp \
	src/cpu/pooling/pooling.cpp src/cpu/pooling/pooling_ncsp.cpp \
	src/cpu/pooling/pooling_int8.cpp src/cpu/pooling/pooling_bwd.cpp \
	src/api/pooling.cpp
