# The flagship demo. It uses the public C++ API, plus two internal hooks for
# its memory report, so it links the internal library.
noinst_PROGRAMS += examples/kestrel-demo
examples_kestrel_demo_SOURCES = examples/kestrel_demo.cpp examples/demo_train.cpp examples/demo_train.hpp
examples_kestrel_demo_LDADD = libkestrel.la $(TBB_LIBS) $(NUMA_LIBS)
