// Softmax forward implementations. The vectorised one covers dense plain
// layouts, which always read as [outer][axis][stride] with stride the
// axis' own stride: rows when stride is 1, columns otherwise. The reference
// takes any layout.
#include <cmath>
#include <cstdio>

#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/kernels.hpp"
#include "cpu/eltwise/softmax_pd.hpp"

namespace kestrel {

namespace {

status_t init_common(const char *impl, const attr_t &attr, memory_desc_t &src, memory_desc_t &dst) {
    if (!elt::is_float_dt(src.data_type) || !elt::is_float_dt(dst.data_type))
        return decline(impl, "data type");
    if (!mdw_t(src).is_blocked()) return decline(impl, "src layout");
    KESTREL_CHECK(elt::set_layout_like(dst, src));
    if (!mdw_t(dst).is_blocked()) return decline(impl, "dst layout");
    if (!attr.has_default_values()) return decline(impl, "attributes");
    return status::success;
}

struct softmax_vec_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, softmax_fwd_pd_t, softmax_vec_t> {
        using desc_t = softmax_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            const char *me = "vec:softmax";
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
            std::snprintf(name_, sizeof(name_), "vec:%s", k_->isa);
            return status::success;
        }
        const elt::kernels_t *k_ = nullptr;
        dim_t outer_ = 0, len_ = 0, stride_ = 1;
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
        if (stride == 1) {
            parallel(nthr_for(outer, div_up(4096, len)), [&](int ithr, int nthr) {
                dim_t s, e;
                balance211(outer, nthr, ithr, s, e);
                if (s < e) k->softmax_rows(log, dt, src + s * len * esz, dst + s * len * esz, e - s, len);
            });
            return status::success;
        }
        // Columns in groups of 64 (a multiple of both vector widths).
        const dim_t grp = 64, ngrp = div_up(stride, grp);
        parallel_nd(outer, ngrp, [&](dim_t o, dim_t g) {
            const dim_t off = o * len * stride * esz;
            const dim_t j0 = g * grp, j1 = j0 + grp < stride ? j0 + grp : stride;
            k->softmax_cols(log, dt, src + off, dst + off, len, stride, j0, j1);
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
        {"ref:any", make_pd<softmax_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
