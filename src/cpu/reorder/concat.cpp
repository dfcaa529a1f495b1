#include "cpu/reorder/concat_pd.hpp"
#include "cpu/reorder/layout_util.hpp"
#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

arg_usage_t concat_base_pd_t::arg_usage(int arg) const {
    // The base only knows scales of plain arguments; these name a source.
    const int src = arg & ~DNNL_ARG_ATTR_SCALES;
    if ((arg & DNNL_ARG_ATTR_SCALES) && src >= DNNL_ARG_MULTIPLE_SRC && src < DNNL_ARG_MULTIPLE_SRC + n())
        return has_scale(src - DNNL_ARG_MULTIPLE_SRC) ? arg_usage_t::input : arg_usage_t::unused;
    return multi_src_pd_t::arg_usage(arg);
}

status_t concat_base_pd_t::init_common(const char *impl) {
    if (!attr_.has_default_values(attr_t::skip_scales)) return decline(impl, "attributes");
    for (const auto &it : attr_.scales.items) {
        if (it.arg < DNNL_ARG_MULTIPLE_SRC || it.arg >= DNNL_ARG_MULTIPLE_SRC + n())
            return decline(impl, "scales on an argument other than a source");
        if (it.e.mask != 0 || it.e.ndims != 0 || it.e.dt != dnnl_f32)
            return decline(impl, "scales other than one f32 value per source");
    }
    return init_mds(impl);
}

// ------------------------------------------------------------ dense

namespace {

// True when md is the dense plain layout whose dim order is that of `order_of`.
bool dense_plain_like(const memory_desc_t &md, const memory_desc_t &order_of) {
    if (md.blocking.inner_nblks != 0) return false;
    memory_desc_t t = md;
    if (data_movement::md_dense_like(t, order_of) != status::success) return false;
    return md_equal(t, md);
}

} // namespace

status_t concat_dense_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(init_common(name()));
    const memory_desc_t &d = dst_md_;
    if (!dense_plain_like(d, d)) return decline(name(), "dst not plain dense");
    if (any_scale() && d.data_type != dnnl_f32) return decline(name(), "scales on a non-f32 dst");
    for (int i = 0; i < n(); ++i) {
        const memory_desc_t &s = desc_.src_mds[(size_t)i];
        if (s.data_type != d.data_type) return decline(name(), "data types differ");
        if (!dense_plain_like(s, d)) return decline(name(), "src layout differs from dst");
    }
    const int a = axis();
    // Elements per unit step of the axis: everything physically inside it.
    const dim_t inner = d.dims[a] > 1 ? d.blocking.strides[a] : 0;
    if (d.dims[a] > 1) {
        row = d.dims[a] * inner;
        outer = row ? mdw_t(d).nelems() / row : 0;
    } else {
        // Axis of extent <= 1: every source but one is empty; ref handles it.
        return decline(name(), "degenerate axis");
    }
    chunk.resize((size_t)n());
    dst_off.resize((size_t)n());
    dim_t off = 0;
    for (int i = 0; i < n(); ++i) {
        chunk[(size_t)i] = desc_.src_mds[(size_t)i].dims[a] * inner;
        dst_off[(size_t)i] = off;
        off += chunk[(size_t)i];
    }
    return status::success;
}

status_t concat_dense_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const int n = p->n();
    const size_t dsz = data_type_size(p->dst_md()->data_type);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const dim_t outer = p->outer, row = p->row;
    if (outer == 0) return status::success;
    parallel_nd(outer, n, [&](dim_t o, dim_t i) {
        const dim_t len = p->chunk[(size_t)i];
        if (len == 0) return;
        const int arg = DNNL_ARG_MULTIPLE_SRC + (int)i;
        const char *src = ctx.input<char>(arg) + o * len * dsz;
        char *d = dst + (o * row + p->dst_off[(size_t)i]) * dsz;
        const float *scale = p->any_scale() ? ctx.input<float>(DNNL_ARG_ATTR_SCALES | arg) : nullptr;
        if (!scale) {
            std::memcpy(d, src, (size_t)len * dsz);
            return;
        }
        // Scales are accepted for f32 only (see init).
        const float s = *scale;
        const float *fs = reinterpret_cast<const float *>(src);
        float *fd = reinterpret_cast<float *>(d);
        for (dim_t x = 0; x < len; ++x) fd[x] = s * fs[x];
    });
    return status::success;
}

// ------------------------------------------------------------ reference

status_t concat_ref_t::pd_t::init(dnnl_engine *) { return init_common(name()); }

status_t concat_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const int n = p->n(), a = p->axis();
    const memory_desc_t &dmd = *p->dst_md();
    const size_t dsz = data_type_size(dmd.data_type);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const bool scaled = p->any_scale();
    for_each_dst_elem(dmd, dst, [&](dim_t *pos, dim_t doff) {
        int i = 0;
        while (i < n - 1 && pos[a] >= p->src_md(i)->dims[a]) pos[a] -= p->src_md(i++)->dims[a];
        const memory_desc_t &smd = *p->src_md(i);
        const int arg = DNNL_ARG_MULTIPLE_SRC + i;
        const char *src = ctx.input<char>(arg);
        const dim_t soff = mdw_t(smd).off_v(pos);
        const float *scale = scaled ? ctx.input<float>(DNNL_ARG_ATTR_SCALES | arg) : nullptr;
        if (scale)
            store_f32(dmd.data_type, dst, doff, *scale * load_f32(smd.data_type, src, soff));
        else if (smd.data_type == dmd.data_type)
            copy_elem(dsz, src, soff, dst, doff);
        else
            store_f32(dmd.data_type, dst, doff, load_f32(smd.data_type, src, soff));
    });
    return status::success;
}

} // namespace kestrel
