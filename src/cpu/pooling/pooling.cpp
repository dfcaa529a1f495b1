// Pooling forward: a reference implementation for any layout and a fast one
// for channel-innermost layouts (nhwc, nChw8c, nChw16c), vectorised over
// channels through vec_ops_t. Plain channel-first layouts have their own
// (pooling_ncsp.cpp), vectorised along output rows.
#include <algorithm>

#include "core/primitive.hpp"
#include "cpu/pooling/pooling_pd.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Logical index of (n, c, d, h, w) for a tensor with `nd` dims.
inline void make_pos(dim_t *pos, int nd, dim_t n, dim_t c, dim_t d, dim_t h, dim_t w) {
    pos[0] = n;
    pos[1] = c;
    if (nd == 5) pos[2] = d;
    if (nd >= 4) pos[nd - 2] = h;
    pos[nd - 1] = w;
}

inline void store_idx(void *ws, data_type_t dt, dim_t off, int32_t k) {
    if (dt == dnnl_u8)
        static_cast<uint8_t *>(ws)[off] = (uint8_t)k;
    else
        static_cast<int32_t *>(ws)[off] = k;
}

struct ref_pooling_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, pooling_fwd_pd_t, ref_pooling_fwd_t> {
        using desc_t = pooling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint)
            : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override { return init_common(); }
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const pooling_conf_t &c = pd->conf();
        const void *src = ctx.input(DNNL_ARG_SRC);
        void *dst = ctx.output(DNNL_ARG_DST);
        void *ws = c.with_ws ? ctx.output(DNNL_ARG_WORKSPACE) : nullptr;
        const mdw_t s(pd->src_md()), d(pd->dst_md()), w(pd->workspace_md());
        const data_type_t sdt = s.data_type(), ddt = d.data_type(), wdt = w.data_type();
        const int nd = c.ndims;
        parallel_nd(c.MB, c.C, c.OD * c.OH * c.OW, [&](dim_t n, dim_t ch, dim_t osp) {
            const dim_t od = osp / (c.OH * c.OW), oh = osp / c.OW % c.OH, ow = osp % c.OW;
            dim_t pos[max_ndims];
            float acc = c.is_max ? c.max_init : 0.f;
            int32_t idx = 0;
            dim_t count = 0;
            for (dim_t kd = 0; kd < c.KD; ++kd)
            for (dim_t kh = 0; kh < c.KH; ++kh)
            for (dim_t kw = 0; kw < c.KW; ++kw) {
                const dim_t id = od * c.SD - c.padF + kd * (c.DD + 1);
                const dim_t ih = oh * c.SH - c.padT + kh * (c.DH + 1);
                const dim_t iw = ow * c.SW - c.padL + kw * (c.DW + 1);
                if (id < 0 || id >= c.ID || ih < 0 || ih >= c.IH || iw < 0 || iw >= c.IW) continue;
                make_pos(pos, nd, n, ch, id, ih, iw);
                const float v = load_f32(sdt, src, s.off_v(pos));
                if (c.is_max) {
                    if (v > acc) {
                        acc = v;
                        idx = (int32_t)((kd * c.KH + kh) * c.KW + kw);
                    }
                } else {
                    acc += v;
                    ++count;
                }
            }
            if (!c.is_max) {
                const dim_t div = c.exclude_padding ? count : c.KD * c.KH * c.KW;
                acc = div ? acc / (float)div : 0.f;
            }
            make_pos(pos, nd, n, ch, od, oh, ow);
            store_f32(ddt, dst, d.off_v(pos), acc);
            if (ws) store_idx(ws, wdt, w.off_v(pos), idx);
        });
        return status::success;
    }
};

// Channel-innermost layouts: every (n, channel block, output point) is one
// run of L channels contiguous in memory in src, dst and workspace alike.
struct vec_pooling_fwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_acc = 1, key_idx = 2 };
    struct pd_t : pd_impl_t<pd_t, pooling_fwd_pd_t, vec_pooling_fwd_t> {
        using desc_t = pooling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint)
            : pd_impl_t(d, a, hint) {}
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            const pool::layout_t l = pool::classify(src_md_);
            if (!one_of(l, pool::layout_t::nspc, pool::layout_t::blocked8, pool::layout_t::blocked16))
                return decline("vec:pooling", "src layout is not nhwc or nChw8c/16c");
            if (pool::classify(dst_md_) != l) return decline("vec:pooling", "dst layout differs from src");
            run_ = l == pool::layout_t::nspc ? conf_.C : (l == pool::layout_t::blocked8 ? 8 : 16);
            nblk_ = div_up(conf_.C, run_);
            name_ = l == pool::layout_t::nspc ? "vec:nspc" : "vec:blocked";
            scratchpad_registry().book_per_thread(key_acc, sizeof(float) * run_);
            if (conf_.is_max) scratchpad_registry().book_per_thread(key_idx, sizeof(int32_t) * run_);
            return status::success;
        }
        dim_t run_ = 0, nblk_ = 0;
        const char *name_ = "vec";
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const pooling_conf_t &c = pd->conf();
        const auto &ops = pool::vec_ops();
        const char *src = ctx.input<char>(DNNL_ARG_SRC);
        char *dst = ctx.output<char>(DNNL_ARG_DST);
        char *ws = c.with_ws ? ctx.output<char>(DNNL_ARG_WORKSPACE) : nullptr;
        const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md();
        const data_type_t sdt = smd.data_type, ddt = dmd.data_type;
        const data_type_t wdt = pd->workspace_md()->data_type;
        const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
        const size_t wsz = ws ? data_type_size(wdt) : 0;
        // Element strides of n, channel block and the 3 spatial dims.
        auto strides = [&](const memory_desc_t &md, dim_t *st) {
            const dim_t *b = md.blocking.strides;
            const int nd = md.ndims;
            st[0] = b[0];
            st[1] = b[1];
            st[2] = nd == 5 ? b[2] : 0;
            st[3] = nd >= 4 ? b[nd - 2] : 0;
            st[4] = b[nd - 1];
        };
        dim_t ss[5], ds[5];
        strides(smd, ss);
        strides(dmd, ds);
        const dim_t L = pd->run_, NB = pd->nblk_;
        const dim_t work = c.MB * NB * c.OD * c.OH * c.OW;
        // No more chunks than per-thread regions were booked for at creation
        // (the caller's arena may be wider now).
        const int nthr_run = std::min(nthr_for(work, 4), ctx.scratchpad().nthr());
        parallel(nthr_run, [&](int ithr, int nthr) {
            float *acc = ctx.scratchpad().get<float>(key_acc, ithr);
            int32_t *idx = ctx.scratchpad().get<int32_t>(key_idx, ithr);
            if (!acc || (c.is_max && !idx)) return; // out of memory: reported by the executor
            dim_t start, end;
            balance211(work, nthr, ithr, start, end);
            for (dim_t it = start; it < end; ++it) {
                dim_t r = it;
                const dim_t ow = r % c.OW; r /= c.OW;
                const dim_t oh = r % c.OH; r /= c.OH;
                const dim_t od = r % c.OD; r /= c.OD;
                const dim_t cb = r % NB, n = r / NB;
                const dim_t sbase = smd.offset0 + n * ss[0] + cb * ss[1];
                if (c.is_max) {
                    for (dim_t i = 0; i < L; ++i) {
                        acc[i] = c.max_init;
                        idx[i] = 0;
                    }
                } else {
                    for (dim_t i = 0; i < L; ++i) acc[i] = 0.f;
                }
                dim_t count = 0;
                for (dim_t kd = 0; kd < c.KD; ++kd) {
                    const dim_t id = od * c.SD - c.padF + kd * (c.DD + 1);
                    if (id < 0 || id >= c.ID) continue;
                    for (dim_t kh = 0; kh < c.KH; ++kh) {
                        const dim_t ih = oh * c.SH - c.padT + kh * (c.DH + 1);
                        if (ih < 0 || ih >= c.IH) continue;
                        for (dim_t kw = 0; kw < c.KW; ++kw) {
                            const dim_t iw = ow * c.SW - c.padL + kw * (c.DW + 1);
                            if (iw < 0 || iw >= c.IW) continue;
                            const char *x = src + (sbase + id * ss[2] + ih * ss[3] + iw * ss[4]) * ssz;
                            if (c.is_max)
                                ops.acc_max_idx(acc, idx, x, sdt, L, (int32_t)((kd * c.KH + kh) * c.KW + kw));
                            else
                                ops.acc_add(acc, x, sdt, L);
                            ++count;
                        }
                    }
                }
                const dim_t doff = dmd.offset0 + n * ds[0] + cb * ds[1] + od * ds[2] + oh * ds[3] + ow * ds[4];
                float scale = 1.f;
                if (!c.is_max) {
                    const dim_t div = c.exclude_padding ? count : c.KD * c.KH * c.KW;
                    scale = div ? 1.f / (float)div : 0.f;
                }
                ops.store_scaled(dst + doff * dsz, ddt, acc, scale, L);
                if (ws) {
                    // The workspace has the dst layout, so the same offset.
                    const dim_t woff = doff - dmd.offset0 + pd->workspace_md()->offset0;
                    for (dim_t i = 0; i < L; ++i) store_idx(ws, wdt, woff + i, idx[i]);
                }
                (void)wsz;
            }
        });
        return status::success;
    }
};

} // namespace

const impl_entry_t pooling_impl_list[] = {
        {"vec", make_pd<vec_pooling_fwd_t::pd_t>},
        {"vec_ncsp", create_ncsp_pooling_pd},
        {"ref", make_pd<ref_pooling_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
