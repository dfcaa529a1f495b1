#include "cpu/eltwise/prelu.hpp"

#include <cstdio>

#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/post_rows.hpp"

namespace kestrel {

namespace {
enum : scratchpad::key_t { key_w_f32 = 1 };
} // namespace

status_t prelu_fwd_pd_t::init_common(const char *me) {
    // oneDNN's table: f32, s32, bf16, f16, s8, u8 for each tensor; the
    // integer ones go through f32 and are stored rounded to nearest even
    // and saturated.
    for (auto *md : {&src_md_, &weights_md_, &dst_md_})
        if (!elt::is_float_dt(md->data_type) && !one_of(md->data_type, dnnl_s32, dnnl_s8, dnnl_u8))
            return decline(me, "data type");
    if (!mdw_t(src_md_).is_blocked()) return decline(me, "src layout");
    if (mdw_t(weights_md_).is_any()) {
        if (elt::same_dims(weights_md_, src_md_)) {
            KESTREL_CHECK(elt::set_layout_like(weights_md_, src_md_));
        } else if (elt::set_plain(weights_md_) != status::success) {
            return decline(me, "weights rank");
        }
    }
    KESTREL_CHECK(elt::set_layout_like(dst_md_, src_md_));
    if (!mdw_t(weights_md_).is_blocked() || !mdw_t(dst_md_).is_blocked())
        return decline(me, "layout");
    if (!attr_.has_default_values()) return decline(me, "attributes");
    return status::success;
}

// ---------------------------------------------------------------- vec

status_t prelu_vec_t::pd_t::init(dnnl_engine *) {
    const char *me = "vec:prelu";
    KESTREL_CHECK(init_common(me));
    k_ = elt::best_kernels();
    if (!k_) return decline(me, "no avx2");
    const data_type_t dt = src_md_.data_type, wdt = weights_md_.data_type;
    if (!elt::vec_dt(dt) || dst_md_.data_type != dt) return decline(me, "data types");
    if (!elt::same_layout(src_md_, dst_md_)) return decline(me, "src and dst layouts differ");
    // op(0, w) = w * 0 is +0 wherever padding can be: blocked channels,
    // whose weights are zero there too (prepared w[], or the user's
    // zero-padded full weights).
    if (const char *why = plan_.init(src_md_, weights_md_, true)) return decline(me, why);
    if (plan_.shape == elt::bcast_plan_t::same && wdt != dt && wdt != dnnl_f32)
        return decline(me, "weights data type");
    if (plan_.uses_w()) scratchpad_registry().book(key_w_f32, sizeof(float) * plan_.nw);
    std::snprintf(name_, sizeof(name_), "vec:%s", k_->isa);
    return status::success;
}

status_t prelu_vec_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto &plan = pd->plan_;
    const memory_desc_t &w_md = *pd->weights_md();
    const data_type_t dt = pd->src_md()->data_type;
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    const char *wei = ctx.input<char>(DNNL_ARG_WEIGHTS);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    float *w = nullptr;
    if (plan.uses_w()) {
        w = ctx.scratchpad().get<float>(key_w_f32);
        if (!w) return status::out_of_memory;
        plan.fill_w(w, w_md.data_type, wei, w_md, 1.f);
    }
    static const elt::post_rows_t no_post_ops;
    return elt::run_flat(ctx, plan.n, no_post_ops, 0, dst, [&](dim_t s, dim_t e) {
        plan.run(pd->k_, elt::alg_prelu, 1.f, 1.f, dt, w_md.data_type, src, wei, w, dst, s, e);
    });
}

// ---------------------------------------------------------------- ref

status_t prelu_ref_t::pd_t::init(dnnl_engine *) {
    return init_common("ref:prelu");
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
        {"vec", make_pd<prelu_vec_t::pd_t>},
        {"ref:any", make_pd<prelu_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
