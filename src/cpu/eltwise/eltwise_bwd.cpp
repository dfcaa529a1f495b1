// Eltwise backward: diff_src[i] = diff_dst[i] * f'(data[i]), element by
// element, so diff_src may be diff_dst itself (in place).
#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/eltwise_pd.hpp"
#include "cpu/math/eltwise_math.hpp"

namespace kestrel {

int eltwise_bwd_pd_t::data_arg_of(dnnl_alg_kind_t alg) {
    return math::eltwise_uses_dst(alg) ? DNNL_ARG_DST : DNNL_ARG_SRC;
}

status_t eltwise_bwd_pd_t::init_common(const char *impl) {
    if (desc_.prop_kind != dnnl_backward_data) return decline(impl, "prop kind");
    for (const memory_desc_t *md : {&data_md_, &diff_src_md_, &diff_dst_md_})
        if (!elt::is_float_dt(md->data_type)) return decline(impl, "data type");
    KESTREL_CHECK(init_layouts(impl));
    if (!attr_.has_default_values()) return decline(impl, "attributes");
    return status::success;
}

// The reference: any layouts, every algorithm, f32 compute.
struct eltwise_bwd_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, eltwise_bwd_pd_t, eltwise_bwd_ref_t> {
        using desc_t = eltwise_bwd_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override { return init_common("ref:eltwise_bwd"); }
    };
    explicit eltwise_bwd_ref_t(const pd_t *pd) : primitive_t(pd) {}

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const auto &d = pd->desc();
        const mdw_t xm(pd->data_md()), ddm(pd->diff_dst_md()), dsm(pd->diff_src_md());
        const void *x = ctx.input(pd->data_arg_of(d.alg));
        const void *dd = ctx.input(DNNL_ARG_DIFF_DST);
        void *ds = ctx.output(DNNL_ARG_DIFF_SRC);
        // In place each element is read before it is written, by one thread.
        elt::parallel_logical(xm.ndims(), xm.dims(), [&](const dim_t *pos) {
            const float g = load_f32(ddm.data_type(), dd, ddm.off_v(pos));
            const float v = load_f32(xm.data_type(), x, xm.off_v(pos));
            store_f32(dsm.data_type(), ds, dsm.off_v(pos), math::eltwise_bwd(d.alg, g, v, d.alpha, d.beta));
        });
        elt::zero_padding(dsm.md(), ds);
        return status::success;
    }
};

const impl_entry_t eltwise_bwd_impl_list[] = {
        {"ref:any", make_pd<eltwise_bwd_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
