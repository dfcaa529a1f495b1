#include "cpu/eltwise/binary.hpp"

#include <cstdio>

#include "cpu/eltwise/common.hpp"
#include "cpu/math/eltwise_math.hpp"

namespace kestrel {

namespace {

enum : scratchpad::key_t { key_src1_f32 = 1 };

bool dt_ok(data_type_t dt) { return elt::is_float_dt(dt) || elt::is_int_dt(dt); }

// Checks shared by the implementations; resolves format `any`.
status_t init_common(const char *impl, const attr_t &attr, memory_desc_t *src, int nsrc,
        memory_desc_t &dst) {
    for (int i = 0; i < nsrc; ++i)
        if (!dt_ok(src[i].data_type)) return decline(impl, "data type");
    if (!dt_ok(dst.data_type)) return decline(impl, "data type");
    if (!mdw_t(src[0]).is_blocked()) return decline(impl, "src0 layout");
    for (int i = 1; i < nsrc; ++i)
        if (mdw_t(src[i]).is_any()) {
            if (!elt::same_dims(src[i], src[0])) return decline(impl, "src1 format any");
            KESTREL_CHECK(elt::set_layout_like(src[i], src[0]));
        }
    KESTREL_CHECK(elt::set_layout_like(dst, src[0]));
    if (!mdw_t(dst).is_blocked()) return decline(impl, "dst layout");
    if (!attr.has_default_values(attr_t::skip_scales)) return decline(impl, "attributes");
    for (const auto &q : attr.scales.items)
        if (!one_of(q.arg, DNNL_ARG_SRC_0, DNNL_ARG_SRC_1) || q.e.mask != 0 || q.e.ndims != 0)
            return decline(impl, "scales");
    return status::success;
}

float op_at_zero(dnnl_alg_kind_t alg) { return math::binary_fwd(alg, 0.f, 0.f); }

bool is_chan_bcast(const memory_desc_t &s0, const memory_desc_t &s1) {
    if (s0.ndims < 2 || s1.dims[1] != s0.dims[1]) return false;
    for (int d = 0; d < s1.ndims; ++d)
        if (d != 1 && s1.dims[d] != 1) return false;
    return true;
}

// The plain channel-first, channel-last and blocked tags of a rank.
format_tag_t tag_of(int ndims, int which) {
    static const format_tag_t tags[3][4] = {
            {dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde},
            {dnnl_ab, dnnl_acb, dnnl_acdb, dnnl_acdeb},
            {dnnl_aBc16b, dnnl_aBc16b, dnnl_aBcd16b, dnnl_aBcde16b},
    };
    if (ndims < 2 || ndims > 5) return dnnl_format_tag_undef;
    return tags[which][ndims - 2];
}
format_tag_t tag8_of(int ndims) {
    static const format_tag_t tags[4] = {dnnl_aBc8b, dnnl_aBc8b, dnnl_aBcd8b, dnnl_aBcde8b};
    return ndims >= 3 && ndims <= 5 ? tags[ndims - 2] : dnnl_format_tag_undef;
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
    const memory_desc_t &a = src_md_[0], &b = src_md_[1];
    const data_type_t dt = a.data_type;
    if (!elt::vec_dt(dt) || b.data_type != dt || dst_md_.data_type != dt)
        return decline(me, "data types");
    if (!elt::same_layout(a, dst_md_)) return decline(me, "src0 and dst layouts differ");
    // Zero padding stays +0 through op(0, 0) unless a negative scale turns
    // an operand into -0 (then mul/max could write -0): no scales there.
    const bool keeps_zero = op_at_zero(desc_.alg) == 0.f && attr_.scales.empty();
    const int nd = a.ndims;
    mdw_t am(a);
    if (mdw_t(b).nelems() == 1) {
        shape_ = shape_t::scalar;
        if (!elt::flat_ok(a, false)) return decline(me, "src0 not dense");
    } else if (elt::same_dims(a, b)) {
        shape_ = shape_t::same;
        if (!elt::same_layout(a, b)) return decline(me, "src0 and src1 layouts differ");
        if (!elt::flat_ok(a, keeps_zero)) return decline(me, "src0 not dense");
    } else if (is_chan_bcast(a, b) && mdw_t(b).is_dense() && b.offset0 == 0) {
        if (am.matches_tag(tag_of(nd, 0)))
            shape_ = shape_t::chan_first;
        else if (am.matches_tag(tag_of(nd, 1)))
            shape_ = shape_t::chan_last;
        else if (nd >= 3 && (am.matches_tag(tag_of(nd, 2)) || am.matches_tag(tag8_of(nd))))
            shape_ = shape_t::chan_blocked;
        else
            return decline(me, "src0 layout");
        if (!elt::flat_ok(a, keeps_zero)) return decline(me, "src0 not dense");
        blk_ = am.block_of(1);
        // src1 in f32, scaled, padded with zeros to the channel block.
        scratchpad_registry().book(key_src1_f32, sizeof(float) * rnd_up(a.dims[1], blk_));
    } else {
        return decline(me, "broadcast");
    }
    std::snprintf(name_, sizeof(name_), "vec:%s", k_->isa);
    return status::success;
}

status_t binary_vec_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto *k = pd->k_;
    const dnnl_alg_kind_t alg = pd->desc().alg;
    const memory_desc_t &a_md = *pd->src_md(0), &b_md = *pd->src_md(1);
    const data_type_t dt = a_md.data_type;
    const size_t esz = data_type_size(dt);
    const char *a = ctx.input<char>(DNNL_ARG_SRC_0);
    const char *b = ctx.input<char>(DNNL_ARG_SRC_1);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    float s0, s1;
    binary_scales(*pd->attr(), ctx, s0, s1);

    if (pd->shape_ == shape_t::same || pd->shape_ == shape_t::scalar) {
        const dim_t n = elt::flat_nelems(a_md);
        const dim_t b_inc = pd->shape_ == shape_t::same ? 1 : 0;
        const dim_t blk = 64, nblk = div_up(n, blk);
        parallel(nthr_for(nblk, 256), [&](int ithr, int nthr) {
            dim_t s, e;
            balance211(nblk, nthr, ithr, s, e);
            s *= blk;
            e = e * blk < n ? e * blk : n;
            if (s < e)
                k->binary(alg, s0, s1, dt, dt, a + s * esz, b + s * esz * b_inc, b_inc,
                        dst + s * esz, e - s);
        });
        return status::success;
    }

    // Per-channel: src1 converted once to scaled f32, zero beyond C.
    float *w = ctx.scratchpad().get<float>(key_src1_f32);
    if (!w) return status::out_of_memory;
    const dim_t N = a_md.dims[0], C = a_md.dims[1], Cp = rnd_up(C, pd->blk_);
    for (dim_t c = 0; c < Cp; ++c) w[c] = c < C ? s1 * load_f32(b_md.data_type, b, mdw_t(b_md).off_l(c)) : 0.f;
    dim_t sp = 1;
    for (int d = 2; d < a_md.ndims; ++d) sp *= a_md.dims[d];

    switch (pd->shape_) {
        case shape_t::chan_first: // rows of sp elements, one channel each
            parallel_nd(N * C, [&](dim_t r) {
                k->binary(alg, s0, 1.f, dt, dnnl_f32, a + r * sp * esz, w + r % C, 0,
                        dst + r * sp * esz, sp);
            });
            break;
        case shape_t::chan_last: // rows of C elements
            parallel_nd(N * sp, [&](dim_t r) {
                k->binary(alg, s0, 1.f, dt, dnnl_f32, a + r * C * esz, w, 1, dst + r * C * esz, C);
            });
            break;
        default: { // [N][C/blk][sp][blk]
            const dim_t blk = pd->blk_, nb = Cp / blk, len = sp * blk;
            parallel_nd(N, nb, [&](dim_t n, dim_t cb) {
                const dim_t off = (n * nb + cb) * len * esz;
                k->binary_period(alg, s0, dt, a + off, w + cb * blk, blk, dst + off, len);
            });
            break;
        }
    }
    return status::success;
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
        store_f32(dst_m.data_type(), dst, dst_m.off_v(pos), r);
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
