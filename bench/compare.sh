#!/bin/sh
# Kestrel against its anchors (oneDNN 2.x and OpenBLAS) on the shapes of
# bench/anchor_shapes.hpp. The programs run interleaved, ROUNDS times
# (alternating which goes first), so that load on a shared machine hits
# both sides alike; the table holds each shape's median GFLOP/s.
#   compare.sh BUILDDIR [ROUNDS]      (make bench-compare calls it)
set -eu
dir=${1:-.}
rounds=${2:-5}
[ "$rounds" -ge 1 ] 2>/dev/null || { echo "compare.sh: ROUNDS must be a positive number" >&2; exit 2; }
kg=$dir/bench/bench_gemm
kc=$dir/bench/bench_conv
kt=$dir/bench/bench_train
an=$dir/bench/anchor_onednn
ke=$dir/bench/bench_eltwise
kr=$dir/bench/bench_rnn
for p in "$kg" "$kc" "$kt" "$ke" "$kr" "$an"; do
    [ -x "$p" ] || { echo "compare.sh: $p not built" >&2; exit 2; }
done
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT INT TERM
echo "bench-compare: $rounds interleaved rounds, load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" >&2
r=1
while [ "$r" -le "$rounds" ]; do
    echo "  round $r/$rounds" >&2
    if [ $((r % 2)) -eq 1 ]; then
        "$kg" --machine >>"$raw"; "$an" --gemm >>"$raw"
        "$kc" --machine >>"$raw"; "$an" --conv >>"$raw"
        "$kt" --machine >>"$raw"; "$an" --train >>"$raw"
        "$ke" --machine >>"$raw"; "$an" --mem >>"$raw"
        "$kr" --machine >>"$raw"; "$an" --rnn >>"$raw"
    else
        "$an" --gemm >>"$raw"; "$kg" --machine >>"$raw"
        "$an" --conv >>"$raw"; "$kc" --machine >>"$raw"
        "$an" --train >>"$raw"; "$kt" --machine >>"$raw"
        "$an" --mem >>"$raw"; "$ke" --machine >>"$raw"
        "$an" --rnn >>"$raw"; "$kr" --machine >>"$raw"
    fi
    r=$((r + 1))
done
echo "bench-compare: load average at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" >&2

# Median per (library, shape); shapes keep the order of their first run.
grep '^BENCH ' "$raw" | grep -v '^BENCH [a-z]* mem_' | awk '
    { key = $2 " " $3; n[key]++; v[key, n[key]] = $4
      if (!($3 in seen)) { seen[$3] = 1; order[++ns] = $3 } }
    function median(key,   c, i, j, t, a) {
        c = n[key]; if (!c) return -1
        for (i = 1; i <= c; i++) a[i] = v[key, i] + 0
        for (i = 2; i <= c; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
    }
    function cell(x) { return x < 0 ? sprintf("%10s", "-") : sprintf("%10.1f", x) }
    END {
        printf "%-40s %10s %10s %10s %16s\n", "shape (median GFLOP/s)", "Kestrel", "oneDNN2.6", "OpenBLAS", "Kestrel/oneDNN"
        for (i = 1; i <= ns; i++) {
            s = order[i]; k = median("kestrel " s); o = median("onednn " s); b = median("openblas " s)
            ratio = (k > 0 && o > 0) ? sprintf("%16.2f", k / o) : sprintf("%16s", "-")
            printf "%-40s %s %s %s %s\n", s, cell(k), cell(o), cell(b), ratio
        }
    }'

# Memory-bound problems (shapes mem_*): median GB/s, the ratio to oneDNN
# and each library's rate over its own same-size copy (the mem_copy row).
grep '^BENCH [a-z]* mem_' "$raw" | awk '
    { key = $2 " " $3; n[key]++; v[key, n[key]] = $4
      if (!($3 in seen)) { seen[$3] = 1; order[++ns] = $3 }
      if ($3 ~ /^mem_copy_/) copyshape = $3 }
    function median(key,   c, i, j, t, a) {
        c = n[key]; if (!c) return -1
        for (i = 1; i <= c; i++) a[i] = v[key, i] + 0
        for (i = 2; i <= c; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
    }
    function cell(x) { return x < 0 ? sprintf("%10s", "-") : sprintf("%10.1f", x) }
    function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%10.2f", a / b) : sprintf("%10s", "-") }
    END {
        if (!ns) exit
        kc = median("kestrel " copyshape); oc = median("onednn " copyshape)
        printf "\n%-40s %10s %10s %10s %10s %10s\n", "memory-bound (median GB/s)", "Kestrel", "oneDNN2.6", "K/oneDNN", "K/copy", "oneDNN/copy"
        for (i = 1; i <= ns; i++) {
            s = order[i]; k = median("kestrel " s); o = median("onednn " s)
            printf "%-40s %s %s %s %s %s\n", s, cell(k), cell(o), ratio(k, o), ratio(k, kc), ratio(o, oc)
        }
    }'
