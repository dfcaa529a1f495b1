# parallel() and its thread team.
check_PROGRAMS += test/threading/test_team
TESTS += test/threading/test_team
test_threading_test_team_SOURCES = test/threading/test_team.cpp
test_threading_test_team_LDADD = $(TEST_LIBS)

EXTRA_DIST += test/threading/test_team_passive.sh
TESTS += test/threading/test_team_passive.sh
