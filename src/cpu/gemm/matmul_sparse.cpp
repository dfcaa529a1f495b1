#include "cpu/gemm/matmul_sparse.hpp"

#include <algorithm>
#include <cstring>

#include "core/memory.hpp"
#include "cpu/common/common.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

// A sparse operand, viewed as CSR: row r holds entries order[j] (or j when
// there is no order) for j in [ptr[r], ptr[r + 1]).
struct csr_view_t {
    const void *val; // f32 or f16 (the pd's data type)
    const int32_t *col;
    const int32_t *ptr;
    const int32_t *order; // nullptr: entries stored row by row
    dim_t nnz, rows, cols;

    // The entry range of row r, clamped so that hostile pointers only lose
    // entries, never read outside the buffers.
    void range(dim_t r, dim_t &lo, dim_t &hi) const {
        lo = std::min<dim_t>(std::max<dim_t>(ptr[r], 0), nnz);
        hi = std::min<dim_t>(std::max<dim_t>(ptr[r + 1], lo), nnz);
    }
    dim_t at(dim_t j) const { return order ? order[j] : j; }
};

// COO row indices to CSR row pointers and a row-grouped order (a counting
// sort, stable, so each row keeps its entries' order). Entries whose row is
// out of range are left out.
void coo_to_csr(const int32_t *row_idx, dim_t nnz, dim_t rows, int32_t *ptr, int32_t *order) {
    std::fill(ptr, ptr + rows + 1, 0);
    for (dim_t j = 0; j < nnz; ++j)
        if (row_idx[j] >= 0 && row_idx[j] < rows) ++ptr[row_idx[j] + 1];
    for (dim_t r = 0; r < rows; ++r) ptr[r + 1] += ptr[r];
    // ptr[r] runs ahead as row r fills, then is shifted back.
    for (dim_t j = 0; j < nnz; ++j) {
        const int32_t r = row_idx[j];
        if (r >= 0 && r < rows) order[ptr[r]++] = (int32_t)j;
    }
    for (dim_t r = rows; r > 0; --r) ptr[r] = ptr[r - 1];
    ptr[0] = 0;
}

// dst[m, :] = sum over entries (k, a) of sparse src row m of a * wei[k, :].
void src_sparse_kernel(const csr_view_t &a, const float *wei, float *dst, dim_t N) {
    const auto axpy = pool::vec_ops().axpy;
    parallel_nd(a.rows, [&](dim_t m) {
        float *d = dst + m * N;
        std::fill(d, d + N, 0.f);
        dim_t lo, hi;
        a.range(m, lo, hi);
        for (dim_t j = lo; j < hi; ++j) {
            const dim_t e = a.at(j);
            const dim_t k = a.col[e];
            if (k < 0 || k >= a.cols) continue;
            axpy(d, wei + k * N, dnnl_f32, static_cast<const float *>(a.val)[e], N);
        }
    });
}

// dst[m, :] = sum over k of src[m, k] * (sparse weights row k).
void wei_sparse_kernel(const csr_view_t &b, const float *src, float *dst, dim_t M) {
    const dim_t K = b.rows, N = b.cols;
    const float *val = static_cast<const float *>(b.val);
    parallel_nd(M, [&](dim_t m) {
        float *d = dst + m * N;
        std::fill(d, d + N, 0.f);
        const float *s = src + m * K;
        for (dim_t k = 0; k < K; ++k) {
            dim_t lo, hi;
            b.range(k, lo, hi);
            const float a = s[k];
            for (dim_t j = lo; j < hi; ++j) {
                const dim_t e = b.at(j);
                const dim_t n = b.col[e];
                if (n >= 0 && n < N) d[n] += a * val[e];
            }
        }
    });
}

// The f16 problem (every tensor f16): the same walks, each row of dst
// summed in f32 in a per-thread row of the scratchpad, then rounded once
// to f16. Products and sums are f32 (f16 values are exact in f32).
void f16_kernel(const csr_view_t &v, bool src_sparse, const uint16_t *dense, uint16_t *dst,
        dim_t M, dim_t N, const scratchpad::grantor_t &spad, scratchpad::key_t key_acc) {
    const uint16_t *val = static_cast<const uint16_t *>(v.val);
    const int nthr_run = std::min(nthr_for(M), spad.nthr());
    parallel(nthr_run, [&](int ithr, int nthr) {
        float *acc = spad.get<float>(key_acc, ithr);
        if (!acc) return;
        dim_t m0, m1;
        balance211(M, nthr, ithr, m0, m1);
        for (dim_t m = m0; m < m1; ++m) {
            std::fill(acc, acc + N, 0.f);
            if (src_sparse) { // row m of src is sparse; dense = weights (K x N)
                dim_t lo, hi;
                v.range(m, lo, hi);
                for (dim_t j = lo; j < hi; ++j) {
                    const dim_t e = v.at(j), k = v.col[e];
                    if (k < 0 || k >= v.cols) continue;
                    const float a = f16_to_f32(val[e]);
                    const uint16_t *w = dense + k * N;
                    for (dim_t n = 0; n < N; ++n) acc[n] += a * f16_to_f32(w[n]);
                }
            } else { // dense = src (M x K); weights sparse (K x N)
                const uint16_t *s = dense + m * v.rows;
                for (dim_t k = 0; k < v.rows; ++k) {
                    const float a = f16_to_f32(s[k]);
                    dim_t lo, hi;
                    v.range(k, lo, hi);
                    for (dim_t j = lo; j < hi; ++j) {
                        const dim_t e = v.at(j), n = v.col[e];
                        if (n >= 0 && n < N) acc[n] += a * f16_to_f32(val[e]);
                    }
                }
            }
            uint16_t *d = dst + m * N;
            for (dim_t n = 0; n < N; ++n) d[n] = f32_to_f16(acc[n]);
        }
    });
}

} // namespace

status_t sparse_matmul_t::pd_t::init(dnnl_engine *) {
    const mdw_t s(src_md_), w(weights_md_), d(dst_md_);
    if (s.is_sparse() == w.is_sparse()) return decline(name(), "needs exactly one sparse operand");
    if (d.is_sparse() || with_bias()) return decline(name(), "sparse dst or bias");
    src_sparse = s.is_sparse();
    const memory_desc_t &sp = src_sparse ? src_md_ : weights_md_;
    memory_desc_t &dense = src_sparse ? weights_md_ : src_md_;
    encoding = sp.sparse.encoding;
    if (!one_of(encoding, dnnl_csr, dnnl_coo)) return decline(name(), "encoding");
    if (sp.ndims != 2 || ndims() != 2) return decline(name(), "ndims");
    // All f32 (oneDNN's CPU sparse matmul) or all f16 (summed in f32).
    dt = dst_md_.data_type;
    if (!one_of(dt, dnnl_f32, dnnl_f16)) return decline(name(), "data type");
    for (const memory_desc_t *md : {&src_md_, &weights_md_})
        if (md->data_type != dt) return decline(name(), "data type");
    if (sp.sparse.metadata_types[0] != dnnl_s32
            || (encoding == dnnl_csr && sp.sparse.metadata_types[1] != dnnl_s32))
        return decline(name(), "metadata data type");
    if (!attr_.has_default_values()) return decline(name(), "attributes");
    for (memory_desc_t *md : {&dense, &dst_md_}) {
        if (mdw_t(md).is_any()) KESTREL_CHECK(md_set_tag(*md, dnnl_ab));
        if (!mdw_t(md).matches_tag(dnnl_ab)) return decline(name(), "layout");
    }
    if (encoding == dnnl_coo) {
        const dim_t rows = sp.dims[0];
        scratchpad_registry().book(key_row_ptr, (size_t)(rows + 1) * sizeof(int32_t));
        scratchpad_registry().book(key_order, (size_t)sp.sparse.nnz * sizeof(int32_t));
    }
    if (dt == dnnl_f16) scratchpad_registry().book_per_thread(key_acc, (size_t)dst_md_.dims[1] * sizeof(float));
    return status::success;
}

status_t sparse_matmul_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const int sarg = pd->src_sparse ? DNNL_ARG_SRC : DNNL_ARG_WEIGHTS;
    const memory_desc_t &smd = pd->src_sparse ? *pd->src_md() : *pd->weights_md(0);
    const dnnl_memory *sm = ctx.memory(sarg);
    const dim_t M = pd->dst_md()->dims[0], N = pd->dst_md()->dims[1];
    void *dst = ctx.output<void>(DNNL_ARG_DST);
    const size_t dsz = data_type_size(pd->dt);
    if (M * N == 0) return status::success;

    csr_view_t v;
    v.nnz = smd.sparse.nnz;
    v.rows = smd.dims[0];
    v.cols = smd.dims[1];
    v.order = nullptr;
    if (v.nnz == 0 || !sm) { // nothing to walk: dst is all zeros
        // +0.0 is all-zero bits in f32 and f16 alike.
        parallel_nd(M, [&](dim_t m) { std::memset(static_cast<char *>(dst) + m * N * dsz, 0, N * dsz); });
        return status::success;
    }
    v.val = sm->handle(0);
    if (pd->encoding == dnnl_csr) {
        v.col = static_cast<const int32_t *>(sm->handle(1));
        v.ptr = static_cast<const int32_t *>(sm->handle(2));
    } else {
        v.col = static_cast<const int32_t *>(sm->handle(2));
        int32_t *ptr = ctx.scratchpad().get<int32_t>(pd_t::key_row_ptr);
        int32_t *order = ctx.scratchpad().get<int32_t>(pd_t::key_order);
        coo_to_csr(static_cast<const int32_t *>(sm->handle(1)), v.nnz, v.rows, ptr, order);
        v.ptr = ptr;
        v.order = order;
    }
    const int darg = pd->src_sparse ? DNNL_ARG_WEIGHTS : DNNL_ARG_SRC;
    if (pd->dt == dnnl_f16)
        f16_kernel(v, pd->src_sparse, ctx.input<uint16_t>(darg), static_cast<uint16_t *>(dst), M, N,
                ctx.scratchpad(), pd_t::key_acc);
    else if (pd->src_sparse)
        src_sparse_kernel(v, ctx.input<float>(darg), static_cast<float *>(dst), N);
    else
        wei_sparse_kernel(v, ctx.input<float>(darg), static_cast<float *>(dst), M);
    return status::success;
}

} // namespace kestrel
