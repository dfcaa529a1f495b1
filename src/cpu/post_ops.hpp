// The post-op chain every primitive applies after its main computation:
// eltwise, sum (accumulate into the previous dst value), binary (with a
// second source broadcast onto dst) and prelu (x > 0 ? x : w * x, with w
// broadcast onto dst by a mask). One helper so every primitive accepts
// the same chains and computes them the same way.
//
//   at pd creation:  post_ops::check(attr post-ops, dst md)  -> status
//                    post_ops::resolve_any(post-ops)  (src1 format any -> plain)
//   at execution:    post_ops::applier_t ap(po, dst md, ctx);
//                    v = ap.apply(v, dst_old, pos)              per element
//                    ap.apply_row(vals, dst_old, n, pos)         n values along
//                                                                the innermost dim
#ifndef KESTREL_CPU_POST_OPS_HPP
#define KESTREL_CPU_POST_OPS_HPP

#include "core/attr.hpp"
#include "core/memory_desc.hpp"

namespace kestrel {

class exec_ctx_t;

namespace post_ops {

// Accepts chains of eltwise (algs of math::eltwise_fwd), sum (dt undef or
// equal to dst's) and binary (algs of math::binary_fwd, src1 of dst's rank
// with each dim 1 or equal to dst's; select also with an s8 condition src2,
// DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_2, broadcast the same
// way: v = src2 ? v : src1). Anything else: unimplemented.
// Malformed binary src1 or src2 (rank differs, dims neither 1 nor equal):
// invalid_arguments.
// with_prelu: the primitive also takes prelu entries (weights f32, plain,
// dims of dst where the mask has a bit, 1 elsewhere; not with runtime dims).
status_t check(const post_ops_t &po, const memory_desc_t &dst_md, bool with_prelu = false);

// Gives binary src1 descriptors of format `any` the plain row-major layout.
status_t resolve_any(post_ops_t &po);

// Index of the first sum post-op, -1 when none.
inline int sum_index(const post_ops_t &po) { return po.find(dnnl_sum); }

// Applies a checked chain at execution. Cheap to build (pointers and
// strides only); build one per execution on the stack.
class applier_t {
public:
    // `dst_md` gives the logical dims positions refer to (the memory md at
    // execution when the pd has runtime dims).
    applier_t(const post_ops_t &po, const memory_desc_t &dst_md, const exec_ctx_t &ctx);

    bool empty() const { return n_ == 0; }
    int size() const { return n_; }

    // Post-ops first..end applied to value v of dst element at logical
    // position pos (dst rank); dst_old is the element's value before the
    // primitive ran (used by sum).
    float apply(float v, float dst_old, const dim_t *pos, int first = 0) const;

    // Same for n consecutive elements along the innermost logical dim,
    // vals[j] at position pos with pos[last] + j. dst_old may be nullptr when
    // the chain (from `first`) has no sum.
    void apply_row(float *vals, const float *dst_old, dim_t n, const dim_t *pos,
            int first = 0) const;

    static constexpr int max_entries = 32;

private:
    struct entry_t {
        dnnl_primitive_kind_t kind;
        dnnl_alg_kind_t alg;
        float alpha, beta; // eltwise parameters; sum: alpha = scale, beta = zero point
        const void *src1; // binary
        const memory_desc_t *src1_md;
        data_type_t src1_dt;
        bool src1_plain; // plain layout: offsets by strides
        dim_t wei_strides[max_ndims]; // prelu: row-major weights, 0 on unmasked dims
        bool src1_row_bcast; // one src1 value along the innermost dim
        dim_t src1_last_stride; // stride along the innermost dim (plain src1)
        const void *src2; // binary select: the s8 condition, else nullptr
        const memory_desc_t *src2_md;
    };
    // Offset in a source broadcast onto dst of dst's element at pos.
    dim_t bcast_off(const memory_desc_t *md, const dim_t *pos) const;
    dim_t src1_off(const entry_t &e, const dim_t *pos) const { return bcast_off(e.src1_md, pos); }
    // select: v where the condition is non-zero, else src1.
    float select(const entry_t &e, float v, const dim_t *pos) const;
    float prelu_wei(const entry_t &e, const dim_t *pos) const;

    entry_t e_[max_entries];
    int n_ = 0;
    int ndims_ = 0;
};

} // namespace post_ops
} // namespace kestrel

#endif
