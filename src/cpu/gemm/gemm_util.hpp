// Pieces shared by the GEMM-based primitives (matmul, inner product): data
// type classes, the view of a 2D operand as a GEMM matrix, attribute checks,
// the scale values of one execution and the output stage (scales, bias,
// post-ops, dst scale and zero point) for both the GEMM epilogue and the
// reference implementations.
#ifndef KESTREL_CPU_GEMM_GEMM_UTIL_HPP
#define KESTREL_CPU_GEMM_GEMM_UTIL_HPP

#include "core/primitive.hpp"
#include "cpu/common/dropout.hpp"
#include "cpu/gemm/gemm.hpp"
#include "cpu/post_ops.hpp"
#include "cpu/types.hpp"

namespace kestrel {
namespace gemm {

inline bool float_dt(data_type_t dt) { return one_of(dt, dnnl_f32, dnnl_bf16, dnnl_f16); }
inline bool int8_dt(data_type_t dt) { return one_of(dt, dnnl_s8, dnnl_u8); }

// The row-major tag of a rank (a, ab, abc...), undef outside 1..12.
format_tag_t plain_tag(int ndims);

// An implementation's init() outcome from the kind's shared checks:
// unimplemented becomes a verbose decline, other errors pass through.
inline status_t decline_common(const char *impl, status_t st) {
    return st == status::unimplemented ? decline(impl, "attributes or data types") : st;
}

// The memory md an argument really has at execution: the pd's unless it
// carries runtime dims, then the memory object's.
inline const memory_desc_t &exec_md(const exec_ctx_t &ctx, int arg, const memory_desc_t *pd_md) {
    if (!mdw_t(pd_md).has_runtime_dims_or_strides()) return *pd_md;
    dnnl_memory *m = ctx.memory(arg);
    return m ? m->md : *pd_md;
}

// The last two dims of a plain md (rows x cols) as a GEMM operand: row-major
// with leading dim ld, or transposed (column-major) with leading dim ld.
struct mat_view_t {
    bool ok = false, trans = false;
    dim_t ld = 0;
};
// want: -1 either orientation (row-major preferred), 0 row-major only,
// 1 transposed only.
mat_view_t view_2d(const memory_desc_t &md, int want = -1);

// Offset of a quantization value (scale, zero point) for the element at
// `pos` of a tensor of dims `dims`: row-major over the dims in `mask`.
inline dim_t quant_off(int mask, int ndims, const dim_t *dims, const dim_t *pos) {
    dim_t off = 0;
    for (int d = 0; d < ndims; ++d)
        if (mask & (1 << d)) off = off * dims[d] + pos[d];
    return off;
}

// Accepts f32 scales without groups on src (mask 0), dst (mask 0) and
// weights (mask made of bits in wei_bits).
bool scales_ok(const attr_t &attr, int wei_bits);

// Scale and zero-point values of one execution. Weights scales: `wei` when
// the mask is 0, else `wei_p` indexed through quant_off with `wei_mask`.
struct scales_t {
    float src = 1.f, wei = 1.f, dst_inv = 1.f;
    const float *wei_p = nullptr;
    int wei_mask = 0;
    // Zero points (int8 matmul): src and dst per tensor or (dst) per N.
    int32_t src_zp = 0;
    const void *dst_zp = nullptr;
    data_type_t dst_zp_dt = dnnl_s32;
    bool dst_zp_per_n = false;
    const void *wei_zp = nullptr;
    data_type_t wei_zp_dt = dnnl_s32;
    int wei_zp_mask = 0;

    status_t init(const attr_t &attr, const exec_ctx_t &ctx);
    bool has_zp() const { return src_zp != 0 || dst_zp || wei_zp; }
    float dst_zp_at(dim_t n) const {
        return dst_zp ? load_f32(dst_zp_dt, dst_zp, dst_zp_per_n ? n : 0) : 0.f;
    }
};

// The output stage as a GEMM epilogue. The GEMM has produced
//   C = alpha * acc + beta * C_old
// with alpha = src * wei scales (when per-tensor) and beta = the sum scale
// when the chain starts with a plain sum (`first_po` then skips it). Per
// tile this applies the weights scales that vary (wei_n, along N with
// stride wei_sn: 1 per N, 0 one value), the bias, the post-ops from
// `first_po`, and 1 / dst scale.
struct out_stage_t : epilogue_t {
    const float *wei_n = nullptr;
    dim_t wei_sn = 0;
    float dst_inv = 1.f;
    const float *bias = nullptr; // f32, at the batch's origin
    dim_t bias_sm = 0, bias_sn = 0; // strides along M and N, 0 if broadcast
    const post_ops::applier_t *ap = nullptr;
    int first_po = 0;
    const scales_t *dst_zp = nullptr; // adds the dst zero point last
    const dropout_t *drop = nullptr; // after the bias, before the post-ops
    int ndims = 2; // of dst; positions are (batch..., m, n)
    dim_t pos[max_ndims] = {};

    // Fills the fields shared by every GEMM of one execution and returns
    // the GEMM's alpha. Per-batch weights scales and the bias are the
    // caller's (they depend on the batch position).
    float init(const scales_t &sc, const post_ops::applier_t &po, int first, int dst_ndims);

    bool trivial() const {
        return !wei_n && dst_inv == 1.f && !bias && !dst_zp && !drop && (!ap || ap->size() <= first_po);
    }
    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, float *c, dim_t ldc) const override;
};

// The bias as f32 for the epilogue: read in place when stored as f32, else
// converted at the start of an execution into a scratchpad buffer of
// bytes() (same layout, offset0 dropped).
struct bias_f32_t {
    const float *base = nullptr;
    dim_t shift = 0;
    static size_t bytes(const memory_desc_t &md) {
        const mdw_t b(md);
        return b.data_type() == dnnl_f32 ? 0 : b.size() / b.dt_size() * sizeof(float);
    }
    // buf: the booked buffer (unused for f32 bias).
    void init(const memory_desc_t &md, const void *bias, float *buf);
    // The element at physical offset `off` (as mdw_t::off_v gives it).
    const float *at(dim_t off) const { return base + (off - shift); }
};

// Decides how the post-op chain's sums are handled on the GEMM path: a
// leading plain sum rides on the GEMM's beta (first_po = 1, beta = its
// scale); no sum leaves both at 0. Returns false for chains the GEMM path
// cannot take (several sums, a sum elsewhere or with a zero point, or a sum
// with weights scales applied after the GEMM).
bool plan_sum(const attr_t &attr, int &first_po, float &beta);

// The reference output stage of one dst element at logical position pos:
// v already holds scales and bias; applies the post-ops (reading the old
// dst value for sum), 1 / dst scale and the dst zero point, then stores
// with dst's rounding and saturation.
inline void ref_store(float v, void *dst, const mdw_t &d, const dim_t *pos,
        const post_ops::applier_t &ap, const scales_t &sc) {
    const dim_t off = d.off_v(pos);
    const float old = ap.empty() ? 0.f : load_f32(d.data_type(), dst, off);
    v = ap.apply(v, old, pos) * sc.dst_inv;
    if (sc.dst_zp) v += sc.dst_zp_at(pos[d.ndims() - 1]);
    store_f32(d.data_type(), dst, off, v);
}

// 2D weights laid out as a GEMM's packed B panels, so that the user's
// reorder packs them once and no execution does (matmul's K x N weights
// with n_dim = 1, inner product's OC x IC with n_dim = 0): the GEMM's N in
// blocks of nr, its K in groups of kg (1 for f32, 4 for int8), element
// (k, n) at
//   (n / nr) * Kg * nr + (k / kg) * nr * kg + (n % nr) * kg + k % kg
// (Kg: K rounded up to kg). It is a oneDNN blocked descriptor with the
// inner block nr on dimension n_dim (then kg on the other when kg > 1), so
// reorders to and from it are plain blocked reorders that keep the padding
// zero.
inline memory_desc_t panels_b_md(const memory_desc_t &w, int n_dim, dim_t nr, dim_t kg) {
    const int k_dim = 1 - n_dim;
    const dim_t kp = rnd_up(w.dims[k_dim], kg);
    memory_desc_t md = w;
    md.format_kind = dnnl_blocked;
    md.offset0 = 0;
    md.padded_dims[k_dim] = kp;
    md.padded_dims[n_dim] = rnd_up(w.dims[n_dim], nr);
    md.padded_offsets[0] = md.padded_offsets[1] = 0;
    auto &b = md.blocking;
    b = {};
    b.strides[k_dim] = nr * kg;
    b.strides[n_dim] = kp * nr;
    b.inner_nblks = 1;
    b.inner_blks[0] = nr;
    b.inner_idxs[0] = n_dim;
    if (kg > 1) {
        b.inner_nblks = 2;
        b.inner_blks[1] = kg;
        b.inner_idxs[1] = k_dim;
    }
    return md;
}

// How a pd's 2D weights (w2d) stand to that layout: not at all, `any`, or
// already in it (a descriptor from an earlier query). The last is reset to
// plain ab so that the problem is planned on plain weights; the pd lays
// them out as panels again once its plan holds (or declines).
enum class panels_b_t { no, any, given };
inline status_t panels_b_request(memory_desc_t &w, bool w2d, int n_dim, dim_t nr, dim_t kg, panels_b_t &r) {
    r = !w2d ? panels_b_t::no : mdw_t(w).is_any() ? panels_b_t::any : panels_b_t::no;
    if (!w2d || r == panels_b_t::any || w.format_kind != dnnl_blocked || !md_equal(w, panels_b_md(w, n_dim, nr, kg)))
        return status::success;
    r = panels_b_t::given;
    return md_set_tag(w, dnnl_ab);
}

// After planning: a pd that lays its weights out as panels (packed) must
// have kept the kernel whose nr it read at the start, and weights given as
// panels (reset to ab by panels_b_request) must be read as panels. Either
// failing is a decline.
inline status_t panels_b_settle(const char *me, panels_b_t req, bool packed, dim_t plan_nr, dim_t nr) {
    if (packed && plan_nr != nr) return decline(me, "kernel changed during creation");
    if (req == panels_b_t::given && !packed)
        return decline(me, "weights in GEMM panels for a problem that reads them plain");
    return status::success;
}

} // namespace gemm
} // namespace kestrel

#endif
