#include "api/api.hpp"
#include "core/verbose.hpp"
#include "cpu/eltwise/binary_pd.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/math/eltwise_math.hpp"

using namespace kestrel;

namespace {

// oneDNN's shape rule: every source has dst's rank and each of its dims is
// 1 or dst's; where src0 is 1 and dst is not, src1 must be dst's (so dst is
// the elementwise max of the two). src2 (select) broadcasts on its own.
// Returns nullptr when the shapes fit, else what breaks the rule (and the
// dim in *dim, -1 for a rank).
const char *broadcast_error(const memory_desc_t &dst, const memory_desc_t &src0,
        const memory_desc_t &src1, const memory_desc_t *src2, int *dim) {
    const int nd = dst.ndims;
    *dim = -1;
    if (src0.ndims != nd) return "src0 rank differs from dst";
    if (src1.ndims != nd) return "src1 rank differs from dst";
    if (src2 && src2->ndims != nd) return "src2 rank differs from dst";
    for (int d = 0; d < nd; ++d) {
        const dim_t n = dst.dims[d];
        *dim = d;
        if (!one_of(src0.dims[d], (dim_t)1, n)) return "src0 dim is neither 1 nor dst's";
        if (!one_of(src1.dims[d], (dim_t)1, n)) return "src1 dim is neither 1 nor dst's";
        if (src0.dims[d] != n && src1.dims[d] != n) return "src0 and src1 both broadcast a dim of dst";
        if (src2 && !one_of(src2->dims[d], (dim_t)1, n)) return "src2 dim is neither 1 nor dst's";
    }
    return nullptr;
}

dnnl_status_t create(dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine,
        dnnl_alg_kind_t alg, const_dnnl_memory_desc_t src0, const_dnnl_memory_desc_t src1,
        const_dnnl_memory_desc_t src2, const_dnnl_memory_desc_t dst,
        const_dnnl_primitive_attr_t attr) {
    const bool select = alg == dnnl_binary_select;
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src0, src1, dst) || (select && !src2)),
                   dnnl_invalid_arguments, dnnl_binary, "a required argument is null");
    KESTREL_VCHECK(!(!select && !math::binary_supported(alg)), dnnl_invalid_arguments, dnnl_binary,
                   "algorithm is not valid for this primitive");
    KESTREL_VCHECK(!(src0->format_kind == dnnl_format_kind_any), dnnl_invalid_arguments,
                   dnnl_binary, "source format must not be any");
    KESTREL_VCHECK(!any_runtime(src0, src1, select ? src2 : nullptr, dst), dnnl_unimplemented,
                   dnnl_binary, "runtime dims or strides are not supported");
    KESTREL_VCHECK(!(!elt::md_usable(*src0) || !elt::md_usable(*src1) || !elt::md_usable(*dst)
                     || (select && !elt::md_usable(*src2))),
                   dnnl_invalid_arguments, dnnl_binary,
                   "a memory descriptor is zero, runtime-sized or of an unusable format");
    int bad_dim = -1;
    const char *bad = broadcast_error(*dst, *src0, *src1, select ? src2 : nullptr, &bad_dim);
    KESTREL_VCHECK(!bad, dnnl_invalid_arguments, dnnl_binary, "shapes do not broadcast: %s (dim %d)",
                   bad, bad_dim);
    KESTREL_VCHECK(!(select && src2->data_type != dnnl_s8), dnnl_invalid_arguments, dnnl_binary,
                   "data type is not valid");
    return guard([&] {
        binary_desc_t d;
        d.alg = alg;
        d.src_md[0] = *src0;
        d.src_md[1] = *src1;
        if (select) d.src_md[2] = *src2;
        d.dst_md = *dst;
        return create_pd_handle(primitive_desc, d, attr, engine, binary_impl_list, nullptr);
    });
}

} // namespace

extern "C" {

dnnl_status_t dnnl_binary_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_alg_kind_t alg_kind, const_dnnl_memory_desc_t src0_desc,
        const_dnnl_memory_desc_t src1_desc, const_dnnl_memory_desc_t dst_desc,
        const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(alg_kind == dnnl_binary_select), dnnl_invalid_arguments, dnnl_binary,
                   "select needs src2 (the v2 call)");
    return create(primitive_desc, engine, alg_kind, src0_desc, src1_desc, nullptr, dst_desc, attr);
}

dnnl_status_t dnnl_binary_primitive_desc_create_v2(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_alg_kind_t alg_kind, const_dnnl_memory_desc_t src0_desc,
        const_dnnl_memory_desc_t src1_desc, const_dnnl_memory_desc_t src2_desc,
        const_dnnl_memory_desc_t dst_desc, const_dnnl_primitive_attr_t attr) {
    return create(primitive_desc, engine, alg_kind, src0_desc, src1_desc, src2_desc, dst_desc,
            attr);
}

} // extern "C"
