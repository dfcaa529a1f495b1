// LRN backward, any layout, f32/bf16 storage. With
//   y_i = x_i * w_i^-beta,  w_i = k + alpha / n * sum_{j in W(i)} x_j^2
// and windows symmetric (j in W(i) exactly when i in W(j)):
//   diff_src_j = dd_j * w_j^-beta
//              - 2 alpha beta / n * x_j * sum_{i in W(j)} dd_i x_i w_i^-beta / w_i.
// w comes from the forward's workspace when there is one. Every diff_src
// element is computed on its own, so the threads share nothing.
#include "cpu/norm/lrn_pd.hpp"
#include "cpu/threading.hpp"
#include "core/primitive.hpp"

namespace kestrel {

namespace {

struct ref_lrn_bwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, lrn_bwd_pd_t, ref_lrn_bwd_t> {
        using desc_t = lrn_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override { return init_common(); }
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t s(pd->src_md()), ds(pd->diff_src_md()), dd(pd->diff_dst_md()), w(pd->workspace_md());
        const void *src = ctx.input(DNNL_ARG_SRC);
        const void *ddst = ctx.input(DNNL_ARG_DIFF_DST);
        void *dsrc = ctx.output(DNNL_ARG_DIFF_SRC);
        const float *ws = pd->with_ws() ? ctx.input<float>(DNNL_ARG_WORKSPACE) : nullptr;
        const int nd = s.ndims();
        const lrn_desc_t &d = *pd->desc();
        const dim_t half = pd->half(), C = s.dims()[1];
        const float n_sum = pd->summands();
        const bool across = pd->across();
        const data_type_t sdt = s.data_type(), ddt = dd.data_type(), dsdt = ds.data_type();
        // Spatial dims padded to 3.
        dim_t sp[3] = {1, 1, 1};
        for (int i = 2; i < nd; ++i) sp[i - 2 + (5 - nd)] = s.dims()[i];
        auto make_pos = [&](dim_t *pos, dim_t n, dim_t c, const dim_t *x) {
            pos[0] = n;
            pos[1] = c;
            for (int i = 2; i < nd; ++i) pos[i] = x[i - 2 + (5 - nd)];
        };
        // Visits every point of the window around (c, x): f(c', x').
        auto window = [&](dim_t c, const dim_t *x, auto f) {
            if (across) {
                for (dim_t cc = std::max<dim_t>(0, c - half); cc <= std::min(C - 1, c + half); ++cc) f(cc, x);
                return;
            }
            dim_t lo[3], hi[3], y[3];
            for (int i = 0; i < 3; ++i) {
                lo[i] = std::max<dim_t>(0, x[i] - half);
                hi[i] = std::min(sp[i] - 1, x[i] + half);
            }
            for (y[0] = lo[0]; y[0] <= hi[0]; ++y[0])
                for (y[1] = lo[1]; y[1] <= hi[1]; ++y[1])
                    for (y[2] = lo[2]; y[2] <= hi[2]; ++y[2]) f(c, y);
        };
        auto omega = [&](dim_t n, dim_t c, const dim_t *x) {
            dim_t pos[max_ndims];
            if (ws) {
                make_pos(pos, n, c, x);
                return ws[w.off_v(pos)];
            }
            float sum = 0.f;
            window(c, x, [&](dim_t cc, const dim_t *y) {
                make_pos(pos, n, cc, y);
                const float v = load_f32(sdt, src, s.off_v(pos));
                sum += v * v;
            });
            return pool::lrn_omega(sum, d.k, d.alpha, n_sum);
        };
        const dim_t SP = sp[0] * sp[1] * sp[2];
        parallel_nd(s.dims()[0], C, SP, [&](dim_t n, dim_t c, dim_t p) {
            const dim_t x[3] = {p / (sp[1] * sp[2]), p / sp[2] % sp[1], p % sp[2]};
            dim_t pos[max_ndims];
            float acc = 0.f;
            window(c, x, [&](dim_t cc, const dim_t *y) {
                make_pos(pos, n, cc, y);
                const float wi = omega(n, cc, y);
                make_pos(pos, n, cc, y);
                acc += load_f32(ddt, ddst, dd.off_v(pos)) * load_f32(sdt, src, s.off_v(pos))
                        * pool::lrn_factor(wi, d.beta) / wi;
            });
            make_pos(pos, n, c, x);
            const float xj = load_f32(sdt, src, s.off_v(pos));
            const float wj = omega(n, c, x);
            make_pos(pos, n, c, x);
            const float r = load_f32(ddt, ddst, dd.off_v(pos)) * pool::lrn_factor(wj, d.beta)
                    - 2.f * d.alpha * d.beta / n_sum * xj * acc;
            store_f32(dsdt, dsrc, ds.off_v(pos), r);
        });
        return status::success;
    }
};

} // namespace

const impl_entry_t lrn_bwd_impl_list[] = {
        {"ref", make_pd<ref_lrn_bwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
