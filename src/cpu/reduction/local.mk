# Reduction (sum, mean, max, min, mul, Lp norms).
libkestrel_la_SOURCES += \
	src/cpu/reduction/reduction_pd.hpp src/cpu/reduction/reduction_pd.cpp \
	src/cpu/reduction/reduction.cpp \
	src/api/reduction.cpp
