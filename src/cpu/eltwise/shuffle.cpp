// Shuffle forward: the axis of size C read as a (C/G) x G matrix is
// transposed to G x (C/G): dst channel u + v*(C/G) takes src channel u*G + v.
// Pure data movement, so every implementation is exact.
#include "cpu/eltwise/shuffle.hpp"

#include <cstring>

#include "cpu/eltwise/common.hpp"

namespace kestrel {

status_t shuffle_fwd_pd_t::init_common(const char *me) {
    const data_type_t dt = src_md_.data_type;
    if (!elt::is_float_dt(dt) && !elt::is_int_dt(dt)) return decline(me, "data type");
    if (dst_md_.data_type != dt) return decline(me, "data types differ");
    KESTREL_CHECK(init_layouts(me));
    if (!attr_.has_default_values()) return decline(me, "attributes");
    return status::success;
}

// ---------------------------------------------------------------- copy

status_t shuffle_copy_t::pd_t::init(dnnl_engine *) {
    const char *me = "copy:shuffle";
    KESTREL_CHECK(init_common(me));
    if (!md_equal(src_md_, dst_md_)) return decline(me, "layouts differ");
    if (!mdw_t(src_md_).is_plain() || !elt::flat_ok(src_md_, false))
        return decline(me, "not dense plain");
    // Dense: the dims with a smaller stride than the axis fill exactly
    // `stride` elements below it, and the others step over whole axes.
    const int ax = desc_.axis;
    const dim_t C = src_md_.dims[ax];
    inner_ = C == 1 ? 1 : src_md_.blocking.strides[ax];
    outer_ = C * inner_ == 0 ? 0 : mdw_t(src_md_).nelems() / (C * inner_);
    return status::success;
}

status_t shuffle_copy_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const dim_t C = pd->src_md()->dims[pd->desc().axis], G = pd->desc().group_size, CG = C / G;
    const dim_t outer = pd->outer_, inner = pd->inner_;
    const size_t esz = data_type_size(pd->src_md()->data_type);
    auto src_c = [=](dim_t c) { return (c % CG) * G + c / CG; };
    if (inner > 1) {
        const size_t row = (size_t)inner * esz;
        parallel_nd(outer, C, [&](dim_t o, dim_t c) {
            std::memcpy(dst + (o * C + c) * row, src + (o * C + src_c(c)) * row, row);
        });
        return status::success;
    }
    // The axis is innermost: a gather inside each row of C elements.
    auto rows = [&](auto tag) {
        using T = decltype(tag);
        const T *s = reinterpret_cast<const T *>(src);
        T *d = reinterpret_cast<T *>(dst);
        parallel(nthr_for(outer * C, 4096), [&](int ithr, int nthr) {
            dim_t b, e;
            balance211(outer, nthr, ithr, b, e);
            for (dim_t o = b; o < e; ++o)
                for (dim_t c = 0; c < C; ++c) d[o * C + c] = s[o * C + src_c(c)];
        });
    };
    switch (esz) {
        case 1: rows(uint8_t()); break;
        case 2: rows(uint16_t()); break;
        default: rows(uint32_t()); break;
    }
    return status::success;
}

// ---------------------------------------------------------------- ref

namespace {
// dst at channel c (along axis `ax`) takes src at channel from(c); any
// layouts of one data type; zeroes dst's padding.
template <typename F>
void gather_channels(const mdw_t &sm, const mdw_t &dm, const char *src, char *dst, int ax, const F &from) {
    const int nd = sm.ndims();
    const size_t esz = sm.dt_size();
    elt::parallel_logical(nd, dm.dims(), [&](const dim_t *pos) {
        dim_t p[max_ndims];
        for (int d = 0; d < nd; ++d) p[d] = pos[d];
        p[ax] = from(pos[ax]);
        std::memcpy(dst + dm.off_v(pos) * esz, src + sm.off_v(p) * esz, esz);
    });
    elt::zero_padding(dm.md(), dst);
}
} // namespace

status_t shuffle_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const mdw_t sm(pd->src_md()), dm(pd->dst_md());
    const int ax = pd->desc().axis;
    const dim_t C = sm.dims()[ax], G = pd->desc().group_size, CG = C / G;
    gather_channels(sm, dm, ctx.input<char>(DNNL_ARG_SRC), ctx.output<char>(DNNL_ARG_DST), ax,
            [=](dim_t c) { return (c % CG) * G + c / CG; });
    return status::success;
}

// ---------------------------------------------------------------- bwd

status_t shuffle_bwd_ref_t::pd_t::init(dnnl_engine *) {
    const char *me = "ref:shuffle_bwd";
    const data_type_t dt = diff_dst_md_.data_type;
    if (desc_.prop_kind != dnnl_backward_data) return decline(me, "prop kind");
    if (!elt::is_float_dt(dt) && !elt::is_int_dt(dt)) return decline(me, "data type");
    if (diff_src_md_.data_type != dt) return decline(me, "data types differ");
    KESTREL_CHECK(init_layouts(me));
    if (!attr_.has_default_values()) return decline(me, "attributes");
    return status::success;
}

status_t shuffle_bwd_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const mdw_t ddm(pd->diff_dst_md()), dsm(pd->diff_src_md());
    const int ax = pd->desc().axis;
    const dim_t C = ddm.dims()[ax], G = pd->desc().group_size, CG = C / G;
    gather_channels(ddm, dsm, ctx.input<char>(DNNL_ARG_DIFF_DST), ctx.output<char>(DNNL_ARG_DIFF_SRC),
            ax, [=](dim_t c) { return c / G + (c % G) * CG; });
    return status::success;
}

const impl_entry_t shuffle_bwd_impl_list[] = {
        {"ref:any", make_pd<shuffle_bwd_ref_t::pd_t>},
        {nullptr, nullptr},
};

const impl_entry_t shuffle_impl_list[] = {
        {"copy:plain", make_pd<shuffle_copy_t::pd_t>},
        {"ref:any", make_pd<shuffle_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
