// Naive matmul for the tests: reads a memory whose descriptor is plain
// strided (no inner blocks) into logical row-major values through the
// public descriptor queries only, and multiplies with broadcast batch dims
// in double. Shares no code with src/.
#ifndef KESTREL_TEST_COMMON_NAIVE_GEMM_HPP
#define KESTREL_TEST_COMMON_NAIVE_GEMM_HPP

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "dnnl.h"

namespace na {

inline float decode(dnnl_data_type_t dt, const void *base, int64_t i) {
    switch (dt) {
        case dnnl_f32: return static_cast<const float *>(base)[i];
        case dnnl_s32: return (float)static_cast<const int32_t *>(base)[i];
        case dnnl_s8: return (float)static_cast<const int8_t *>(base)[i];
        case dnnl_u8: return (float)static_cast<const uint8_t *>(base)[i];
        case dnnl_bf16: {
            uint32_t b = (uint32_t)static_cast<const uint16_t *>(base)[i] << 16;
            float f;
            std::memcpy(&f, &b, 4);
            return f;
        }
        case dnnl_f16: {
            const uint16_t h = static_cast<const uint16_t *>(base)[i];
            const int e = (h >> 10) & 31, m = h & 1023;
            const float mag = e == 0 ? std::ldexp((float)m, -24)
                    : e == 31 ? (m ? NAN : INFINITY) : std::ldexp((float)(m + 1024), e - 25);
            return h & 0x8000 ? -mag : mag;
        }
        default: return NAN;
    }
}

// Logical values (row-major over the dims) of memory `data` described by
// `md`, which must be a plain strided layout; false otherwise.
inline bool logical(const_dnnl_memory_desc_t md, const void *data, std::vector<float> &out,
        std::vector<int64_t> *dims_out = nullptr) {
    int nd = 0, nblks = 0;
    dnnl_format_kind_t fk;
    dnnl_data_type_t dt;
    const dnnl_dims_t *dims = nullptr, *strides = nullptr;
    if (dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) != dnnl_success
            || dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk) != dnnl_success
            || dnnl_memory_desc_query(md, dnnl_query_data_type, &dt) != dnnl_success
            || dnnl_memory_desc_query(md, dnnl_query_dims, &dims) != dnnl_success)
        return false;
    if (fk != dnnl_blocked || dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks) != dnnl_success
            || nblks != 0 || dnnl_memory_desc_query(md, dnnl_query_strides, &strides) != dnnl_success)
        return false;
    int64_t n = 1;
    for (int d = 0; d < nd; ++d) n *= (*dims)[d];
    out.assign((size_t)n, 0.f);
    if (dims_out) dims_out->assign(*dims, *dims + nd);
    for (int64_t l = 0; l < n; ++l) {
        int64_t rest = l, off = 0;
        for (int d = nd - 1; d >= 0; --d) {
            off += (rest % (*dims)[d]) * (*strides)[d];
            rest /= (*dims)[d];
        }
        out[(size_t)l] = decode(dt, data, off);
    }
    return true;
}

// dst[b..., m, n] = sum_k (src[b..., m, k] - src_zp) * (wei[b..., k, n] -
// wei_zp[n]) in double; a batch dim of size 1 in src or wei broadcasts.
// abs_sum receives sum_k |src * wei| per element (for error bounds).
inline void matmul(const std::vector<float> &src, const std::vector<int64_t> &sd, const std::vector<float> &wei,
        const std::vector<int64_t> &wd, const std::vector<int64_t> &dd, std::vector<double> &acc,
        std::vector<double> *abs_sum = nullptr, float src_zp = 0.f, const std::vector<float> *wei_zp = nullptr) {
    const int nd = (int)dd.size();
    const int64_t M = dd[nd - 2], N = dd[nd - 1], K = sd[nd - 1];
    int64_t batch = 1;
    for (int d = 0; d < nd - 2; ++d) batch *= dd[d];
    acc.assign((size_t)(batch * M * N), 0.0);
    if (abs_sum) abs_sum->assign(acc.size(), 0.0);
    for (int64_t b = 0; b < batch; ++b) {
        // Offsets of this batch in src and wei (broadcast where dim is 1).
        int64_t rest = b, sb = 0, wb = 0, ss = 1, ws = 1;
        for (int d = nd - 3; d >= 0; --d) {
            const int64_t c = rest % dd[d];
            rest /= dd[d];
            if (sd[d] != 1) sb += c * ss;
            if (wd[d] != 1) wb += c * ws;
            ss *= sd[d];
            ws *= wd[d];
        }
        for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
                double s = 0, a = 0;
                for (int64_t k = 0; k < K; ++k) {
                    const double x = (double)src[(size_t)((sb * M + m) * K + k)] - src_zp;
                    const double w = (double)wei[(size_t)((wb * K + k) * N + n)] - (wei_zp ? (*wei_zp)[(size_t)n] : 0.f);
                    s += x * w;
                    a += std::fabs(x * w);
                }
                acc[(size_t)((b * M + m) * N + n)] = s;
                if (abs_sum) (*abs_sum)[(size_t)((b * M + m) * N + n)] = a;
            }
    }
}

// Bound on an f32 dot product's error: each of the K products and K - 1
// additions rounds once (relative 2^-24), in any order and with or without
// FMA, so the error is at most gamma_K * sum|products| with
// gamma_K = K u / (1 - K u), u = 2^-24 (Higham, Accuracy and Stability of
// Numerical Algorithms, 3.1).
inline std::vector<double> dot_error(const std::vector<double> &abs_sum, int64_t K) {
    const double u = 1.0 / (1 << 24), g = K * u / (1 - K * u);
    std::vector<double> e(abs_sum.size());
    for (size_t i = 0; i < e.size(); ++i) e[i] = g * abs_sum[i];
    return e;
}

} // namespace na

#endif
