// Quantising reorders driven by the RNN qparams, as oneDNN offers them for
// preparing int8 RNN inputs (see reorder_impls.hpp): f32 data to u8 with
// the data (scale, shift), f32 weights to s8 with the weights scales (5D
// ldigo-like: layer and iteration weights) or the projection scales (4D
// ldio-like). The s8 weights stay plain: the RNN computes the columns'
// compensation itself.
#include <cmath>
#include <cstdint>

#include "cpu/reorder/reorder_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

bool reorder_rnn_quant_t::pd_t::may_accept(const desc_t &, const attr_t *attr) {
    return attr && !attr->rnn_qparams_default();
}

status_t reorder_rnn_quant_t::pd_t::init(dnnl_engine *) {
    if (!may_accept(desc_, &attr_)) return decline(name(), "no rnn qparams");
    if (!attr_.has_default_values(attr_t::skip_rnn_qparams)) return decline(name(), "other attributes");
    const mdw_t s(src_md_), d(dst_md_);
    if (!s.is_blocked() || !d.is_blocked()) return decline(name(), "format kind is not blocked");
    if (src_md_.ndims != dst_md_.ndims) return decline(name(), "ndims differ");
    for (int k = 0; k < src_md_.ndims; ++k)
        if (src_md_.dims[k] != dst_md_.dims[k]) return decline(name(), "dims differ");
    if (s.has_runtime_dims_or_strides() || d.has_runtime_dims_or_strides())
        return decline(name(), "runtime dims or strides");
    if (src_md_.data_type != dnnl_f32) return decline(name(), "source not f32");
    const int nd = dst_md_.ndims;
    if (dst_md_.data_type == dnnl_u8) {
        kind = kind_t::data;
    } else if (dst_md_.data_type == dnnl_s8 && (nd == 5 || nd == 4)) {
        kind = nd == 5 ? kind_t::weights : kind_t::projection;
        const int mask = nd == 5 ? attr_.rnn_weights_mask : attr_.rnn_weights_proj_mask;
        const auto &sc = nd == 5 ? attr_.rnn_weights_scales : attr_.rnn_weights_proj_scales;
        dim_t count = 1;
        for (int k = 0; k < nd; ++k)
            if (mask & (1 << k)) count *= dst_md_.dims[k];
        if (mask >> nd) return status::invalid_arguments;
        if (!sc.empty() && (dim_t)sc.size() != count) return status::invalid_arguments;
    } else {
        return decline(name(), "destination: u8 data, or s8 weights of 4 or 5 dims");
    }
    return status::success;
}

status_t reorder_rnn_quant_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const attr_t &a = *p->attr();
    const float *src = ctx.input<float>(DNNL_ARG_FROM);
    char *dst = ctx.output<char>(DNNL_ARG_TO);
    const memory_desc_t &smd = *p->src_md(), &dmd = *p->dst_md();
    const mdw_t s(smd), d(dmd);
    const int nd = dmd.ndims;
    using kind_t = pd_t::kind_t;
    const bool data = p->kind == kind_t::data, proj = p->kind == kind_t::projection;
    const int mask = data ? 0 : proj ? a.rnn_weights_proj_mask : a.rnn_weights_mask;
    const std::vector<float> &scales = proj ? a.rnn_weights_proj_scales : a.rnn_weights_scales;
    dim_t ms[max_ndims] = {};
    data_movement::mask_strides(mask, nd, dmd.dims, ms);
    const float dscale = a.rnn_data_scale, dshift = a.rnn_data_shift;

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
            dst[doff] = 0;
            return;
        }
        const float f = src[s.off_v(pos)];
        if (data) {
            const float v = std::nearbyint(f * dscale + dshift);
            reinterpret_cast<uint8_t *>(dst)[doff] = !(v > 0.f) ? 0 : v >= 255.f ? 255 : (uint8_t)v;
            return;
        }
        dim_t si = 0;
        for (int k = 0; k < nd; ++k) si += pos[k] * ms[k];
        const float v = std::nearbyint(f * (scales.empty() ? 1.f : scales[si]));
        reinterpret_cast<int8_t *>(dst)[doff] = v != v ? 0 : v <= -128.f ? -128 : v >= 127.f ? 127 : (int8_t)v;
    });
    return status::success;
}

} // namespace kestrel
