// int8 forward problems that bench_conv (--machine) and the anchor (--conv)
// both run: u8 src, s8 weights in format `any`, one common scale, u8 dst
// for convolution (channels-last data) and s8 dst for inner product.
// Plain data, no library header.
#ifndef KESTREL_BENCH_ANCHOR_INT8_SHAPES_HPP
#define KESTREL_BENCH_ANCHOR_INT8_SHAPES_HPP

#include "anchor_shapes.hpp"

namespace bench {

// Square images and kernels, nhwc data; the id reads like the f32 ones
// with the data types before the layout: u8s8u8 (int8 as above) or bf16
// (bf16 src, weights `any` and dst, no scale).
struct int8_conv_shape_t {
    long mb, ic, oc, ih, k, stride, pad;
    const char *dts = "u8s8u8";
    bool bf16() const { return dts[0] == 'b'; }
    long oh() const { return (ih - k + 2 * pad) / stride + 1; }
    const char *id(char *buf, size_t n) const {
        std::snprintf(buf, n, "conv%ldx%ld_s%ld_%ld-%ld_%ld_mb%ld_%s_nhwc", k, k, stride, ic, oc, ih, mb, dts);
        return buf;
    }
    double flop() const { return 2.0 * mb * oc * ic * k * k * oh() * oh(); }
};

const int8_conv_shape_t int8_conv_shapes[] = {
        {16, 64, 64, 56, 3, 1, 1}, // ResNet-50 stage 1 3x3
        {1, 64, 64, 56, 3, 1, 1},
        {16, 256, 64, 56, 1, 1, 0}, // 1x1 (no im2col)
        // The rest of issue 12's ResNet-50 set (bench/anchor_shapes.hpp).
        {1, 3, 64, 224, 7, 2, 3},
        {1, 256, 64, 56, 1, 1, 0},
        {1, 128, 128, 56, 3, 2, 1},
        {1, 1024, 256, 14, 1, 1, 0},
        {1, 512, 512, 7, 3, 1, 1},
        {16, 3, 64, 224, 7, 2, 3},
        {16, 128, 128, 56, 3, 2, 1},
        {16, 1024, 256, 14, 1, 1, 0},
        {16, 512, 512, 7, 3, 1, 1},
        {1, 3, 64, 224, 7, 2, 3, "bf16"},
        {1, 256, 64, 56, 1, 1, 0, "bf16"},
        {1, 64, 64, 56, 3, 1, 1, "bf16"},
        {1, 128, 128, 56, 3, 2, 1, "bf16"},
        {1, 1024, 256, 14, 1, 1, 0, "bf16"},
        {1, 512, 512, 7, 3, 1, 1, "bf16"},
        {16, 3, 64, 224, 7, 2, 3, "bf16"},
        {16, 256, 64, 56, 1, 1, 0, "bf16"},
        {16, 64, 64, 56, 3, 1, 1, "bf16"},
        {16, 128, 128, 56, 3, 2, 1, "bf16"},
        {16, 1024, 256, 14, 1, 1, 0, "bf16"},
        {16, 512, 512, 7, 3, 1, 1, "bf16"},
};

// 2D src (mb x ic), weights oc x ic.
struct int8_ip_shape_t {
    long mb, ic, oc;
    const char *id(char *buf, size_t n) const {
        std::snprintf(buf, n, "ip_mb%ld_%ld-%ld_u8s8s8", mb, ic, oc);
        return buf;
    }
    double flop() const { return 2.0 * mb * ic * oc; }
};

const int8_ip_shape_t int8_ip_shapes[] = {
        {64, 2048, 1000},
        {256, 1024, 1024},
};

} // namespace bench

#endif
