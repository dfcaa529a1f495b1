// Every primary format tag (dnnl_format_tag_t below dnnl_format_tag_last)
// against a layout worked out here from the tag's name alone: the outer
// letters give the order of dims (outermost first, upper case = blocked),
// then <size><letter> pairs give the inner blocks, outermost first. For
// each tag, descriptors of odd dims (so that every blocked dim is padded)
// must have the padded dims, strides and inner blocks that follow from
// that rule, and a rank other than the tag's must be refused. The library
// decodes tags through a table built once; this checks the whole table,
// in both orders of first use (a tag in the middle first, then all).
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "dnnl.h"
#include "dnnl_debug.h"
#include "common/kt_test.hpp"

namespace {

kt::tally_t t;

struct expect_t {
    int ndims = 0;
    int order[DNNL_MAX_NDIMS] = {};
    int nblks = 0;
    dnnl_dim_t blks[DNNL_MAX_NDIMS] = {};
    int idxs[DNNL_MAX_NDIMS] = {};
};

// The naming rule, parsed by hand; false for names that are not layouts
// ("undef", "any", "unknown...").
bool parse_name(const char *s, expect_t &e) {
    bool seen[26] = {};
    size_t i = 0;
    const size_t n = std::strlen(s);
    while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) {
        const int d = s[i] >= 'a' ? s[i] - 'a' : s[i] - 'A';
        if (d >= DNNL_MAX_NDIMS || seen[d]) return false;
        seen[d] = true;
        e.order[e.ndims++] = d;
        ++i;
    }
    for (int d = 0; d < e.ndims; ++d)
        if (!seen[d]) return false;
    if (e.ndims == 0) return false;
    while (i < n) {
        dnnl_dim_t b = 0;
        size_t start = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') b = b * 10 + (s[i++] - '0');
        if (i == start || i >= n || b <= 0) return false;
        const int d = s[i] >= 'a' ? s[i] - 'a' : s[i] - 'A';
        if (d < 0 || d >= e.ndims || e.nblks >= DNNL_MAX_NDIMS) return false;
        e.blks[e.nblks] = b;
        e.idxs[e.nblks++] = d;
        ++i;
    }
    return true;
}

// Checks one tag; returns false when the library's answer differs.
bool check_tag(int tag_value, std::string &why) {
    const auto tag = (dnnl_format_tag_t)tag_value;
    const char *name = dnnl_fmt_tag2str(tag);
    expect_t e;
    const bool layout = name && parse_name(name, e);
    dnnl_dims_t dims = {};
    for (int d = 0; d < DNNL_MAX_NDIMS; ++d) dims[d] = 3 + 2 * d; // odd: every block pads
    const int ndims = layout ? e.ndims : 4;
    dnnl_memory_desc_t md = nullptr;
    const dnnl_status_t st = dnnl_memory_desc_create_with_tag(&md, ndims, dims, dnnl_f32, tag);
    if (tag == dnnl_format_tag_any) {
        // Not a layout, but a valid request: the descriptor's format is any.
        int kind = -1;
        const bool ok = st == dnnl_success && md
                && dnnl_memory_desc_query(md, dnnl_query_format_kind, &kind) == dnnl_success
                && kind == dnnl_format_kind_any;
        if (md) dnnl_memory_desc_destroy(md);
        why = "any did not give a descriptor of format any";
        return ok;
    }
    if (tag == dnnl_format_tag_undef) {
        // As in oneDNN: the zero descriptor.
        int nd = -1;
        const bool ok = st == dnnl_success && md
                && dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) == dnnl_success && nd == 0;
        if (md) dnnl_memory_desc_destroy(md);
        why = "undef did not give the zero descriptor";
        return ok;
    }
    if (!layout) {
        // Not a layout: refused, nothing handed out.
        if (md) dnnl_memory_desc_destroy(md);
        why = "not a layout but accepted";
        return st != dnnl_success && md == nullptr;
    }
    if (st != dnnl_success || !md) {
        why = "refused";
        return false;
    }
    dnnl_dim_t blk_of[DNNL_MAX_NDIMS];
    for (int d = 0; d < DNNL_MAX_NDIMS; ++d) blk_of[d] = 1;
    dnnl_dim_t inner = 1;
    for (int b = 0; b < e.nblks; ++b) {
        blk_of[e.idxs[b]] *= e.blks[b];
        inner *= e.blks[b];
    }
    dnnl_dim_t padded[DNNL_MAX_NDIMS], strides[DNNL_MAX_NDIMS];
    for (int d = 0; d < ndims; ++d) padded[d] = (dims[d] + blk_of[d] - 1) / blk_of[d] * blk_of[d];
    dnnl_dim_t run = inner;
    for (int k = ndims - 1; k >= 0; --k) {
        const int d = e.order[k];
        strides[d] = run;
        run *= padded[d] / blk_of[d];
    }
    const dnnl_dim_t *q_padded = nullptr, *q_strides = nullptr, *q_blks = nullptr, *q_idxs = nullptr;
    int q_nblks = -1;
    bool ok = dnnl_memory_desc_query(md, dnnl_query_padded_dims, &q_padded) == dnnl_success
            && dnnl_memory_desc_query(md, dnnl_query_strides, &q_strides) == dnnl_success
            && dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &q_nblks) == dnnl_success
            && dnnl_memory_desc_query(md, dnnl_query_inner_blks, &q_blks) == dnnl_success
            && dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &q_idxs) == dnnl_success;
    why = "queries failed";
    if (ok) {
        why = "layout differs";
        ok = q_nblks == e.nblks;
        for (int d = 0; ok && d < ndims; ++d) ok = q_padded[d] == padded[d] && q_strides[d] == strides[d];
        for (int b = 0; ok && b < e.nblks; ++b) ok = q_blks[b] == e.blks[b] && q_idxs[b] == e.idxs[b];
        if (ok) {
            why = "size differs";
            dnnl_dim_t elems = 1;
            for (int d = 0; d < ndims; ++d) elems *= padded[d];
            ok = dnnl_memory_desc_get_size(md) == (size_t)elems * sizeof(float);
        }
    }
    dnnl_memory_desc_destroy(md);
    // One rank more or less than the tag's is refused.
    for (int other : {ndims - 1, ndims + 1}) {
        if (!ok || other < 1 || other > DNNL_MAX_NDIMS) continue;
        dnnl_memory_desc_t bad = nullptr;
        if (dnnl_memory_desc_create_with_tag(&bad, other, dims, dnnl_f32, tag) == dnnl_success || bad) {
            why = "a rank other than the tag's accepted";
            ok = false;
        }
        if (bad) dnnl_memory_desc_destroy(bad);
    }
    return ok;
}

} // namespace

int main() {
    // First use from several threads at once, on tags in the middle of the
    // table (the table is built on first use).
    std::vector<std::thread> pool;
    std::vector<int> first_ok(4, 0);
    for (int i = 0; i < 4; ++i)
        pool.emplace_back([i, &first_ok] {
            std::string why;
            first_ok[i] = check_tag((int)dnnl_nChw16c + i, why) ? 1 : 0;
        });
    for (auto &th : pool) th.join();
    for (int i = 0; i < 4; ++i) t.check(first_ok[i] == 1, "tags decoded right on a concurrent first use");

    int layouts = 0, bad = 0;
    for (int v = 0; v < (int)dnnl_format_tag_last; ++v) {
        std::string why;
        if (!check_tag(v, why)) {
            ++bad;
            std::fprintf(stderr, "tag %d (%s): %s\n", v, dnnl_fmt_tag2str((dnnl_format_tag_t)v), why.c_str());
        }
        expect_t e;
        const char *name = dnnl_fmt_tag2str((dnnl_format_tag_t)v);
        if (name && parse_name(name, e)) ++layouts;
    }
    std::printf("%d tags, %d of them layouts\n", (int)dnnl_format_tag_last, layouts);
    t.check(bad == 0, "every primary tag's layout follows from its name");
    // The table covers the whole range: the last primary tag and the
    // aliases (equal to primary values) decode too.
    t.check(layouts > 500, "the tag range holds the expected hundreds of layouts");
    {
        std::string why;
        t.check(check_tag((int)dnnl_nchw, why) && check_tag((int)dnnl_format_tag_last - 1, why),
                "nchw and the last primary tag");
    }
    // Outside the range: refused.
    dnnl_dims_t dims = {2, 3, 4, 5};
    dnnl_memory_desc_t md = nullptr;
    t.check(dnnl_memory_desc_create_with_tag(&md, 4, dims, dnnl_f32, dnnl_format_tag_last) != dnnl_success
                    && md == nullptr,
            "dnnl_format_tag_last is not a layout");
    t.check(dnnl_memory_desc_create_with_tag(&md, 4, dims, dnnl_f32, (dnnl_format_tag_t)-3) != dnnl_success
                    && md == nullptr,
            "a negative tag is not a layout");
    return t.finish();
}
