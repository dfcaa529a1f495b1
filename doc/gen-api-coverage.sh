#!/bin/sh
# Write the "API coverage" page: which public C API functions Kestrel
# implements and which ones are stubs returning dnnl_unimplemented.
#
# usage: sh doc/gen-api-coverage.sh OUT.md DEFINED_SYMBOLS API_SRC_DIR HEADER...
#
# DEFINED_SYMBOLS is the same file lib/gen-stubs.sh takes: the symbols the
# library's real code defines, one per line (plain names or `nm` lines).
# A defined function does not always do what its name says: in API_SRC_DIR
# (src/api) a comment `// api-coverage: KIND: NOTE` on the line(s) before a
# definition marks it `partial` (some arguments return dnnl_unimplemented),
# `no-op` (accepted, nothing to act on) or `unimplemented` (always returns
# dnnl_unimplemented); the page shows the kind and the note.
# Headers are listed in the order given; inside a header, functions are
# grouped by API family and sorted, so the output only depends on the
# declarations and the symbol list (a test can diff it against the committed
# doc/api-coverage.md).  Declarations are parsed by lib/list-api.sh.

set -eu

if [ $# -lt 4 ]; then
    echo "usage: sh $0 OUT.md DEFINED_SYMBOLS API_SRC_DIR HEADER..." >&2
    exit 2
fi

out=$1
defined=$2
srcdir_api=$3
shift 3

if [ ! -r "$defined" ]; then
    echo "gen-api-coverage: cannot read defined-symbols file '$defined'" >&2
    exit 2
fi

here=$(dirname "$0")
lister="$here/../lib/list-api.sh"
tmp="$out.tmp.$$"
rows="$out.rows.$$"
marks="$out.marks.$$"
trap 'rm -f "$tmp" "$rows" "$rows.s" "$rows.l" "$marks"' EXIT
trap 'exit 1' HUP INT TERM

# name <TAB> kind <TAB> note, from the api-coverage comments.
LC_ALL=C awk '
/\/\/ api-coverage:/ {
    m = $0
    sub(/.*\/\/ api-coverage: */, "", m)
    kind = m
    sub(/:.*/, "", kind)
    note = m
    sub(/^[^:]*: */, "", note)
    next
}
kind != "" && match($0, /dnnl_[a-z0-9_]+\(/) {
    printf "%s\t%s\t%s\n", substr($0, RSTART, RLENGTH - 1), kind, note
    kind = ""
}' "$srcdir_api"/*.cpp > "$marks"
if LC_ALL=C awk -F '\t' '$2 !~ /^(partial|no-op|unimplemented)$/ { bad = 1; print "gen-api-coverage: unknown kind \"" $2 "\" for " $1 > "/dev/stderr" } END { exit bad }' "$marks"; then :; else exit 2; fi

# One row per declaration: header index, header name, family, name, status,
# guard.
: > "$rows"
i=0
for h in "$@"; do
    i=$((i + 1))
    sh "$lister" "$h" > "$rows.l"
    LC_ALL=C awk -F '\t' -v idx="$i" \
        -v hdr="$(basename "$h")" -v defs="$defined" -v marks="$marks" '
# API family of a function, from its name.
function family(n,    s) {
    s = n
    sub(/^dnnl_/, "", s)
    if (s ~ /_primitive_desc_create(_v[0-9]+)?$/) {
        sub(/_primitive_desc_create(_v[0-9]+)?$/, "", s)
        sub(/_(forward|backward|backward_data|backward_weights)$/, "", s)
        if (s ~ /^(vanilla_rnn|lstm|gru|lbr_gru|augru|lbr_augru)$/)
            return "rnn"
        return s
    }
    if (s ~ /^primitive_desc_/) return "primitive_desc"
    if (s ~ /^primitive_attr_/) return "primitive_attr"
    if (s ~ /^primitive_cache_|_primitive_cache_/) return "primitive_cache"
    if (s ~ /^primitive_/) return "primitive"
    if (s ~ /^post_ops_/) return "post_ops"
    if (s ~ /^memory_desc_/ || s == "data_type_size") return "memory_desc"
    if (s ~ /^memory_/) return "memory"
    if (s ~ /^engine_/) return "engine"
    if (s ~ /^stream_/) return "stream"
    if (s ~ /fpmath_mode/) return "fpmath_mode"
    if (s ~ /^(sgemm|gemm_)/) return "blas"
    if (s ~ /cpu_isa/) return "cpu_isa"
    if (s ~ /^set_jit_/) return "jit"
    if (s ~ /profiling/) return "profiling"
    if (s ~ /^(set_verbose|version)$/) return "service"
    sub(/_.*$/, "", s)
    return s
}
BEGIN {
    while ((rc = (getline line < defs)) > 0) {
        sub(/\r$/, "", line)
        n = split(line, f, /[ \t]+/)
        while (n > 0 && f[n] == "") n--
        if (n > 0) have[f[n]] = 1
    }
    close(defs)
    while ((rc = (getline line < marks)) > 0) {
        split(line, f, "\t")
        mkind[f[1]] = f[2]
        mnote[f[1]] = f[3]
    }
    close(marks)
}
{
    if ($1 in seen) next
    seen[$1] = 1
    note = ""
    if ($1 in have) {
        st = "implemented"
        if ($1 in mkind) { st = mkind[$1]; note = mnote[$1] }
    }
    else if ($2 == "dnnl_status_t") st = "stub"
    else st = "missing"
    printf "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", idx, hdr, family($1), $1, st, $4, note
}' "$rows.l" >> "$rows"
done

LC_ALL=C sort -t "$(printf '\t')" -k1,1n -k3,3 -k4,4 "$rows" > "$rows.s"

LC_ALL=C awk -F '\t' '
function cell(s) {
    gsub(/\|/, "\\|", s)
    return s
}
function label(st, note) {
    if (st == "implemented") return "implemented"
    if (st == "partial") return "partial: " cell(note)
    if (st == "no-op") return "accepted, no effect: " cell(note)
    if (st == "unimplemented") return "returns `dnnl_unimplemented`: " cell(note)
    if (st == "stub") return "returns `dnnl_unimplemented`"
    return "**missing** (not defined)"
}
NR == FNR {
    total++
    ht[$1]++
    hname[$1] = $2
    ft[$1 SUBSEP $3]++
    if ($5 == "implemented") { impl++; hi[$1]++; fi[$1 SUBSEP $3]++ }
    else if ($5 == "partial" || $5 == "no-op") { part++; hp[$1]++ }
    else if ($5 == "stub" || $5 == "unimplemented") {
        stub++
        hs[$1]++
        if ($6 !~ /DNNL_EXPERIMENTAL_PROFILING/) open_stub++
    }
    else { miss++; hm[$1]++ }
    if ($1 > nh) nh = $1
    next
}
FNR == 1 {
    print "# API coverage"
    print ""
    print "Generated by `doc/gen-api-coverage.sh` from the public headers and"
    print "the symbols the library defines; do not edit by hand."
    print ""
    printf "**%d of %d functions implemented in full.** %d implemented in part" \
        " or accepted with no effect; %d always return `dnnl_unimplemented`", \
        impl + 0, total + 0, part + 0, stub + 0
    if (miss + 0 > 0) printf "; %d are not defined at all", miss
    print "."
    print ""
    printf "Outside the experimental profiling API (`DNNL_EXPERIMENTAL_PROFILING`), %d" \
        " functions always return `dnnl_unimplemented`.\n", open_stub + 0
    print ""
    print "| Header | Implemented | Partial or no-op | Unimplemented | Total |"
    print "| --- | ---: | ---: | ---: | ---: |"
    for (h = 1; h <= nh; h++)
        if (h in ht)
            printf "| `%s` | %d | %d | %d | %d |\n", hname[h], hi[h] + 0, \
                hp[h] + 0, hs[h] + 0, ht[h]
    if (miss + 0 > 0)
        print "\nFunctions marked **missing** do not return `dnnl_status_t`, so" \
            " they cannot be stubbed and the library does not link until they" \
            " are implemented."
}
{
    if ($1 != cur_h) {
        cur_h = $1
        cur_f = ""
        printf "\n## %s (%d of %d implemented)\n", $2, hi[$1] + 0, ht[$1]
    }
    if ($3 != cur_f) {
        cur_f = $3
        k = $1 SUBSEP $3
        printf "\n### %s (%d of %d)\n\n", $3, fi[k] + 0, ft[k]
        print "| Function | Status |"
        print "| --- | --- |"
    }
    note = ($6 == "") ? "" : " (only if `" cell($6) "`)"
    printf "| `%s`%s | %s |\n", $4, note, label($5, $7)
}
END {
    if (total + 0 == 0) {
        print "# API coverage"
        print ""
        print "No functions declared."
    }
}
' "$rows.s" "$rows.s" > "$tmp"

mv "$tmp" "$out"
