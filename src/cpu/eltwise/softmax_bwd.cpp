// Softmax backward, the reference: any axis, any layouts. One task per
// position of the other dims walks the axis twice: once for the sum, once
// to write diff_src.
#include <algorithm>
#include <cmath>

#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/softmax_pd.hpp"

namespace kestrel {

struct softmax_bwd_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, softmax_bwd_pd_t, softmax_bwd_ref_t> {
        using desc_t = softmax_bwd_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override {
            const char *me = "ref:softmax_bwd";
            if (desc_.prop_kind != dnnl_backward_data) return decline(me, "prop kind");
            for (const memory_desc_t *md : {&data_md_, &diff_src_md_, &diff_dst_md_})
                if (!elt::is_float_dt(md->data_type)) return decline(me, "data type");
            KESTREL_CHECK(init_layouts(me));
            if (!attr_.has_default_values()) return decline(me, "attributes");
            return status::success;
        }
    };
    explicit softmax_bwd_ref_t(const pd_t *pd) : primitive_t(pd) {}

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t ym(pd->data_md()), ddm(pd->diff_dst_md()), dsm(pd->diff_src_md());
        const void *y = ctx.input(DNNL_ARG_DST);
        const void *dd = ctx.input(DNNL_ARG_DIFF_DST);
        void *ds = ctx.output(DNNL_ARG_DIFF_SRC);
        const int nd = ym.ndims(), ax = pd->desc().axis;
        const dim_t len = ym.dims()[ax];
        const bool log = pd->is_log();
        dim_t rows[max_ndims];
        for (int d = 0; d < nd; ++d) rows[d] = d == ax ? 1 : ym.dims()[d];
        elt::parallel_logical(nd, rows, [&](const dim_t *pos0) {
            dim_t pos[max_ndims];
            for (int d = 0; d < nd; ++d) pos[d] = pos0[d];
            // The sum in double: it is over the whole axis, and the result
            // is a difference of two close terms when y is peaked.
            double sum = 0;
            for (dim_t k = 0; k < len; ++k) {
                pos[ax] = k;
                const double g = load_f32(ddm.data_type(), dd, ddm.off_v(pos));
                sum += log ? g : g * load_f32(ym.data_type(), y, ym.off_v(pos));
            }
            // Every read of row element k precedes its write: in place is safe.
            for (dim_t k = 0; k < len; ++k) {
                pos[ax] = k;
                const double g = load_f32(ddm.data_type(), dd, ddm.off_v(pos));
                const double v = load_f32(ym.data_type(), y, ym.off_v(pos));
                const double r = log ? g - std::exp(v) * sum : v * (g - sum);
                store_f32(dsm.data_type(), ds, dsm.off_v(pos), (float)r);
            }
        }, std::max<dim_t>(1, 4096 / std::max<dim_t>(1, len)));
        elt::zero_padding(dsm.md(), ds);
        return status::success;
    }
};

const impl_entry_t softmax_bwd_impl_list[] = {
        {"ref:any", make_pd<softmax_bwd_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
