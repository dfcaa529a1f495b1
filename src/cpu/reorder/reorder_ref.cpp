#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/reorder/reorder_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

status_t reorder_ref_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(init_common(name()));
    if (!reorder_dts_supported(src_md_.data_type, dst_md_.data_type)) return decline(name(), "data types");
    return status::success;
}

status_t reorder_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const reorder_quant_t &q = p->quant();
    const reorder_quant_args_t qa = reorder_quant_args(q, ctx);
    const auto *src = ctx.input<char>(DNNL_ARG_FROM);
    auto *dst = ctx.output<char>(DNNL_ARG_TO);
    const memory_desc_t &smd = *p->src_md(), &dmd = *p->dst_md();
    const mdw_t s(smd), d(dmd);
    const int nd = dmd.ndims;
    const data_type_t sdt = smd.data_type, ddt = dmd.data_type;
    const bool raw = q.trivial() && sdt == ddt;
    const size_t dsz = d.dt_size();

    dim_t ss_ms[max_ndims], ds_ms[max_ndims], zp_ms[max_ndims];
    data_movement::mask_strides(q.src_scale_mask, nd, dmd.dims, ss_ms);
    data_movement::mask_strides(q.dst_scale_mask, nd, dmd.dims, ds_ms);
    data_movement::mask_strides(q.src_zp_mask, nd, dmd.dims, zp_ms);

    // Walk the padded dst so that its padding comes out as zeros.
    const dim_t total = d.nelems(true);
    parallel_nd(total, [&](dim_t l) {
        dim_t pos[max_ndims] = {};
        bool inside = true;
        for (int k = nd - 1; k >= 0; --k) {
            pos[k] = l % dmd.padded_dims[k];
            l /= dmd.padded_dims[k];
            inside = inside && pos[k] < dmd.dims[k];
        }
        const dim_t doff = d.off_v(pos);
        if (!inside) {
            zero_elem(dsz, dst, doff);
            return;
        }
        const dim_t soff = s.off_v(pos);
        if (raw) {
            copy_elem(dsz, src, soff, dst, doff);
            return;
        }
        reorder_elem_idx_t ei;
        for (int k = 0; k < nd; ++k) {
            ei.src_scale += pos[k] * ss_ms[k];
            ei.dst_scale += pos[k] * ds_ms[k];
            ei.src_zp += pos[k] * zp_ms[k];
        }
        float v = reorder_apply(q, qa, ei, load_f32(sdt, src, soff), ddt, dst, doff);
        store_f32(ddt, dst, doff, v);
    });
    return status::success;
}

} // namespace kestrel
