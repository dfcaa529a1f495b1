#!/bin/sh
# List the functions declared with DNNL_API in C headers.
#
# usage: sh lib/list-api.sh HEADER...
#
# Prints one line per declaration, in header order, with four TAB-separated
# fields:
#   name  return_type  params  guard
# params is the parameter list exactly as declared (whitespace collapsed),
# without the surrounding parentheses.  guard is a preprocessor condition
# the declaration depends on (e.g. "defined(DNNL_EXPERIMENTAL_PROFILING)"),
# or empty; include guards and __cplusplus blocks are not reported, and
# declarations under "#if 0" are skipped.  Comments, DNNL_API, extern,
# __attribute__((...)), __declspec(...), [[...]] and upper-case *DEPRECATED*
# macros (with or without arguments) are ignored; a declaration may span any
# number of lines, up to its closing ";".
#
# This is the one prototype parser shared by lib/gen-stubs.sh and
# doc/gen-api-coverage.sh.  POSIX sh and awk only.

set -eu

if [ $# -lt 1 ]; then
    echo "usage: sh $0 HEADER..." >&2
    exit 2
fi

for h in "$@"; do
    if [ ! -r "$h" ]; then
        echo "list-api: cannot read header '$h'" >&2
        exit 2
    fi
done

LC_ALL=C awk '
function trim(s) {
    sub(/^[ \t]+/, "", s)
    sub(/[ \t]+$/, "", s)
    return s
}

function squeeze(s) {
    gsub(/[ \t\r\n\f\v]+/, " ", s)
    return trim(s)
}

function is_ident_char(c) {
    return c ~ /[A-Za-z0-9_]/
}

# Index of the parenthesis closing the one at position p, or 0.
function match_paren(s, p,    depth, i, c) {
    depth = 0
    for (i = p; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "(") depth++
        else if (c == ")") {
            depth--
            if (depth == 0) return i
        }
    }
    return 0
}

# Remove export markers and attribute-like annotations: DNNL_API, any
# upper-case macro whose name contains DEPRECATED, __attribute__, __declspec,
# each with an optional (possibly nested) argument list, and [[...]].
function strip_annotations(s,    out, i, j, k, c, word, rest) {
    while (match(s, /\[\[[^]]*\]\]/))
        s = substr(s, 1, RSTART - 1) " " substr(s, RSTART + RLENGTH)
    out = ""
    i = 1
    while (i <= length(s)) {
        c = substr(s, i, 1)
        if (!is_ident_char(c) || (i > 1 && is_ident_char(substr(s, i - 1, 1)))) {
            out = out c
            i++
            continue
        }
        j = i
        while (j <= length(s) && is_ident_char(substr(s, j, 1))) j++
        word = substr(s, i, j - i)
        if (word == "DNNL_API" || word == "__attribute__" \
                || word == "__declspec" || word == "extern" \
                || (word ~ /^[A-Z0-9_]+$/ && word ~ /DEPRECATED/)) {
            k = j
            while (k <= length(s) && substr(s, k, 1) == " ") k++
            if (word != "DNNL_API" && word != "extern" \
                    && substr(s, k, 1) == "(") {
                k = match_paren(s, k)
                if (k == 0) k = length(s)
                j = k + 1
            }
            out = out " "
        } else {
            out = out word
        }
        i = j
    }
    return out
}

function current_guard(    g, i) {
    g = ""
    for (i = 1; i <= depth; i++) {
        if (cond[i] == "") continue
        if (cond[i] == "(0)") return "0"
        g = (g == "") ? cond[i] : g " && " cond[i]
    }
    return g
}

# Conditional compilation: cond[k] is the condition under which the current
# branch of nesting level k is compiled, prev[k] the disjunction of the
# conditions of its earlier branches ("" when the level is not reported).
function directive(line,    d, arg) {
    line = squeeze(substr(trim(line), 2))
    d = line
    sub(/[ \t(].*$/, "", d)
    arg = trim(substr(line, length(d) + 1))
    if (d == "ifndef" || d == "ifdef" || d == "if") {
        depth++
        if (arg ~ /__cplusplus/) cond[depth] = ""
        else if (d == "ifdef") cond[depth] = "defined(" arg ")"
        else if (d == "ifndef") cond[depth] = "!defined(" arg ")"
        else cond[depth] = "(" arg ")"
        prev[depth] = cond[depth]
        pending = (d == "ifndef") ? arg : ""
        return
    }
    if (d == "define" && pending != "") {
        sub(/[ \t(].*$/, "", arg)
        if (arg == pending) {
            cond[depth] = ""
            prev[depth] = ""
        }
        pending = ""
        return
    }
    pending = ""
    if (d == "else" && depth > 0) {
        if (prev[depth] != "") cond[depth] = "!(" prev[depth] ")"
        return
    }
    if (d == "elif" && depth > 0) {
        if (prev[depth] != "") {
            cond[depth] = "!(" prev[depth] ") && (" arg ")"
            prev[depth] = prev[depth] " || (" arg ")"
        } else {
            cond[depth] = "(" arg ")"
            prev[depth] = cond[depth]
        }
        return
    }
    if (d == "endif" && depth > 0) {
        depth--
        return
    }
}

function statement(s,    p, q, i, head, name, ret, params, guard) {
    if (index(s, "DNNL_API") == 0) return
    s = squeeze(strip_annotations(squeeze(s)))
    p = index(s, "(")
    if (p == 0) return
    head = trim(substr(s, 1, p - 1))
    i = length(head)
    while (i > 0 && is_ident_char(substr(head, i, 1))) i--
    name = substr(head, i + 1)
    ret = trim(substr(head, 1, i))
    q = match_paren(s, p)
    if (name == "" || ret == "" || q == 0) {
        printf "list-api: %s: cannot parse declaration: %s\n", \
            FILENAME, s > "/dev/stderr"
        status = 1
        return
    }
    guard = current_guard()
    if (guard == "0") return
    params = trim(substr(s, p + 1, q - p - 1))
    gsub(/ *, */, ", ", params)
    gsub(/\( /, "(", params)
    gsub(/ \)/, ")", params)
    gsub(/ *\*/, "*", ret)
    sub(/\*/, " *", ret)
    printf "%s\t%s\t%s\t%s\n", name, ret, params, guard
}

FNR == 1 {
    # Each header starts from a clean state.
    depth = 0; pending = ""; incomment = 0; buf = ""; contd = ""; quote = ""
}

{
    line = $0
    sub(/\r$/, "", line)

    # Comments: /* ... */ (possibly spanning lines) and // to end of line.
    # String and character literals are skipped, and any ; { } inside them
    # blanked so they cannot end a declaration.
    out = ""
    i = 1
    n = length(line)
    while (i <= n) {
        if (incomment) {
            e = index(substr(line, i), "*/")
            if (e == 0) break
            i += e + 1
            incomment = 0
            out = out " "
            continue
        }
        c = substr(line, i, 1)
        if (quote != "") {
            if (c == "\\") {
                out = out substr(line, i, 2)
                i += 2
                continue
            }
            if (c == quote) quote = ""
            out = out ((c ~ /[;{}]/) ? " " : c)
            i++
            continue
        }
        two = substr(line, i, 2)
        if (two == "//") break
        if (two == "/*") {
            incomment = 1
            i += 2
            continue
        }
        if (c == "\"" || c == "\047") quote = c
        out = out c
        i++
    }
    quote = ""
    line = out

    # Preprocessor directives, with backslash continuations.
    if (contd != "" || line ~ /^[ \t]*#/) {
        if (line ~ /\\[ \t]*$/) {
            sub(/\\[ \t]*$/, " ", line)
            contd = contd line
            next
        }
        line = contd line
        contd = ""
        directive(line)
        next
    }
    if (trim(line) != "") pending = ""

    # Declarations end at ";"; braces delimit extern "C", enum/struct bodies.
    buf = buf " " line
    while (match(buf, /[;{}]/)) {
        pos = RSTART
        c = substr(buf, pos, 1)
        stmt = substr(buf, 1, pos - 1)
        buf = substr(buf, pos + 1)
        if (c == ";") statement(stmt)
    }
}

END { exit status }
' "$@"
