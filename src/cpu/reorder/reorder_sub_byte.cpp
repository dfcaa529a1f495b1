// Reorders from or to s4/u4 (two elements per byte, the lower offset in the
// low nibble): any layout without padding on either side, any other data
// type the reference reads, with the reorder's scales, zero points and sum.
// A dst byte holds two elements, so threads split the dst only along its
// outermost dim when each index of it owns whole bytes; otherwise one
// thread writes everything.
#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/reorder/reorder_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

bool side_ok(data_type_t dt) { return is_sub_byte(dt) || (reorder_dt_supported(dt) && !is_f8(dt)); }

// Rounds to nearest even and saturates to the nibble type's range.
uint8_t to_nibble(data_type_t dt, float v) {
    return dt == dnnl_s4 ? (uint8_t)(saturate_round<int8_t>(v, -8.f, 7.f) & 0xf)
                         : saturate_round<uint8_t>(v, 0.f, 15.f);
}

void store_nibble(uint8_t *p, dim_t i, uint8_t v) {
    uint8_t &b = p[i >> 1];
    b = (i & 1) ? (uint8_t)((b & 0x0f) | (v << 4)) : (uint8_t)((b & 0xf0) | v);
}

// The dst dim with the largest stride when indices along it own disjoint
// whole bytes of a sub-byte dst (even stride and offset0, every other dim
// reaching less than that stride); -1 when there is none.
int split_dim(const memory_desc_t &md) {
    if (!is_sub_byte(md.data_type)) return -1;
    const auto &st = md.blocking.strides;
    int d0 = 0;
    for (int d = 1; d < md.ndims; ++d)
        if (st[d] > st[d0]) d0 = d;
    if (md.dims[d0] < 2 || st[d0] % 2 || md.offset0 % 2) return -1;
    dim_t reach = 1;
    for (int d = 0; d < md.ndims; ++d)
        if (d != d0) reach += (md.dims[d] - 1) * st[d];
    return reach <= st[d0] ? d0 : -1;
}

} // namespace

bool reorder_sub_byte_t::pd_t::may_accept(const desc_t &d, const attr_t *) {
    return is_sub_byte(d.src_md.data_type) || is_sub_byte(d.dst_md.data_type);
}

status_t reorder_sub_byte_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(init_common(name()));
    const data_type_t sdt = src_md_.data_type, ddt = dst_md_.data_type;
    if (!may_accept(desc_, &attr_)) return decline(name(), "no s4/u4 side");
    if (!side_ok(sdt) || !side_ok(ddt)) return decline(name(), "data type");
    if (mdw_t(src_md_).has_padding() || mdw_t(dst_md_).has_padding()) return decline(name(), "padded layout");
    split = split_dim(dst_md_);
    return status::success;
}

status_t reorder_sub_byte_t::execute(const exec_ctx_t &ctx) const {
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
    dim_t ss_ms[max_ndims], ds_ms[max_ndims], zp_ms[max_ndims];
    data_movement::mask_strides(q.src_scale_mask, nd, dmd.dims, ss_ms);
    data_movement::mask_strides(q.dst_scale_mask, nd, dmd.dims, ds_ms);
    data_movement::mask_strides(q.src_zp_mask, nd, dmd.dims, zp_ms);

    auto one = [&](const dim_t *pos) {
        const dim_t soff = s.off_v(pos), doff = d.off_v(pos);
        if (raw) {
            store_nibble(reinterpret_cast<uint8_t *>(dst), doff, (uint8_t)load_u4(src, soff));
            return;
        }
        reorder_elem_idx_t ei;
        for (int k = 0; k < nd; ++k) {
            ei.src_scale += pos[k] * ss_ms[k];
            ei.dst_scale += pos[k] * ds_ms[k];
            ei.src_zp += pos[k] * zp_ms[k];
        }
        const float v = reorder_apply(q, qa, ei, load_f32(sdt, src, soff), ddt, dst, doff);
        if (is_sub_byte(ddt))
            store_nibble(reinterpret_cast<uint8_t *>(dst), doff, to_nibble(ddt, v));
        else
            store_f32(ddt, dst, doff, v);
    };
    // Elements [l0, l1) of the row-major walk over dst's dims.
    auto walk = [&](dim_t l0, dim_t l1) {
        dim_t pos[max_ndims] = {};
        for (dim_t l = l0; l < l1; ++l) {
            dim_t r = l;
            for (int k = nd - 1; k >= 0; --k) {
                pos[k] = r % dmd.dims[k];
                r /= dmd.dims[k];
            }
            one(pos);
        }
    };
    const dim_t total = d.nelems();
    if (!is_sub_byte(ddt)) { // every element its own bytes
        parallel_nd(total, [&](dim_t l) { walk(l, l + 1); });
        return status::success;
    }
    const int d0 = p->split;
    if (d0 < 0) {
        walk(0, total);
        return status::success;
    }
    // One index of dim d0 at a time: the elements of dst's row-major walk
    // with pos[d0] == i are `inner`-long runs, `outer` of them.
    dim_t outer = 1, inner = 1;
    for (int k = 0; k < d0; ++k) outer *= dmd.dims[k];
    for (int k = d0 + 1; k < nd; ++k) inner *= dmd.dims[k];
    const dim_t n0 = dmd.dims[d0];
    parallel_nd(n0, [&](dim_t i) {
        for (dim_t o = 0; o < outer; ++o) {
            const dim_t l0 = (o * n0 + i) * inner;
            walk(l0, l0 + inner);
        }
    });
    return status::success;
}

} // namespace kestrel
