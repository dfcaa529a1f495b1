// The one list of problems that Kestrel's benchmarks (bench_gemm,
// bench_conv, bench_train) and the anchor program (anchor_onednn: oneDNN 2.x and
// OpenBLAS) run, so bench/compare.sh can put their numbers side by side.
// Plain data, no library header.
#ifndef KESTREL_BENCH_ANCHOR_SHAPES_HPP
#define KESTREL_BENCH_ANCHOR_SHAPES_HPP

#include <cstdio>

namespace bench {

struct sgemm_shape_t {
    long M, N, K;
    char ta, tb;
    const char *id(char *buf, size_t n) const {
        std::snprintf(buf, n, "sgemm_%c%c_%ldx%ldx%ld", ta, tb, M, N, K);
        return buf;
    }
    double flop() const { return 2.0 * M * N * K; }
};

const sgemm_shape_t sgemm_shapes[] = {
        {1024, 1024, 1024, 'N', 'N'},
        {1024, 1024, 1024, 'T', 'T'},
        {128, 128, 128, 'N', 'N'},
        {256, 256, 256, 'N', 'N'},
        {512, 512, 512, 'N', 'N'},
        {2048, 2048, 2048, 'N', 'N'},
        {1, 4096, 1024, 'N', 'N'}, // GEMV-like, one row
        {1, 4096, 4096, 'N', 'N'}, // GEMV, one row
        {4096, 1, 1024, 'N', 'N'}, // GEMV-like, one column
        {4096, 64, 576, 'N', 'N'}, // im2col-like
        {128, 768, 3072, 'N', 'N'}, // f32 row of gemm_u8s8s32_128x768x3072
};

struct matmul_shape_t {
    long B, M, N, K;
    const char *id(char *buf, size_t n) const {
        std::snprintf(buf, n, "matmul_%ldx%ldx%ldx%ld", B, M, N, K);
        return buf;
    }
    double flop() const { return 2.0 * B * M * N * K; }
};

const matmul_shape_t matmul_shapes[] = {
        {1, 512, 512, 512},
        {1, 128, 768, 3072},
        {64, 64, 64, 64},
        {8, 128, 768, 768},
        // Issue 11's GEMV-like, square and BERT-like problems; 2048^3 is
        // the f32 row of issue 12's low-precision matmuls.
        {1, 1, 4096, 4096},
        {1, 1024, 1024, 1024},
        {1, 2048, 2048, 2048},
};

// f32 matmul, 2D, with the weights in format `any`: each library lays them
// out as it prefers (as a framework with constant weights asks; the
// reorder into that layout is not timed). src and dst plain.
struct matmul_wany_shape_t {
    long M, N, K;
    const char *id(char *buf, size_t n) const {
        std::snprintf(buf, n, "matmul_wany_%ldx%ldx%ld", M, N, K);
        return buf;
    }
    double flop() const { return 2.0 * M * N * K; }
};

const matmul_wany_shape_t matmul_wany_shapes[] = {
        {128, 768, 3072},
        {128, 3072, 768},
        {1024, 1024, 1024},
        {2048, 2048, 2048},
};

// Low-precision matmul, 2D, C[M x N] = A[M x K] B[K x N], plain layouts:
// dt "bf16" / "f16" (every tensor of that type), or weights decompression
// "bf16ws8" / "bf16ws4" (bf16 src and dst, s8 / s4 weights, f32 scales per
// N and per group of 128 along K, fpmath bf16 applied to integers; oneDNN
// 2.x has no such attribute, so the anchor runs none of these). The id
// reads matmul_<dt>_MxNxK; its f32 counterpart is matmul_1xMxNxK.
struct lp_matmul_shape_t {
    const char *dt;
    long M, N, K;
    const char *id(char *buf, size_t n) const {
        std::snprintf(buf, n, "matmul_%s_%ldx%ldx%ld", dt, M, N, K);
        return buf;
    }
    double flop() const { return 2.0 * M * N * K; }
};

const long wdec_group = 128;

const lp_matmul_shape_t lp_matmul_shapes[] = {
        {"bf16", 2048, 2048, 2048},
        {"bf16", 128, 768, 3072},
        {"f16", 2048, 2048, 2048},
        {"f16", 128, 768, 3072},
        {"f16", 1, 4096, 4096},
        {"bf16ws8", 1, 4096, 4096},
        {"bf16ws8", 128, 768, 3072},
        {"bf16ws8", 2048, 2048, 2048},
        {"bf16ws4", 1, 4096, 4096},
        {"bf16ws4", 128, 768, 3072},
        {"bf16ws4", 2048, 2048, 2048},
};

// int8: dnnl_gemm_u8s8s32 (row-major, no transposes, zero offsets) and a
// plain u8 x s8 -> s32 matmul, both C[M x N] = A[M x K] B[K x N].
struct int8_shape_t {
    long M, N, K;
    const char *id(char *buf, size_t n, const char *what) const {
        std::snprintf(buf, n, "%s_%ldx%ldx%ld", what, M, N, K);
        return buf;
    }
    double flop() const { return 2.0 * M * N * K; }
};

const int8_shape_t int8_shapes[] = {
        {128, 768, 3072},
        {1024, 1024, 1024},
        {2048, 2048, 2048},
};

enum class layout_t { nchw, nhwc, nChw16c };
inline const char *layout_name(layout_t l) {
    return l == layout_t::nchw ? "nchw" : l == layout_t::nhwc ? "nhwc" : "nChw16c";
}

// Forward-inference 2D convolution, square images and kernels, no bias;
// g > 1 is a grouped convolution (depthwise when g == ic == oc), its id
// carries _g<g> after the image size.
struct conv_shape_t {
    layout_t layout;
    long mb, ic, oc, ih, k, stride, pad;
    long g = 1;
    long oh() const { return (ih - k + 2 * pad) / stride + 1; }
    const char *id(char *buf, size_t n) const {
        char grp[24] = "";
        if (g > 1) std::snprintf(grp, sizeof(grp), "_g%ld", g);
        std::snprintf(buf, n, "conv%ldx%ld_s%ld_%ld-%ld_%ld%s_mb%ld_%s", k, k, stride, ic, oc, ih, grp, mb,
                layout_name(layout));
        return buf;
    }
    double flop() const { return 2.0 * mb * oc * (ic / g) * k * k * oh() * oh(); }
};

const conv_shape_t conv_shapes[] = {
        {layout_t::nChw16c, 2, 64, 64, 56, 3, 1, 1},
        {layout_t::nhwc, 2, 64, 64, 56, 3, 1, 1},
        {layout_t::nchw, 2, 64, 64, 56, 3, 1, 1},
        {layout_t::nChw16c, 2, 256, 64, 56, 1, 1, 0},
        {layout_t::nChw16c, 2, 128, 256, 28, 3, 2, 1},
        // Channels-last as frameworks hand it over (direct:*:nhwc).
        {layout_t::nhwc, 2, 256, 64, 56, 1, 1, 0},
        {layout_t::nhwc, 2, 128, 256, 28, 3, 2, 1},
        {layout_t::nhwc, 2, 3, 64, 224, 7, 2, 3},
        // ResNet-50 (issue 11): conv1 7x7 s2, res2 1x1 reduce and 3x3,
        // res3's first 3x3 s2 (56 -> 28), res4 1x1 reduce, res5 3x3; at
        // minibatch 1 and 16, blocked and channels-last.
        {layout_t::nChw16c, 1, 3, 64, 224, 7, 2, 3},
        {layout_t::nChw16c, 1, 256, 64, 56, 1, 1, 0},
        {layout_t::nChw16c, 1, 64, 64, 56, 3, 1, 1},
        {layout_t::nChw16c, 1, 128, 128, 56, 3, 2, 1},
        {layout_t::nChw16c, 1, 1024, 256, 14, 1, 1, 0},
        {layout_t::nChw16c, 1, 512, 512, 7, 3, 1, 1},
        {layout_t::nhwc, 1, 3, 64, 224, 7, 2, 3},
        {layout_t::nhwc, 1, 256, 64, 56, 1, 1, 0},
        {layout_t::nhwc, 1, 64, 64, 56, 3, 1, 1},
        {layout_t::nhwc, 1, 128, 128, 56, 3, 2, 1},
        {layout_t::nhwc, 1, 1024, 256, 14, 1, 1, 0},
        {layout_t::nhwc, 1, 512, 512, 7, 3, 1, 1},
        {layout_t::nChw16c, 16, 3, 64, 224, 7, 2, 3},
        {layout_t::nChw16c, 16, 256, 64, 56, 1, 1, 0},
        {layout_t::nChw16c, 16, 64, 64, 56, 3, 1, 1},
        {layout_t::nChw16c, 16, 128, 128, 56, 3, 2, 1},
        {layout_t::nChw16c, 16, 1024, 256, 14, 1, 1, 0},
        {layout_t::nChw16c, 16, 512, 512, 7, 3, 1, 1},
        {layout_t::nhwc, 16, 3, 64, 224, 7, 2, 3},
        {layout_t::nhwc, 16, 256, 64, 56, 1, 1, 0},
        {layout_t::nhwc, 16, 64, 64, 56, 3, 1, 1},
        {layout_t::nhwc, 16, 128, 128, 56, 3, 2, 1},
        {layout_t::nhwc, 16, 1024, 256, 14, 1, 1, 0},
        {layout_t::nhwc, 16, 512, 512, 7, 3, 1, 1},
        // MobileNet v1's first depthwise layer (conv_dw_1: 3x3 s1 pad 1,
        // 32 channels at 112x112, groups = channels).
        {layout_t::nChw16c, 1, 32, 32, 112, 3, 1, 1, 32},
        {layout_t::nhwc, 1, 32, 32, 112, 3, 1, 1, 32},
        {layout_t::nChw16c, 16, 32, 32, 112, 3, 1, 1, 32},
        {layout_t::nhwc, 16, 32, 32, 112, 3, 1, 1, 32},
};

// Creation latency (issue 11): primitive_desc + primitive creation of one
// primitive of each kind, in microseconds, with the primitive cache off
// (capacity 0: every creation misses) and on (the same problem again: a
// hit). The ids read create_<miss|hit>_<what>.
enum class create_kind_t { conv, matmul, eltwise, reorder };
struct create_shape_t {
    create_kind_t kind;
    const char *what; // conv: 3x3 64->64 56x56 mb1 nhwc, weights any;
                      // matmul: f32 128x768x3072; eltwise: relu 16x64x56x56
                      // nchw; reorder: nchw -> nChw16c 16x64x56x56
    const char *id(char *buf, size_t n, bool hit) const {
        std::snprintf(buf, n, "create_%s_%s", hit ? "hit" : "miss", what);
        return buf;
    }
};

const create_shape_t create_shapes[] = {
        {create_kind_t::conv, "conv3x3_64-64_56_mb1_nhwc"},
        {create_kind_t::matmul, "matmul_128x768x3072"},
        {create_kind_t::eltwise, "eltwise_relu_16x64x56x56"},
        {create_kind_t::reorder, "reorder_nchw_nChw16c_16x64x56x56"},
};

// Training: 2D convolution backward data ('d') or backward weights ('w',
// no bias), same geometry fields as conv_shape_t, weights `any`.
struct conv_bwd_shape_t {
    char what;
    conv_shape_t c;
    const char *id(char *buf, size_t n) const {
        char fwd[80];
        std::snprintf(buf, n, "bwd_%c_%s", what, c.id(fwd, sizeof(fwd)));
        return buf;
    }
    double flop() const { return c.flop(); }
};

const conv_bwd_shape_t conv_bwd_shapes[] = {
        {'d', {layout_t::nchw, 16, 64, 64, 56, 3, 1, 1}},
        {'w', {layout_t::nchw, 16, 64, 64, 56, 3, 1, 1}},
        {'d', {layout_t::nchw, 16, 256, 64, 56, 1, 1, 0}},
        {'w', {layout_t::nchw, 16, 256, 64, 56, 1, 1, 0}},
        // ResNet-like stride 2 and the other data layouts.
        {'d', {layout_t::nchw, 16, 128, 256, 28, 3, 2, 1}},
        {'w', {layout_t::nchw, 16, 128, 256, 28, 3, 2, 1}},
        {'d', {layout_t::nChw16c, 16, 64, 64, 56, 3, 1, 1}},
        {'w', {layout_t::nChw16c, 16, 64, 64, 56, 3, 1, 1}},
        {'d', {layout_t::nhwc, 16, 256, 64, 56, 1, 1, 0}},
        {'w', {layout_t::nhwc, 16, 256, 64, 56, 1, 1, 0}},
};

// Inner product forward inference, 2D src, no bias: dst[mb, oc].
struct ip_fwd_shape_t {
    long mb, ic, oc;
    const char *id(char *buf, size_t n) const {
        std::snprintf(buf, n, "ip_fwd_mb%ld_%ld-%ld", mb, ic, oc);
        return buf;
    }
    double flop() const { return 2.0 * mb * ic * oc; }
};

const ip_fwd_shape_t ip_fwd_shapes[] = {
        {64, 2048, 1000},
        {256, 1024, 1024}, // f32 row of ip_mb256_1024-1024_u8s8s8
};

// Inner product backward data ('d') / weights ('w'), 2D src, no bias.
struct ip_bwd_shape_t {
    char what;
    long mb, ic, oc;
    const char *id(char *buf, size_t n) const {
        std::snprintf(buf, n, "ip_bwd_%c_mb%ld_%ld-%ld", what, mb, ic, oc);
        return buf;
    }
    double flop() const { return 2.0 * mb * ic * oc; }
};

const ip_bwd_shape_t ip_bwd_shapes[] = {
        {'d', 64, 2048, 1000},
        {'w', 64, 2048, 1000},
        {'d', 256, 1024, 1024},
        {'w', 256, 1024, 1024},
};

// Memory-bound forward problems, rated in GB/s: (bytes of every tensor
// argument read + bytes written) / time, counted the same way on both
// sides. `copy` is a same-layout reorder of the src, the bandwidth the
// others are compared with (compare.sh prints each rate / that of copy).
enum class mem_kind_t {
    copy, relu, gelu_erf, gelu_tanh, pool_max, pool_avg, bnorm_infer, bnorm_train,
    softmax
};

struct mem_shape_t {
    mem_kind_t kind;
    layout_t layout;
    long n, c, h, w; // w == 0: a 2D (n, c) tensor
    int axis;       // softmax only
    const char *id(char *buf, size_t n_) const {
        static const char *const names[] = {"copy", "relu", "gelu_erf", "gelu_tanh", "pool_max3x3s2",
                "pool_avg3x3s2", "bnorm_infer", "bnorm_train", "softmax"};
        if (w == 0)
            std::snprintf(buf, n_, "mem_%s_%ldx%ld_axis%d", names[(int)kind], n, c, axis);
        else
            std::snprintf(buf, n_, "mem_%s_%ldx%ldx%ldx%ld_%s%s", names[(int)kind], n, c, h, w,
                    layout_name(layout), kind == mem_kind_t::softmax ? "_axisC" : "");
        return buf;
    }
};

const mem_shape_t mem_shapes[] = {
        {mem_kind_t::copy, layout_t::nchw, 16, 64, 56, 56, 0},
        {mem_kind_t::relu, layout_t::nchw, 16, 64, 56, 56, 0},
        {mem_kind_t::gelu_erf, layout_t::nchw, 16, 64, 56, 56, 0},
        {mem_kind_t::gelu_tanh, layout_t::nchw, 16, 64, 56, 56, 0},
        {mem_kind_t::pool_max, layout_t::nchw, 16, 64, 112, 112, 0},
        {mem_kind_t::pool_max, layout_t::nhwc, 16, 64, 112, 112, 0},
        {mem_kind_t::pool_max, layout_t::nChw16c, 16, 64, 112, 112, 0},
        {mem_kind_t::pool_avg, layout_t::nchw, 16, 64, 112, 112, 0},
        {mem_kind_t::pool_avg, layout_t::nChw16c, 16, 64, 112, 112, 0},
        {mem_kind_t::bnorm_infer, layout_t::nchw, 16, 64, 56, 56, 0},
        {mem_kind_t::bnorm_infer, layout_t::nChw16c, 16, 64, 56, 56, 0},
        {mem_kind_t::bnorm_train, layout_t::nchw, 16, 64, 56, 56, 0},
        {mem_kind_t::bnorm_train, layout_t::nChw16c, 16, 64, 56, 56, 0},
        {mem_kind_t::softmax, layout_t::nchw, 4096, 1000, 0, 0, 1},
        {mem_kind_t::softmax, layout_t::nchw, 16, 64, 56, 56, 1},
};

} // namespace bench

#endif
