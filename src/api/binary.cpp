#include "api/api.hpp"
#include "cpu/eltwise/binary_pd.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/math/eltwise_math.hpp"

using namespace kestrel;

namespace {

// oneDNN's shape rule: every source dim is 1 or dst's, and where src0 is
// broadcast src1 is not.
bool broadcast_ok(const memory_desc_t &dst, const memory_desc_t &src0, const memory_desc_t &src1,
        const memory_desc_t *src2) {
    const int nd = dst.ndims;
    if (src0.ndims != nd || src1.ndims != nd || (src2 && src2->ndims != nd)) return false;
    for (int d = 0; d < nd; ++d) {
        const dim_t n = dst.dims[d];
        if (!one_of(src0.dims[d], (dim_t)1, n) || !one_of(src1.dims[d], (dim_t)1, n)) return false;
        if (src0.dims[d] != n && src1.dims[d] != n) return false;
        if (src2 && !one_of(src2->dims[d], (dim_t)1, n)) return false;
    }
    return true;
}

dnnl_status_t create(dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine,
        dnnl_alg_kind_t alg, const_dnnl_memory_desc_t src0, const_dnnl_memory_desc_t src1,
        const_dnnl_memory_desc_t src2, const_dnnl_memory_desc_t dst,
        const_dnnl_primitive_attr_t attr) {
    const bool select = alg == dnnl_binary_select;
    if (any_null(primitive_desc, engine, src0, src1, dst) || (select && !src2))
        return dnnl_invalid_arguments;
    if (!select && !math::binary_supported(alg)) return dnnl_invalid_arguments;
    if (src0->format_kind == dnnl_format_kind_any) return dnnl_invalid_arguments;
    if (any_runtime(src0, src1, select ? src2 : nullptr, dst)) return dnnl_unimplemented;
    if (!elt::md_usable(*src0) || !elt::md_usable(*src1) || !elt::md_usable(*dst)
            || (select && !elt::md_usable(*src2)))
        return dnnl_invalid_arguments;
    if (!broadcast_ok(*dst, *src0, *src1, select ? src2 : nullptr)) return dnnl_invalid_arguments;
    if (select && src2->data_type != dnnl_s8) return dnnl_invalid_arguments;
    // A valid problem Kestrel does not implement: src0 broadcast into dst.
    if (!elt::same_dims(*src0, *dst)) return dnnl_unimplemented;
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
    if (alg_kind == dnnl_binary_select) return dnnl_invalid_arguments; // needs src2
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
