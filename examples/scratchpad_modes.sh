#!/bin/sh
# Runs the scratchpad-modes example under both library-mode policies (the
# global arena and private scratchpads); each run also checks user mode. The
# output bits must be the same under every policy. Runs from the build
# directory.
prog=examples/scratchpad_modes
out_g=$(ONEDNN_SCRATCHPAD=global $prog) || { echo "$out_g"; echo "FAIL: global arena run"; exit 1; }
echo "$out_g"
out_p=$(ONEDNN_SCRATCHPAD=private $prog) || { echo "$out_p"; echo "FAIL: private run"; exit 1; }
echo "$out_p"
sum_g=$(echo "$out_g" | sed -n 's/^output checksum: //p')
sum_p=$(echo "$out_p" | sed -n 's/^output checksum: //p')
if [ -z "$sum_g" ] || [ "$sum_g" != "$sum_p" ]; then
    echo "FAIL: the two policies gave different outputs ($sum_g, $sum_p)"
    exit 1
fi
echo "global arena and private scratchpads give the same bits"
