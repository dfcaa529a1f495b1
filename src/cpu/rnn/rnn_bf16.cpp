// bf16 edges of the recurrent primitives (see rnn_bf16.hpp).
#include "cpu/rnn/rnn_bf16.hpp"

#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

bool is_f32(const memory_desc_t &md) {
    return md.data_type == dnnl_f32;
}

dim_t elems(const memory_desc_t &md) {
    dim_t n = 1;
    for (int i = 0; i < md.ndims; ++i) n *= md.dims[i];
    return n;
}

// Widens a dense tensor of n elements (from offset0) to f32.
void widen(const void *src, const memory_desc_t &md, float *dst) {
    const dim_t n = elems(md), chunk = 4096;
    const auto *s = static_cast<const uint16_t *>(src) + md.offset0;
    parallel_nd((n + chunk - 1) / chunk, [&](dim_t b) {
        const dim_t end = std::min(n, (b + 1) * chunk);
        for (dim_t i = b * chunk; i < end; ++i) dst[i] = bf16_to_f32(s[i]);
    });
}

} // namespace

size_t rnn_weights_f32_bytes(const rnn_fwd_pd_t &pd) {
    const memory_desc_t &wl = *pd.weights_md(0), &wi = *pd.weights_md(1);
    if (is_f32(wl)) return 0;
    return (size_t)(elems(wl) + elems(wi)) * sizeof(float);
}

void rnn_weights_f32(const exec_ctx_t &ctx, const rnn_fwd_pd_t &pd, float *buf, const float *&wl,
        const float *&wi) {
    const memory_desc_t &wl_md = *pd.weights_md(0), &wi_md = *pd.weights_md(1);
    if (is_f32(wl_md)) {
        wl = ctx.input<float>(DNNL_ARG_WEIGHTS_LAYER) + wl_md.offset0;
        wi = ctx.input<float>(DNNL_ARG_WEIGHTS_ITER) + wi_md.offset0;
        return;
    }
    widen(ctx.input<void>(DNNL_ARG_WEIGHTS_LAYER), wl_md, buf);
    widen(ctx.input<void>(DNNL_ARG_WEIGHTS_ITER), wi_md, buf + elems(wl_md));
    wl = buf;
    wi = buf + elems(wl_md);
}

void rnn_round_bf16(float *x, dim_t n) {
    for (dim_t i = 0; i < n; ++i) x[i] = bf16_to_f32(f32_to_bf16(x[i]));
}

} // namespace kestrel
