#include "cpu/common/common.hpp"

#include <initializer_list>

namespace kestrel {
namespace pool {

format_tag_t plain_tag(int ndims) {
    switch (ndims) {
        case 1: return dnnl_a;
        case 2: return dnnl_ab;
        case 3: return dnnl_abc;
        case 4: return dnnl_abcd;
        case 5: return dnnl_abcde;
        case 6: return dnnl_abcdef;
        default: return dnnl_format_tag_undef;
    }
}

format_tag_t tag_of(layout_t l, int ndims) {
    if (ndims < 2 || ndims > 5) return dnnl_format_tag_undef;
    static const format_tag_t t[4][4] = {
            {dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde},
            {dnnl_ab, dnnl_acb, dnnl_acdb, dnnl_acdeb},
            {dnnl_format_tag_undef, dnnl_aBc8b, dnnl_aBcd8b, dnnl_aBcde8b},
            {dnnl_format_tag_undef, dnnl_aBc16b, dnnl_aBcd16b, dnnl_aBcde16b},
    };
    int i = ndims - 2;
    switch (l) {
        case layout_t::ncsp: return t[0][i];
        case layout_t::nspc: return t[1][i];
        case layout_t::blocked8: return ndims == 2 ? dnnl_format_tag_undef : t[2][i];
        case layout_t::blocked16: return ndims == 2 ? dnnl_format_tag_undef : t[3][i];
        default: return dnnl_format_tag_undef;
    }
}

layout_t classify(const memory_desc_t &md) {
    mdw_t w(md);
    if (!w.is_blocked() || w.has_runtime_dims_or_strides() || md.ndims < 2 || md.ndims > 5)
        return layout_t::other;
    // Channel-last first: for 2D (N, C) both plain forms coincide and the
    // channel-innermost view is the faster one.
    for (layout_t l : {layout_t::nspc, layout_t::ncsp, layout_t::blocked16, layout_t::blocked8}) {
        format_tag_t t = tag_of(l, md.ndims);
        if (t != dnnl_format_tag_undef && w.matches_tag(t)) return l;
    }
    return layout_t::other;
}

status_t set_like(memory_desc_t &md, const memory_desc_t &like) {
    format_tag_t tag = tag_of(classify(like), md.ndims);
    if (tag == dnnl_format_tag_undef || like.ndims != md.ndims) tag = plain_tag(md.ndims);
    return md_set_tag(md, tag);
}

} // namespace pool
} // namespace kestrel
