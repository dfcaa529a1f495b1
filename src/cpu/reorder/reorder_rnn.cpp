// Quantising reorders driven by the RNN qparams, as oneDNN offers them for
// preparing int8 RNN inputs (see reorder_impls.hpp): f32 data to u8 with
// the data (scale, shift), f32 weights to s8 with the weights scales (5D
// ldigo-like: layer and iteration weights) or the projection scales (4D
// ldio-like). The s8 weights stay plain here (the RNN computes the columns'
// compensation itself); reorder:rnn_packed below fills the packed layout
// the int8 RNN offers for weights given as `any`.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cpu/reorder/reorder_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// f32 weights to s8: round half to even, saturate, NaN to 0.
inline int8_t quant_s8(float f, float scale) {
    const float v = std::nearbyint(f * scale);
    return v != v ? 0 : v <= -128.f ? -128 : v >= 127.f ? 127 : (int8_t)v;
}

} // namespace

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
        reinterpret_cast<int8_t *>(dst)[doff] = quant_s8(f, scales.empty() ? 1.f : scales[si]);
    });
    return status::success;
}

bool reorder_rnn_packed_t::pd_t::may_accept(const desc_t &d, const attr_t *) {
    return md_is_rnn_packed(d.dst_md);
}

status_t reorder_rnn_packed_t::pd_t::init(dnnl_engine *) {
    const memory_desc_t &smd = src_md_, &dmd = dst_md_;
    if (!md_is_rnn_packed(dmd)) return decline(name(), "destination not packed RNN weights");
    const mdw_t s(smd);
    if (!s.is_plain() || smd.ndims != 5 || s.has_runtime_dims_or_strides())
        return decline(name(), "source not plain 5D weights");
    for (int k = 0; k < 5; ++k)
        if (smd.dims[k] != dmd.dims[k]) return decline(name(), "dims differ");
    if (smd.data_type == dnnl_s8) {
        // Already quantised: RNN qparams (the ones the RNN is made with,
        // often passed to every reorder) have nothing to scale.
        if (!attr_.has_default_values(attr_t::skip_rnn_qparams)) return decline(name(), "s8 source with attributes");
    } else if (smd.data_type == dnnl_f32) {
        if (!attr_.has_default_values(attr_t::skip_rnn_qparams)) return decline(name(), "other attributes");
        const auto &sc = attr_.rnn_weights_scales;
        const int mask = attr_.rnn_weights_mask;
        if (mask >> 5) return status::invalid_arguments;
        dim_t count = 1;
        for (int k = 0; k < 5; ++k)
            if (mask & (1 << k)) count *= smd.dims[k];
        if (!sc.empty() && (dim_t)sc.size() != count) return status::invalid_arguments;
    } else {
        return decline(name(), "source neither s8 nor f32");
    }
    const kestrel_rnn_packed_desc &p = dmd.rnn_packed;
    if (p.k != smd.dims[2] || p.n != smd.dims[3] * smd.dims[4]) return status::invalid_arguments;
    // The rows the plans are made for only set how many threads pack.
    KESTREL_CHECK(plan.init(256, p.n_first, p.k, false, false, false, false, true));
    size_t bytes = rnd_up(plan.packed_b_bytes(), (size_t)64);
    if (p.n_first < p.n) {
        KESTREL_CHECK(plan2.init(256, p.n - p.n_first, p.k, false, false, false, false, true));
        bytes += rnd_up(plan2.packed_b_bytes(), (size_t)64);
    }
    if (plan.nr() != p.nr || (dim_t)bytes != p.slice_bytes) return decline(name(), "packed for another kernel");
    scratchpad_registry().book(key_slice, (size_t)(p.k * p.n));
    return status::success;
}

status_t reorder_rnn_packed_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const memory_desc_t &smd = *p->src_md(), &dmd = *p->dst_md();
    const char *src = ctx.input<char>(DNNL_ARG_FROM);
    char *dst = ctx.output<char>(DNNL_ARG_TO);
    int8_t *slice = ctx.scratchpad().get<int8_t>(pd_t::key_slice);
    if (!slice) return status::out_of_memory;
    const attr_t &a = *p->attr();
    const bool f32 = smd.data_type == dnnl_f32;
    const dim_t *st = smd.blocking.strides;
    const dim_t L = smd.dims[0], D = smd.dims[1], K = smd.dims[2], G = smd.dims[3], O = smd.dims[4];
    dim_t ms[max_ndims] = {};
    data_movement::mask_strides(a.rnn_weights_mask, 5, smd.dims, ms);
    const float *scales = a.rnn_weights_scales.empty() ? nullptr : a.rnn_weights_scales.data();
    for (dim_t l = 0; l < L; ++l)
        for (dim_t d = 0; d < D; ++d) {
            // The slice as a K x (G * O) row-major s8 matrix.
            parallel_nd(K, [&](dim_t k) {
                int8_t *row = slice + k * G * O;
                const dim_t off0 = smd.offset0 + l * st[0] + d * st[1] + k * st[2];
                if (!f32 && st[4] == 1 && (G == 1 || st[3] == O)) { // an s8 ldigo row as it is
                    std::memcpy(row, src + off0, (size_t)(G * O));
                    return;
                }
                for (dim_t g = 0; g < G; ++g)
                    for (dim_t o = 0; o < O; ++o) {
                        const dim_t off = off0 + g * st[3] + o * st[4];
                        if (!f32) {
                            row[g * O + o] = reinterpret_cast<const int8_t *>(src)[off];
                            continue;
                        }
                        const dim_t si = l * ms[0] + d * ms[1] + k * ms[2] + g * ms[3] + o * ms[4];
                        row[g * O + o] = quant_s8(reinterpret_cast<const float *>(src)[off], scales ? scales[si] : 1.f);
                    }
            });
            char *ds = dst + (l * D + d) * dmd.rnn_packed.slice_bytes;
            const dim_t n1 = dmd.rnn_packed.n_first;
            p->plan.pack_b_all(slice, G * O, ds);
            if (n1 < G * O) p->plan2.pack_b_all(slice + n1, G * O, ds + rnd_up(p->plan.packed_b_bytes(), (size_t)64));
        }
    return status::success;
}

} // namespace kestrel
