#include "cpu/eltwise/prelu.hpp"

#include "cpu/eltwise/common.hpp"

namespace kestrel {

status_t prelu_ref_t::pd_t::init(dnnl_engine *) {
    const char *me = "ref:prelu";
    for (auto *md : {&src_md_, &weights_md_, &dst_md_})
        if (!elt::is_float_dt(md->data_type)) return decline(me, "data type");
    if (!mdw_t(src_md_).is_blocked()) return decline(me, "src layout");
    if (mdw_t(weights_md_).is_any()) {
        if (elt::same_dims(weights_md_, src_md_)) {
            KESTREL_CHECK(elt::set_layout_like(weights_md_, src_md_));
        } else {
            static const format_tag_t plain[] = {
                    dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde, dnnl_abcdef};
            if (weights_md_.ndims > 6) return decline(me, "weights rank");
            KESTREL_CHECK(md_set_tag(weights_md_, plain[weights_md_.ndims - 1]));
        }
    }
    KESTREL_CHECK(elt::set_layout_like(dst_md_, src_md_));
    if (!mdw_t(weights_md_).is_blocked() || !mdw_t(dst_md_).is_blocked())
        return decline(me, "layout");
    if (!attr_.has_default_values()) return decline(me, "attributes");
    return status::success;
}

status_t prelu_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const mdw_t sm(pd->src_md()), wm(pd->weights_md()), dm(pd->dst_md());
    const void *src = ctx.input(DNNL_ARG_SRC);
    const void *w = ctx.input(DNNL_ARG_WEIGHTS);
    void *dst = ctx.output(DNNL_ARG_DST);
    const int nd = sm.ndims();
    elt::parallel_logical(nd, sm.dims(), [&](const dim_t *pos) {
        dim_t wp[max_ndims];
        for (int d = 0; d < nd; ++d) wp[d] = wm.dims()[d] == 1 ? 0 : pos[d];
        const float x = load_f32(sm.data_type(), src, sm.off_v(pos));
        const float y = x > 0 ? x : load_f32(wm.data_type(), w, wm.off_v(wp)) * x;
        store_f32(dm.data_type(), dst, dm.off_v(pos), y);
    });
    elt::zero_padding(dm.md(), dst);
    return status::success;
}

const impl_entry_t prelu_impl_list[] = {
        {"ref:any", make_pd<prelu_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
