// Layer normalization backward, any layout, f32/bf16 storage, scale and
// diff_scale/diff_shift in f32/bf16/f16. One row (every point but the last
// dim) at a time; RMS normalization has no mean (xhat = x * rstd and no
// mean(g dd) term). See norm_bwd.hpp for the formulas.
#include <cmath>

#include "cpu/norm/lnorm_pd.hpp"
#include "cpu/norm/norm_bwd.hpp"

namespace kestrel {

namespace {

struct ref_lnorm_bwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, lnorm_bwd_pd_t, ref_lnorm_bwd_t> {
        using desc_t = lnorm_desc_t;
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
        const mdw_t s(pd->src_md()), ds(pd->diff_src_md()), dd(pd->diff_dst_md()), st(pd->stat_md());
        const void *src = ctx.input(DNNL_ARG_SRC);
        const void *ddst = ctx.input(DNNL_ARG_DIFF_DST);
        void *dsrc = ctx.output(DNNL_ARG_DIFF_SRC);
        const bool rms = pd->rms(), global = pd->global_stats();
        const float *mean = rms ? nullptr : ctx.input<float>(DNNL_ARG_MEAN);
        const float *var = ctx.input<float>(DNNL_ARG_VARIANCE);
        const void *scale = pd->use_scale() ? ctx.input(DNNL_ARG_SCALE) : nullptr;
        const bool bwd = pd->prop_kind() == dnnl_backward;
        void *dscale = bwd && pd->use_scale() ? ctx.output(DNNL_ARG_DIFF_SCALE) : nullptr;
        void *dshift = bwd && pd->use_shift() ? ctx.output(DNNL_ARG_DIFF_SHIFT) : nullptr;
        const int nd = s.ndims();
        const dim_t C = pd->C();
        const dim_t R = C ? s.nelems() / C : 0;
        if (C == 0) return status::success;
        const float eps = pd->desc()->epsilon;
        const data_type_t sdt = s.data_type(), ddt = dd.data_type(), dsdt = ds.data_type();
        const data_type_t ssdt = pd->desc()->ss_dt;
        const int nthr = norm_bwd::nthr(ctx, R);
        bool oom = false;
        parallel(nthr, [&](int ithr, int nt) {
            float *part = norm_bwd::slab(ctx, ithr, C);
            if (!part) {
                oom = true;
                return;
            }
            dim_t b, e, pos[max_ndims];
            balance211(R, nt, ithr, b, e);
            for (dim_t r = b; r < e; ++r) {
                dim_t q = r;
                for (int i = nd - 2; i >= 0; --i) {
                    pos[i] = q % s.dims()[i];
                    q /= s.dims()[i];
                }
                const dim_t soff = st.off_v(pos);
                const float m = rms ? 0.f : mean[soff];
                const float rstd = 1.f / std::sqrt(var[soff] + eps);
                // Row sums of g dd and g dd xhat, and the channel partials.
                float sa = 0.f, sb = 0.f;
                for (dim_t c = 0; c < C; ++c) {
                    pos[nd - 1] = c;
                    const float g = scale ? load_f32(ssdt, scale, c) : 1.f;
                    const float d = load_f32(ddt, ddst, dd.off_v(pos));
                    const float xhat = (load_f32(sdt, src, s.off_v(pos)) - m) * rstd;
                    sa += g * d;
                    sb += g * d * xhat;
                    part[c] += d * xhat;
                    part[C + c] += d;
                }
                const float a = global || rms ? 0.f : sa / (float)C, bb = global ? 0.f : sb / (float)C;
                for (dim_t c = 0; c < C; ++c) {
                    pos[nd - 1] = c;
                    const float g = scale ? load_f32(ssdt, scale, c) : 1.f;
                    const float d = load_f32(ddt, ddst, dd.off_v(pos));
                    const float xhat = (load_f32(sdt, src, s.off_v(pos)) - m) * rstd;
                    store_f32(dsdt, dsrc, ds.off_v(pos), norm_bwd::diff_src(g * d, xhat, rstd, a, bb));
                }
            }
        });
        if (oom) return status::out_of_memory;
        if (dscale || dshift) {
            const float *red = norm_bwd::reduce(ctx, nthr, C);
            if (!red) return status::out_of_memory;
            norm_bwd::store(dscale, dshift, pd->desc()->diff_ss_dt, red, C);
        }
        return status::success;
    }
};

} // namespace

const impl_entry_t lnorm_bwd_impl_list[] = {
        {"ref", make_pd<ref_lnorm_bwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
