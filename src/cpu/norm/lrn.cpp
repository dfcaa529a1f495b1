// LRN forward: a reference implementation for any layout and a vectorised
// one for ncsp / nspc / nCsp8c / nCsp16c. Both add the squares of a window
// in the same order (the vectorised one adds exact zeros where the window
// leaves the tensor) and share the final formula, so they agree bit for bit.
#include <algorithm>
#include <cmath>

#include "core/primitive.hpp"
#include "cpu/norm/lrn_pd.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

struct ref_lrn_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, lrn_fwd_pd_t, ref_lrn_fwd_t> {
        using desc_t = lrn_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override { return init_common(); }
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t s(pd->src_md()), d(pd->dst_md()), w(pd->workspace_md());
        const void *src = ctx.input(DNNL_ARG_SRC);
        void *dst = ctx.output(DNNL_ARG_DST);
        float *ws = pd->with_ws() ? ctx.output<float>(DNNL_ARG_WORKSPACE) : nullptr;
        const auto &desc = *pd->desc();
        const int nd = s.ndims();
        const dim_t N = s.dims()[0], C = s.dims()[1], hw = pd->half();
        dim_t SP = 1;
        for (int i = 2; i < nd; ++i) SP *= s.dims()[i];
        const bool across = pd->across();
        const float summands = pd->summands();
        const data_type_t sdt = s.data_type(), ddt = d.data_type();
        parallel_nd(N, C, SP, [&](dim_t n, dim_t c, dim_t sp) {
            dim_t pos[max_ndims], q[max_ndims], lo[max_ndims], hi[max_ndims];
            pos[0] = n;
            pos[1] = c;
            for (int i = nd - 1; i >= 2; --i) {
                pos[i] = sp % s.dims()[i];
                sp /= s.dims()[i];
            }
            float sum = 0.f;
            std::copy(pos, pos + nd, q);
            if (across) {
                for (dim_t cc = std::max<dim_t>(c - hw, 0); cc < std::min(c + hw + 1, C); ++cc) {
                    q[1] = cc;
                    const float v = load_f32(sdt, src, s.off_v(q));
                    sum += v * v;
                }
            } else {
                // Odometer over the clipped window, first spatial dim outermost.
                bool empty = false;
                for (int i = 2; i < nd; ++i) {
                    lo[i] = std::max<dim_t>(pos[i] - hw, 0);
                    hi[i] = std::min(pos[i] + hw + 1, s.dims()[i]);
                    q[i] = lo[i];
                    empty = empty || lo[i] >= hi[i];
                }
                while (!empty) {
                    const float v = load_f32(sdt, src, s.off_v(q));
                    sum += v * v;
                    int i = nd - 1;
                    for (; i >= 2; --i) {
                        if (++q[i] < hi[i]) break;
                        q[i] = lo[i];
                    }
                    if (i < 2) break;
                }
            }
            const float om = pool::lrn_omega(sum, desc.k, desc.alpha, summands);
            if (ws) ws[w.off_v(pos)] = om;
            const float x = load_f32(sdt, src, s.off_v(pos));
            store_f32(ddt, dst, d.off_v(pos), x * pool::lrn_factor(om, desc.beta));
        });
        return status::success;
    }
};

struct vec_lrn_fwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_buf = 1 };
    struct pd_t : pd_impl_t<pd_t, lrn_fwd_pd_t, vec_lrn_fwd_t> {
        using desc_t = lrn_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            layout_ = pool::classify(src_md_);
            if (layout_ == pool::layout_t::other || pool::classify(dst_md_) != layout_)
                return decline("vec:lrn", "layout");
            if (mdw_t(src_md_).has_zero_dim()) return decline("vec:lrn", "empty tensor");
            const int nd = src_md_.ndims;
            const dim_t c = C();
            ncsp_ = layout_ == pool::layout_t::ncsp;
            blk_ = layout_ == pool::layout_t::blocked8 ? 8
                    : layout_ == pool::layout_t::blocked16 ? 16
                    : layout_ == pool::layout_t::nspc ? c : 1;
            cp_ = rnd_up(c, blk_);
            sp_ = 1;
            for (int i = 2; i < nd; ++i) sp_ *= src_md_.dims[i];
            W_ = nd > 2 ? src_md_.dims[nd - 1] : 1;
            const dim_t h = half();
            dim_t buf;
            if (ncsp_)
                buf = across() ? sp_ : (sp_ / W_) * (W_ + 2 * h) + W_;
            else
                buf = across() ? (cp_ + 2 * h) + cp_ : blk_;
            scratchpad_registry().book_per_thread(key_buf, sizeof(float) * buf);
            name_ = ncsp_ ? "vec:ncsp" : layout_ == pool::layout_t::nspc ? "vec:nspc" : "vec:blocked";
            return status::success;
        }
        dim_t C() const { return src_md_.dims[1]; }
        pool::layout_t layout_ = pool::layout_t::other;
        bool ncsp_ = false;
        dim_t blk_ = 1, cp_ = 0, sp_ = 1, W_ = 1;
        const char *name_ = "vec";
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override;
};

status_t vec_lrn_fwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto &ops = pool::vec_ops();
    const auto &spad = ctx.scratchpad();
    const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md();
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    float *ws = pd->with_ws() ? ctx.output<float>(DNNL_ARG_WORKSPACE) : nullptr;
    const auto &desc = *pd->desc();
    const int nd = smd.ndims;
    const dim_t N = smd.dims[0], C = smd.dims[1], SP = pd->sp_, W = pd->W_, hw = pd->half();
    const dim_t B = pd->blk_, CP = pd->cp_, NB = CP / B;
    const bool ncsp = pd->ncsp_, across = pd->across();
    const float k = desc.k, alpha = desc.alpha, beta = desc.beta, summands = pd->summands();
    const data_type_t sdt = smd.data_type, ddt = dmd.data_type;
    const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
    const dim_t sn = smd.blocking.strides[0], sc = smd.blocking.strides[1];
    const dim_t dn = dmd.blocking.strides[0], dc = dmd.blocking.strides[1];
    const dim_t ssp = nd > 2 ? smd.blocking.strides[nd - 1] : 0;
    const dim_t dsp = nd > 2 ? dmd.blocking.strides[nd - 1] : 0;
    // Spatial dims as D x H x W (missing ones 1).
    const dim_t Dd = nd == 5 ? smd.dims[2] : 1, Hd = nd >= 4 ? smd.dims[nd - 2] : 1;
    auto sx = [&](dim_t off) { return src + off * ssz; };

    const dim_t work = ncsp ? N * C : across ? N * SP : N * NB * SP;
    const int nthr = std::max(1, std::min(spad.nthr(), nthr_for(work, 2)));
    parallel(nthr, [&](int ithr, int nt) {
        float *buf = spad.get<float>(key_buf, ithr);
        if (!buf) return; // out of memory: reported by the executor
        dim_t w0, w1;
        balance211(work, nt, ithr, w0, w1);
        for (dim_t it = w0; it < w1; ++it) {
            if (ncsp) {
                const dim_t n = it / C, c = it % C;
                const dim_t soff = smd.offset0 + n * sn + c * sc, doff = dmd.offset0 + n * dn + c * dc;
                float *win = buf;
                if (across) {
                    std::fill(win, win + SP, 0.f);
                    for (dim_t cc = std::max<dim_t>(c - hw, 0); cc < std::min(c + hw + 1, C); ++cc)
                        ops.acc_sq(win, sx(smd.offset0 + n * sn + cc * sc), sdt, SP);
                    ops.lrn_out(dst + doff * dsz, ddt, sx(soff), sdt, win, k, alpha, summands, beta, SP,
                            ws ? ws + (doff - dmd.offset0) : nullptr);
                    continue;
                }
                // Within: squares in rows padded by hw zeros on both sides,
                // then for each output row the clipped window of rows, each
                // added at the 2hw + 1 shifts.
                const dim_t W2 = W + 2 * hw, R = SP / W;
                float *sq = buf + W;
                std::fill(sq, sq + R * W2, 0.f);
                for (dim_t r = 0; r < R; ++r) ops.acc_sq(sq + r * W2 + hw, sx(soff + r * W), sdt, W);
                for (dim_t r = 0; r < R; ++r) {
                    const dim_t od = r / Hd, oh = r % Hd;
                    std::fill(win, win + W, 0.f);
                    for (dim_t id = std::max<dim_t>(od - hw, 0); id < std::min(od + hw + 1, Dd); ++id)
                        for (dim_t ih = std::max<dim_t>(oh - hw, 0); ih < std::min(oh + hw + 1, Hd); ++ih)
                            for (dim_t j = 0; j <= 2 * hw; ++j)
                                ops.acc_add(win, sq + (id * Hd + ih) * W2 + j, dnnl_f32, W);
                    ops.lrn_out(dst + (doff + r * W) * dsz, ddt, sx(soff + r * W), sdt, win, k, alpha, summands,
                            beta, W, ws ? ws + (doff - dmd.offset0 + r * W) : nullptr);
                }
                continue;
            }
            if (across) {
                // One point, all channels: squares padded by hw zeros, then
                // the 2hw + 1 shifted sums.
                const dim_t n = it / SP, sp = it % SP;
                const dim_t sbase = smd.offset0 + n * sn + sp * ssp, dbase = dmd.offset0 + n * dn + sp * dsp;
                float *sq = buf, *win = buf + CP + 2 * hw;
                std::fill(sq, sq + CP + 2 * hw, 0.f);
                for (dim_t cb = 0; cb < NB; ++cb)
                    ops.acc_sq(sq + hw + cb * B, sx(sbase + cb * sc), sdt, std::min(B, C - cb * B));
                std::fill(win, win + CP, 0.f);
                for (dim_t j = 0; j <= 2 * hw; ++j) ops.acc_add(win, sq + j, dnnl_f32, CP);
                for (dim_t cb = 0; cb < NB; ++cb) {
                    const dim_t doff = dbase + cb * dc;
                    ops.lrn_out(dst + doff * dsz, ddt, sx(sbase + cb * sc), sdt, win + cb * B, k, alpha, summands,
                            beta, B, ws ? ws + (doff - dmd.offset0) : nullptr);
                }
                continue;
            }
            // Within, channel runs: the window's points, each a run of B.
            const dim_t sp = it % SP, cb = it / SP % NB, n = it / (SP * NB);
            const dim_t ow = sp % W, oh = sp / W % Hd, od = sp / (W * Hd);
            const dim_t sbase = smd.offset0 + n * sn + cb * sc;
            float *win = buf;
            std::fill(win, win + B, 0.f);
            for (dim_t id = std::max<dim_t>(od - hw, 0); id < std::min(od + hw + 1, Dd); ++id)
                for (dim_t ih = std::max<dim_t>(oh - hw, 0); ih < std::min(oh + hw + 1, Hd); ++ih)
                    for (dim_t iw = std::max<dim_t>(ow - hw, 0); iw < std::min(ow + hw + 1, W); ++iw)
                        ops.acc_sq(win, sx(sbase + ((id * Hd + ih) * W + iw) * ssp), sdt, B);
            const dim_t doff = dmd.offset0 + n * dn + cb * dc + sp * dsp;
            ops.lrn_out(dst + doff * dsz, ddt, sx(sbase + sp * ssp), sdt, win, k, alpha, summands, beta, B,
                    ws ? ws + (doff - dmd.offset0) : nullptr);
        }
    });
    return status::success;
}

} // namespace

const impl_entry_t lrn_impl_list[] = {
        {"vec", make_pd<vec_lrn_fwd_t::pd_t>},
        {"ref", make_pd<ref_lrn_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
