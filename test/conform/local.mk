# Conformance with oneDNN v3.9 by API behaviour: every forward primitive
# kind's queries, next_impl, runtime dims and refused attributes; and the
# conformance issue's items through the C API and through dnnl.hpp.
check_PROGRAMS += test/conform/test_kinds test/conform/test_items_c test/conform/test_items_hpp
TESTS += test/conform/test_kinds test/conform/test_items_c test/conform/test_items_hpp
test_conform_test_kinds_SOURCES = test/conform/test_kinds.cpp
test_conform_test_kinds_LDADD = $(TEST_LIBS)
test_conform_test_items_c_SOURCES = test/conform/test_items_c.cpp
test_conform_test_items_c_LDADD = $(TEST_LIBS)
test_conform_test_items_hpp_SOURCES = test/conform/test_items_hpp.cpp
test_conform_test_items_hpp_LDADD = $(TEST_LIBS)
