// Matmul C entry point: shape validation, then the implementation walk.
#include "api/api.hpp"
#include "core/verbose.hpp"
#include "cpu/gemm/matmul_pd.hpp"

using namespace kestrel;

namespace {

bool rt(dim_t v) { return v == DNNL_RUNTIME_DIM_VAL; }

// The rules of oneDNN's matmul: same rank everywhere; M, N, K agree exactly
// (a runtime dim only matches a runtime dim); a batch dim is either runtime
// in src, weights and dst alike (and in a bias that does not broadcast it)
// or known everywhere with numpy broadcasting of 1s.
status_t check_shapes(const memory_desc_t &s, const memory_desc_t &w, const memory_desc_t *b,
        const memory_desc_t &d) {
    const int nd = d.ndims;
    KESTREL_VCHECK(!(nd < 2 || nd > DNNL_MAX_NDIMS || s.ndims != nd || w.ndims != nd),
                   status::invalid_arguments, dnnl_matmul,
                   "number of dimensions is not valid or differs between tensors");
    const bool with_bias = b && b->ndims != 0;
    KESTREL_VCHECK(!(with_bias && b->ndims != nd), status::invalid_arguments, dnnl_matmul,
                   "number of dimensions is not valid or differs between tensors");
    const int m = nd - 2, n = nd - 1;
    KESTREL_VCHECK(!(s.dims[m] != d.dims[m] || w.dims[n] != d.dims[n] || s.dims[n] != w.dims[m]),
                   status::invalid_arguments, dnnl_matmul,
                   "dimensions are inconsistent between tensors");
    KESTREL_VCHECK(!(with_bias
                     && (!one_of(b->dims[n], (dim_t)1, d.dims[n])
                         || !one_of(b->dims[m], (dim_t)1, d.dims[m]))),
                   status::invalid_arguments, dnnl_matmul,
                   "dimensions are inconsistent between tensors");
    for (int i = 0; i < nd - 2; ++i) {
        const dim_t sd = s.dims[i], wd = w.dims[i], dd = d.dims[i];
        const dim_t bd = with_bias ? b->dims[i] : 1;
        if (rt(sd) || rt(wd) || rt(dd) || rt(bd)) {
            KESTREL_VCHECK(!(!rt(sd) || !rt(wd) || !rt(dd) || (bd != 1 && !rt(bd))),
                           status::invalid_arguments, dnnl_matmul,
                           "dimensions are inconsistent between tensors");
            continue;
        }
        KESTREL_VCHECK(!(!(sd == wd && wd == dd) && sd != 1 && wd != 1), status::invalid_arguments,
                       dnnl_matmul, "dimensions are inconsistent between tensors");
        KESTREL_VCHECK(!((sd == 1 && dd != wd) || (wd == 1 && dd != sd)), status::invalid_arguments,
                       dnnl_matmul, "dimensions are inconsistent between tensors");
        KESTREL_VCHECK(!(bd != 1 && bd != dd), status::invalid_arguments, dnnl_matmul,
                       "dimensions are inconsistent between tensors");
    }
    return status::success;
}

} // namespace

extern "C" {

dnnl_status_t dnnl_matmul_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, const_dnnl_memory_desc_t src_desc,
        const_dnnl_memory_desc_t weights_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_desc, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, weights_desc, dst_desc)),
                   dnnl_invalid_arguments, dnnl_matmul, "a required argument is null");
    return guard([&]() -> dnnl_status_t {
        KESTREL_CHECK(check_shapes(*src_desc, *weights_desc, bias_desc, *dst_desc));
        matmul_desc_t d;
        d.src_md = *src_desc;
        d.weights_md = *weights_desc;
        d.bias_md = bias_desc ? *bias_desc : zero_md();
        d.dst_md = *dst_desc;
        return create_pd_handle(primitive_desc, d, attr, engine, matmul_impl_list, nullptr);
    });
}

} // extern "C"
