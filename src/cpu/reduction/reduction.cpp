// Reduction: a reference implementation for any layout, every algorithm and
// post-op chain, and a vectorised one for dense plain layouts and layouts
// blocked by channels (when channels are kept).
//
// The fast one views src as nested loops in physical order, merges loops
// that are contiguous and alike (both reduced, or both kept and contiguous
// in dst too), and works on the innermost run, which src stores densely:
//   - a reduced run is folded into one value per dst element (red_run);
//   - a kept run is accumulated element-wise over the reduced loops
//     (red_acc) into a row of partial results.
// When too few dst elements exist to keep the threads busy (everything
// reduced to a scalar, say), the reduction itself is split over threads
// into per-thread partial results in the scratchpad, merged in thread order.
#include <algorithm>
#include <cmath>

#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/reduction/reduction_pd.hpp"
#include "cpu/post_ops.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

using pool::red_op_t;

struct ref_reduction_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reduction_pd_t, ref_reduction_t> {
        using desc_t = reduction_desc_t;
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
        const int nd = s.ndims();
        int rd[max_ndims], nr = 0;
        dim_t rdims[max_ndims], R = 1;
        for (int i = 0; i < nd; ++i)
            if (d.dims()[i] != s.dims()[i]) {
                rd[nr] = i;
                rdims[nr++] = s.dims()[i];
                R *= s.dims()[i];
            }
        const red_op_t op = pd->op();
        const float p = pd->desc()->p;
        const data_type_t sdt = s.data_type(), ddt = d.data_type();
        const bool exact = pool::is_int8(sdt) && one_of(op, red_op_t::sum, red_op_t::max, red_op_t::min);
        const bool int_dst = exact && ddt == dnnl_s32 && ap.empty() && pd->desc()->alg != dnnl_reduction_mean;
        parallel_nd(d.nelems(), [&](dim_t l) {
            dim_t pos[max_ndims], spos[max_ndims], ridx[max_ndims] = {};
            for (int i = nd - 1; i >= 0; --i) {
                pos[i] = l % d.dims()[i];
                l /= d.dims()[i];
            }
            std::copy(pos, pos + nd, spos);
            float acc = pool::red_identity(op);
            if (exact) {
                // Integer sums, maxima and minima exactly (f32 would round a
                // sum past 2^24), as oneDNN's s32 accumulator; the result is
                // rounded to f32 once.
                int64_t iacc = op == red_op_t::max ? INT64_MIN : op == red_op_t::min ? INT64_MAX : 0;
                if (R > 0) do {
                        for (int j = 0; j < nr; ++j) spos[rd[j]] = ridx[j];
                        const dim_t o = s.off_v(spos);
                        const int64_t x = sdt == dnnl_s8 ? static_cast<const int8_t *>(src)[o]
                                                        : static_cast<const uint8_t *>(src)[o];
                        iacc = op == red_op_t::max ? std::max(iacc, x) : op == red_op_t::min ? std::min(iacc, x) : iacc + x;
                    } while (nd_next(nr, rdims, ridx));
                if (R > 0 && int_dst) { // s32 dst: the exact integer, saturated
                    const int64_t v = iacc < INT32_MIN ? INT32_MIN : iacc > INT32_MAX ? INT32_MAX : iacc;
                    static_cast<int32_t *>(dst)[d.off_v(pos)] = (int32_t)v;
                    return;
                }
                if (R > 0) acc = (float)iacc;
            } else if (R > 0) do {
                    for (int j = 0; j < nr; ++j) spos[rd[j]] = ridx[j];
                    acc = pool::red_combine(op, acc, pool::red_term(op, load_f32(sdt, src, s.off_v(spos)), p));
                } while (nd_next(nr, rdims, ridx));
            float v = pd->finish(acc, R);
            const dim_t off = d.off_v(pos);
            if (!ap.empty()) v = ap.apply(v, load_f32(ddt, dst, off), pos);
            store_f32(ddt, dst, off, v);
        });
        elt::zero_padding(d.md(), dst);
        return status::success;
    }
};

struct vec_reduction_t : primitive_t {
    enum key_t : scratchpad::key_t { key_part = 1 };
    // One loop of the physical view: trip count, src and dst strides.
    struct loop_t {
        dim_t n, ss, ds;
        bool red, cblk;
    };
    struct conf_t {
        loop_t ko[max_ndims + 1], ro[max_ndims + 1]; // kept / reduced outer loops
        int nko, nro;
        bool inner_red; // innermost run reduced (else kept)
        dim_t L, dsi; // innermost run length; its dst stride when kept
        dim_t Ko, Ro, R; // kept outer count, reduced outer count, elements reduced per dst
        bool split; // split the reduction over threads
        dim_t chunk; // kept run piece handled at once
        dim_t C, B; // channels and channel block (B = 0 when not blocked)
    };

    struct pd_t : pd_impl_t<pd_t, reduction_pd_t, vec_reduction_t> {
        using desc_t = reduction_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override;
        conf_t c_ = {};
        const char *name_ = "vec:reduction";
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override;
};

status_t vec_reduction_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(init_common());
    const char *me = "vec:reduction";
    if (!pool::is_fp(src_md_.data_type) || !pool::is_fp(dst_md_.data_type)) return decline(me, "not f32/bf16");
    if (!attr_.post_ops.entries.empty()) return decline(me, "post-ops");
    const mdw_t s(src_md_), d(dst_md_);
    if (s.has_zero_dim()) return decline(me, "empty tensor");
    const int nd = s.ndims();
    auto &c = c_;
    c.B = 0;
    if (!s.is_plain() || !d.is_plain()) {
        // Blocked: one channel block, the same in src and dst, channels kept.
        const auto &sb = s.blk(), &db = d.blk();
        if (nd < 2 || sb.inner_nblks != 1 || db.inner_nblks != 1 || sb.inner_idxs[0] != 1
                || db.inner_idxs[0] != 1 || sb.inner_blks[0] != db.inner_blks[0]
                || s.dims()[1] != d.dims()[1])
            return decline(me, "layout");
        c.B = sb.inner_blks[0];
        c.C = s.dims()[1];
    }
    loop_t loops[max_ndims + 1];
    int n = 0;
    c.R = 1;
    for (int i = 0; i < nd; ++i) {
        const bool red = s.dims()[i] != d.dims()[i];
        if (red) c.R *= s.dims()[i];
        if (c.B && i == 1) {
            loops[n++] = {s.padded_dims()[1] / c.B, s.blk().strides[1], d.blk().strides[1], false, true};
            loops[n++] = {c.B, 1, 1, false, false};
        } else {
            loops[n++] = {s.dims()[i], s.blk().strides[i], red ? 0 : d.blk().strides[i], red, false};
        }
    }
    // Physical order, outermost first, without trivial loops.
    loop_t *end = std::remove_if(loops, loops + n, [](const loop_t &l) { return l.n == 1; });
    n = (int)(end - loops);
    std::stable_sort(loops, loops + n, [](const loop_t &a, const loop_t &b) { return a.ss > b.ss; });
    loop_t merged[max_ndims + 1];
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const loop_t &in = loops[i];
        if (m > 0) {
            loop_t &out = merged[m - 1];
            const bool ok = out.red == in.red && !out.cblk && !in.cblk && out.ss == in.ss * in.n
                    && (in.red || out.ds == in.ds * in.n);
            if (ok) {
                out = {out.n * in.n, in.ss, in.ds, in.red, false};
                continue;
            }
        }
        merged[m++] = in;
    }
    if (m == 0 || merged[m - 1].ss != 1) return decline(me, "src has no dense innermost run");
    const loop_t &inner = merged[m - 1];
    c.inner_red = inner.red;
    c.L = inner.n;
    c.dsi = inner.ds;
    c.nko = c.nro = 0;
    c.Ko = c.Ro = 1;
    for (int i = 0; i < m - 1; ++i) {
        if (merged[i].red) {
            c.ro[c.nro++] = merged[i];
            c.Ro *= merged[i].n;
        } else {
            c.ko[c.nko++] = merged[i];
            c.Ko *= merged[i].n;
        }
    }
    const int nthr = max_threads();
    auto &reg = scratchpad_registry();
    if (c.inner_red) {
        name_ = "vec:reduction:inner";
        c.chunk = 1;
        c.split = c.Ko < 2 * nthr && c.Ro * c.L >= 4096 && c.Ko <= 4096;
        if (c.split) reg.book_per_thread(key_part, sizeof(float) * c.Ko);
    } else {
        name_ = "vec:reduction:outer";
        c.chunk = std::min<dim_t>(c.L, 1024);
        const dim_t items = c.Ko * div_up(c.L, c.chunk);
        c.split = items < 2 * nthr && c.Ro >= 64 && c.Ko * c.L <= 65536;
        reg.book_per_thread(key_part, sizeof(float) * (c.split ? c.Ko * c.L : c.chunk));
    }
    return status::success;
}

status_t vec_reduction_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const conf_t &c = pd->c_;
    const auto &ops = pool::vec_ops();
    const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md();
    const data_type_t sdt = smd.data_type, ddt = dmd.data_type;
    const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
    const char *src = ctx.input<char>(DNNL_ARG_SRC) + smd.offset0 * ssz;
    char *dst = ctx.output<char>(DNNL_ARG_DST) + dmd.offset0 * dsz;
    const red_op_t op = pd->op();
    const float p = pd->desc()->p, id = pool::red_identity(op);
    const auto &sp = ctx.scratchpad();

    // Offsets of the k-th kept outer point (and its channel block).
    auto kept_at = [&](dim_t k, dim_t &soff, dim_t &doff, dim_t &cb) {
        soff = doff = cb = 0;
        for (int i = c.nko - 1; i >= 0; --i) {
            const loop_t &l = c.ko[i];
            const dim_t x = k % l.n;
            k /= l.n;
            soff += x * l.ss;
            doff += x * l.ds;
            if (l.cblk) cb = x;
        }
    };
    auto red_off = [&](dim_t r) {
        dim_t off = 0;
        for (int i = c.nro - 1; i >= 0; --i) {
            off += (r % c.ro[i].n) * c.ro[i].ss;
            r /= c.ro[i].n;
        }
        return off;
    };
    // Calls f(offset) for reduced outer points [r0, r1), walking the
    // multi-index instead of dividing for each.
    auto for_red = [&](dim_t r0, dim_t r1, const auto &f) {
        if (r0 >= r1) return;
        dim_t idx[max_ndims + 1];
        dim_t r = r0, off = 0;
        for (int i = c.nro - 1; i >= 0; --i) {
            idx[i] = r % c.ro[i].n;
            r /= c.ro[i].n;
            off += idx[i] * c.ro[i].ss;
        }
        for (dim_t it = r0; it < r1; ++it) {
            f(off);
            for (int i = c.nro - 1; i >= 0; --i) {
                off += c.ro[i].ss;
                if (++idx[i] < c.ro[i].n) break;
                off -= c.ro[i].n * c.ro[i].ss;
                idx[i] = 0;
            }
        }
    };
    // Finishes a kept run piece starting at lane j0 of the run and stores it;
    // channel padding lanes of the last block get 0.
    auto store_run = [&](float *v, dim_t len, dim_t j0, dim_t doff, dim_t cb) {
        for (dim_t j = 0; j < len; ++j) v[j] = pd->finish(v[j], c.R);
        if (c.B && (cb + 1) * c.B > c.C) {
            const dim_t valid = c.C - cb * c.B;
            for (dim_t j = 0; j < len; ++j)
                if ((j0 + j) % c.B >= valid) v[j] = 0.f;
        }
        char *y = dst + (doff + j0 * c.dsi) * dsz;
        if (c.dsi == 1)
            ops.store_scaled(y, ddt, v, 1.f, len);
        else
            for (dim_t j = 0; j < len; ++j) store_f32(ddt, y, j * c.dsi, v[j]);
    };

    const int nthr_max = std::max(1, std::min(sp.nthr(), max_threads()));
    bool oom = false;
    if (c.inner_red && !c.split) {
        parallel(std::min(nthr_max, nthr_for(c.Ko)), [&](int ithr, int nthr) {
            dim_t s, e;
            balance211(c.Ko, nthr, ithr, s, e);
            for (dim_t k = s; k < e; ++k) {
                dim_t soff, doff, cb;
                kept_at(k, soff, doff, cb);
                float acc = id;
                for_red(0, c.Ro, [&](dim_t off) { acc = ops.red_run(op, acc, src + (soff + off) * ssz, sdt, c.L, p); });
                store_f32(ddt, dst, doff, pd->finish(acc, c.R));
            }
        });
    } else if (c.inner_red) {
        const dim_t T = c.Ro * c.L;
        const int nthr = std::min(nthr_max, nthr_for(T, 1024));
        parallel(nthr, [&](int ithr, int nt) {
            float *part = sp.get<float>(key_part, ithr);
            if (!part) {
                oom = true;
                return;
            }
            dim_t s, e;
            balance211(T, nt, ithr, s, e);
            for (dim_t k = 0; k < c.Ko; ++k) {
                dim_t soff, doff, cb;
                kept_at(k, soff, doff, cb);
                float acc = id;
                for (dim_t at = s; at < e;) {
                    const dim_t r = at / c.L, i0 = at % c.L, len = std::min(c.L - i0, e - at);
                    acc = ops.red_run(op, acc, src + (soff + red_off(r) + i0) * ssz, sdt, len, p);
                    at += len;
                }
                part[k] = acc;
            }
        });
        if (oom) return status::out_of_memory;
        for (dim_t k = 0; k < c.Ko; ++k) {
            float acc = id;
            for (int t = 0; t < nthr; ++t) acc = pool::red_combine(op, acc, sp.get<float>(key_part, t)[k]);
            dim_t soff, doff, cb;
            kept_at(k, soff, doff, cb);
            store_f32(ddt, dst, doff, pd->finish(acc, c.R));
        }
    } else if (!c.split) {
        const dim_t nch = div_up(c.L, c.chunk), items = c.Ko * nch;
        parallel(std::min(nthr_max, nthr_for(items)), [&](int ithr, int nthr) {
            float *buf = sp.get<float>(key_part, ithr);
            if (!buf) {
                oom = true;
                return;
            }
            dim_t s, e;
            balance211(items, nthr, ithr, s, e);
            for (dim_t w = s; w < e; ++w) {
                const dim_t k = w / nch, j0 = (w % nch) * c.chunk, len = std::min(c.chunk, c.L - j0);
                dim_t soff, doff, cb;
                kept_at(k, soff, doff, cb);
                std::fill(buf, buf + len, id);
                const char *x = src + (soff + j0) * ssz;
                for_red(0, c.Ro, [&](dim_t off) { ops.red_acc(op, buf, x + off * ssz, sdt, len, p); });
                store_run(buf, len, j0, doff, cb);
            }
        });
    } else {
        const int nthr = std::min(nthr_max, nthr_for(c.Ro, 16));
        parallel(nthr, [&](int ithr, int nt) {
            float *part = sp.get<float>(key_part, ithr);
            if (!part) {
                oom = true;
                return;
            }
            dim_t s, e;
            balance211(c.Ro, nt, ithr, s, e);
            for (dim_t k = 0; k < c.Ko; ++k) {
                dim_t soff, doff, cb;
                kept_at(k, soff, doff, cb);
                float *acc = part + k * c.L;
                std::fill(acc, acc + c.L, id);
                for_red(s, e, [&](dim_t off) { ops.red_acc(op, acc, src + (soff + off) * ssz, sdt, c.L, p); });
            }
        });
        if (oom) return status::out_of_memory;
        float *acc = sp.get<float>(key_part, 0);
        for (int t = 1; t < nthr; ++t) {
            const float *part = sp.get<float>(key_part, t);
            for (dim_t j = 0; j < c.Ko * c.L; ++j) acc[j] = pool::red_combine(op, acc[j], part[j]);
        }
        for (dim_t k = 0; k < c.Ko; ++k) {
            dim_t soff, doff, cb;
            kept_at(k, soff, doff, cb);
            store_run(acc + k * c.L, c.L, 0, doff, cb);
        }
    }
    return oom ? status::out_of_memory : status::success;
}

} // namespace

const impl_entry_t reduction_impl_list[] = {
        {"vec", make_pd<vec_reduction_t::pd_t>},
        {"ref", make_pd<ref_reduction_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
