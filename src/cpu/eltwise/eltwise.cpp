#include "cpu/eltwise/eltwise.hpp"

#include <cstdio>

#include "cpu/eltwise/common.hpp"
#include "cpu/math/eltwise_math.hpp"

namespace kestrel {

namespace {
enum : scratchpad::key_t { key_dst_old = 1 };
} // namespace

status_t eltwise_fwd_pd_t::init_common(const char *impl) {
    if (!elt::is_float_dt(src_md_.data_type) || !elt::is_float_dt(dst_md_.data_type))
        return decline(impl, "data type");
    KESTREL_CHECK(init_layouts(impl));
    // oneDNN's eltwise takes post-ops (binary documented; its reference
    // also runs eltwise and sum chains) and no other attribute.
    if (!attr_.has_default_values(attr_t::skip_post_ops)) return decline(impl, "attributes");
    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    return post_ops::check(attr_.post_ops, dst_md_);
}

// ---------------------------------------------------------------- vec

status_t eltwise_vec_t::pd_t::init(dnnl_engine *) {
    const char *me = "vec:eltwise";
    KESTREL_CHECK(init_common(me));
    k_ = elt::best_kernels();
    if (!k_) return decline(me, "no avx2");
    if (!k_->eltwise_has(desc_.alg)) return decline(me, "algorithm");
    if (src_md_.data_type != dst_md_.data_type || !elt::vec_dt(src_md_.data_type))
        return decline(me, "data types");
    if (!elt::same_layout(src_md_, dst_md_)) return decline(me, "layouts differ");
    // Padding holds zeros; a flat pass keeps them only when f(0) == 0.
    const float f0 = math::eltwise_fwd(desc_.alg, 0.f, desc_.alpha, desc_.beta);
    if (!elt::flat_ok(src_md_, f0 == 0.f)) return decline(me, "not dense");
    if (!attr_.post_ops.entries.empty()) {
        // The chain runs on f32 values the kernel left in dst.
        if (dst_md_.data_type != dnnl_f32) return decline(me, "post-ops on non-f32 dst");
        if (post_.init(attr_.post_ops, dst_md_) != status::success)
            return decline(me, "post-ops on non-plain dst");
        if (post_.has_sum)
            scratchpad_registry().book_per_thread(key_dst_old, sizeof(float) * elt::post_chunk);
    }
    std::snprintf(name_, sizeof(name_), "vec:%s", k_->isa);
    return status::success;
}

status_t eltwise_vec_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto &d = pd->desc();
    const data_type_t dt = pd->src_md()->data_type;
    const size_t esz = data_type_size(dt);
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    return elt::run_flat(ctx, elt::flat_nelems(*pd->src_md()), pd->post_, key_dst_old, dst,
            [&](dim_t s, dim_t e) {
                pd->k_->eltwise(d.alg, d.alpha, d.beta, dt, src + s * esz, dst + s * esz, e - s);
            });
}

// ---------------------------------------------------------------- ref

status_t eltwise_ref_t::pd_t::init(dnnl_engine *) {
    return init_common("ref:eltwise");
}

status_t eltwise_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto &d = pd->desc();
    const mdw_t src_m(pd->src_md()), dst_m(pd->dst_md());
    const void *src = ctx.input(DNNL_ARG_SRC);
    void *dst = ctx.output(DNNL_ARG_DST);
    const data_type_t sdt = src_m.data_type(), ddt = dst_m.data_type();
    const post_ops::applier_t ap(pd->attr()->post_ops, dst_m.md(), ctx);
    const bool sum = post_ops::sum_index(pd->attr()->post_ops) >= 0;
    // In place (the same buffer and layout) each element is read before it
    // is written, by the same thread.
    elt::parallel_logical(src_m.ndims(), src_m.dims(), [&](const dim_t *pos) {
        const dim_t doff = dst_m.off_v(pos);
        const float old = sum ? load_f32(ddt, dst, doff) : 0.f;
        float v = math::eltwise_fwd(d.alg, load_f32(sdt, src, src_m.off_v(pos)), d.alpha, d.beta);
        if (!ap.empty()) v = ap.apply(v, old, pos);
        store_f32(ddt, dst, doff, v);
    });
    elt::zero_padding(dst_m.md(), dst);
    return status::success;
}

// Fastest first, reference last.
const impl_entry_t eltwise_impl_list[] = {
        {"vec", make_pd<eltwise_vec_t::pd_t>},
        {"ref:any", make_pd<eltwise_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
