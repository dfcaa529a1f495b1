#include <immintrin.h>

#include <algorithm>
#include <climits>

#include "cpu/isa.hpp"
#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/reorder/reorder_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

using data_movement::offset_table_t;

namespace {

// Kernels over one full inner block of K 4-byte elements; b is the block,
// p the plain-side base, idx[j] the plain offset of block element j and
// contig[c] says that chunk c of idx is a run of consecutive offsets.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
void x32_to_blocked_avx512(const float *p, float *b, const int32_t *idx,
        const uint8_t *contig, dim_t K) {
    for (dim_t j = 0, c = 0; j < K; j += 16, ++c) {
        __m512 v = contig[c] ? _mm512_loadu_ps(p + idx[j])
                             : _mm512_mask_i32gather_ps(_mm512_setzero_ps(), (__mmask16)0xffff,
                                     _mm512_loadu_si512(idx + j), p, 4);
        _mm512_storeu_ps(b + j, v);
    }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
void x32_from_blocked_avx512(const float *b, float *p, const int32_t *idx,
        const uint8_t *contig, dim_t K) {
    for (dim_t j = 0, c = 0; j < K; j += 16, ++c) {
        __m512 v = _mm512_loadu_ps(b + j);
        if (contig[c])
            _mm512_storeu_ps(p + idx[j], v);
        else
            _mm512_i32scatter_ps(p, _mm512_loadu_si512(idx + j), v, 4);
    }
}

__attribute__((target("avx2,fma")))
void x32_to_blocked_avx2(const float *p, float *b, const int32_t *idx,
        const uint8_t *contig, dim_t K) {
    for (dim_t j = 0, c = 0; j < K; j += 8, ++c) {
        __m256 v = contig[c]
                ? _mm256_loadu_ps(p + idx[j])
                : _mm256_mask_i32gather_ps(_mm256_setzero_ps(), p,
                        _mm256_loadu_si256((const __m256i *)(idx + j)),
                        _mm256_castsi256_ps(_mm256_set1_epi32(-1)), 4);
        _mm256_storeu_ps(b + j, v);
    }
}

// AVX2 has no scatter: runs are stored as vectors, the rest one by one.
__attribute__((target("avx2,fma")))
void x32_from_blocked_avx2(const float *b, float *p, const int32_t *idx,
        const uint8_t *contig, dim_t K) {
    for (dim_t j = 0, c = 0; j < K; j += 8, ++c) {
        if (contig[c]) {
            _mm256_storeu_ps(p + idx[j], _mm256_loadu_ps(b + j));
        } else {
            for (int k = 0; k < 8; ++k) p[idx[j + k]] = b[j + k];
        }
    }
}

template <typename T>
void to_blocked_scalar(const T *p, T *b, const int32_t *idx, dim_t K) {
    for (dim_t j = 0; j < K; ++j) b[j] = p[idx[j]];
}

template <typename T>
void from_blocked_scalar(const T *b, T *p, const int32_t *idx, dim_t K) {
    for (dim_t j = 0; j < K; ++j) p[idx[j]] = b[j];
}

} // namespace

status_t reorder_blocked_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(init_common(name()));
    if (!quant_.trivial()) return decline(name(), "attributes");
    const data_type_t dt = src_md_.data_type;
    if (dt != dst_md_.data_type || !reorder_dt_supported(dt)) return decline(name(), "data types");
    const bool sb = src_md_.blocking.inner_nblks > 0, db = dst_md_.blocking.inner_nblks > 0;
    if (sb == db) return decline(name(), "needs one plain and one blocked side");
    to_blocked = db;
    const memory_desc_t &B = to_blocked ? dst_md_ : src_md_;
    const memory_desc_t &P = to_blocked ? src_md_ : dst_md_;
    const int nd = B.ndims;
    const mdw_t bw(B), pw(P);
    for (int d = 0; d < nd; ++d)
        if (B.padded_offsets[d] != 0 || P.padded_offsets[d] != 0 || P.padded_dims[d] != P.dims[d])
            return decline(name(), "padded offsets");
    if (bw.has_zero_dim()) return decline(name(), "empty tensor");
    K = bw.inner_block_size();
    if (K > 4096) return decline(name(), "inner block too large");

    offset_table_t bt, pt;
    bt.init_padded(B);
    pt.init(P, B.padded_dims);
    b_off0 = bt.offset0();
    p_off0 = pt.offset0();
    dim_t total = 0;
    for (int d = 0; d < nd; ++d) {
        blk[d] = bw.block_of(d);
        ext[d] = B.padded_dims[d] / blk[d];
        outer_start[d] = total;
        total += ext[d];
    }
    b_outer.resize((size_t)total);
    p_outer.resize((size_t)total);
    for (int d = 0; d < nd; ++d)
        for (dim_t o = 0; o < ext[d]; ++o) {
            b_outer[(size_t)(outer_start[d] + o)] = bt.at(d, o * blk[d]);
            p_outer[(size_t)(outer_start[d] + o)] = pt.at(d, o * blk[d]);
        }
    // Outer dims of the blocked side in physical order; unit extents first.
    for (int d = 0; d < nd; ++d) order[d] = d;
    std::stable_sort(order, order + nd, [&](int a, int b) {
        bool ua = ext[a] == 1, ub = ext[b] == 1;
        if (ua != ub) return ua;
        return B.blocking.strides[a] > B.blocking.strides[b];
    });

    // Every in-block position: where it sits in the block and in the plain
    // side.
    idx.assign((size_t)K, -1);
    ipos.assign((size_t)(K * nd), 0);
    dim_t p_in[max_ndims] = {};
    do {
        dim_t j = 0, poff = 0;
        for (int d = 0; d < nd; ++d) {
            j += bt.at(d, p_in[d]);
            poff += pt.at(d, p_in[d]);
        }
        if (j < 0 || j >= K || idx[(size_t)j] != -1) return decline(name(), "unexpected block structure");
        if (poff < 0 || poff > INT32_MAX) return decline(name(), "offsets exceed 32 bits");
        idx[(size_t)j] = (int32_t)poff;
        for (int d = 0; d < nd; ++d) ipos[(size_t)(j * nd + d)] = p_in[d];
    } while (nd_next(nd, blk, p_in));
    // The largest plain offset reached from a block base must fit too.
    {
        dim_t span = 0;
        for (int d = 0; d < nd; ++d) span += pt.at(d, B.padded_dims[d] - 1);
        if (span > INT32_MAX) return decline(name(), "offsets exceed 32 bits");
    }

    vec = 1;
    if (data_type_size(dt) == 4) {
        if (isa::has(isa::avx512) && K % 16 == 0)
            vec = 16;
        else if (isa::has(isa::avx2) && K % 8 == 0)
            vec = 8;
    }
    contig.assign((size_t)(K / vec), 0);
    if (vec > 1)
        for (dim_t c = 0; c < K / vec; ++c) {
            bool run = true;
            for (int k = 1; k < vec; ++k) run = run && idx[(size_t)(c * vec + k)] == idx[(size_t)(c * vec)] + k;
            contig[(size_t)c] = run;
        }
    return status::success;
}

status_t reorder_blocked_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const memory_desc_t &B = p->to_blocked ? *p->dst_md() : *p->src_md();
    const int nd = B.ndims;
    const size_t dsz = data_type_size(B.data_type);
    const char *src = ctx.input<char>(DNNL_ARG_FROM);
    char *dst = ctx.output<char>(DNNL_ARG_TO);
    const dim_t K = p->K;
    const int32_t *idx = p->idx.data();
    const uint8_t *contig = p->contig.data();

    dim_t work = 1;
    for (int d = 0; d < nd; ++d) work *= p->ext[d];

    auto full_block = [&](dim_t bbase, dim_t pbase) {
        if (p->to_blocked) {
            const char *ps = src + pbase * dsz;
            char *bd = dst + bbase * dsz;
            if (p->vec == 16)
                x32_to_blocked_avx512((const float *)ps, (float *)bd, idx, contig, K);
            else if (p->vec == 8)
                x32_to_blocked_avx2((const float *)ps, (float *)bd, idx, contig, K);
            else if (dsz == 4)
                to_blocked_scalar((const uint32_t *)ps, (uint32_t *)bd, idx, K);
            else if (dsz == 2)
                to_blocked_scalar((const uint16_t *)ps, (uint16_t *)bd, idx, K);
            else
                to_blocked_scalar((const uint8_t *)ps, (uint8_t *)bd, idx, K);
        } else {
            const char *bs = src + bbase * dsz;
            char *pd_ = dst + pbase * dsz;
            if (p->vec == 16)
                x32_from_blocked_avx512((const float *)bs, (float *)pd_, idx, contig, K);
            else if (p->vec == 8)
                x32_from_blocked_avx2((const float *)bs, (float *)pd_, idx, contig, K);
            else if (dsz == 4)
                from_blocked_scalar((const uint32_t *)bs, (uint32_t *)pd_, idx, K);
            else if (dsz == 2)
                from_blocked_scalar((const uint16_t *)bs, (uint16_t *)pd_, idx, K);
            else
                from_blocked_scalar((const uint8_t *)bs, (uint8_t *)pd_, idx, K);
        }
    };

    parallel(nthr_for(work * K, 4096), [&](int ithr, int nthr) {
        dim_t start, end;
        balance211(work, nthr, ithr, start, end);
        if (start >= end) return;
        dim_t o[max_ndims] = {};
        {
            dim_t r = start;
            for (int k = nd - 1; k >= 0; --k) {
                int d = p->order[k];
                o[d] = r % p->ext[d];
                r /= p->ext[d];
            }
        }
        for (dim_t w = start; w < end; ++w) {
            dim_t bbase = p->b_off0, pbase = p->p_off0;
            bool full = true;
            for (int d = 0; d < nd; ++d) {
                bbase += p->b_outer[(size_t)(p->outer_start[d] + o[d])];
                pbase += p->p_outer[(size_t)(p->outer_start[d] + o[d])];
                full = full && (o[d] + 1) * p->blk[d] <= B.dims[d];
            }
            if (full) {
                full_block(bbase, pbase);
            } else {
                // A block cut by the tensor's edge: element by element, and
                // the padding of a blocked dst gets zeros.
                for (dim_t j = 0; j < K; ++j) {
                    bool valid = true;
                    const dim_t *ip = &p->ipos[(size_t)(j * nd)];
                    for (int d = 0; d < nd; ++d)
                        valid = valid && o[d] * p->blk[d] + ip[d] < B.dims[d];
                    if (p->to_blocked) {
                        if (valid)
                            copy_elem(dsz, src, pbase + idx[j], dst, bbase + j);
                        else
                            zero_elem(dsz, dst, bbase + j);
                    } else if (valid) {
                        copy_elem(dsz, src, bbase + j, dst, pbase + idx[j]);
                    }
                }
            }
            for (int k = nd - 1; k >= 0; --k) {
                int d = p->order[k];
                if (++o[d] < p->ext[d]) break;
                o[d] = 0;
            }
        }
    });
    return status::success;
}

} // namespace kestrel
