#include "cpu/reorder/concat_pd.hpp"
#include "cpu/reorder/layout_util.hpp"
#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

status_t concat_base_pd_t::init_common(const char *impl) {
    if (!attr_.has_default_values()) return decline(impl, "attributes");
    if (n() < 1) return decline(impl, "no sources");
    for (int i = 0; i < n(); ++i) {
        const mdw_t s(desc_.src_mds[(size_t)i]);
        if (!s.is_blocked() || s.has_runtime_dims_or_strides()) return decline(impl, "src layout");
        if (!reorder_dt_supported(s.data_type())) return decline(impl, "src data type");
    }
    if (mdw_t(dst_md_).is_any()) KESTREL_CHECK(data_movement::md_dense_like(dst_md_, desc_.src_mds[0]));
    const mdw_t d(dst_md_);
    if (!d.is_blocked() || d.has_runtime_dims_or_strides()) return decline(impl, "dst layout");
    if (!reorder_dt_supported(d.data_type())) return decline(impl, "dst data type");
    return status::success;
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
        const char *src = ctx.input<char>(DNNL_ARG_MULTIPLE_SRC + (int)i);
        std::memcpy(dst + (o * row + p->dst_off[(size_t)i]) * dsz, src + o * len * dsz, (size_t)len * dsz);
    });
    return status::success;
}

// ------------------------------------------------------------ reference

status_t concat_ref_t::pd_t::init(dnnl_engine *) { return init_common(name()); }

status_t concat_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const int n = p->n(), a = p->axis();
    const memory_desc_t &dmd = *p->dst_md();
    const mdw_t d(dmd);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const int nd = dmd.ndims;
    const dim_t total = d.nelems(true);
    parallel_nd(total, [&](dim_t l) {
        dim_t pos[max_ndims] = {};
        bool inside = true;
        for (int k = nd - 1; k >= 0; --k) {
            pos[k] = l % dmd.padded_dims[k];
            l /= dmd.padded_dims[k];
            inside = inside && pos[k] < dmd.dims[k];
        }
        const dim_t doff = d.off_v(pos);
        if (!inside) {
            zero_elem(d.dt_size(), dst, doff);
            return;
        }
        int i = 0;
        while (i < n - 1 && pos[a] >= p->src_md(i)->dims[a]) pos[a] -= p->src_md(i++)->dims[a];
        const memory_desc_t &smd = *p->src_md(i);
        const char *src = ctx.input<char>(DNNL_ARG_MULTIPLE_SRC + i);
        const dim_t soff = mdw_t(smd).off_v(pos);
        if (smd.data_type == dmd.data_type)
            copy_elem(d.dt_size(), src, soff, dst, doff);
        else
            store_f32(dmd.data_type, dst, doff, load_f32(smd.data_type, src, soff));
    });
    return status::success;
}

} // namespace kestrel
