libkestrel_la_SOURCES += \
	src/core/common.hpp src/core/packed_layout.hpp \
	src/core/cache_key.hpp src/core/primitive_cache.hpp src/core/primitive_cache.cpp \
	src/core/attr.hpp \
	src/core/defaults.hpp src/core/defaults.cpp \
	src/core/engine.hpp src/core/engine.cpp \
	src/core/memory.hpp src/core/memory.cpp \
	src/core/memory_desc.hpp src/core/memory_desc.cpp \
	src/core/md_blob.hpp src/core/md_blob.cpp \
	src/core/prim_blob.hpp src/core/prim_blob.cpp \
	src/core/primitive.hpp src/core/primitive.cpp \
	src/core/primitive_desc.hpp src/core/primitive_desc.cpp \
	src/core/verbose.hpp src/core/verbose.cpp src/core/verbose_info.cpp \
	src/core/zero_pad.hpp src/core/zero_pad.cpp
