// Softmax forward implementations. The vectorised one covers dense plain
// layouts, which always read as [outer][axis][stride] with stride the
// axis' own stride: rows when stride is 1, columns otherwise. The blk16 one
// covers nC..16c along C (AVX-512). The reference takes any layout.
#include <immintrin.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/kernels.hpp"
#include "cpu/eltwise/post_rows.hpp"
#include "cpu/eltwise/softmax_pd.hpp"
#include "cpu/isa.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

status_t init_common(const char *impl, attr_t &attr, const memory_desc_t &src,
        const memory_desc_t &dst) {
    // f32, bf16, f16, s8 and u8 in any mix (oneDNN's forward table); the
    // integer ones through f32, stored rounded to nearest even, saturated.
    auto ok_dt = [](data_type_t dt) { return elt::is_float_dt(dt) || one_of(dt, dnnl_s8, dnnl_u8); };
    if (!ok_dt(src.data_type) || !ok_dt(dst.data_type)) return decline(impl, "data type");
    // As oneDNN: one scale for src and for dst, eltwise and binary post-ops.
    if (!attr.has_default_values(attr_t::skip_scales | attr_t::skip_post_ops))
        return decline(impl, "attributes");
    for (const auto &q : attr.scales.items)
        if (!one_of(q.arg, DNNL_ARG_SRC, DNNL_ARG_DST) || q.e.mask != 0 || q.e.ndims != 0
                || q.e.dt != dnnl_f32)
            return decline(impl, "scales");
    if (!attr.post_ops.has_only({dnnl_eltwise, dnnl_binary})) return decline(impl, "post-ops");
    KESTREL_CHECK(post_ops::resolve_any(attr.post_ops));
    return post_ops::check(attr.post_ops, dst);
}

// Scales read at execution: y = post_ops(softmax * src_scale) / dst_scale.
struct scales_t {
    bool src = false, dst = false;
    float s = 1.f, d = 1.f;
    scales_t(const attr_t &attr, const exec_ctx_t &ctx) {
        if (const auto *e = attr.scales.get(DNNL_ARG_SRC)) {
            src = true;
            s = load_f32(e->dt, ctx.input(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC), 0);
        }
        if (const auto *e = attr.scales.get(DNNL_ARG_DST)) {
            dst = true;
            d = load_f32(e->dt, ctx.input(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST), 0);
        }
    }
};

struct softmax_vec_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, softmax_fwd_pd_t, softmax_vec_t> {
        using desc_t = softmax_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            const char *me = "vec:softmax";
            KESTREL_CHECK(init_layouts(me));
            KESTREL_CHECK(init_common(me, attr_, src_md_, dst_md_));
            k_ = elt::best_kernels();
            if (!k_) return decline(me, "no avx2");
            const data_type_t dt = src_md_.data_type;
            if (!elt::vec_dt(dt) || dst_md_.data_type != dt) return decline(me, "data types");
            if (!elt::same_layout(src_md_, dst_md_)) return decline(me, "layouts differ");
            if (!mdw_t(src_md_).is_plain() || !elt::flat_ok(src_md_, false))
                return decline(me, "not dense plain");
            const int ax = desc_.axis;
            len_ = src_md_.dims[ax];
            stride_ = len_ == 1 ? 1 : src_md_.blocking.strides[ax];
            outer_ = len_ * stride_ == 0 ? 0 : mdw_t(src_md_).nelems() / (len_ * stride_);
            with_attr_ = !attr_.has_default_values();
            if (with_attr_) {
                // Scales and the chain run on the f32 values left in dst.
                if (dt != dnnl_f32) return decline(me, "attributes on non-f32 dst");
                if (post_.init(attr_.post_ops, dst_md_) != status::success)
                    return decline(me, "post-ops layout");
            }
            // A column group's src and dst ([len][grp] each) stay in L2
            // between the passes: about 1 MiB for both.
            const dim_t fit = (dim_t(512) << 10) / (len_ * (dim_t)data_type_size(dt) + 1);
            grp_ = fit >= 1024 ? 1024 : fit < 64 ? 64 : fit / 64 * 64;
            std::snprintf(name_, sizeof(name_), "vec:%s", k_->isa);
            return status::success;
        }
        const elt::kernels_t *k_ = nullptr;
        bool with_attr_ = false;
        elt::post_rows_t post_; // post-op chain in dst's physical order
        dim_t outer_ = 0, len_ = 0, stride_ = 1;
        dim_t grp_ = 64; // columns per task for a strided axis
        char name_[32] = "vec:any";
    };
    explicit softmax_vec_t(const pd_t *pd) : primitive_t(pd) {}

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const auto *k = pd->k_;
        const bool log = pd->is_log();
        const data_type_t dt = pd->src_md()->data_type;
        const size_t esz = data_type_size(dt);
        const char *src = ctx.input<char>(DNNL_ARG_SRC);
        char *dst = ctx.output<char>(DNNL_ARG_DST);
        const dim_t outer = pd->outer_, len = pd->len_, stride = pd->stride_;
        const scales_t sc(*pd->attr(), ctx);
        const post_ops::applier_t ap(pd->post_.po, pd->post_.dst, ctx);
        // Attributes on the f32 values of dst's flat elements [s, s + n).
        auto finish = [&](dim_t s, dim_t n) {
            if (!pd->with_attr_) return;
            float *v = reinterpret_cast<float *>(dst) + s;
            if (sc.src)
                for (dim_t i = 0; i < n; ++i) v[i] *= sc.s;
            if (!pd->post_.empty()) pd->post_.apply(ap, v, nullptr, s, n);
            if (sc.dst)
                for (dim_t i = 0; i < n; ++i) v[i] /= sc.d;
        };
        if (stride == 1) {
            parallel(nthr_for(outer, div_up(4096, len)), [&](int ithr, int nthr) {
                dim_t s, e;
                balance211(outer, nthr, ithr, s, e);
                if (s >= e) return;
                k->softmax_rows(log, dt, src + s * len * esz, dst + s * len * esz, e - s, len);
                finish(s * len, (e - s) * len);
            });
            return status::success;
        }
        // Columns in groups of pd->grp_ (a multiple of 64, so of both vector
        // widths), halved while the groups are too few to keep every thread
        // busy.
        dim_t grp = pd->grp_;
        while (grp > 64 && outer * div_up(stride, grp) < 8 * (dim_t)max_threads()) grp /= 2;
        const dim_t ngrp = div_up(stride, grp);
        parallel_nd(outer, ngrp, [&](dim_t o, dim_t g) {
            const dim_t off = o * len * stride;
            const dim_t j0 = g * grp, j1 = j0 + grp < stride ? j0 + grp : stride;
            k->softmax_cols(log, dt, src + off * esz, dst + off * esz, len, stride, j0, j1);
            for (dim_t q = 0; q < len && pd->with_attr_; ++q) finish(off + q * stride + j0, j1 - j0);
        });
        return status::success;
    }
};

// nC..16c with the axis on C: one vector holds the 16 channels of a block
// at one spatial position, and the reduction runs over the blocks (which
// are a spatial plane apart), then across the lanes. Walking the positions
// in order keeps every block plane a sequential stream.
namespace blk16 {
#define KT_T __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#include "cpu/eltwise/simd/avx512.inc"
#include "cpu/eltwise/simd/common.inc"
#include "cpu/eltwise/simd/math.inc"

// Positions [p0, p1) of one image: nb blocks `bs` elements apart, the last
// one with c_last real channels (its padding lanes are excluded and written
// as zero). As the row kernels, f32 keeps exp in dst and scales it in place.
template <typename T>
static KT_T void positions(bool log, const T *src, T *dst, dim_t nb, dim_t bs, int c_last,
        dim_t p0, dim_t p1) {
    const vm real = first_lanes(c_last);
    const vf ninf = set1(-INFINITY);
    const bool keep = sizeof(T) == sizeof(float) && !log;
    for (dim_t p = p0; p < p1; ++p) {
        const T *s = src + p * W;
        T *d = dst + p * W;
        vf m = select(real, ld(s + (nb - 1) * bs), ninf);
        for (dim_t b = 0; b + 1 < nb; ++b) m = vmax(m, ld(s + b * bs));
        const vf mx = set1(hmax(m));
        vf sum = zero();
        for (dim_t b = 0; b < nb; ++b) {
            vf e = vexp(sub(ld(s + b * bs), mx));
            if (b == nb - 1) e = select(real, e, zero());
            if (keep) st(reinterpret_cast<float *>(d) + b * bs, e);
            sum = add(sum, e);
        }
        const float tot = hsum(sum);
        const vf q = set1(log ? std::log(tot) : 1.f / tot);
        for (dim_t b = 0; b < nb; ++b) {
            vf y;
            if (log)
                y = sub(sub(ld(s + b * bs), mx), q);
            else if (keep)
                y = mul(ld(reinterpret_cast<const float *>(d) + b * bs), q);
            else
                y = mul(vexp(sub(ld(s + b * bs), mx)), q);
            if (b == nb - 1) y = select(real, y, zero());
            st(d + b * bs, y);
        }
    }
}
#undef KT_T
} // namespace blk16

struct softmax_blk16_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, softmax_fwd_pd_t, softmax_blk16_t> {
        using desc_t = softmax_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "vec:avx512_blk16"; }
        status_t init(dnnl_engine *) override {
            const char *me = "vec:softmax_blk16";
            KESTREL_CHECK(init_layouts(me));
            KESTREL_CHECK(init_common(me, attr_, src_md_, dst_md_));
            if (!isa::has(isa::avx512)) return decline(me, "no avx512");
            const data_type_t dt = src_md_.data_type;
            if (!elt::vec_dt(dt) || dst_md_.data_type != dt) return decline(me, "data types");
            if (!attr_.has_default_values()) return decline(me, "attributes");
            const mdw_t m(src_md_);
            const int nd = m.ndims();
            if (desc_.axis != 1 || nd < 3 || nd > 5) return decline(me, "axis or ndims");
            const format_tag_t tag = nd == 3 ? dnnl_aBc16b : nd == 4 ? dnnl_aBcd16b : dnnl_aBcde16b;
            if (!m.matches_tag(tag) || !elt::same_layout(src_md_, dst_md_))
                return decline(me, "not nC..16c");
            n_ = m.dims()[0];
            nb_ = m.padded_dims()[1] / 16;
            c_last_ = (int)(m.dims()[1] - (nb_ - 1) * 16);
            sp_ = 1;
            for (int d = 2; d < nd; ++d) sp_ *= m.dims()[d];
            const dim_t zero[max_ndims] = {};
            base_src_ = m.off_v(zero);
            base_dst_ = mdw_t(dst_md_).off_v(zero);
            return status::success;
        }
        dim_t n_ = 0, nb_ = 0, sp_ = 0, base_src_ = 0, base_dst_ = 0;
        int c_last_ = 16;
    };
    explicit softmax_blk16_t(const pd_t *pd) : primitive_t(pd) {}

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const bool log = pd->is_log();
        const bool f32 = pd->src_md()->data_type == dnnl_f32;
        const dim_t nb = pd->nb_, sp = pd->sp_, bs = sp * 16, img = nb * bs;
        const dim_t chunk = 256, nchunk = div_up(sp, chunk);
        const char *src = ctx.input<char>(DNNL_ARG_SRC);
        char *dst = ctx.output<char>(DNNL_ARG_DST);
        if (pd->n_ * sp == 0) return status::success;
        parallel_nd(pd->n_, nchunk, [&](dim_t n, dim_t c) {
            const dim_t p0 = c * chunk, p1 = p0 + chunk < sp ? p0 + chunk : sp;
            const dim_t os = pd->base_src_ + n * img, od = pd->base_dst_ + n * img;
            if (f32)
                blk16::positions(log, (const float *)src + os, (float *)dst + od, nb, bs,
                        pd->c_last_, p0, p1);
            else
                blk16::positions(log, (const uint16_t *)src + os, (uint16_t *)dst + od, nb, bs,
                        pd->c_last_, p0, p1);
        });
        return status::success;
    }
};

struct softmax_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, softmax_fwd_pd_t, softmax_ref_t> {
        using desc_t = softmax_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_layouts("ref:softmax"));
            return init_common("ref:softmax", attr_, src_md_, dst_md_);
        }
    };
    explicit softmax_ref_t(const pd_t *pd) : primitive_t(pd) {}

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t sm(pd->src_md()), dm(pd->dst_md());
        const void *src = ctx.input(DNNL_ARG_SRC);
        void *dst = ctx.output(DNNL_ARG_DST);
        const int ax = pd->desc().axis, nd = sm.ndims();
        const bool log = pd->is_log();
        const dim_t len = sm.dims()[ax];
        const scales_t sc(*pd->attr(), ctx);
        const post_ops::applier_t ap(pd->attr()->post_ops, dm.md(), ctx);
        // Every position with index 0 on the axis starts one line.
        dim_t lines[max_ndims];
        for (int d = 0; d < nd; ++d) lines[d] = d == ax ? 1 : sm.dims()[d];
        elt::parallel_logical(nd, lines, [&](const dim_t *p0) {
            dim_t pos[max_ndims];
            for (int d = 0; d < nd; ++d) pos[d] = p0[d];
            auto x_at = [&](dim_t k) {
                pos[ax] = k;
                return load_f32(sm.data_type(), src, sm.off_v(pos));
            };
            float mx = -INFINITY;
            for (dim_t k = 0; k < len; ++k) mx = std::fmax(mx, x_at(k));
            float sum = 0.f;
            for (dim_t k = 0; k < len; ++k) sum += std::exp(x_at(k) - mx);
            const float ls = std::log(sum);
            for (dim_t k = 0; k < len; ++k) {
                float x = x_at(k) - mx;
                float y = log ? x - ls : std::exp(x) / sum;
                if (sc.src) y *= sc.s;
                if (!ap.empty()) y = ap.apply(y, 0.f, pos);
                if (sc.dst) y /= sc.d;
                store_f32(dm.data_type(), dst, dm.off_v(pos), y);
            }
        }, 64);
        elt::zero_padding(dm.md(), dst);
        return status::success;
    }
};

} // namespace

const impl_entry_t softmax_impl_list[] = {
        {"vec", make_pd<softmax_vec_t::pd_t>},
        {"vec:blk16", make_pd<softmax_blk16_t::pd_t>},
        {"ref:any", make_pd<softmax_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
