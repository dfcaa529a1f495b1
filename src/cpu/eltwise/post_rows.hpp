// Post-ops in the vectorised element-wise kernels. Those kernels walk a
// dense plain dst in physical order; post_ops::applier_t walks rows of the
// innermost logical dim. Permuting dst (and every binary src1) so that its
// dims are in physical order (and every select condition src2) makes the two agree: the flat physical index
// is then the row-major logical index of the permuted dst, so a flat range
// splits into logical rows that apply_row takes directly. Element-wise ops
// do not care in which order their dims are named.
#ifndef KESTREL_CPU_ELTWISE_POST_ROWS_HPP
#define KESTREL_CPU_ELTWISE_POST_ROWS_HPP

#include <atomic>
#include <cstring>

#include "core/attr.hpp"
#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/post_ops.hpp"

namespace kestrel {
namespace elt {

struct post_rows_t {
    post_ops_t po; // the chain, binary src1 (select: and src2) descriptors permuted like dst
    memory_desc_t dst = zero_md(); // dst in physical dim order
    bool has_sum = false;

    bool empty() const { return po.entries.empty(); }

    // Builds the permuted chain for a checked `chain` (src1 `any` already
    // resolved). unimplemented when dst is not dense plain.
    status_t init(const post_ops_t &chain, const memory_desc_t &dst_md) {
        po = chain;
        has_sum = post_ops::sum_index(chain) >= 0;
        if (chain.entries.empty()) return status::success;
        mdw_t d(dst_md);
        if (!d.is_plain() || !flat_ok(dst_md, false)) return status::unimplemented;
        const int nd = d.ndims();
        // Stable order by decreasing stride: position of each dim.
        int order[max_ndims], perm[max_ndims];
        for (int i = 0; i < nd; ++i) order[i] = i;
        for (int i = 1; i < nd; ++i)
            for (int j = i; j > 0 && d.blk().strides[order[j]] > d.blk().strides[order[j - 1]]; --j) {
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        for (int i = 0; i < nd; ++i) perm[order[i]] = i;
        KESTREL_CHECK(md_permute_axes(dst, dst_md, perm));
        for (auto &e : po.entries)
            if (e.kind == dnnl_binary) {
                memory_desc_t s1 = e.binary.src1_desc;
                KESTREL_CHECK(md_permute_axes(e.binary.src1_desc, s1, perm));
                if (e.binary.alg == dnnl_binary_select) {
                    memory_desc_t s2 = e.binary.src2_desc;
                    KESTREL_CHECK(md_permute_axes(e.binary.src2_desc, s2, perm));
                }
            }
        return status::success;
    }

    // Applies the chain to vals[0, n), the f32 values of dst's flat
    // elements [s, s + n); old[] holds their values before the primitive
    // ran (read only when the chain has a sum).
    void apply(const post_ops::applier_t &ap, float *vals, const float *old, dim_t s,
            dim_t n) const {
        const int nd = dst.ndims;
        const dim_t row = dst.dims[nd - 1];
        dim_t pos[max_ndims];
        while (n > 0) {
            logical_pos(nd, dst.dims, s, pos);
            dim_t m = row - pos[nd - 1];
            if (m > n) m = n;
            ap.apply_row(vals, old, m, pos);
            vals += m;
            if (old) old += m;
            s += m;
            n -= m;
        }
    }
};

// Elements per sub-chunk of a thread's range when post-ops run: small
// enough that the values are still in L1 when the chain re-reads them.
constexpr dim_t post_chunk = 1024;

// Runs f(s, e) over the flat range [0, n) of a dense dst, split over
// threads in blocks of 64 elements (whole cache lines; every split point
// is a multiple of 64). With a post-op chain, each thread goes in
// sub-chunks of post_chunk: keep dst's old values (for a sum) in its
// per-thread region `key_old` of post_chunk floats, run f, apply the chain
// to the f32 values f left in dst.
template <typename F>
status_t run_flat(const exec_ctx_t &ctx, dim_t n, const post_rows_t &post,
        scratchpad::key_t key_old, void *dst, const F &f) {
    const dim_t blk = 64, nblk = div_up(n, blk);
    int nthr = nthr_for(nblk, 256);
    if (post.empty()) {
        parallel(nthr, [&](int ithr, int nthr_) {
            dim_t s, e;
            balance211(nblk, nthr_, ithr, s, e);
            s *= blk;
            e = e * blk < n ? e * blk : n;
            if (s < e) f(s, e);
        });
        return status::success;
    }
    const post_ops::applier_t ap(post.po, post.dst, ctx);
    if (post.has_sum && ctx.scratchpad().nthr() < nthr) nthr = ctx.scratchpad().nthr();
    float *df = static_cast<float *>(dst);
    std::atomic<bool> oom {false};
    parallel(nthr, [&](int ithr, int nthr_) {
        dim_t s, e;
        balance211(nblk, nthr_, ithr, s, e);
        s *= blk;
        e = e * blk < n ? e * blk : n;
        if (s >= e) return;
        float *old = post.has_sum ? ctx.scratchpad().get<float>(key_old, ithr) : nullptr;
        if (post.has_sum && !old) {
            oom = true;
            return;
        }
        for (dim_t c = s; c < e; c += post_chunk) {
            const dim_t m = e - c < post_chunk ? e - c : post_chunk;
            if (old) std::memcpy(old, df + c, sizeof(float) * m);
            f(c, c + m);
            post.apply(ap, df + c, old, c, m);
        }
    });
    return oom.load() ? status::out_of_memory : status::success;
}

} // namespace elt
} // namespace kestrel

#endif
