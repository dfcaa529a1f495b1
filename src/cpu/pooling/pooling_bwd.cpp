// Pooling backward (f32/bf16 storage, f32 accumulation).
//
// Work is split over (n, channel run): a channel run is the L channels that
// lie next to each other in diff_src, diff_dst and the workspace alike (all
// channels for nhwc, the block for nChw8c/16c, one channel otherwise). A
// thread owns every diff_src element of its runs, so the scatter of the
// windows into diff_src needs no atomics: it accumulates one run's input
// image in its own f32 scratchpad slab, then stores it once.
#include <algorithm>
#include <cstdint>

#include "core/primitive.hpp"
#include "cpu/pooling/pooling_pd.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Element offset of (n, c, d, h, w): by strides for plain layouts and for a
// single channel block, through the descriptor otherwise.
struct off5_t {
    const memory_desc_t *md;
    bool simple;
    dim_t cblk, st[5];
    explicit off5_t(const memory_desc_t &m) : md(&m) {
        const auto &b = m.blocking;
        simple = b.inner_nblks == 0 || (b.inner_nblks == 1 && b.inner_idxs[0] == 1);
        cblk = b.inner_nblks == 1 ? b.inner_blks[0] : 1;
        pool_walk_strides(m, st);
    }
    dim_t operator()(dim_t n, dim_t c, dim_t d, dim_t h, dim_t w) const {
        if (simple)
            return md->offset0 + n * st[0] + c / cblk * st[1] + c % cblk + d * st[2] + h * st[3] + w * st[4];
        dim_t pos[max_ndims];
        const int nd = md->ndims;
        pos[0] = n;
        pos[1] = c;
        if (nd == 5) pos[2] = d;
        if (nd >= 4) pos[nd - 2] = h;
        pos[nd - 1] = w;
        return mdw_t(*md).off_v(pos);
    }
    // Channels contiguous in memory from a multiple of the run, or 1.
    dim_t run(dim_t C) const {
        if (!simple) return 1;
        if (cblk > 1) return cblk;
        return md->blocking.strides[1] == 1 ? C : 1;
    }
};

struct ref_pooling_bwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_acc = 1 };
    struct pd_t : pd_impl_t<pd_t, pooling_bwd_pd_t, ref_pooling_bwd_t> {
        using desc_t = pooling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return run_ > 1 ? "vec:bwd" : "ref:bwd"; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            const auto &c = conf_;
            const dim_t ls = off5_t(diff_src_md_).run(c.C), ld = off5_t(diff_dst_md_).run(c.C);
            const dim_t lw = c.is_max ? off5_t(ws_md_).run(c.C) : ld;
            run_ = ls == ld && ld == lw && ls > 1 ? ls : 1;
            nblk_ = c.C > 0 ? div_up(c.C, run_) : 0;
            const dim_t isp = c.ID * c.IH * c.IW;
            scratchpad_registry().book_per_thread(key_acc, sizeof(float) * (size_t)(isp * run_));
            return status::success;
        }
        dim_t run_ = 1, nblk_ = 0;
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const pooling_conf_t &c = pd->conf();
        const char *ddst = ctx.input<char>(DNNL_ARG_DIFF_DST);
        char *dsrc = ctx.output<char>(DNNL_ARG_DIFF_SRC);
        const void *ws = c.is_max ? ctx.input(DNNL_ARG_WORKSPACE) : nullptr;
        const off5_t so(*pd->diff_src_md()), doo(*pd->diff_dst_md()), wo(*pd->workspace_md());
        const data_type_t sdt = pd->diff_src_md()->data_type, ddt = pd->diff_dst_md()->data_type;
        const bool ws_u8 = c.is_max && pd->workspace_md()->data_type == dnnl_u8;
        const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
        const dim_t L = pd->run_, NB = pd->nblk_, isp = c.ID * c.IH * c.IW;
        const dim_t work = c.MB * NB;
        if (work == 0 || isp == 0) return status::success;
        const auto &ops = pool::vec_ops();
        // No more chunks than per-thread slabs were booked for.
        const int nthr_run = std::min(nthr_for(work), ctx.scratchpad().nthr());
        parallel(nthr_run, [&](int ithr, int nthr) {
            float *acc = ctx.scratchpad().get<float>(key_acc, ithr);
            if (!acc) return; // out of memory: reported by the executor
            dim_t start, end;
            balance211(work, nthr, ithr, start, end);
            for (dim_t it = start; it < end; ++it) {
                const dim_t n = it / NB, c0 = it % NB * L, nc = std::min(L, c.C - c0);
                std::fill(acc, acc + isp * L, 0.f);
                for (dim_t od = 0; od < c.OD; ++od)
                for (dim_t oh = 0; oh < c.OH; ++oh)
                for (dim_t ow = 0; ow < c.OW; ++ow) {
                    const dim_t id0 = od * c.SD - c.padF, ih0 = oh * c.SH - c.padT, iw0 = ow * c.SW - c.padL;
                    const dim_t doff = doo(n, c0, od, oh, ow);
                    if (c.is_max) {
                        const dim_t woff = wo(n, c0, od, oh, ow);
                        for (dim_t i = 0; i < nc; ++i) {
                            const dim_t k = ws_u8 ? ((const uint8_t *)ws)[woff + i] : ((const int32_t *)ws)[woff + i];
                            const dim_t id = id0 + k / (c.KH * c.KW) * (c.DD + 1);
                            const dim_t ih = ih0 + k / c.KW % c.KH * (c.DH + 1);
                            const dim_t iw = iw0 + k % c.KW * (c.DW + 1);
                            // A window wholly in the padding stored index 0,
                            // which may point outside: it feeds nothing.
                            if (k < 0 || id < 0 || id >= c.ID || ih < 0 || ih >= c.IH || iw < 0 || iw >= c.IW)
                                continue;
                            acc[((id * c.IH + ih) * c.IW + iw) * L + i] += load_f32(ddt, ddst, doff + i);
                        }
                        continue;
                    }
                    dim_t kd0, kd1, kh0, kh1, kw0, kw1;
                    tap_range(id0, c.KD, c.DD + 1, c.ID, kd0, kd1);
                    tap_range(ih0, c.KH, c.DH + 1, c.IH, kh0, kh1);
                    tap_range(iw0, c.KW, c.DW + 1, c.IW, kw0, kw1);
                    const dim_t div = c.exclude_padding ? (kd1 - kd0) * (kh1 - kh0) * (kw1 - kw0) : c.KD * c.KH * c.KW;
                    if (div == 0) continue;
                    const float w = 1.f / (float)div;
                    for (dim_t kd = kd0; kd < kd1; ++kd)
                    for (dim_t kh = kh0; kh < kh1; ++kh)
                    for (dim_t kw = kw0; kw < kw1; ++kw) {
                        const dim_t id = id0 + kd * (c.DD + 1), ih = ih0 + kh * (c.DH + 1), iw = iw0 + kw * (c.DW + 1);
                        ops.axpy(acc + ((id * c.IH + ih) * c.IW + iw) * L, ddst + doff * dsz, ddt, w, nc);
                    }
                }
                for (dim_t id = 0; id < c.ID; ++id)
                for (dim_t ih = 0; ih < c.IH; ++ih)
                for (dim_t iw = 0; iw < c.IW; ++iw)
                    ops.store_scaled(dsrc + so(n, c0, id, ih, iw) * ssz, sdt,
                            acc + ((id * c.IH + ih) * c.IW + iw) * L, 1.f, nc);
            }
        });
        return status::success;
    }
};

} // namespace

const impl_entry_t pooling_bwd_impl_list[] = {
        {"bwd", make_pd<ref_pooling_bwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
