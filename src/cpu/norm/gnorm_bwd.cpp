// Group normalization backward, any layout, f32/bf16 storage. One
// (n, group) set at a time: its Cg channels over every spatial point. See
// norm_bwd.hpp for the formulas.
#include <cmath>

#include "cpu/norm/gnorm_pd.hpp"
#include "cpu/norm/norm_bwd.hpp"

namespace kestrel {

namespace {

struct ref_gnorm_bwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, gnorm_bwd_pd_t, ref_gnorm_bwd_t> {
        using desc_t = gnorm_desc_t;
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
        const mdw_t s(pd->src_md()), ds(pd->diff_src_md()), dd(pd->diff_dst_md());
        const void *src = ctx.input(DNNL_ARG_SRC);
        const void *ddst = ctx.input(DNNL_ARG_DIFF_DST);
        void *dsrc = ctx.output(DNNL_ARG_DIFF_SRC);
        const float *mean = ctx.input<float>(DNNL_ARG_MEAN);
        const float *var = ctx.input<float>(DNNL_ARG_VARIANCE);
        const float *scale = pd->use_scale() ? ctx.input<float>(DNNL_ARG_SCALE) : nullptr;
        const bool bwd = pd->prop_kind() == dnnl_backward, global = pd->global_stats();
        float *dscale = bwd && pd->use_scale() ? ctx.output<float>(DNNL_ARG_DIFF_SCALE) : nullptr;
        float *dshift = bwd && pd->use_shift() ? ctx.output<float>(DNNL_ARG_DIFF_SHIFT) : nullptr;
        const dim_t N = pd->MB(), C = pd->C(), G = pd->G(), SP = pd->SP();
        if (C == 0) return status::success;
        const dim_t Cg = C / G, M = Cg * SP;
        const float eps = pd->desc()->epsilon;
        const data_type_t sdt = s.data_type(), ddt = dd.data_type(), dsdt = ds.data_type();
        const memory_desc_t &smd = *pd->src_md();
        const int nthr = norm_bwd::nthr(ctx, N * G);
        bool oom = false;
        parallel(nthr, [&](int ithr, int nt) {
            float *part = norm_bwd::slab(ctx, ithr, C);
            if (!part) {
                oom = true;
                return;
            }
            dim_t b, e, pos[max_ndims];
            balance211(N * G, nt, ithr, b, e);
            for (dim_t ng = b; ng < e; ++ng) {
                const dim_t n = ng / G, c0 = ng % G * Cg;
                const float m = mean[ng], rstd = 1.f / std::sqrt(var[ng] + eps);
                float sa = 0.f, sb = 0.f;
                for (dim_t c = c0; c < c0 + Cg; ++c) {
                    const float g = scale ? scale[c] : 1.f;
                    for (dim_t sp = 0; sp < SP; ++sp) {
                        norm_bwd::pos_of(pos, smd, n, c, sp);
                        const float d = load_f32(ddt, ddst, dd.off_v(pos));
                        const float xhat = (load_f32(sdt, src, s.off_v(pos)) - m) * rstd;
                        sa += g * d;
                        sb += g * d * xhat;
                        part[c] += d * xhat;
                        part[C + c] += d;
                    }
                }
                const float a = global || M == 0 ? 0.f : sa / (float)M, bb = global || M == 0 ? 0.f : sb / (float)M;
                for (dim_t c = c0; c < c0 + Cg; ++c) {
                    const float g = scale ? scale[c] : 1.f;
                    for (dim_t sp = 0; sp < SP; ++sp) {
                        norm_bwd::pos_of(pos, smd, n, c, sp);
                        const float d = load_f32(ddt, ddst, dd.off_v(pos));
                        const float xhat = (load_f32(sdt, src, s.off_v(pos)) - m) * rstd;
                        store_f32(dsdt, dsrc, ds.off_v(pos), norm_bwd::diff_src(g * d, xhat, rstd, a, bb));
                    }
                }
            }
        });
        if (oom) return status::out_of_memory;
        if (dscale || dshift) {
            const float *red = norm_bwd::reduce(ctx, nthr, C);
            if (!red) return status::out_of_memory;
            norm_bwd::store(dscale, dshift, dnnl_f32, red, C);
        }
        return status::success;
    }
};

} // namespace

const impl_entry_t gnorm_bwd_impl_list[] = {
        {"ref", make_pd<ref_gnorm_bwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
