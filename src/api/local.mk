libkestrel_la_SOURCES += \
	src/api/api.hpp \
	src/api/attr.cpp \
	src/api/debug.cpp \
	src/api/engine.cpp \
	src/api/memory.cpp \
	src/api/memory_desc.cpp \
	src/api/misc.cpp \
	src/api/primitive.cpp
