// Group normalization forward: a reference implementation for any layout,
// every flag and post-op chain, and a vectorised one for ncsp / nspc /
// nCsp8c / nCsp16c. Statistics are two-pass (mean, then the mean of squared
// deviations), so a constant group has variance exactly 0.
#include <algorithm>
#include <cmath>

#include "core/primitive.hpp"
#include "cpu/norm/gnorm_pd.hpp"
#include "cpu/post_ops.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Logical position of (n, c, spatial point sp) for md's dims.
inline void nc_sp_pos(const memory_desc_t &md, dim_t n, dim_t c, dim_t sp, dim_t *pos) {
    pos[0] = n;
    pos[1] = c;
    for (int i = md.ndims - 1; i >= 2; --i) {
        pos[i] = sp % md.dims[i];
        sp /= md.dims[i];
    }
}

struct ref_gnorm_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, gnorm_fwd_pd_t, ref_gnorm_fwd_t> {
        using desc_t = gnorm_desc_t;
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
        const float *sc = pd->use_scale() ? ctx.input<float>(DNNL_ARG_SCALE) : nullptr;
        const float *sh = pd->use_shift() ? ctx.input<float>(DNNL_ARG_SHIFT) : nullptr;
        const bool gs = pd->global_stats(), out = pd->stats_out();
        float *mean_out = out ? ctx.output<float>(DNNL_ARG_MEAN) : nullptr;
        float *var_out = out ? ctx.output<float>(DNNL_ARG_VARIANCE) : nullptr;
        const float *mean_in = gs ? ctx.input<float>(DNNL_ARG_MEAN) : nullptr;
        const float *var_in = gs ? ctx.input<float>(DNNL_ARG_VARIANCE) : nullptr;
        const post_ops::applier_t ap(pd->attr()->post_ops, d.md(), ctx);
        const dim_t N = pd->MB(), C = pd->C(), G = pd->G(), SP = pd->SP();
        const dim_t CG = G ? C / G : 0, cnt = CG * SP;
        const float eps = pd->desc()->epsilon;
        const data_type_t sdt = s.data_type(), ddt = d.data_type();
        parallel_nd(N, G, [&](dim_t n, dim_t g) {
            dim_t pos[max_ndims];
            auto x = [&](dim_t c, dim_t sp) {
                nc_sp_pos(s.md(), n, c, sp, pos);
                return load_f32(sdt, src, s.off_v(pos));
            };
            const dim_t ng[2] = {n, g};
            const dim_t soff = st.off_v(ng);
            float mean, var;
            if (gs) {
                mean = mean_in[soff];
                var = var_in[soff];
            } else {
                float sum = 0.f;
                for (dim_t c = g * CG; c < (g + 1) * CG; ++c)
                    for (dim_t sp = 0; sp < SP; ++sp) sum += x(c, sp);
                mean = cnt ? sum / (float)cnt : 0.f;
                float sq = 0.f;
                for (dim_t c = g * CG; c < (g + 1) * CG; ++c)
                    for (dim_t sp = 0; sp < SP; ++sp) {
                        const float dv = x(c, sp) - mean;
                        sq += dv * dv;
                    }
                var = cnt ? sq / (float)cnt : 0.f;
                if (mean_out) {
                    mean_out[soff] = mean;
                    var_out[soff] = var;
                }
            }
            const float rstd = 1.f / std::sqrt(var + eps);
            for (dim_t c = g * CG; c < (g + 1) * CG; ++c) {
                const float a = sc ? sc[c] * rstd : rstd, b = sh ? sh[c] : 0.f;
                for (dim_t sp = 0; sp < SP; ++sp) {
                    float v = (x(c, sp) - mean) * a + b;
                    if (!ap.empty()) v = ap.apply(v, 0.f, pos);
                    store_f32(ddt, dst, d.off_v(pos), v);
                }
            }
        });
        return status::success;
    }
};

// Vectorised. ncsp: the runs are the SP points of one channel; nspc and
// blocked: the runs are a group's channels at one point (one run for nspc,
// one per block the group touches for nCsp8c/16c).
struct vec_gnorm_fwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_part = 1, key_stats = 2, key_coef = 3, key_row = 4 };
    struct pd_t : pd_impl_t<pd_t, gnorm_fwd_pd_t, vec_gnorm_fwd_t> {
        using desc_t = gnorm_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            layout_ = pool::classify(src_md_);
            if (layout_ == pool::layout_t::other || pool::classify(dst_md_) != layout_)
                return decline("vec:gnorm", "layout");
            if (mdw_t(src_md_).has_zero_dim()) return decline("vec:gnorm", "empty tensor");
            const dim_t c = C(), ng = MB() * G();
            ncsp_ = layout_ == pool::layout_t::ncsp;
            blk_ = layout_ == pool::layout_t::blocked8 ? 8
                    : layout_ == pool::layout_t::blocked16 ? 16
                    : layout_ == pool::layout_t::nspc ? c : 1;
            cp_ = rnd_up(c, blk_);
            name_ = ncsp_ ? "vec:ncsp" : layout_ == pool::layout_t::nspc ? "vec:nspc" : "vec:blocked";
            auto &r = scratchpad_registry();
            if (!global_stats()) r.book_per_thread(key_part, sizeof(float) * ng);
            r.book(key_stats, sizeof(float) * 2 * ng);
            r.book(key_coef, sizeof(float) * 3 * MB() * cp_);
            if (!attr_.post_ops.entries.empty())
                r.book_per_thread(key_row, sizeof(float) * (ncsp_ ? SP() : blk_));
            return status::success;
        }
        pool::layout_t layout_ = pool::layout_t::other;
        bool ncsp_ = false;
        dim_t blk_ = 1, cp_ = 0;
        const char *name_ = "vec";
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override;
};

status_t vec_gnorm_fwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto &ops = pool::vec_ops();
    const auto &spad = ctx.scratchpad();
    const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md();
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const float *scale = pd->use_scale() ? ctx.input<float>(DNNL_ARG_SCALE) : nullptr;
    const float *shift = pd->use_shift() ? ctx.input<float>(DNNL_ARG_SHIFT) : nullptr;
    float *stats = spad.get<float>(key_stats), *coef = spad.get<float>(key_coef);
    if (!stats || !coef) return status::out_of_memory;
    const dim_t N = pd->MB(), C = pd->C(), G = pd->G(), SP = pd->SP();
    const dim_t CG = C / G, NG = N * G, cnt = CG * SP, B = pd->blk_, CP = pd->cp_;
    const bool ncsp = pd->ncsp_;
    const int nd = smd.ndims;
    const data_type_t sdt = smd.data_type, ddt = dmd.data_type;
    const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
    // Element strides of n, channel (block) and spatial point.
    const dim_t sn = smd.blocking.strides[0], sc = smd.blocking.strides[1];
    const dim_t dn = dmd.blocking.strides[0], dc = dmd.blocking.strides[1];
    const dim_t ssp = nd > 2 ? smd.blocking.strides[nd - 1] : 0;
    const dim_t dsp = nd > 2 ? dmd.blocking.strides[nd - 1] : 0;
    float *mean = stats, *var = stats + NG;

    if (pd->global_stats()) {
        const mdw_t st(pd->stat_md());
        const float *mi = ctx.input<float>(DNNL_ARG_MEAN), *vi = ctx.input<float>(DNNL_ARG_VARIANCE);
        for (dim_t i = 0; i < NG; ++i) {
            const dim_t pos[2] = {i / G, i % G};
            mean[i] = mi[st.off_v(pos)];
            var[i] = vi[st.off_v(pos)];
        }
    } else {
        // Units of work: ncsp, one channel of a group (a run of SP);
        // otherwise one point of a group (the group's channel segments).
        const dim_t upg = ncsp ? CG : SP, units = NG * upg;
        auto unit_sum = [&](dim_t u, int pass, const float *m) {
            const dim_t ngi = u / upg, k = u % upg, n = ngi / G, g = ngi % G;
            if (ncsp) {
                const char *x = src + (smd.offset0 + n * sn + (g * CG + k) * sc) * ssz;
                return pass == 0 ? ops.sum(x, sdt, SP) : ops.sq_dev_sum(x, sdt, m[ngi], SP);
            }
            float acc = 0.f;
            const dim_t c0 = g * CG, c1 = c0 + CG;
            for (dim_t cb = c0 / B; cb * B < c1; ++cb) {
                const dim_t lo = std::max(c0, cb * B), hi = std::min(c1, cb * B + B);
                const char *x = src + (smd.offset0 + n * sn + cb * sc + k * ssp + (lo - cb * B)) * ssz;
                acc += pass == 0 ? ops.sum(x, sdt, hi - lo) : ops.sq_dev_sum(x, sdt, m[ngi], hi - lo);
            }
            return acc;
        };
        const int nthr = std::max(1, std::min(spad.nthr(), nthr_for(units, 16)));
        for (int pass = 0; pass < 2; ++pass) {
            bool oom = false;
            parallel(nthr, [&](int ithr, int nt) {
                float *part = spad.get<float>(key_part, ithr);
                if (!part) {
                    oom = true;
                    return;
                }
                std::fill(part, part + NG, 0.f);
                dim_t u0, u1;
                balance211(units, nt, ithr, u0, u1);
                for (dim_t u = u0; u < u1; ++u) part[u / upg] += unit_sum(u, pass, mean);
            });
            if (oom) return status::out_of_memory;
            float *tgt = pass == 0 ? mean : var;
            std::fill(tgt, tgt + NG, 0.f);
            for (int t = 0; t < nthr; ++t) {
                const float *part = spad.get<float>(key_part, t);
                for (dim_t i = 0; i < NG; ++i) tgt[i] += part[i];
            }
            for (dim_t i = 0; i < NG; ++i) tgt[i] /= (float)cnt;
        }
        if (pd->stats_out()) {
            const mdw_t st(pd->stat_md());
            float *mo = ctx.output<float>(DNNL_ARG_MEAN), *vo = ctx.output<float>(DNNL_ARG_VARIANCE);
            for (dim_t i = 0; i < NG; ++i) {
                const dim_t pos[2] = {i / G, i % G};
                mo[st.off_v(pos)] = mean[i];
                vo[st.off_v(pos)] = var[i];
            }
        }
    }

    // Per (n, channel): dst = (src - m) * a + b. Padded channels get zeros.
    const float eps = pd->desc()->epsilon;
    float *cm = coef, *ca = coef + N * CP, *cb_ = coef + 2 * N * CP;
    std::fill(coef, coef + 3 * N * CP, 0.f);
    for (dim_t n = 0; n < N; ++n)
        for (dim_t c = 0; c < C; ++c) {
            const dim_t i = n * G + c / CG;
            const float rstd = 1.f / std::sqrt(var[i] + eps);
            cm[n * CP + c] = mean[i];
            ca[n * CP + c] = scale ? scale[c] * rstd : rstd;
            cb_[n * CP + c] = shift ? shift[c] : 0.f;
        }

    const post_ops::applier_t ap(pd->attr()->post_ops, dmd, ctx);
    const dim_t NB = CP / B, L = ncsp ? SP : B;
    const dim_t work = ncsp ? N * C : N * SP * NB;
    const int nthr = std::max(1, std::min(spad.nthr(), nthr_for(work, 4)));
    bool oom = false;
    parallel(nthr, [&](int ithr, int nt) {
        float *row = nullptr;
        if (!ap.empty()) {
            row = spad.get<float>(key_row, ithr);
            if (!row) {
                oom = true;
                return;
            }
        }
        dim_t w0, w1, pos[max_ndims];
        balance211(work, nt, ithr, w0, w1);
        for (dim_t w = w0; w < w1; ++w) {
            dim_t n, c0, soff, doff;
            if (ncsp) {
                n = w / C;
                c0 = w % C;
                soff = smd.offset0 + n * sn + c0 * sc;
                doff = dmd.offset0 + n * dn + c0 * dc;
            } else {
                const dim_t cbi = w % NB, sp = w / NB % SP;
                n = w / (NB * SP);
                c0 = cbi * B;
                soff = smd.offset0 + n * sn + cbi * sc + sp * ssp;
                doff = dmd.offset0 + n * dn + cbi * dc + sp * dsp;
            }
            const char *x = src + soff * ssz;
            char *y = dst + doff * dsz;
            const dim_t ci = n * CP + c0;
            if (ap.empty()) {
                if (ncsp)
                    ops.affine_s(y, ddt, x, sdt, cm[ci], ca[ci], cb_[ci], SP, false);
                else
                    ops.affine(y, ddt, x, sdt, cm + ci, ca + ci, cb_ + ci, B, false);
                continue;
            }
            if (ncsp) {
                ops.affine_s(row, dnnl_f32, x, sdt, cm[ci], ca[ci], cb_[ci], SP, false);
                for (dim_t sp = 0; sp < SP; ++sp) {
                    nc_sp_pos(dmd, n, c0, sp, pos);
                    row[sp] = ap.apply(row[sp], 0.f, pos);
                }
            } else {
                ops.affine(row, dnnl_f32, x, sdt, cm + ci, ca + ci, cb_ + ci, B, false);
                nc_sp_pos(dmd, n, c0, w / NB % SP, pos);
                for (dim_t i = 0; i < std::min(B, C - c0); ++i) {
                    pos[1] = c0 + i;
                    row[i] = ap.apply(row[i], 0.f, pos);
                }
            }
            ops.store_scaled(y, ddt, row, 1.f, L);
        }
    });
    return oom ? status::out_of_memory : status::success;
}

} // namespace

const impl_entry_t gnorm_impl_list[] = {
        {"vec", make_pd<vec_gnorm_fwd_t::pd_t>},
        {"ref", make_pd<ref_gnorm_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
