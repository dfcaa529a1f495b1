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
#include "cpu/types.hpp"

#include <algorithm>
#include <atomic>

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

// Fast path from the forward's workspace, for plain channel-first,
// channel-last and channel-blocked (8 / 16) layouts, f32 or bf16 storage.
// With t_i = dd_i x_i w_i^-beta / w_i the formula above is
//   diff_src_j = dd_j w_j^-beta - 2 alpha beta / n * x_j * sum_{i in W(j)} t_i,
// so each t is computed once into a per-thread buffer and the window sums
// are plain sums of that buffer:
// - across channels, a work item is a run of up to `run` points of one
//   image: t for every channel at those points, in rows of points padded
//   by `half` zero rows on both sides, then 2 half + 1 rows summed per
//   channel;
// - within a channel, a work item is one channel of one image: its t plane
//   padded by `half` zeros along each spatial dim, then the box sums.
// Element (n, c, point) of every tensor sits at n sn + (c / B) sc + c % B +
// point sp (B: 1 channel-first, 8 / 16 blocked, C channel-last).
struct vec_lrn_bwd_t : primitive_t {
    static constexpr scratchpad::key_t key_buf = 0;
    static constexpr dim_t run = 64; // points per across-channels item
    struct pd_t : pd_impl_t<pd_t, lrn_bwd_pd_t, vec_lrn_bwd_t> {
        using desc_t = lrn_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            const char *me = "vec:lrn_bwd";
            KESTREL_CHECK(init_common());
            if (!with_ws()) return decline(me, "no workspace (inference hint or none)");
            const pool::layout_t l = pool::classify(src_md_);
            if (l == pool::layout_t::other) return decline(me, "layout");
            const int nd = src_md_.ndims;
            for (const memory_desc_t *m : {&diff_src_md_, &diff_dst_md_, &ws_md_}) {
                if (pool::classify(*m) != l) return decline(me, "layouts differ");
                for (int i = 0; i < nd; ++i)
                    if (m->blocking.strides[i] != src_md_.blocking.strides[i]) return decline(me, "strides differ");
            }
            if (mdw_t(src_md_).has_zero_dim()) return decline(me, "empty tensor");
            const dim_t C = src_md_.dims[1];
            B = l == pool::layout_t::blocked8 ? 8 : l == pool::layout_t::blocked16 ? 16 : l == pool::layout_t::nspc ? C : 1;
            for (int i = 0; i < 3; ++i) sp[i] = 1;
            for (int i = 2; i < nd; ++i) sp[i - 2 + (5 - nd)] = src_md_.dims[i];
            SP = sp[0] * sp[1] * sp[2];
            const dim_t h = half();
            const dim_t buf = across() ? (C + 2 * h) * run
                                       : (sp[0] + 2 * h) * (sp[1] + 2 * h) * (sp[2] + 2 * h);
            scratchpad_registry().book_per_thread(key_buf, sizeof(float) * buf);
            name_ = l == pool::layout_t::ncsp ? "vec:ncsp" : l == pool::layout_t::nspc ? "vec:nspc" : "vec:blocked";
            return status::success;
        }
        dim_t B = 1, sp[3] = {1, 1, 1}, SP = 1; // spatial dims padded to 3 (D, H, W)
        const char *name_ = "vec";
    };
    using primitive_t::primitive_t;
    status_t execute(const exec_ctx_t &ctx) const override;
};

status_t vec_lrn_bwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const memory_desc_t &smd = *pd->src_md(), &dsmd = *pd->diff_src_md(), &ddmd = *pd->diff_dst_md(),
                        &wmd = *pd->workspace_md();
    const void *src = ctx.input(DNNL_ARG_SRC), *ddst = ctx.input(DNNL_ARG_DIFF_DST);
    const float *ws = ctx.input<float>(DNNL_ARG_WORKSPACE);
    void *dsrc = ctx.output(DNNL_ARG_DIFF_SRC);
    const auto &sg = ctx.scratchpad();
    const lrn_desc_t &d = *pd->desc();
    const int nd = smd.ndims;
    const dim_t N = smd.dims[0], C = smd.dims[1], B = pd->B, SP = pd->SP, h = pd->half();
    const dim_t D = pd->sp[0], H = pd->sp[1], W = pd->sp[2];
    const dim_t sn = smd.blocking.strides[0], sc = smd.blocking.strides[1];
    const dim_t ssp = nd > 2 ? smd.blocking.strides[nd - 1] : 0;
    const data_type_t sdt = smd.data_type, dsdt = dsmd.data_type, dddt = ddmd.data_type;
    const float beta = d.beta, coef = 2.f * d.alpha * d.beta / pd->summands();
    // Offset of (n, c, point) without the tensors' offset0.
    auto off = [&](dim_t n, dim_t c, dim_t p) { return n * sn + (c / B) * sc + c % B + p * ssp; };
    auto t_of = [&](dim_t o) {
        const float w = ws[wmd.offset0 + o];
        return load_f32(dddt, ddst, ddmd.offset0 + o) * load_f32(sdt, src, smd.offset0 + o)
                * pool::lrn_factor(w, beta) / w;
    };
    auto out = [&](dim_t o, float win) {
        const float r = load_f32(dddt, ddst, ddmd.offset0 + o) * pool::lrn_factor(ws[wmd.offset0 + o], beta)
                - coef * load_f32(sdt, src, smd.offset0 + o) * win;
        store_f32(dsdt, dsrc, dsmd.offset0 + o, r);
    };

    const bool across = pd->across();
    const dim_t nrun = div_up(SP, run);
    const dim_t work = across ? N * nrun : N * C;
    const int nthr = std::max(1, std::min(sg.nthr(), nthr_for(work, 2)));
    std::atomic<bool> oom {false};
    parallel(nthr, [&](int ithr, int nt) {
        float *buf = sg.get<float>(key_buf, ithr);
        if (!buf) {
            oom = true;
            return;
        }
        dim_t w0, w1;
        balance211(work, nt, ithr, w0, w1);
        for (dim_t it = w0; it < w1; ++it) {
            if (across) {
                const dim_t n = it / nrun, p0 = it % nrun * run, len = std::min(run, SP - p0);
                // Rows c + h of t (run points each); rows [0, h) and
                // [C + h, C + 2h) zero.
                std::fill(buf, buf + h * run, 0.f);
                std::fill(buf + (C + h) * run, buf + (C + 2 * h) * run, 0.f);
                for (dim_t c = 0; c < C; ++c) {
                    float *row = buf + (c + h) * run;
                    for (dim_t j = 0; j < len; ++j) row[j] = t_of(off(n, c, p0 + j));
                }
                for (dim_t c = 0; c < C; ++c) {
                    float win[run];
                    std::fill(win, win + len, 0.f);
                    for (dim_t k = 0; k <= 2 * h; ++k) {
                        const float *row = buf + (c + k) * run;
                        for (dim_t j = 0; j < len; ++j) win[j] += row[j];
                    }
                    for (dim_t j = 0; j < len; ++j) out(off(n, c, p0 + j), win[j]);
                }
                continue;
            }
            // Within: the channel's t plane with h zeros around it.
            const dim_t n = it / C, c = it % C;
            const dim_t D2 = D + 2 * h, H2 = H + 2 * h, W2 = W + 2 * h;
            std::fill(buf, buf + D2 * H2 * W2, 0.f);
            for (dim_t p = 0; p < SP; ++p) {
                const dim_t x = p % W, y = p / W % H, z = p / (W * H);
                buf[((z + h) * H2 + y + h) * W2 + x + h] = t_of(off(n, c, p));
            }
            // Windows along a dim of extent 1 hold only the point itself.
            const dim_t kd = D > 1 ? 2 * h : 0, kh = H > 1 ? 2 * h : 0;
            const dim_t zd = D > 1 ? 0 : h, zh = H > 1 ? 0 : h;
            for (dim_t p = 0; p < SP; ++p) {
                const dim_t x = p % W, y = p / W % H, z = p / (W * H);
                float win = 0.f;
                for (dim_t a = 0; a <= kd; ++a)
                    for (dim_t b = 0; b <= kh; ++b) {
                        const float *r = buf + ((z + zd + a) * H2 + y + zh + b) * W2 + x;
                        for (dim_t e = 0; e <= 2 * h; ++e) win += r[e];
                    }
                out(off(n, c, p), win);
            }
        }
    });
    return oom ? status::out_of_memory : status::success;
}

} // namespace

const impl_entry_t lrn_bwd_impl_list[] = {
        {"vec", make_pd<vec_lrn_bwd_t::pd_t>},
        {"ref", make_pd<ref_lrn_bwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
