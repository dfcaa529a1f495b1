#include "api/api.hpp"
#include "core/verbose.hpp"
#include "core/primitive_desc.hpp"
#include "cpu/reorder/reorder_impls.hpp"

using namespace kestrel;

namespace {

bool is_integral(dnnl_data_type_t dt) {
    return one_of(dt, dnnl_s32, dnnl_s8, dnnl_u8, dnnl_s4, dnnl_u4);
}

bool has_zp(const dnnl_primitive_attr *attr, int arg) {
    return attr && attr->zero_points.get(arg) != nullptr;
}

} // namespace

extern "C" {

dnnl_status_t dnnl_reorder_primitive_desc_create(dnnl_primitive_desc_t *reorder_primitive_desc,
        const_dnnl_memory_desc_t src_desc, dnnl_engine_t src_engine,
        const_dnnl_memory_desc_t dst_desc, dnnl_engine_t dst_engine,
        const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(reorder_primitive_desc, src_desc, src_engine, dst_desc, dst_engine)),
                   dnnl_invalid_arguments, dnnl_reorder, "a required argument is null");
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    return guard([&]() -> dnnl_status_t {
        const mdw_t s(src_desc), d(dst_desc);
        KESTREL_VCHECK(!(s.is_zero() || d.is_zero() || s.is_any() || d.is_any()),
                       dnnl_invalid_arguments, dnnl_reorder,
                       "a descriptor is zero or of format any");
        KESTREL_VCHECK(!(src_desc->ndims != dst_desc->ndims), dnnl_invalid_arguments, dnnl_reorder,
                       "number of dimensions is not valid or differs between tensors");
        for (int k = 0; k < src_desc->ndims; ++k)
            KESTREL_VCHECK(!(src_desc->dims[k] != dst_desc->dims[k]), dnnl_invalid_arguments,
                           dnnl_reorder, "dimensions are inconsistent between tensors");
        KESTREL_VCHECK(!(has_zp(attr, DNNL_ARG_SRC) && !is_integral(src_desc->data_type)),
                       dnnl_invalid_arguments, dnnl_reorder, "src zero point on a non-integer src");
        KESTREL_VCHECK(!(has_zp(attr, DNNL_ARG_DST) && !is_integral(dst_desc->data_type)),
                       dnnl_invalid_arguments, dnnl_reorder, "dst zero point on a non-integer dst");
        if (attr)
            for (const auto &it : attr->scales.items)
                if (!one_of(it.arg, DNNL_ARG_SRC, DNNL_ARG_DST)) return dnnl_unimplemented;
        reorder_desc_t desc;
        desc.src_md = *src_desc;
        desc.dst_md = *dst_desc;
        return create_pd_handle(reorder_primitive_desc, desc, attr, src_engine,
                reorder_impl_list, nullptr);
    });
}

} // extern "C"
