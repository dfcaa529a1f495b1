// Layer normalization forward: a reference implementation for any layout,
// every flag and post-op chain, and a vectorised one for layouts whose last
// dim is dense (rows of C consecutive elements), the usual nc / tnc / ldnc.
// Statistics are two-pass (mean, then the mean of squared deviations), so a
// constant row has variance exactly 0 and large offsets cost no precision.
#include <algorithm>
#include <cmath>

#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/norm/lnorm_pd.hpp"
#include "cpu/post_ops.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Position of row r (all dims but the last), last index 0.
inline void row_pos(const memory_desc_t &md, dim_t r, dim_t *pos) {
    const int nd = md.ndims;
    pos[nd - 1] = 0;
    for (int i = nd - 2; i >= 0; --i) {
        pos[i] = r % md.dims[i];
        r /= md.dims[i];
    }
}

struct ref_lnorm_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, lnorm_fwd_pd_t, ref_lnorm_fwd_t> {
        using desc_t = lnorm_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override { return init_common(); }
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t s(pd->src_md()), d(pd->dst_md()), st(pd->stat_md());
        const void *src = ctx.input(DNNL_ARG_SRC);
        void *dst = ctx.output(DNNL_ARG_DST);
        const void *sc = pd->use_scale() ? ctx.input(DNNL_ARG_SCALE) : nullptr;
        const void *sh = pd->use_shift() ? ctx.input(DNNL_ARG_SHIFT) : nullptr;
        const data_type_t ssdt = pd->desc()->ss_dt;
        const bool rms = pd->rms(), gs = pd->global_stats(), out = pd->stats_out();
        float *mean_out = out && !rms ? ctx.output<float>(DNNL_ARG_MEAN) : nullptr;
        float *var_out = out ? ctx.output<float>(DNNL_ARG_VARIANCE) : nullptr;
        const float *mean_in = gs && !rms ? ctx.input<float>(DNNL_ARG_MEAN) : nullptr;
        const float *var_in = gs ? ctx.input<float>(DNNL_ARG_VARIANCE) : nullptr;
        const post_ops::applier_t ap(pd->attr()->post_ops, d.md(), ctx);
        // y = post_ops(normalized * src_scale) / dst_scale.
        float src_scale = 1.f, dst_scale = 1.f;
        if (const auto *e = pd->attr()->scales.get(DNNL_ARG_SRC))
            src_scale = load_f32(e->dt, ctx.input(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC), 0);
        if (const auto *e = pd->attr()->scales.get(DNNL_ARG_DST))
            dst_scale = load_f32(e->dt, ctx.input(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST), 0);
        const bool scaled = !pd->attr()->scales.empty();
        const int nd = s.ndims();
        const dim_t C = pd->C(), rows = C ? s.nelems() / C : 0;
        const float eps = pd->desc()->epsilon;
        const data_type_t sdt = s.data_type(), ddt = d.data_type();
        parallel_nd(rows, [&](dim_t r) {
            dim_t pos[max_ndims];
            row_pos(s.md(), r, pos);
            const dim_t soff = st.off_v(pos);
            auto x = [&](dim_t c) {
                pos[nd - 1] = c;
                return load_f32(sdt, src, s.off_v(pos));
            };
            float mean = 0.f, var;
            if (gs) {
                mean = mean_in ? mean_in[soff] : 0.f;
                var = var_in[soff];
            } else {
                if (!rms) {
                    float sum = 0.f;
                    for (dim_t c = 0; c < C; ++c) sum += x(c);
                    mean = sum / (float)C;
                }
                float sq = 0.f;
                for (dim_t c = 0; c < C; ++c) {
                    const float dv = x(c) - mean;
                    sq += dv * dv;
                }
                var = sq / (float)C;
                if (mean_out) mean_out[soff] = mean;
                if (var_out) var_out[soff] = var;
            }
            const float rstd = 1.f / std::sqrt(var + eps);
            for (dim_t c = 0; c < C; ++c) {
                const float a = sc ? load_f32(ssdt, sc, c) * rstd : rstd;
                float v = (x(c) - mean) * a + (sh ? load_f32(ssdt, sh, c) : 0.f);
                const dim_t off = d.off_v(pos);
                if (scaled) v *= src_scale;
                if (!ap.empty()) v = ap.apply(v, load_f32(ddt, dst, off), pos);
                if (scaled) v /= dst_scale;
                store_f32(ddt, dst, off, v);
            }
        });
        elt::zero_padding(d.md(), dst);
        return status::success;
    }
};

// Vectorised over rows: src and dst plain with the last dim dense.
struct vec_lnorm_fwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_ss = 1, key_row = 2 };
    struct pd_t : pd_impl_t<pd_t, lnorm_fwd_pd_t, vec_lnorm_fwd_t> {
        using desc_t = lnorm_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "vec:rows"; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            if (!pool::is_fp(src_md_.data_type) || !pool::is_fp(dst_md_.data_type))
                return decline("vec:rows", "not f32/bf16");
            const mdw_t s(src_md_), d(dst_md_);
            const int nd = s.ndims();
            if (!s.is_plain() || !d.is_plain() || s.blk().strides[nd - 1] != 1 || d.blk().strides[nd - 1] != 1)
                return decline("vec:rows", "last dim is not dense");
            if (s.has_zero_dim()) return decline("vec:rows", "empty tensor");
            const dim_t c = C();
            if (use_scale() || use_shift()) scratchpad_registry().book(key_ss, sizeof(float) * 2 * c);
            // Post-ops work on an f32 row (and the old dst row for sum).
            if (!attr_.post_ops.entries.empty()) scratchpad_registry().book_per_thread(key_row, sizeof(float) * 2 * c);
            return status::success;
        }
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const auto &ops = pool::vec_ops();
        const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md();
        const mdw_t s(smd), d(dmd), st(pd->stat_md());
        const char *src = ctx.input<char>(DNNL_ARG_SRC);
        char *dst = ctx.output<char>(DNNL_ARG_DST);
        const dim_t C = pd->C(), rows = s.nelems() / C;
        const auto &sp = ctx.scratchpad();
        // Scale and shift as f32 rows.
        float *sc = nullptr, *sh = nullptr;
        if (pd->use_scale() || pd->use_shift()) {
            float *ss = sp.get<float>(key_ss);
            if (!ss) return status::out_of_memory;
            const data_type_t ssdt = pd->desc()->ss_dt;
            if (pd->use_scale()) {
                sc = ss;
                const void *p = ctx.input(DNNL_ARG_SCALE);
                for (dim_t c = 0; c < C; ++c) sc[c] = load_f32(ssdt, p, c);
            }
            if (pd->use_shift()) {
                sh = ss + C;
                const void *p = ctx.input(DNNL_ARG_SHIFT);
                for (dim_t c = 0; c < C; ++c) sh[c] = load_f32(ssdt, p, c);
            }
        }
        const bool rms = pd->rms(), gs = pd->global_stats(), out = pd->stats_out();
        float *mean_out = out && !rms ? ctx.output<float>(DNNL_ARG_MEAN) : nullptr;
        float *var_out = out ? ctx.output<float>(DNNL_ARG_VARIANCE) : nullptr;
        const float *mean_in = gs && !rms ? ctx.input<float>(DNNL_ARG_MEAN) : nullptr;
        const float *var_in = gs ? ctx.input<float>(DNNL_ARG_VARIANCE) : nullptr;
        const post_ops::applier_t ap(pd->attr()->post_ops, dmd, ctx);
        const bool with_sum = post_ops::sum_index(pd->attr()->post_ops) >= 0;
        const float eps = pd->desc()->epsilon;
        const data_type_t sdt = smd.data_type, ddt = dmd.data_type;
        const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
        const int nthr = std::min(std::max(1, sp.nthr()), nthr_for(rows, 4));
        bool oom = false;
        parallel(nthr, [&](int ithr, int nt) {
            float *row = nullptr;
            if (!ap.empty()) {
                row = sp.get<float>(key_row, ithr);
                if (!row) {
                    oom = true;
                    return;
                }
            }
            dim_t r0, r1;
            balance211(rows, nt, ithr, r0, r1);
            dim_t pos[max_ndims];
            for (dim_t r = r0; r < r1; ++r) {
                row_pos(smd, r, pos);
                const char *x = src + s.off_v(pos) * ssz;
                char *y = dst + d.off_v(pos) * dsz;
                const dim_t soff = st.off_v(pos);
                float mean = 0.f, var;
                if (gs) {
                    mean = mean_in ? mean_in[soff] : 0.f;
                    var = var_in[soff];
                } else {
                    if (!rms) mean = ops.sum(x, sdt, C) / (float)C;
                    var = ops.sq_dev_sum(x, sdt, mean, C) / (float)C;
                    if (mean_out) mean_out[soff] = mean;
                    if (var_out) var_out[soff] = var;
                }
                const float rstd = 1.f / std::sqrt(var + eps);
                if (ap.empty()) {
                    ops.norm_row(y, ddt, x, sdt, mean, rstd, sc, sh, C);
                    continue;
                }
                ops.norm_row(row, dnnl_f32, x, sdt, mean, rstd, sc, sh, C);
                float *old = row + C;
                if (with_sum)
                    for (dim_t c = 0; c < C; ++c) old[c] = load_f32(ddt, y, c);
                ap.apply_row(row, with_sum ? old : nullptr, C, pos);
                ops.store_scaled(y, ddt, row, 1.f, C);
            }
        });
        return oom ? status::out_of_memory : status::success;
    }
};

} // namespace

const impl_entry_t lnorm_impl_list[] = {
        {"vec", make_pd<vec_lnorm_fwd_t::pd_t>},
        {"ref", make_pd<ref_lnorm_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
