#include "cpu/eltwise/binary.hpp"

#include <cstdio>

#include "cpu/eltwise/common.hpp"
#include "cpu/math/eltwise_math.hpp"

namespace kestrel {

namespace {

enum : scratchpad::key_t { key_src1_f32 = 1, key_dst_old = 2 };

bool dt_ok(data_type_t dt) { return elt::is_float_dt(dt) || elt::is_int_dt(dt); }

// Checks shared by the implementations; resolves format `any` (of the
// sources, dst and binary post-op sources).
status_t init_common(const char *impl, attr_t &attr, memory_desc_t *src, int nsrc,
        memory_desc_t &dst) {
    for (int i = 0; i < nsrc; ++i)
        if (!dt_ok(src[i].data_type)) return decline(impl, "data type");
    if (!dt_ok(dst.data_type)) return decline(impl, "data type");
    if (!mdw_t(src[0]).is_blocked()) return decline(impl, "src0 layout");
    // Format `any` takes src0's dim order (and blocks), whatever the
    // broadcast dims of either side.
    for (int i = 1; i < nsrc; ++i)
        if (elt::set_layout_order_like(src[i], src[0]) != status::success)
            return decline(impl, i == 1 ? "src1 format any" : "src2 format any");
    if (elt::set_layout_order_like(dst, src[0]) != status::success)
        return decline(impl, "dst format any");
    if (!mdw_t(dst).is_blocked()) return decline(impl, "dst layout");
    if (!attr.has_default_values(attr_t::skip_scales | attr_t::skip_post_ops))
        return decline(impl, "attributes");
    for (const auto &q : attr.scales.items)
        if (!one_of(q.arg, DNNL_ARG_SRC_0, DNNL_ARG_SRC_1) || q.e.mask != 0 || q.e.ndims != 0
                || q.e.dt != dnnl_f32)
            return decline(impl, "scales");
    KESTREL_CHECK(post_ops::resolve_any(attr.post_ops));
    return post_ops::check(attr.post_ops, dst);
}

// The operation with its operands exchanged, for a broadcast src0 that the
// plan takes as its second operand: op(x, y) == mirrored(y, x). sub is an
// add once the streamed operand's scale is negated (x - y == -y + x
// exactly in IEEE arithmetic); div has no mirror in the kernels (undef).
dnnl_alg_kind_t mirrored(dnnl_alg_kind_t alg, bool &negate) {
    negate = false;
    switch (alg) {
        case dnnl_binary_ge: return dnnl_binary_le;
        case dnnl_binary_gt: return dnnl_binary_lt;
        case dnnl_binary_le: return dnnl_binary_ge;
        case dnnl_binary_lt: return dnnl_binary_gt;
        case dnnl_binary_sub: negate = true; return dnnl_binary_add;
        case dnnl_binary_div: return dnnl_alg_kind_undef;
        default: return alg; // add, mul, max, min, eq, ne are symmetric
    }
}

} // namespace

void binary_scales(const attr_t &attr, const exec_ctx_t &ctx, float &s0, float &s1) {
    s0 = s1 = 1.f;
    if (const auto *e = attr.scales.get(DNNL_ARG_SRC_0))
        s0 = load_f32(e->dt, ctx.input(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_0), 0);
    if (const auto *e = attr.scales.get(DNNL_ARG_SRC_1))
        s1 = load_f32(e->dt, ctx.input(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_1), 0);
}

// ---------------------------------------------------------------- vec

status_t binary_vec_t::pd_t::init(dnnl_engine *) {
    const char *me = "vec:binary";
    if (is_select()) return decline(me, "select");
    KESTREL_CHECK(init_common(me, attr_, src_md_, 2, dst_md_));
    k_ = elt::best_kernels();
    if (!k_) return decline(me, "no avx2");
    // The plan streams an operand `a` of dst's shape and layout and
    // broadcasts `b`: normally src0 and src1; with a broadcast src0, src1
    // and src0 with the operation mirrored.
    swap_ = !elt::same_dims(src_md_[0], dst_md_);
    if (swap_ && !elt::same_dims(src_md_[1], dst_md_))
        return decline(me, "src0 and src1 both broadcast");
    kalg_ = swap_ ? mirrored(desc_.alg, negate_) : desc_.alg;
    if (kalg_ == dnnl_alg_kind_undef) return decline(me, "div with a broadcast src0");
    const memory_desc_t &a = src_md_[swap_ ? 1 : 0], &b = src_md_[swap_ ? 0 : 1];
    const data_type_t dt = a.data_type;
    if (!elt::vec_dt(dt) || b.data_type != dt || dst_md_.data_type != dt)
        return decline(me, "data types");
    if (!elt::same_layout(a, dst_md_))
        return decline(me, swap_ ? "src1 and dst layouts differ" : "src0 and dst layouts differ");
    // Zero padding stays +0 through op(0, 0) unless a negative scale turns
    // an operand into -0 (then mul/max could write -0): no scales there.
    // Post-ops only run on plain (unpadded) layouts.
    const bool keeps_zero = math::binary_fwd(desc_.alg, 0.f, 0.f) == 0.f && attr_.scales.empty();
    if (const char *why = plan_.init(a, b, keeps_zero)) return decline(me, why);
    if (plan_.uses_w()) scratchpad_registry().book(key_src1_f32, sizeof(float) * plan_.nw);
    if (!attr_.post_ops.entries.empty()) {
        // The chain runs on f32 values the kernel left in dst.
        if (dt != dnnl_f32) return decline(me, "post-ops on non-f32 dst");
        if (post_.init(attr_.post_ops, dst_md_) != status::success)
            return decline(me, "post-ops on non-plain dst");
        if (post_.has_sum)
            scratchpad_registry().book_per_thread(key_dst_old, sizeof(float) * elt::post_chunk);
    }
    std::snprintf(name_, sizeof(name_), "vec:%s", k_->isa);
    return status::success;
}

status_t binary_vec_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto &plan = pd->plan_;
    const dnnl_alg_kind_t alg = pd->kalg_;
    const int ia = pd->swap_ ? 1 : 0, ib = 1 - ia; // streamed, broadcast
    const memory_desc_t &b_md = *pd->src_md(ib);
    const data_type_t dt = pd->src_md(ia)->data_type;
    const char *a = ctx.input<char>(ia ? DNNL_ARG_SRC_1 : DNNL_ARG_SRC_0);
    const char *b = ctx.input<char>(ib ? DNNL_ARG_SRC_1 : DNNL_ARG_SRC_0);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    float s0, s1;
    binary_scales(*pd->attr(), ctx, s0, s1);
    // Scales of the streamed and the broadcast operand.
    const float sa = pd->swap_ ? (pd->negate_ ? -s1 : s1) : s0, sb = pd->swap_ ? s0 : s1;
    float *w = nullptr;
    if (plan.uses_w()) {
        w = ctx.scratchpad().get<float>(key_src1_f32);
        if (!w) return status::out_of_memory;
        plan.fill_w(w, b_md.data_type, b, b_md, sb);
    }
    return elt::run_flat(ctx, plan.n, pd->post_, key_dst_old, dst, [&](dim_t s, dim_t e) {
        plan.run(pd->k_, alg, sa, sb, dt, dt, a, b, w, dst, s, e);
    });
}

// ---------------------------------------------------------------- ref

status_t binary_ref_t::pd_t::init(dnnl_engine *) {
    return init_common("ref:binary", attr_, src_md_, n_inputs(), dst_md_);
}

status_t binary_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const dnnl_alg_kind_t alg = pd->desc().alg;
    const int nsrc = pd->n_inputs();
    const mdw_t dst_m(pd->dst_md());
    const mdw_t src_m[3] = {mdw_t(pd->src_md(0)), mdw_t(pd->src_md(1)), mdw_t(pd->src_md(2))};
    const void *src[3] = {ctx.input(DNNL_ARG_SRC_0), ctx.input(DNNL_ARG_SRC_1),
            nsrc > 2 ? ctx.input(DNNL_ARG_SRC_2) : nullptr};
    void *dst = ctx.output(DNNL_ARG_DST);
    float s0, s1;
    binary_scales(*pd->attr(), ctx, s0, s1);
    const post_ops::applier_t ap(pd->attr()->post_ops, dst_m.md(), ctx);
    const bool sum = post_ops::sum_index(pd->attr()->post_ops) >= 0;
    const int nd = dst_m.ndims();
    elt::parallel_logical(nd, dst_m.dims(), [&](const dim_t *pos) {
        float v[3];
        for (int i = 0; i < nsrc; ++i) {
            dim_t p[max_ndims];
            for (int d = 0; d < nd; ++d) p[d] = src_m[i].dims()[d] == 1 ? 0 : pos[d];
            v[i] = load_f32(src_m[i].data_type(), src[i], src_m[i].off_v(p));
        }
        float r = nsrc > 2 ? (v[2] != 0.f ? v[0] : v[1])
                           : math::binary_fwd(alg, s0 * v[0], s1 * v[1]);
        const dim_t doff = dst_m.off_v(pos);
        if (!ap.empty()) r = ap.apply(r, sum ? load_f32(dst_m.data_type(), dst, doff) : 0.f, pos);
        store_f32(dst_m.data_type(), dst, doff, r);
    });
    elt::zero_padding(dst_m.md(), dst);
    return status::success;
}

const impl_entry_t binary_impl_list[] = {
        {"vec", make_pd<binary_vec_t::pd_t>},
        {"ref:any", make_pd<binary_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
