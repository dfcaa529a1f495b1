// Resampling forward: a reference implementation for any layout, data type
// and post-op chain, and a vectorised one for f32/bf16 in ncsp (rows of the
// output: a vertical blend of source rows, then a gather along W) and in
// nspc / nCsp8c / nCsp16c (runs of channels per output point). The
// coordinate rules live in resampling_pd.hpp and are shared.
#include <algorithm>
#include <cstring>

#include "core/primitive.hpp"
#include "cpu/resampling/resampling_pd.hpp"
#include "cpu/post_ops.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Logical position of (n, c, d, h, w) for a tensor with ns spatial dims.
inline void make_pos(dim_t *pos, int ns, dim_t n, dim_t c, const dim_t *p3) {
    pos[0] = n;
    pos[1] = c;
    for (int k = 0; k < ns; ++k) pos[2 + k] = p3[3 - ns + k];
}

struct ref_resampling_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, resampling_fwd_pd_t, ref_resampling_fwd_t> {
        using desc_t = resampling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override { return init_common(); }
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t s(pd->src_md()), d(pd->dst_md());
        const void *src = ctx.input(DNNL_ARG_SRC);
        void *dst = ctx.output(DNNL_ARG_DST);
        const post_ops::applier_t ap(pd->attr()->post_ops, d.md(), ctx);
        const int ns = pd->nsp();
        const dim_t I[3] = {pd->isz(0), pd->isz(1), pd->isz(2)};
        const dim_t O[3] = {pd->osz(0), pd->osz(1), pd->osz(2)};
        const bool linear = pd->is_linear();
        const data_type_t sdt = s.data_type(), ddt = d.data_type();
        parallel_nd(s.dims()[0], s.dims()[1], O[0] * O[1] * O[2], [&](dim_t n, dim_t c, dim_t osp) {
            const dim_t o[3] = {osp / (O[1] * O[2]), osp / O[2] % O[1], osp % O[2]};
            dim_t pos[max_ndims], i[3];
            float v = 0.f;
            if (!linear) {
                for (int k = 0; k < 3; ++k) i[k] = resampling::nearest(o[k], O[k], I[k]);
                make_pos(pos, ns, n, c, i);
                v = load_f32(sdt, src, s.off_v(pos));
            } else {
                resampling::linear_t cf[3];
                int nc[3];
                for (int k = 0; k < 3; ++k) {
                    cf[k] = resampling::linear(o[k], O[k], I[k]);
                    nc[k] = k < 3 - ns ? 1 : 2; // absent dims: one point
                }
                for (int a = 0; a < nc[0]; ++a)
                    for (int b = 0; b < nc[1]; ++b)
                        for (int e = 0; e < nc[2]; ++e) {
                            i[0] = a ? cf[0].i1 : cf[0].i0;
                            i[1] = b ? cf[1].i1 : cf[1].i0;
                            i[2] = e ? cf[2].i1 : cf[2].i0;
                            make_pos(pos, ns, n, c, i);
                            float t = load_f32(sdt, src, s.off_v(pos));
                            if (nc[0] == 2) t *= a ? cf[0].w1 : cf[0].w0;
                            if (nc[1] == 2) t *= b ? cf[1].w1 : cf[1].w0;
                            t *= e ? cf[2].w1 : cf[2].w0;
                            v += t;
                        }
            }
            make_pos(pos, ns, n, c, o);
            const dim_t off = d.off_v(pos);
            if (!ap.empty()) v = ap.apply(v, load_f32(ddt, dst, off), pos);
            store_f32(ddt, dst, off, v);
        });
        return status::success;
    }
};

struct vec_resampling_fwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_row = 1 };
    struct pd_t : pd_impl_t<pd_t, resampling_fwd_pd_t, vec_resampling_fwd_t> {
        using desc_t = resampling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            if (!pool::is_fp(src_md_.data_type) || !pool::is_fp(dst_md_.data_type))
                return decline("vec:resampling", "data type");
            layout_ = pool::classify(src_md_);
            if (layout_ == pool::layout_t::other || pool::classify(dst_md_) != layout_)
                return decline("vec:resampling", "layout");
            if (mdw_t(src_md_).has_zero_dim() || mdw_t(dst_md_).has_zero_dim())
                return decline("vec:resampling", "empty tensor");
            ncsp_ = layout_ == pool::layout_t::ncsp;
            const dim_t c = src_md_.dims[1];
            blk_ = layout_ == pool::layout_t::blocked8 ? 8
                    : layout_ == pool::layout_t::blocked16 ? 16
                    : layout_ == pool::layout_t::nspc ? c : 1;
            // Coordinate tables, one entry per output point of each dim.
            for (int k = 0; k < 3; ++k) {
                const dim_t O = osz(k), I = isz(k);
                lin_[k].resize((size_t)O);
                near_[k].resize((size_t)O);
                for (dim_t o = 0; o < O; ++o) {
                    lin_[k][(size_t)o] = resampling::linear(o, O, I);
                    near_[k][(size_t)o] = resampling::nearest(o, O, I);
                }
            }
            const dim_t row = ncsp_ ? isz(2) + osz(2) : blk_;
            scratchpad_registry().book_per_thread(key_row, sizeof(float) * row);
            name_ = ncsp_ ? "vec:ncsp" : layout_ == pool::layout_t::nspc ? "vec:nspc" : "vec:blocked";
            return status::success;
        }
        pool::layout_t layout_ = pool::layout_t::other;
        bool ncsp_ = false;
        dim_t blk_ = 1;
        std::vector<resampling::linear_t> lin_[3];
        std::vector<dim_t> near_[3];
        const char *name_ = "vec";
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override;
};

status_t vec_resampling_fwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto &ops = pool::vec_ops();
    const auto &spad = ctx.scratchpad();
    const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md();
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const post_ops::applier_t ap(pd->attr()->post_ops, dmd, ctx);
    const int ns = pd->nsp();
    const dim_t N = smd.dims[0], C = smd.dims[1];
    const dim_t IW = pd->isz(2), OD = pd->osz(0), OH = pd->osz(1), OW = pd->osz(2);
    const dim_t B = pd->blk_, NB = div_up(C, B);
    const bool linear = pd->is_linear(), ncsp = pd->ncsp_;
    const data_type_t sdt = smd.data_type, ddt = dmd.data_type;
    const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
    // Element strides of n, channel (block) and d, h, w (0 when absent).
    dim_t ss[5] = {smd.blocking.strides[0], smd.blocking.strides[1], 0, 0, 0}, ds[5];
    ds[0] = dmd.blocking.strides[0];
    ds[1] = dmd.blocking.strides[1];
    ds[2] = ds[3] = ds[4] = 0;
    for (int k = 0; k < ns; ++k) {
        ss[5 - ns + k] = smd.blocking.strides[2 + k];
        ds[5 - ns + k] = dmd.blocking.strides[2 + k];
    }
    const auto &lin = pd->lin_;
    const auto &near = pd->near_;
    // Blends in d and h (one term each when the dim is absent).
    const int nd0 = ns == 3 ? 2 : 1, nh0 = ns >= 2 ? 2 : 1;

    const dim_t work = ncsp ? N * C * OD * OH : N * NB * OD * OH * OW;
    const int nthr = std::max(1, std::min(spad.nthr(), nthr_for(work, 4)));
    parallel(nthr, [&](int ithr, int nt) {
        float *row = spad.get<float>(key_row, ithr);
        if (!row) return; // out of memory: reported by the executor
        dim_t w0, w1, pos[max_ndims];
        balance211(work, nt, ithr, w0, w1);
        for (dim_t it = w0; it < w1; ++it) {
            if (ncsp) {
                const dim_t oh = it % OH, od = it / OH % OD, c = it / (OH * OD) % C, n = it / (OH * OD * C);
                const dim_t sbase = smd.offset0 + n * ss[0] + c * ss[1];
                const dim_t doff = dmd.offset0 + n * ds[0] + c * ds[1] + od * ds[2] + oh * ds[3];
                float *out = row + IW;
                if (!linear) {
                    const char *x = src + (sbase + near[0][od] * ss[2] + near[1][oh] * ss[3]) * ssz;
                    for (dim_t ow = 0; ow < OW; ++ow) out[ow] = load_f32(sdt, x, near[2][ow]);
                } else {
                    // Vertical blend of up to 4 source rows, then along W.
                    std::fill(row, row + IW, 0.f);
                    for (int a = 0; a < nd0; ++a)
                        for (int b = 0; b < nh0; ++b) {
                            const auto &cd = lin[0][od], &ch = lin[1][oh];
                            float wgt = 1.f;
                            if (nd0 == 2) wgt *= a ? cd.w1 : cd.w0;
                            if (nh0 == 2) wgt *= b ? ch.w1 : ch.w0;
                            const dim_t id = a ? cd.i1 : cd.i0, ih = b ? ch.i1 : ch.i0;
                            ops.axpy(row, src + (sbase + id * ss[2] + ih * ss[3]) * ssz, sdt, wgt, IW);
                        }
                    for (dim_t ow = 0; ow < OW; ++ow) {
                        const auto &cw = lin[2][ow];
                        out[ow] = row[cw.i0] * cw.w0 + row[cw.i1] * cw.w1;
                    }
                }
                if (!ap.empty()) {
                    const dim_t p3[3] = {od, oh, 0};
                    make_pos(pos, ns, n, c, p3);
                    for (dim_t ow = 0; ow < OW; ++ow) {
                        pos[1 + ns] = ow;
                        out[ow] = ap.apply(out[ow], load_f32(ddt, dst, doff + ow), pos);
                    }
                }
                ops.store_scaled(dst + doff * dsz, ddt, out, 1.f, OW);
                continue;
            }
            const dim_t ow = it % OW, oh = it / OW % OH, od = it / (OW * OH) % OD;
            const dim_t cb = it / (OW * OH * OD) % NB, n = it / (OW * OH * OD * NB);
            const dim_t sbase = smd.offset0 + n * ss[0] + cb * ss[1];
            const dim_t doff = dmd.offset0 + n * ds[0] + cb * ds[1] + od * ds[2] + oh * ds[3] + ow * ds[4];
            char *y = dst + doff * dsz;
            if (!linear) {
                const char *x = src + (sbase + near[0][od] * ss[2] + near[1][oh] * ss[3] + near[2][ow] * ss[4]) * ssz;
                if (ap.empty() && sdt == ddt) {
                    std::memcpy(y, x, (size_t)B * ssz);
                    continue;
                }
                std::fill(row, row + B, 0.f);
                ops.acc_add(row, x, sdt, B);
            } else {
                std::fill(row, row + B, 0.f);
                const auto &cd = lin[0][od], &ch = lin[1][oh], &cw = lin[2][ow];
                for (int a = 0; a < nd0; ++a)
                    for (int b = 0; b < nh0; ++b)
                        for (int e = 0; e < 2; ++e) {
                            float wgt = 1.f;
                            if (nd0 == 2) wgt *= a ? cd.w1 : cd.w0;
                            if (nh0 == 2) wgt *= b ? ch.w1 : ch.w0;
                            wgt *= e ? cw.w1 : cw.w0;
                            const dim_t id = a ? cd.i1 : cd.i0, ih = b ? ch.i1 : ch.i0, iw = e ? cw.i1 : cw.i0;
                            ops.axpy(row, src + (sbase + id * ss[2] + ih * ss[3] + iw * ss[4]) * ssz, sdt, wgt, B);
                        }
            }
            if (!ap.empty()) {
                const dim_t p3[3] = {od, oh, ow};
                make_pos(pos, ns, n, cb * B, p3);
                for (dim_t i = 0; i < std::min(B, C - cb * B); ++i) {
                    pos[1] = cb * B + i;
                    row[i] = ap.apply(row[i], load_f32(ddt, y, i), pos);
                }
            }
            ops.store_scaled(y, ddt, row, 1.f, B);
        }
    });
    return status::success;
}

} // namespace

const impl_entry_t resampling_impl_list[] = {
        {"vec", make_pd<vec_resampling_fwd_t::pd_t>},
        {"ref", make_pd<ref_resampling_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
