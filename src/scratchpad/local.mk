libkestrel_la_SOURCES += \
	src/scratchpad/arena.hpp src/scratchpad/arena.cpp \
	src/scratchpad/numa.hpp src/scratchpad/numa.cpp \
	src/scratchpad/registry.hpp src/scratchpad/registry.cpp \
	src/scratchpad/sysmem.hpp src/scratchpad/sysmem.cpp
