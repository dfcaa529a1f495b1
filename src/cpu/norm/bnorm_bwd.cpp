// Batch normalization backward, any layout, f32/bf16 storage. Statistics
// per channel over N and the spatial dims; see norm_bwd.hpp for the
// formulas. With fuse_norm_relu (and fuse_norm_add_relu, which also writes
// the masked diff_dst as the added input's gradient), diff_dst is masked by
// the forward's workspace (one byte per physical forward src element).
#include <cmath>

#include "cpu/norm/bnorm_pd.hpp"
#include "cpu/norm/norm_bwd.hpp"

namespace kestrel {

namespace {

struct ref_bnorm_bwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, bnorm_bwd_pd_t, ref_bnorm_bwd_t> {
        using desc_t = bnorm_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            norm_bwd::book(scratchpad_registry(), C());
            return status::success;
        }
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t s(pd->src_md()), ds(pd->diff_src_md()), dd(pd->diff_dst_md()), fs(pd->fwd_src_md());
        const void *src = ctx.input(DNNL_ARG_SRC);
        const void *ddst = ctx.input(DNNL_ARG_DIFF_DST);
        void *dsrc = ctx.output(DNNL_ARG_DIFF_SRC);
        void *dsrc1 = pd->fuse_add() ? ctx.output(DNNL_ARG_DIFF_SRC_1) : nullptr;
        const float *mean = ctx.input<float>(DNNL_ARG_MEAN);
        const float *var = ctx.input<float>(DNNL_ARG_VARIANCE);
        const float *scale = pd->use_scale() ? ctx.input<float>(DNNL_ARG_SCALE) : nullptr;
        const bool bwd = pd->prop_kind() == dnnl_backward;
        float *dscale = bwd && pd->use_scale() ? ctx.output<float>(DNNL_ARG_DIFF_SCALE) : nullptr;
        float *dshift = bwd && pd->use_shift() ? ctx.output<float>(DNNL_ARG_DIFF_SHIFT) : nullptr;
        const uint8_t *ws = pd->fuse_relu() ? ctx.input<uint8_t>(DNNL_ARG_WORKSPACE) : nullptr;
        const memory_desc_t &smd = *pd->src_md();
        const dim_t N = smd.dims[0], C = smd.dims[1];
        dim_t SP = 1;
        for (int i = 2; i < smd.ndims; ++i) SP *= smd.dims[i];
        const dim_t M = N * SP;
        if (C == 0) return status::success;
        const float eps = pd->desc()->epsilon;
        const data_type_t sdt = s.data_type(), ddt = dd.data_type(), dsdt = ds.data_type();
        const bool global = pd->global_stats();
        // diff_dst with the ReLU mask applied.
        auto load_dd = [&](const dim_t *pos) {
            const float v = load_f32(ddt, ddst, dd.off_v(pos));
            return ws && !ws[fs.off_v(pos) - fs.md().offset0] ? 0.f : v;
        };
        // Pass 1: per-thread partial channel sums over slices of the points.
        const int nthr = norm_bwd::nthr(ctx, M);
        bool oom = false;
        parallel(nthr, [&](int ithr, int nt) {
            float *part = norm_bwd::slab(ctx, ithr, C);
            if (!part) {
                oom = true;
                return;
            }
            dim_t b, e, pos[max_ndims];
            balance211(M, nt, ithr, b, e);
            for (dim_t p = b; p < e; ++p)
                for (dim_t c = 0; c < C; ++c) {
                    norm_bwd::pos_of(pos, smd, p / SP, c, p % SP);
                    const float g = load_dd(pos);
                    part[c] += g * (load_f32(sdt, src, s.off_v(pos)) - mean[c]);
                    part[C + c] += g;
                }
        });
        if (oom) return status::out_of_memory;
        float *red = norm_bwd::reduce(ctx, nthr, C);
        if (!red) return status::out_of_memory;
        // red[c] becomes sum dd * xhat.
        for (dim_t c = 0; c < C; ++c) red[c] /= std::sqrt(var[c] + eps);
        // Pass 2: diff_src, every element on its own.
        parallel_nd(M, C, [&](dim_t p, dim_t c) {
            dim_t pos[max_ndims];
            norm_bwd::pos_of(pos, smd, p / SP, c, p % SP);
            const float rstd = 1.f / std::sqrt(var[c] + eps), g = scale ? scale[c] : 1.f;
            const float xhat = (load_f32(sdt, src, s.off_v(pos)) - mean[c]) * rstd;
            const float a = global ? 0.f : g * red[C + c] / (float)M;
            const float b = global ? 0.f : g * red[c] / (float)M;
            const float gd = load_dd(pos);
            store_f32(dsdt, dsrc, ds.off_v(pos), norm_bwd::diff_src(g * gd, xhat, rstd, a, b));
            if (dsrc1) store_f32(dsdt, dsrc1, ds.off_v(pos), gd);
        });
        norm_bwd::store(dscale, dshift, dnnl_f32, red, C);
        return status::success;
    }
};

} // namespace

const impl_entry_t bnorm_bwd_impl_list[] = {
        {"ref", make_pd<ref_bnorm_bwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
