// Convolution backward data through the forward direct driver: see
// direct_conv_bwd.hpp.
#include "cpu/conv/direct_conv_bwd.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>

#include "core/memory.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// The swapped weights; the forward driver's regions follow from key_fwd on.
constexpr scratchpad::key_t key_wei = 0;
constexpr scratchpad::key_t key_fwd = 1;
// Backward weights: per-thread partial diff_weights and diff_bias.
constexpr scratchpad::key_t key_part = 0;
constexpr scratchpad::key_t key_bpart = 1;

format_tag_t blocked_data_tag(int ndims, int blk) {
    if (blk == 16) return ndims == 3 ? dnnl_nCw16c : ndims == 4 ? dnnl_nChw16c : dnnl_nCdhw16c;
    return ndims == 3 ? dnnl_nCw8c : ndims == 4 ? dnnl_nChw8c : dnnl_nCdhw8c;
}

format_tag_t blocked_wei_tag(int ndims, bool groups, int blk) {
    if (blk == 16) {
        if (groups) return ndims == 3 ? dnnl_gOIw16i16o : ndims == 4 ? dnnl_gOIhw16i16o : dnnl_gOIdhw16i16o;
        return ndims == 3 ? dnnl_OIw16i16o : ndims == 4 ? dnnl_OIhw16i16o : dnnl_OIdhw16i16o;
    }
    if (groups) return ndims == 3 ? dnnl_gOIw8i8o : ndims == 4 ? dnnl_gOIhw8i8o : dnnl_gOIdhw8i8o;
    return ndims == 3 ? dnnl_OIw8i8o : ndims == 4 ? dnnl_OIhw8i8o : dnnl_OIdhw8i8o;
}

// Data layouts nCx<blk>c when the user fixed one data tensor so, or left
// both to us and the forward hint runs blocked; weights (or diff_weights)
// `any` take the forward direct layout, so the forward's weights serve as
// they are.
status_t set_blocked_layouts(const char *me, memory_desc_t &src, memory_desc_t &dst, memory_desc_t &wei,
        bool hint_blocked, int nd, bool groups, int blk) {
    const format_tag_t dtag = blocked_data_tag(nd, blk);
    bool blocked = hint_blocked;
    for (const memory_desc_t *m : {&src, &dst})
        if (!mdw_t(*m).is_any()) blocked = mdw_t(*m).matches_tag(dtag);
    if (!blocked) return decline(me, "data layouts");
    for (memory_desc_t *m : {&src, &dst})
        if (mdw_t(*m).is_any()) KESTREL_CHECK(md_set_tag(*m, dtag));
    if (!mdw_t(src).matches_tag(dtag) || !mdw_t(dst).matches_tag(dtag)) return decline(me, "data layouts");
    if (mdw_t(wei).is_any()) KESTREL_CHECK(md_set_tag(wei, blocked_wei_tag(nd, groups, blk)));
    return status::success;
}

} // namespace

void wei_axis_offsets_t::init(const memory_desc_t &md, bool with_groups) {
    const mdw_t m(md);
    const int nd = m.ndims(), lead = with_groups ? 3 : 2, ns = nd - lead;
    dim_t pos[max_ndims] = {};
    base = m.off_v(pos);
    for (auto &t : tab) t.assign(1, 0);
    for (int a = 0; a < nd; ++a) {
        const int slot = a < lead ? a + (with_groups ? 0 : 1) : 6 - ns + (a - lead);
        std::vector<dim_t> &t = tab[slot];
        t.resize((size_t)m.padded_dims()[a]);
        for (size_t i = 0; i < t.size(); ++i) {
            pos[a] = (dim_t)i;
            t[i] = m.off_v(pos) - base;
        }
        pos[a] = 0;
    }
}

direct_conv_bwd_data_t::pd_t::pd_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint, int blk)
    : pd_impl_t(d, a, hint), blk(blk) {
    const memory_desc_t *hs = hint ? hint->src_md() : nullptr;
    hint_blocked = hs && hs->ndims == d->src.ndims && mdw_t(*hs).matches_tag(blocked_data_tag(hs->ndims, blk));
}

status_t direct_conv_bwd_data_t::pd_t::init(dnnl_engine *engine) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (!is_bwd_d()) return decline(me, "not backward data");
    if (!isa::has(blk == 16 ? isa::avx512 : isa::avx2)) return decline(me, "instruction set");
    if (g.is_deconv) return decline(me, "deconvolution");
    const int nd = g.ndims;

    KESTREL_CHECK(set_blocked_layouts(me, src_md_, dst_md_, wei_md_, hint_blocked, nd, g.with_groups, blk));
    KESTREL_CHECK(init_common(me));
    for (const memory_desc_t *m : {&src_md_, &wei_md_, &dst_md_})
        if (m->data_type != dnnl_f32) return decline(me, "data types");
    if (g.SD != 1 || g.SH != 1 || g.SW != 1) return decline(me, "strides");
    if (mdw_t(src_md_).has_zero_dim() || mdw_t(dst_md_).has_zero_dim()) return decline(me, "zero dims");

    // The swapped forward problem: src diff_dst, dst diff_src, weights
    // {[G,] ICg, OCg, K...}, unit strides, same dilation, mirrored padding.
    const int ns = nd - 2;
    const dim_t K[3] = {g.KD, g.KH, g.KW}, D[3] = {g.DD, g.DH, g.DW};
    const dim_t P[3] = {g.PD, g.PH, g.PW}, Pr[3] = {g.PDr, g.PHr, g.PWr};
    dims_t strides = {}, dilates = {}, pad_l = {}, pad_r = {}, wdims = {};
    for (int i = 0; i < ns; ++i) {
        const int a = 3 - ns + i;
        const dim_t ext = (K[a] - 1) * (D[a] + 1);
        strides[i] = 1;
        dilates[i] = D[a];
        pad_l[i] = ext - P[a];
        pad_r[i] = ext - Pr[a];
        if (pad_l[i] < 0 || pad_r[i] < 0) return decline(me, "padding wider than the kernel");
    }
    int wk = 0;
    if (g.with_groups) wdims[wk++] = g.G;
    wdims[wk++] = g.ICg;
    wdims[wk++] = g.OCg;
    for (int i = 0; i < ns; ++i) wdims[wk++] = K[3 - ns + i];
    memory_desc_t fwei;
    KESTREL_CHECK(md_init_by_tag(fwei, wk, wdims, dnnl_f32, blocked_wei_tag(nd, g.with_groups, blk)));
    conv_desc_t fd(dnnl_convolution);
    KESTREL_CHECK(conv_desc_init(fd, dnnl_forward_inference, dnnl_convolution_direct, &dst_md_, &fwei, nullptr,
            &src_md_, strides, dilates, pad_l, pad_r));
    std::shared_ptr<direct_conv_fwd_t::pd_t> f = std::make_shared<direct_conv_fwd_t::pd_t>(&fd, nullptr, nullptr, blk);
    f->key_base = key_fwd;
    if (f->init(engine) != status::success) return decline(me, "the forward driver declines the swapped problem");

    user_wei.init(wei_md_, g.with_groups);
    fwd_wei.init(*f->weights_md(), g.with_groups);
    auto &r = scratchpad_registry();
    r.book(key_wei, mdw_t(*f->weights_md()).size());
    r.book_nested(0, f->scratchpad_registry()); // its keys already start at key_fwd
    fwd = std::move(f);
    return status::success;
}

status_t direct_conv_bwd_data_t::init() {
    KESTREL_CHECK(primitive_t::init());
    fwd_.reset(new (std::nothrow) direct_conv_fwd_t(pd()->fwd.get()));
    if (!fwd_) return status::out_of_memory;
    return fwd_->init();
}

status_t direct_conv_bwd_data_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const auto &sg = ctx.scratchpad();
    float *fw = sg.get<float>(key_wei);
    if (!fw) return status::out_of_memory;
    const float *w = ctx.input<float>(DNNL_ARG_WEIGHTS);

    // W'(g, ic, oc, k) = W(g, oc, ic, K - 1 - k), padded channels zero,
    // written in the driver's layout order (ic lanes innermost).
    const int blk = p->blk;
    const wei_axis_offsets_t &u = p->user_wei, &f = p->fwd_wei;
    const dim_t nicb = div_up(g.ICg, blk), nocb = div_up(g.OCg, blk);
    parallel_nd(g.G, nicb, nocb, [&](dim_t gr, dim_t icb, dim_t ocb) {
        for (dim_t kd = 0; kd < g.KD; ++kd)
            for (dim_t kh = 0; kh < g.KH; ++kh)
                for (dim_t kw = 0; kw < g.KW; ++kw) {
                    const dim_t fb = f.base + f.tab[0][gr] + f.tab[3][kd] + f.tab[4][kh] + f.tab[5][kw];
                    const dim_t ub = u.base + u.tab[0][gr] + u.tab[3][g.KD - 1 - kd] + u.tab[4][g.KH - 1 - kh]
                            + u.tab[5][g.KW - 1 - kw];
                    for (int i = 0; i < blk; ++i) {
                        const dim_t oc = ocb * blk + i;
                        float *drow = fw + fb + f.tab[2][oc];
                        const float *srow = w + ub + (oc < g.OCg ? u.tab[1][oc] : 0);
                        for (int o = 0; o < blk; ++o) {
                            const dim_t ic = icb * blk + o;
                            drow[f.tab[1][ic]] = oc < g.OCg && ic < g.ICg ? srow[u.tab[2][ic]] : 0.f;
                        }
                    }
                }
    });

    // The driver reads only the data pointers of its arguments.
    dnnl_memory wmem;
    wmem.md = *p->fwd->weights_md();
    wmem.data = fw;
    const dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ctx.memory(DNNL_ARG_DIFF_DST)}, {DNNL_ARG_WEIGHTS, &wmem},
            {DNNL_ARG_DST, ctx.memory(DNNL_ARG_DIFF_SRC)}};
    const exec_ctx_t fctx(ctx.stream(), 3, args, sg);
    return fwd_->execute(fctx);
}

// ---------------------------------------------------------- backward weights

direct_conv_bwd_weights_t::pd_t::pd_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint)
    : pd_impl_t(d, a, hint) {
    const memory_desc_t *hs = hint ? hint->src_md() : nullptr;
    hint_blocked = hs && hs->ndims == d->src.ndims && mdw_t(*hs).matches_tag(blocked_data_tag(hs->ndims, 16));
}

status_t direct_conv_bwd_weights_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (is_bwd_d()) return decline(me, "not backward weights");
    if (!isa::has(isa::avx512)) return decline(me, "instruction set");
    if (g.is_deconv) return decline(me, "deconvolution");
    KESTREL_CHECK(set_blocked_layouts(me, src_md_, dst_md_, wei_md_, hint_blocked, g.ndims, g.with_groups, 16));
    KESTREL_CHECK(init_common(me));
    for (const memory_desc_t *m : {&src_md_, &wei_md_, &dst_md_})
        if (m->data_type != dnnl_f32) return decline(me, "data types");
    if (g.with_bias && bias_md_.data_type != dnnl_f32) return decline(me, "data types");
    if (g.G > 1 && (g.ICg % 16 || g.OCg % 16)) return decline(me, "group channels not a multiple of the block");
    if (mdw_t(src_md_).has_zero_dim() || mdw_t(dst_md_).has_zero_dim()) return decline(me, "zero dims");
    part_elems = g.G * div_up(g.OCg, 16) * div_up(g.ICg, 16) * g.KD * g.KH * g.KW * 256;
    user_wei.init(wei_md_, g.with_groups);
    auto &r = scratchpad_registry();
    r.book_per_thread(key_part, (size_t)part_elems * sizeof(float));
    if (g.with_bias) r.book_per_thread(key_bpart, (size_t)(g.G * div_up(g.OCg, 16) * 16) * sizeof(float));
    return status::success;
}

status_t direct_conv_bwd_weights_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const float *src = ctx.input<float>(DNNL_ARG_SRC), *dd = ctx.input<float>(DNNL_ARG_DIFF_DST);
    float *dw = ctx.output<float>(DNNL_ARG_DIFF_WEIGHTS);
    const auto &sg = ctx.scratchpad();
    const mdw_t src_d(p->src_md()), dd_d(p->diff_dst_md());
    const int nd = g.ndims;
    const auto &ss = src_d.blk().strides, &ds = dd_d.blk().strides;
    const dim_t s_cb = ss[1], s_d = nd == 5 ? ss[2] : 0, s_h = nd >= 4 ? ss[nd - 2] : 0, s_w = ss[nd - 1];
    const dim_t d_cb = ds[1], d_w = ds[nd - 1];
    const dim_t OCb = div_up(g.OCg, 16), ICb = div_up(g.ICg, 16), KS = g.KD * g.KH * g.KW;
    const dim_t nbias = g.G * OCb * 16;
    const dim_t rows = g.MB * g.OD * g.OH;
    const int nthr = (int)std::max<dim_t>(1, std::min<dim_t>({(dim_t)max_threads(), (dim_t)sg.nthr(), rows}));

    // Each thread: its rows into its partials.
    std::atomic<bool> oom {false};
    parallel(nthr, [&](int ithr, int nt) {
        float *part = sg.get<float>(key_part, ithr);
        float *bpart = g.with_bias ? sg.get<float>(key_bpart, ithr) : nullptr;
        if (!part || (g.with_bias && !bpart)) {
            oom = true;
            return;
        }
        std::fill(part, part + p->part_elems, 0.f);
        if (bpart) std::fill(bpart, bpart + nbias, 0.f);
        dim_t s, e;
        balance211(rows, nt, ithr, s, e);
        dim_t pos[max_ndims];
        for (dim_t r = s; r < e; ++r) {
            const dim_t oh = r % g.OH, od = r / g.OH % g.OD, n = r / (g.OH * g.OD);
            g.data_pos(pos, n, 0, 0, 0, 0);
            const float *src_n = src + src_d.off_v(pos);
            g.data_pos(pos, n, 0, od, oh, 0);
            const float *dd_row = dd + dd_d.off_v(pos);
            // Oc blocks over all groups, two of one group at a time when
            // there are two left (one src broadcast feeds both).
            for (dim_t cb = 0; cb < g.G * OCb;) {
                const dim_t gr = cb / OCb;
                const bool pair = cb + 1 < (gr + 1) * OCb;
                const float *dd_b = dd_row + cb * d_cb;
                if (bpart)
                    for (dim_t c = cb; c < cb + (pair ? 2 : 1); ++c) {
                        float *bp = bpart + c * 16;
                        const float *db = dd_row + c * d_cb;
                        for (dim_t ow = 0; ow < g.OW; ++ow)
                            for (int l = 0; l < 16; ++l) bp[l] += db[ow * d_w + l];
                    }
                for (dim_t icb = 0; icb < ICb; ++icb) {
                    const float *src_b = src_n + (gr * ICb + icb) * s_cb;
                    float *pb = part + (cb * ICb + icb) * KS * 256;
                    float *pb1 = pb + ICb * KS * 256; // block cb + 1, same icb
                    for (dim_t kd = 0; kd < g.KD; ++kd) {
                        const dim_t id = od * g.SD - g.PD + kd * (g.DD + 1);
                        if (id < 0 || id >= g.ID) continue;
                        for (dim_t kh = 0; kh < g.KH; ++kh) {
                            const dim_t ih = oh * g.SH - g.PH + kh * (g.DH + 1);
                            if (ih < 0 || ih >= g.IH) continue;
                            for (dim_t kw = 0; kw < g.KW; ++kw) {
                                // Points ow with iw = ow * SW + off inside src.
                                const dim_t off = kw * (g.DW + 1) - g.PW;
                                const dim_t lo = off >= 0 ? 0 : div_up(-off, g.SW);
                                const dim_t hi = g.IW - 1 - off < 0 ? 0 : std::min(g.OW, (g.IW - 1 - off) / g.SW + 1);
                                if (hi <= lo) continue;
                                const dim_t k = ((kd * g.KH + kh) * g.KW + kw) * 256;
                                const float *sp = src_b + id * s_d + ih * s_h + (lo * g.SW + off) * s_w;
                                if (!pair) {
                                    direct_bwd_w_16c_row(pb + k, sp, g.SW * s_w, dd_b + lo * d_w, d_w, hi - lo);
                                    continue;
                                }
                                for (int half = 0; half < 16; half += 8)
                                    direct_bwd_w_16c_row_x2(pb + k + half * 16, pb1 + k + half * 16, sp + half,
                                            g.SW * s_w, dd_b + lo * d_w, dd_b + d_cb + lo * d_w, d_w, hi - lo);
                            }
                        }
                    }
                }
                cb += pair ? 2 : 1;
            }
        }
    });
    if (oom) return status::out_of_memory;

    // Partials summed into slot 0, in slot order, then stored.
    float *p0 = sg.get<float>(key_part, 0);
    const dim_t chunk = 4096;
    parallel_nd(div_up(p->part_elems, chunk), [&](dim_t c) {
        const dim_t b = c * chunk, e = std::min(p->part_elems, b + chunk);
        for (int t = 1; t < nthr; ++t) {
            const float *pt = sg.get<float>(key_part, t);
            for (dim_t i = b; i < e; ++i) p0[i] += pt[i];
        }
    });
    const mdw_t dw_d(p->diff_weights_md(0));
    if (dw_d.has_padding()) std::memset(dw + p->diff_weights_md(0)->offset0, 0, dw_d.size());
    const wei_axis_offsets_t &u = p->user_wei;
    parallel_nd(g.G, g.OCg, [&](dim_t gr, dim_t oc) {
        for (dim_t ic = 0; ic < g.ICg; ++ic)
            for (dim_t kd = 0; kd < g.KD; ++kd)
                for (dim_t kh = 0; kh < g.KH; ++kh)
                    for (dim_t kw = 0; kw < g.KW; ++kw) {
                        const dim_t k = (kd * g.KH + kh) * g.KW + kw;
                        const dim_t i = (((gr * OCb + oc / 16) * ICb + ic / 16) * KS + k) * 256 + ic % 16 * 16 + oc % 16;
                        dw[u.base + u.tab[0][gr] + u.tab[1][oc] + u.tab[2][ic] + u.tab[3][kd] + u.tab[4][kh]
                                + u.tab[5][kw]]
                                = p0[i];
                    }
    });
    if (!g.with_bias) return status::success;
    float *db = ctx.output<float>(DNNL_ARG_DIFF_BIAS);
    const mdw_t db_d(p->diff_weights_md(1));
    const float *b0 = sg.get<float>(key_bpart, 0);
    for (dim_t c = 0; c < g.OC(); ++c) {
        const dim_t j = c / g.OCg * OCb * 16 + c % g.OCg;
        float v = b0[j];
        for (int t = 1; t < nthr; ++t) v += sg.get<float>(key_bpart, t)[j];
        const dim_t pos[1] = {c};
        db[db_d.off_v(pos)] = v;
    }
    return status::success;
}

} // namespace kestrel
