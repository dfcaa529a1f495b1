#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/reorder/reorder_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

using data_movement::offset_table_t;

struct reorder_generic_t::row_args_t {
    const char *src;
    char *dst;
    dim_t sbase, dbase, n;
    const dim_t *srow, *drow; // offsets along the innermost dim
    const reorder_quant_t *q;
    const reorder_quant_args_t *qa;
    reorder_elem_idx_t ibase, istep; // parameter indices at x = 0, per x
};

namespace {

template <data_type_t dt>
struct storage;
template <> struct storage<dnnl_f32> { using type = float; };
template <> struct storage<dnnl_bf16> { using type = uint16_t; };
template <> struct storage<dnnl_f16> { using type = uint16_t; };
template <> struct storage<dnnl_s32> { using type = int32_t; };
template <> struct storage<dnnl_s8> { using type = int8_t; };
template <> struct storage<dnnl_u8> { using type = uint8_t; };
template <> struct storage<dnnl_f8_e5m2> { using type = uint8_t; };
template <> struct storage<dnnl_f8_e4m3> { using type = uint8_t; };

// One row along the innermost dim. The data types are compile-time
// constants, so load_f32/store_f32 fold to the one conversion needed.
template <data_type_t sdt, data_type_t ddt, bool with_attr>
void row_kernel(const reorder_generic_t::row_args_t &a) {
    using S = typename storage<sdt>::type;
    using D = typename storage<ddt>::type;
    const S *src = reinterpret_cast<const S *>(a.src) + a.sbase;
    D *dst = reinterpret_cast<D *>(a.dst) + a.dbase;
    const dim_t *srow = a.srow, *drow = a.drow;
    if (!with_attr) {
        if (sdt == ddt) {
            for (dim_t x = 0; x < a.n; ++x) dst[drow[x]] = (D)src[srow[x]];
        } else {
            for (dim_t x = 0; x < a.n; ++x) store_f32(ddt, dst, drow[x], load_f32(sdt, src, srow[x]));
        }
        return;
    }
    reorder_elem_idx_t i = a.ibase;
    for (dim_t x = 0; x < a.n; ++x) {
        float v = reorder_apply(*a.q, *a.qa, i, load_f32(sdt, src, srow[x]), ddt, dst, drow[x]);
        store_f32(ddt, dst, drow[x], v);
        i.src_scale += a.istep.src_scale;
        i.dst_scale += a.istep.dst_scale;
        i.src_zp += a.istep.src_zp;
    }
}

template <data_type_t sdt, bool with_attr>
reorder_generic_t::row_fn_t pick_dst(data_type_t ddt) {
    switch (ddt) {
        case dnnl_f32: return row_kernel<sdt, dnnl_f32, with_attr>;
        case dnnl_bf16: return row_kernel<sdt, dnnl_bf16, with_attr>;
        case dnnl_f16: return row_kernel<sdt, dnnl_f16, with_attr>;
        case dnnl_s32: return row_kernel<sdt, dnnl_s32, with_attr>;
        case dnnl_s8: return row_kernel<sdt, dnnl_s8, with_attr>;
        case dnnl_u8: return row_kernel<sdt, dnnl_u8, with_attr>;
        case dnnl_f8_e5m2: return row_kernel<sdt, dnnl_f8_e5m2, with_attr>;
        case dnnl_f8_e4m3: return row_kernel<sdt, dnnl_f8_e4m3, with_attr>;
        default: return nullptr;
    }
}

template <bool with_attr>
reorder_generic_t::row_fn_t pick(data_type_t sdt, data_type_t ddt) {
    switch (sdt) {
        case dnnl_f32: return pick_dst<dnnl_f32, with_attr>(ddt);
        case dnnl_bf16: return pick_dst<dnnl_bf16, with_attr>(ddt);
        case dnnl_f16: return pick_dst<dnnl_f16, with_attr>(ddt);
        case dnnl_s32: return pick_dst<dnnl_s32, with_attr>(ddt);
        case dnnl_s8: return pick_dst<dnnl_s8, with_attr>(ddt);
        case dnnl_u8: return pick_dst<dnnl_u8, with_attr>(ddt);
        case dnnl_f8_e5m2: return pick_dst<dnnl_f8_e5m2, with_attr>(ddt);
        case dnnl_f8_e4m3: return pick_dst<dnnl_f8_e4m3, with_attr>(ddt);
        default: return nullptr;
    }
}

} // namespace

status_t reorder_generic_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(init_common(name()));
    if (!reorder_dts_supported(src_md_.data_type, dst_md_.data_type)) return decline(name(), "data types");
    const int nd = dst_md_.ndims;
    stab.init(src_md_, src_md_.dims);
    dtab.init_padded(dst_md_);
    data_movement::physical_order(dtab, nd, order);
    data_movement::mask_strides(quant_.src_scale_mask, nd, dst_md_.dims, ss_ms);
    data_movement::mask_strides(quant_.dst_scale_mask, nd, dst_md_.dims, ds_ms);
    data_movement::mask_strides(quant_.src_zp_mask, nd, dst_md_.dims, zp_ms);
    return status::success;
}

status_t reorder_generic_t::init() {
    KESTREL_CHECK(primitive_t::init());
    const auto *p = pd();
    const data_type_t sdt = p->src_md()->data_type, ddt = p->dst_md()->data_type;
    row_ = p->quant().trivial() ? pick<false>(sdt, ddt) : pick<true>(sdt, ddt);
    return row_ ? status::success : status::unimplemented;
}

status_t reorder_generic_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const reorder_quant_t &q = p->quant();
    const reorder_quant_args_t qa = reorder_quant_args(q, ctx);
    const auto *src = ctx.input<char>(DNNL_ARG_FROM);
    auto *dst = ctx.output<char>(DNNL_ARG_TO);
    const memory_desc_t &dmd = *p->dst_md();
    const int nd = dmd.ndims;
    const size_t dsz = data_type_size(dmd.data_type);
    const offset_table_t &st = p->stab, &dt = p->dtab;
    const int inner = p->order[nd - 1];
    const dim_t n_inner = dmd.dims[inner], pad_inner = dmd.padded_dims[inner];
    for (int k = 0; k < nd; ++k)
        if (dmd.dims[k] == 0) return status::success;

    dim_t work = 1;
    for (int k = 0; k < nd - 1; ++k) work *= dmd.padded_dims[p->order[k]];
    const dim_t *drow = dt.row(inner), *srow = st.row(inner);

    parallel(nthr_for(work * pad_inner, 4096), [&](int ithr, int nthr) {
        dim_t start, end;
        balance211(work, nthr, ithr, start, end);
        if (start >= end) return;
        // Index over the outer dims, in physical order, of row `start`.
        dim_t pos[max_ndims] = {};
        {
            dim_t r = start;
            for (int k = nd - 2; k >= 0; --k) {
                int d = p->order[k];
                pos[d] = r % dmd.padded_dims[d];
                r /= dmd.padded_dims[d];
            }
        }
        row_args_t a;
        a.src = src;
        a.dst = dst;
        a.n = n_inner;
        a.srow = srow;
        a.drow = drow;
        a.q = &q;
        a.qa = &qa;
        a.istep.src_scale = p->ss_ms[inner];
        a.istep.dst_scale = p->ds_ms[inner];
        a.istep.src_zp = p->zp_ms[inner];
        for (dim_t w = start; w < end; ++w) {
            bool inside = true;
            dim_t dbase = dt.offset0();
            for (int k = 0; k < nd - 1; ++k) {
                int d = p->order[k];
                dbase += dt.at(d, pos[d]);
                inside = inside && pos[d] < dmd.dims[d];
            }
            if (!inside) {
                for (dim_t x = 0; x < pad_inner; ++x) zero_elem(dsz, dst, dbase + drow[x]);
            } else {
                dim_t sbase = st.offset0();
                reorder_elem_idx_t ib;
                for (int k = 0; k < nd - 1; ++k) {
                    int d = p->order[k];
                    sbase += st.at(d, pos[d]);
                    ib.src_scale += pos[d] * p->ss_ms[d];
                    ib.dst_scale += pos[d] * p->ds_ms[d];
                    ib.src_zp += pos[d] * p->zp_ms[d];
                }
                a.sbase = sbase;
                a.dbase = dbase;
                a.ibase = ib;
                row_(a);
                for (dim_t x = n_inner; x < pad_inner; ++x) zero_elem(dsz, dst, dbase + drow[x]);
            }
            for (int k = nd - 2; k >= 0; --k) {
                int d = p->order[k];
                if (++pos[d] < dmd.padded_dims[d]) break;
                pos[d] = 0;
            }
        }
    });
    return status::success;
}

} // namespace kestrel
