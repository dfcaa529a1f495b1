# The flagship demo. It uses the public C++ API, plus two internal hooks for
# its memory report, so it links the internal library.
noinst_PROGRAMS += examples/kestrel-demo
examples_kestrel_demo_SOURCES = examples/kestrel_demo.cpp examples/demo_train.cpp examples/demo_train.hpp
examples_kestrel_demo_LDADD = libkestrel.la $(TBB_LIBS) $(NUMA_LIBS)
examples_kestrel_demo_SOURCES += examples/cnn_trainer.hpp

# The examples a oneDNN user starts from, each checking its own numbers
# against a plain computation. They use the public API only and link the
# exported library, as a user's program does; `make check` builds and runs
# them.
check_PROGRAMS += examples/getting_started_c examples/getting_started_cpp \
	examples/scratchpad_modes examples/cnn_training
TESTS += examples/getting_started_c examples/getting_started_cpp examples/cnn_training \
	examples/scratchpad_modes.sh examples/python_ctypes.sh
EXTRA_DIST += examples/scratchpad_modes.sh examples/python_ctypes.sh examples/python_ctypes.py
examples_getting_started_c_SOURCES = examples/getting_started_c.c
examples_getting_started_c_CFLAGS = $(AM_CFLAGS) -std=c99 -pedantic
examples_getting_started_c_LDADD = lib/libdnnl.la -lm
examples_getting_started_cpp_SOURCES = examples/getting_started.cpp
examples_getting_started_cpp_LDADD = lib/libdnnl.la
examples_scratchpad_modes_SOURCES = examples/scratchpad_modes.cpp
examples_scratchpad_modes_LDADD = lib/libdnnl.la
examples_cnn_training_SOURCES = examples/cnn_training.cpp examples/cnn_trainer.hpp
examples_cnn_training_LDADD = lib/libdnnl.la
