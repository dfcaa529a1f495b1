// Eltwise backward: diff_src[i] = diff_dst[i] * f'(data[i]), element by
// element, so diff_src may be diff_dst itself (in place). A vectorised
// implementation for dense memories of one layout and type (f32, bf16)
// and the reference (any layout, every algorithm, the test oracle).
#include <cstdio>

#include "core/primitive.hpp"
#include "cpu/eltwise/kernels.hpp"
#include "cpu/eltwise/post_rows.hpp"
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

struct eltwise_bwd_vec_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, eltwise_bwd_pd_t, eltwise_bwd_vec_t> {
        using desc_t = eltwise_bwd_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            const char *me = "vec:eltwise_bwd";
            KESTREL_CHECK(init_common(me));
            k_ = elt::best_kernels();
            if (!k_) return decline(me, "no avx2");
            if (!k_->eltwise_bwd_has(desc_.alg)) return decline(me, "algorithm");
            const data_type_t dt = data_md_.data_type;
            if (!elt::vec_dt(dt) || diff_dst_md_.data_type != dt || diff_src_md_.data_type != dt)
                return decline(me, "data types");
            if (!md_equal(data_md_, diff_dst_md_) || !md_equal(data_md_, diff_src_md_))
                return decline(me, "layouts differ");
            // Padding is zeroed after the flat pass, whatever f'(0) gives.
            if (!elt::flat_ok(diff_src_md_, true)) return decline(me, "not dense");
            std::snprintf(name_, sizeof(name_), "vec:%s", k_->isa);
            return status::success;
        }
        const elt::kernels_t *k_ = nullptr;
        char name_[32] = "vec:any";
    };
    explicit eltwise_bwd_vec_t(const pd_t *pd) : primitive_t(pd) {}

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const auto &d = pd->desc();
        const data_type_t dt = pd->data_md()->data_type;
        const size_t esz = data_type_size(dt);
        const char *x = ctx.input<char>(pd->data_arg_of(d.alg));
        const char *dd = ctx.input<char>(DNNL_ARG_DIFF_DST);
        char *ds = ctx.output<char>(DNNL_ARG_DIFF_SRC);
        static const elt::post_rows_t no_post_ops;
        KESTREL_CHECK(elt::run_flat(ctx, elt::flat_nelems(*pd->diff_src_md()), no_post_ops, 0, ds,
                [&](dim_t s, dim_t e) {
                    pd->k_->eltwise_bwd(d.alg, d.alpha, d.beta, dt, x + s * esz, dd + s * esz,
                            ds + s * esz, e - s);
                }));
        if (mdw_t(pd->diff_src_md()).has_padding()) elt::zero_padding(*pd->diff_src_md(), ds);
        return status::success;
    }
};

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

// Fastest first, reference last.
const impl_entry_t eltwise_bwd_impl_list[] = {
        {"vec", make_pd<eltwise_bwd_vec_t::pd_t>},
        {"ref:any", make_pd<eltwise_bwd_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
