if HAVE_CHECK
check_PROGRAMS += test/scratchpad/check_arena
TESTS += test/scratchpad/check_arena
test_scratchpad_check_arena_SOURCES = test/scratchpad/check_arena.cpp test/scratchpad/scratch_prim.hpp
# The test replaces operator new/delete with malloc/free to count calls.
test_scratchpad_check_arena_CXXFLAGS = $(AM_CXXFLAGS) $(CHECK_CFLAGS) -Wno-mismatched-new-delete
test_scratchpad_check_arena_LDADD = $(TEST_LIBS) $(CHECK_LIBS)
endif

if HAVE_CMOCKA
if HAVE_NUMA
check_PROGRAMS += test/scratchpad/test_numa
TESTS += test/scratchpad/test_numa
test_scratchpad_test_numa_SOURCES = test/scratchpad/test_numa.cpp test/scratchpad/scratch_prim.hpp
test_scratchpad_test_numa_CXXFLAGS = $(AM_CXXFLAGS) $(CMOCKA_CFLAGS)
test_scratchpad_test_numa_LDADD = $(TEST_LIBS) $(CMOCKA_LIBS)
test_scratchpad_test_numa_LDFLAGS = $(AM_LDFLAGS) \
	-Wl,--wrap=numa_available -Wl,--wrap=numa_num_configured_nodes \
	-Wl,--wrap=numa_node_of_cpu -Wl,--wrap=numa_alloc_onnode \
	-Wl,--wrap=numa_free -Wl,--wrap=sched_getcpu
endif
endif

check_PROGRAMS += test/scratchpad/stress
TESTS += test/scratchpad/stress
test_scratchpad_stress_SOURCES = test/scratchpad/stress.cpp test/scratchpad/scratch_prim.hpp
test_scratchpad_stress_LDADD = $(TEST_LIBS)


check_PROGRAMS += test/scratchpad/static_exit
TESTS += test/scratchpad/static_exit
test_scratchpad_static_exit_SOURCES = test/scratchpad/static_exit.cpp test/scratchpad/scratch_prim.hpp
test_scratchpad_static_exit_LDADD = $(TEST_LIBS)

check_PROGRAMS += test/scratchpad/wider_arena
TESTS += test/scratchpad/wider_arena
test_scratchpad_wider_arena_SOURCES = test/scratchpad/wider_arena.cpp
test_scratchpad_wider_arena_LDADD = $(TEST_LIBS)
