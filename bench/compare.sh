#!/bin/sh
# Kestrel against its anchors (oneDNN 2.x and OpenBLAS) on the shapes of
# bench/anchor_shapes.hpp, anchor_int8_shapes.hpp and rnn_shapes.hpp
# (issues 11 and 12). The programs run interleaved, ROUNDS times
# (alternating which goes first), so that load on a shared machine hits
# both sides alike; every table holds medians over the rounds:
#   - f32 compute (GFLOP/s), ratio Kestrel/oneDNN, each figure as % of the
#     machine's measured f32 FMA peak (bench_peak, all usable CPUs, best
#     over the rounds), the geometric mean of the ratios and the count of
#     cases below 0.85;
#   - low precision (int8, bf16, f16, weights decompression): the same and
#     "x f32", Kestrel's rate over its own f32 rate of the same problem;
#   - memory-bound problems (GB/s);
#   - creation latency (microseconds, primitive cache miss and hit), ratio
#     oneDNN/Kestrel.
# A problem one side refuses shows "-" and is listed at the end.
#   compare.sh BUILDDIR [ROUNDS]      (make bench-compare calls it)
# BENCH_ONLY and BENCH_CPU_TIME (bench/anchor_timing.hpp) pass through to
# every program.
set -eu
dir=${1:-.}
rounds=${2:-5}
[ "$rounds" -ge 1 ] 2>/dev/null || { echo "compare.sh: ROUNDS must be a positive number" >&2; exit 2; }
kg=$dir/bench/bench_gemm
kc=$dir/bench/bench_conv
kt=$dir/bench/bench_train
ke=$dir/bench/bench_eltwise
kr=$dir/bench/bench_rnn
kk=$dir/bench/bench_create
kp=$dir/bench/bench_peak
an=$dir/bench/anchor_onednn
for p in "$kg" "$kc" "$kt" "$ke" "$kr" "$kk" "$kp" "$an"; do
    [ -x "$p" ] || { echo "compare.sh: $p not built" >&2; exit 2; }
done
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT INT TERM
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
echo "bench-compare: $rounds interleaved rounds, load average at start: $load0" >&2
r=1
while [ "$r" -le "$rounds" ]; do
    echo "  round $r/$rounds" >&2
    "$kp" --machine >>"$raw"
    if [ $((r % 2)) -eq 1 ]; then
        "$kg" --machine >>"$raw"; "$an" --gemm >>"$raw"
        "$kc" --machine >>"$raw"; "$an" --conv >>"$raw"
        "$kt" --machine >>"$raw"; "$an" --train >>"$raw"
        "$ke" --machine >>"$raw"; "$an" --mem >>"$raw"
        "$kr" --machine >>"$raw"; "$an" --rnn >>"$raw"
        "$kk" --machine >>"$raw"; "$an" --create >>"$raw"
    else
        "$an" --gemm >>"$raw"; "$kg" --machine >>"$raw"
        "$an" --conv >>"$raw"; "$kc" --machine >>"$raw"
        "$an" --train >>"$raw"; "$kt" --machine >>"$raw"
        "$an" --mem >>"$raw"; "$ke" --machine >>"$raw"
        "$an" --rnn >>"$raw"; "$kr" --machine >>"$raw"
        "$an" --create >>"$raw"; "$kk" --machine >>"$raw"
    fi
    r=$((r + 1))
done
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
echo "bench-compare: load average at end: $load1" >&2

# Header: the CPU and the ISA features that matter to these kernels.
cpuinfo=/proc/cpuinfo
field() { grep -m1 "^$1[[:space:]]*:" "$cpuinfo" 2>/dev/null | sed 's/^[^:]*:[[:space:]]*//'; }
flags=" $(field flags) "
has() { case "$flags" in *" $1 "*) echo yes ;; *) echo no ;; esac; }
echo "CPU: $(field 'model name') (family $(field 'cpu family'), model $(field model)), $(nproc 2>/dev/null || echo '?') usable CPUs;" \
    "avx512f $(has avx512f), avx512_vnni $(has avx512_vnni), avx512_bf16 $(has avx512_bf16)," \
    "amx $(has amx_tile), avx512_fp16 $(has avx512_fp16)"
echo "Run: $rounds interleaved rounds, medians; load average $load0 at the start, $load1 at the end;" \
    "BENCH_CPU_TIME=${BENCH_CPU_TIME:-0}${BENCH_ONLY:+, BENCH_ONLY=$BENCH_ONLY}"

# Measured FMA peak: the best figure per thread count over the rounds; the
# % of peak columns use the one with the most threads (all usable CPUs).
peak=$(grep '^PEAK ' "$raw" | awk '
    { if ($5 + 0 > best[$4]) best[$4] = $5 + 0; isa = $3; if ($4 + 0 > nt) nt = $4 + 0 }
    END {
        if (!nt) { print "0"; exit }
        line = ""
        for (t = 1; t <= nt; t++)
            if (t in best) line = line sprintf("%s%d thread%s %.1f GFLOP/s", line == "" ? "" : ", ", t, t > 1 ? "s" : "", best[t])
        printf "%.1f %s\n", best[nt], "f32 FMA peak (" isa ", best of the rounds): " line
    }')
pk=${peak%% *}
[ "$pk" = 0 ] || echo "${peak#* }; % of peak below is of the ${pk} GFLOP/s figure"
echo

# Shared awk: medians per (library, shape), shapes in the order of their
# first run; the kind of a shape; a low-precision shape's f32 counterpart.
lib='
    function median(key,   c, i, j, t, a) {
        c = n[key]; if (!c) return -1
        for (i = 1; i <= c; i++) a[i] = v[key, i] + 0
        for (i = 2; i <= c; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
    }
    function kind(s) {
        if (s ~ /^create_/) return "create"
        if (s ~ /^mem_/) return "mem"
        if (s ~ /u8s8|_u8_|bf16|_f16/) return "lowp"
        return "f32"
    }
    function f32_of(s,   t) {
        t = s
        if (t ~ /^gemm_u8s8s32_/) { sub(/^gemm_u8s8s32_/, "sgemm_NN_", t); return t }
        if (t ~ /^matmul_[a-z0-9]+_[0-9]+x[0-9]+x[0-9]+$/) { sub(/^matmul_[a-z0-9]+_/, "matmul_1x", t); return t }
        if (t ~ /^ip_mb/) { sub(/^ip_/, "ip_fwd_", t); sub(/_u8s8s8$/, "", t); return t }
        if (t ~ /^lstm_u8_/) { sub(/^lstm_u8_/, "lstm_", t); return t }
        sub(/_(u8s8u8|bf16)_/, "_", t)
        return t
    }
    function cell(x) { return x < 0 ? sprintf("%10s", "-") : sprintf("%10.1f", x) }
    function pct(x) { return (x < 0 || pk <= 0) ? sprintf("%6s", "-") : sprintf("%5.0f%%", 100 * x / pk) }
    function ratio(a, b, w) { return (a > 0 && b > 0) ? sprintf("%*.2f", w, a / b) : sprintf("%*s", w, "-") }
    { key = $2 " " $3; n[key]++; v[key, n[key]] = $4
      if (!($3 in seen)) { seen[$3] = 1; order[++ns] = $3 } }
    function any(kd,   i) { for (i = 1; i <= ns; i++) if (kind(order[i]) == kd) return 1; return 0 }
    function geo(title, cnt, lsum, below) {
        if (cnt) printf "%s: geometric mean %.2f over %d cases, %d below 0.85\n", title, exp(lsum / cnt), cnt, below
    }
'

grep '^BENCH ' "$raw" | awk -v pk="$pk" "$lib"'
    END {
        if (!any("f32")) exit
        printf "%-46s %10s %10s %10s %8s %6s %6s %6s\n", "f32 (median GFLOP/s)", "Kestrel", "oneDNN2.6", "OpenBLAS",
            "K/1DNN", "K%pk", "1D%pk", "OB%pk"
        for (i = 1; i <= ns; i++) {
            s = order[i]; if (kind(s) != "f32") continue
            k = median("kestrel " s); o = median("onednn " s); b = median("openblas " s)
            if (k > 0 && o > 0) { cnt++; lsum += log(k / o); if (k / o < 0.85) below++ }
            printf "%-46s %s %s %s %s %s %s %s\n", s, cell(k), cell(o), cell(b), ratio(k, o, 8), pct(k), pct(o), pct(b)
        }
        geo("f32 Kestrel/oneDNN", cnt, lsum, below)
    }'

grep '^BENCH ' "$raw" | awk -v pk="$pk" "$lib"'
    END {
        if (!any("lowp")) exit
        printf "\n%-46s %10s %10s %8s %8s\n", "low precision (median GFLOP/s)", "Kestrel", "oneDNN2.6", "K/1DNN", "x f32"
        for (i = 1; i <= ns; i++) {
            s = order[i]; if (kind(s) != "lowp") continue
            k = median("kestrel " s); o = median("onednn " s); f = median("kestrel " f32_of(s))
            if (k > 0 && o > 0) { cnt++; lsum += log(k / o); if (k / o < 0.85) below++ }
            printf "%-46s %s %s %s %s\n", s, cell(k), cell(o), ratio(k, o, 8), ratio(k, f, 8)
        }
        geo("low precision Kestrel/oneDNN", cnt, lsum, below)
    }'

# Memory-bound problems (shapes mem_*): median GB/s, the ratio to oneDNN
# and each library's rate over its own same-size copy (the mem_copy row).
grep '^BENCH ' "$raw" | awk "$lib"'
    { if ($3 ~ /^mem_copy_/) copyshape = $3 }
    END {
        if (!any("mem")) exit
        kc = median("kestrel " copyshape); oc = median("onednn " copyshape)
        printf "\n%-46s %10s %10s %8s %8s %11s\n", "memory-bound (median GB/s)", "Kestrel", "oneDNN2.6", "K/1DNN", "K/copy",
            "oneDNN/copy"
        for (i = 1; i <= ns; i++) {
            s = order[i]; if (kind(s) != "mem") continue
            k = median("kestrel " s); o = median("onednn " s)
            if (k > 0 && o > 0) { cnt++; lsum += log(k / o); if (k / o < 0.85) below++ }
            printf "%-46s %s %s %s %s %s\n", s, cell(k), cell(o), ratio(k, o, 8), ratio(k, kc, 8), ratio(o, oc, 11)
        }
        geo("memory-bound Kestrel/oneDNN", cnt, lsum, below)
    }'

# Creation latency: lower is better, so the ratio is oneDNN/Kestrel (the
# issue asks for 10x or more on a miss).
grep '^BENCH ' "$raw" | awk "$lib"'
    function us(x) { return x < 0 ? sprintf("%10s", "-") : sprintf("%10.2f", x) }
    END {
        if (!any("create")) exit
        printf "\n%-46s %10s %10s %8s\n", "creation pd+primitive (median us)", "Kestrel", "oneDNN2.6", "1DNN/K"
        for (i = 1; i <= ns; i++) {
            s = order[i]; if (kind(s) != "create") continue
            k = median("kestrel " s); o = median("onednn " s)
            if (k > 0 && o > 0 && s ~ /^create_miss_/) { cnt++; lsum += log(o / k); if (o / k < 10) below++ }
            printf "%-46s %s %s %s\n", s, us(k), us(o), ratio(o, k, 8)
        }
        if (cnt) printf "creation on a miss, oneDNN/Kestrel: geometric mean %.1f over %d cases, %d below 10\n", exp(lsum / cnt), cnt, below
    }'

# Problems a side refused or failed (once each).
refused=$(grep '^REFUSED ' "$raw" | sort -u | awk '{ printf "  %s: %s (%s)\n", $2, $3, $4 }')
if [ -n "$refused" ]; then
    echo
    echo "refused or failed (shown as -):"
    echo "$refused"
fi
echo "bench-compare: wall time $(($(date +%s) - start)) s" >&2
