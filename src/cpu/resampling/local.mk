# Resampling (nearest and linear).
libkestrel_la_SOURCES += \
	src/cpu/resampling/resampling_pd.hpp src/cpu/resampling/resampling_pd.cpp \
	src/cpu/resampling/resampling.cpp \
	src/cpu/resampling/resampling_bwd.cpp \
	src/api/resampling.cpp
