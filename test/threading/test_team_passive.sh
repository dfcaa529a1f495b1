#!/bin/sh
# test_team with OMP_WAIT_POLICY=passive: no thread team, every parallel()
# call a plain tbb::parallel_for; the same checks hold.
OMP_WAIT_POLICY=passive
export OMP_WAIT_POLICY
echo "OMP_WAIT_POLICY=passive test_team"
./test/threading/test_team || exit 1
