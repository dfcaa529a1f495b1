// The anchor: the problems of bench/anchor_shapes.hpp on oneDNN 2.x (the
// distribution's libdnnl.so.2, C++ API of its own headers) and on
// OpenBLAS's cblas_sgemm, timed as Kestrel's benchmarks time them
// (bench/anchor_timing.hpp). Built only when configure finds the anchors,
// never against Kestrel's headers; prints "BENCH <lib> <shape> <GFLOP/s>"
// lines for bench/compare.sh.
//   anchor_onednn [--gemm] [--conv] [--train] [--mem] [--rnn] [--create]   (all when none is given)
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <unordered_map>

#include "anchor_int8_shapes.hpp"
#include "anchor_shapes.hpp"
#include "anchor_timing.hpp"
#include "rnn_shapes.hpp"

#ifdef ANCHOR_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif
#ifdef ANCHOR_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace {

#ifdef ANCHOR_HAVE_ONEDNN
using dnnl::memory;

void onednn_sgemm(const bench::sgemm_shape_t &s) {
    std::vector<float> A(s.M * s.K, 0.5f), B(s.K * s.N, 0.25f), C(s.M * s.N, 0.f);
    const long lda = s.ta == 'N' ? s.K : s.M, ldb = s.tb == 'N' ? s.N : s.K;
    dnnl_status_t st = dnnl_success;
    const double sec = bench::median_seconds([&] {
        st = dnnl_sgemm(s.ta, s.tb, s.M, s.N, s.K, 1.f, A.data(), lda, B.data(), ldb, 0.f,
                C.data(), s.N);
    });
    char id[96];
    if (st == dnnl_success) bench::machine_line("onednn", s.id(id, sizeof(id)), s.flop() / sec * 1e-9);
}

// One f32 matmul of the given descriptors (weights may be `any`: then
// oneDNN's preferred blocked layout), timed under `id`.
void time_matmul(dnnl::engine &eng, dnnl::stream &strm, const memory::desc &sd, const memory::desc &wd,
        const memory::desc &dd, const char *id, double flop) {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(sd, wd, dd), eng);
    dnnl::matmul prim(pd);
    memory ms(pd.src_desc(), eng), mw(pd.weights_desc(), eng), md(pd.dst_desc(), eng);
    std::memset(ms.get_data_handle(), 0, pd.src_desc().get_size());
    std::memset(mw.get_data_handle(), 0, pd.weights_desc().get_size());
    const double sec = bench::median_seconds([&] {
        prim.execute(strm, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}});
        strm.wait();
    });
    bench::machine_line("onednn", id, flop / sec * 1e-9);
}

void onednn_matmul(dnnl::engine &eng, dnnl::stream &strm, const bench::matmul_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    char id[96];
    time_matmul(eng, strm, memory::desc({s.B, s.M, s.K}, dt::f32, tag::abc),
            memory::desc({s.B, s.K, s.N}, dt::f32, tag::abc), memory::desc({s.B, s.M, s.N}, dt::f32, tag::abc),
            s.id(id, sizeof(id)), s.flop());
}

// 2D f32 matmul with weights `any`.
void onednn_matmul_wany(dnnl::engine &eng, dnnl::stream &strm, const bench::matmul_wany_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    char id[96];
    time_matmul(eng, strm, memory::desc({s.M, s.K}, dt::f32, tag::ab), memory::desc({s.K, s.N}, dt::f32, tag::any),
            memory::desc({s.M, s.N}, dt::f32, tag::ab), s.id(id, sizeof(id)), s.flop());
}

void onednn_conv(dnnl::engine &eng, dnnl::stream &strm, const bench::conv_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    const tag data = s.layout == bench::layout_t::nchw ? tag::nchw
            : s.layout == bench::layout_t::nhwc        ? tag::nhwc
                                                       : tag::nChw16c;
    const long oh = s.oh();
    const memory::dims wdims = s.g > 1 ? memory::dims {s.g, s.oc / s.g, s.ic / s.g, s.k, s.k}
                                       : memory::dims {s.oc, s.ic, s.k, s.k};
    memory::desc sd({s.mb, s.ic, s.ih, s.ih}, dt::f32, data), wd(wdims, dt::f32, tag::any),
            dd({s.mb, s.oc, oh, oh}, dt::f32, data);
    dnnl::convolution_forward::desc cd(dnnl::prop_kind::forward_inference,
            dnnl::algorithm::convolution_direct, sd, wd, dd, {s.stride, s.stride}, {s.pad, s.pad},
            {s.pad, s.pad});
    dnnl::convolution_forward::primitive_desc pd(cd, eng);
    dnnl::convolution_forward prim(pd);
    memory ms(sd, eng), mw(pd.weights_desc(), eng), md(dd, eng);
    std::memset(ms.get_data_handle(), 0, sd.get_size());
    std::memset(mw.get_data_handle(), 0, pd.weights_desc().get_size());
    const double sec = bench::median_seconds([&] {
        prim.execute(strm, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}});
        strm.wait();
    });
    char id[96];
    bench::machine_line("onednn", s.id(id, sizeof(id)), s.flop() / sec * 1e-9);
}

void onednn_gemm_u8s8s32(const bench::int8_shape_t &s) {
    std::vector<uint8_t> A(s.M * s.K, 3);
    std::vector<int8_t> B(s.K * s.N, -2);
    std::vector<int32_t> C(s.M * s.N, 0);
    const int32_t co = 0;
    dnnl_status_t st = dnnl_success;
    const double sec = bench::median_seconds([&] {
        st = dnnl_gemm_u8s8s32('N', 'N', 'F', s.M, s.N, s.K, 1.f, A.data(), s.K, 0, B.data(),
                s.N, 0, 0.f, C.data(), s.N, &co);
    });
    char id[96];
    if (st == dnnl_success)
        bench::machine_line("onednn", s.id(id, sizeof(id), "gemm_u8s8s32"), s.flop() / sec * 1e-9);
}

void onednn_int8_matmul(dnnl::engine &eng, dnnl::stream &strm, const bench::int8_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    memory::desc sd({s.M, s.K}, dt::u8, tag::ab), wd({s.K, s.N}, dt::s8, tag::ab),
            dd({s.M, s.N}, dt::s32, tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(sd, wd, dd), eng);
    dnnl::matmul prim(pd);
    memory ms(sd, eng), mw(wd, eng), md(dd, eng);
    for (memory *m : {&ms, &mw, &md}) // same contents as Kestrel's side
        std::memset(m->get_data_handle(), 1, m->get_desc().get_size());
    const double sec = bench::median_seconds([&] {
        prim.execute(strm, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}});
        strm.wait();
    });
    char id[96];
    bench::machine_line("onednn", s.id(id, sizeof(id), "matmul_u8s8s32"), s.flop() / sec * 1e-9);
}

memory zeroed(dnnl::engine &eng, const memory::desc &md) {
    memory m(md, eng);
    std::memset(m.get_data_handle(), 0, md.get_size());
    return m;
}

// Also times the int8 forward problems below.
void time_training(dnnl::stream &strm, dnnl::primitive &prim, std::unordered_map<int, memory> &args,
        const char *id, double flop) {
    const double sec = bench::median_seconds([&] {
        prim.execute(strm, args);
        strm.wait();
    });
    bench::machine_line("onednn", id, flop / sec * 1e-9);
}

// int8 convolution: u8 nhwc, s8 weights `any`, u8 nhwc, one output scale;
// or bf16 nhwc, bf16 weights `any`, bf16 nhwc (zeros), no scale.
void onednn_int8_conv(dnnl::engine &eng, dnnl::stream &strm, const bench::int8_conv_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    const long oh = s.oh();
    const bool bf16 = s.bf16();
    memory::desc sd({s.mb, s.ic, s.ih, s.ih}, bf16 ? dt::bf16 : dt::u8, tag::nhwc),
            wd({s.oc, s.ic, s.k, s.k}, bf16 ? dt::bf16 : dt::s8, tag::any),
            dd({s.mb, s.oc, oh, oh}, bf16 ? dt::bf16 : dt::u8, tag::nhwc);
    dnnl::convolution_forward::desc cd(dnnl::prop_kind::forward_inference,
            dnnl::algorithm::convolution_direct, sd, wd, dd, {s.stride, s.stride}, {s.pad, s.pad},
            {s.pad, s.pad});
    dnnl::primitive_attr attr;
    if (!bf16) attr.set_output_scales(0, {0.01f});
    dnnl::convolution_forward::primitive_desc pd(cd, attr, eng);
    dnnl::primitive prim = dnnl::convolution_forward(pd);
    memory ms(sd, eng), mw(pd.weights_desc(), eng), md(dd, eng);
    std::memset(ms.get_data_handle(), bf16 ? 0 : 1, sd.get_size());
    std::memset(mw.get_data_handle(), bf16 ? 0 : 1, pd.weights_desc().get_size());
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    char id[96];
    time_training(strm, prim, args, s.id(id, sizeof(id)), s.flop());
}

// int8 inner product: u8 ab, s8 weights `any`, s8 ab, one output scale.
void onednn_int8_ip(dnnl::engine &eng, dnnl::stream &strm, const bench::int8_ip_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    memory::desc sd({s.mb, s.ic}, dt::u8, tag::ab), wd({s.oc, s.ic}, dt::s8, tag::any),
            dd({s.mb, s.oc}, dt::s8, tag::ab);
    dnnl::inner_product_forward::desc ipd(dnnl::prop_kind::forward_inference, sd, wd, dd);
    dnnl::primitive_attr attr;
    attr.set_output_scales(0, {0.01f});
    dnnl::inner_product_forward::primitive_desc pd(ipd, attr, eng);
    dnnl::primitive prim = dnnl::inner_product_forward(pd);
    memory ms(sd, eng), mw(pd.weights_desc(), eng), md(dd, eng);
    std::memset(ms.get_data_handle(), 1, sd.get_size());
    std::memset(mw.get_data_handle(), 1, pd.weights_desc().get_size());
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    char id[96];
    time_training(strm, prim, args, s.id(id, sizeof(id)), s.flop());
}

// Backward data / weights of a convolution, weights `any`, hint the forward.
void onednn_conv_bwd(dnnl::engine &eng, dnnl::stream &strm, const bench::conv_bwd_shape_t &b) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    const bench::conv_shape_t &s = b.c;
    const tag data = s.layout == bench::layout_t::nchw ? tag::nchw
            : s.layout == bench::layout_t::nhwc        ? tag::nhwc
                                                       : tag::nChw16c;
    const long oh = s.oh();
    memory::desc sd({s.mb, s.ic, s.ih, s.ih}, dt::f32, data),
            wd({s.oc, s.ic, s.k, s.k}, dt::f32, tag::any), dd({s.mb, s.oc, oh, oh}, dt::f32, data);
    const memory::dims st = {s.stride, s.stride}, pad = {s.pad, s.pad};
    dnnl::convolution_forward::desc fd(dnnl::prop_kind::forward_training,
            dnnl::algorithm::convolution_direct, sd, wd, dd, st, pad, pad);
    dnnl::convolution_forward::primitive_desc fpd(fd, eng);
    std::unordered_map<int, memory> args;
    dnnl::primitive prim;
    auto mem = [&](int arg, const memory::desc &md) { args[arg] = zeroed(eng, md); };
    if (b.what == 'd') {
        dnnl::convolution_backward_data::desc bd(dnnl::algorithm::convolution_direct, sd, wd, dd, st, pad, pad);
        dnnl::convolution_backward_data::primitive_desc pd(bd, eng, fpd);
        mem(DNNL_ARG_DIFF_DST, pd.diff_dst_desc());
        mem(DNNL_ARG_WEIGHTS, pd.weights_desc());
        mem(DNNL_ARG_DIFF_SRC, pd.diff_src_desc());
        prim = dnnl::convolution_backward_data(pd);
    } else {
        dnnl::convolution_backward_weights::desc bw(dnnl::algorithm::convolution_direct, sd, wd, dd, st, pad, pad);
        dnnl::convolution_backward_weights::primitive_desc pd(bw, eng, fpd);
        mem(DNNL_ARG_SRC, pd.src_desc());
        mem(DNNL_ARG_DIFF_DST, pd.diff_dst_desc());
        mem(DNNL_ARG_DIFF_WEIGHTS, pd.diff_weights_desc());
        prim = dnnl::convolution_backward_weights(pd);
    }
    char id[128];
    time_training(strm, prim, args, b.id(id, sizeof(id)), b.flop());
}

void onednn_ip_bwd(dnnl::engine &eng, dnnl::stream &strm, const bench::ip_bwd_shape_t &b) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    memory::desc sd({b.mb, b.ic}, dt::f32, tag::nc), wd({b.oc, b.ic}, dt::f32, tag::any),
            dd({b.mb, b.oc}, dt::f32, tag::nc);
    dnnl::inner_product_forward::desc fd(dnnl::prop_kind::forward_training, sd, wd, dd);
    dnnl::inner_product_forward::primitive_desc fpd(fd, eng);
    std::unordered_map<int, memory> args;
    dnnl::primitive prim;
    auto mem = [&](int arg, const memory::desc &md) { args[arg] = zeroed(eng, md); };
    if (b.what == 'd') {
        dnnl::inner_product_backward_data::desc bd(sd, wd, dd);
        dnnl::inner_product_backward_data::primitive_desc pd(bd, eng, fpd);
        mem(DNNL_ARG_DIFF_DST, pd.diff_dst_desc());
        mem(DNNL_ARG_WEIGHTS, pd.weights_desc());
        mem(DNNL_ARG_DIFF_SRC, pd.diff_src_desc());
        prim = dnnl::inner_product_backward_data(pd);
    } else {
        dnnl::inner_product_backward_weights::desc bw(sd, wd, dd);
        dnnl::inner_product_backward_weights::primitive_desc pd(bw, eng, fpd);
        mem(DNNL_ARG_SRC, pd.src_desc());
        mem(DNNL_ARG_DIFF_DST, pd.diff_dst_desc());
        mem(DNNL_ARG_DIFF_WEIGHTS, pd.diff_weights_desc());
        prim = dnnl::inner_product_backward_weights(pd);
    }
    char id[128];
    time_training(strm, prim, args, b.id(id, sizeof(id)), b.flop());
}

// Inner product forward inference with weights `any` (oneDNN's preferred
// blocked layout), no bias.
void onednn_ip_fwd(dnnl::engine &eng, dnnl::stream &strm, const bench::ip_fwd_shape_t &b) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    memory::desc sd({b.mb, b.ic}, dt::f32, tag::nc), wd({b.oc, b.ic}, dt::f32, tag::any),
            dd({b.mb, b.oc}, dt::f32, tag::nc);
    dnnl::inner_product_forward::desc fd(dnnl::prop_kind::forward_inference, sd, wd, dd);
    dnnl::inner_product_forward::primitive_desc pd(fd, eng);
    std::unordered_map<int, memory> args;
    args[DNNL_ARG_SRC] = zeroed(eng, pd.src_desc());
    args[DNNL_ARG_WEIGHTS] = zeroed(eng, pd.weights_desc());
    args[DNNL_ARG_DST] = zeroed(eng, pd.dst_desc());
    dnnl::primitive prim = dnnl::inner_product_forward(pd);
    char id[128];
    time_training(strm, prim, args, b.id(id, sizeof(id)), b.flop());
}

// A memory-bound problem of bench::mem_shapes; the rate counts every
// tensor argument of the primitive once (GB/s in the GFLOP/s column).
void onednn_mem(dnnl::engine &eng, dnnl::stream &strm, const bench::mem_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    using pk = dnnl::prop_kind;
    const tag data = s.w == 0                      ? tag::nc
            : s.layout == bench::layout_t::nchw ? tag::nchw
            : s.layout == bench::layout_t::nhwc ? tag::nhwc
                                                : tag::nChw16c;
    const memory::dims dims = s.w == 0 ? memory::dims {s.n, s.c} : memory::dims {s.n, s.c, s.h, s.w};
    const memory::desc sd(dims, dt::f32, data);
    std::unordered_map<int, memory> args;
    dnnl::primitive prim;
    memory::desc dd = sd;
    using K = bench::mem_kind_t;
    switch (s.kind) {
        case K::copy: {
            dnnl::reorder::primitive_desc pd(eng, sd, eng, sd);
            prim = dnnl::reorder(pd);
            break;
        }
        case K::relu:
        case K::gelu_erf:
        case K::gelu_tanh: {
            const auto alg = s.kind == K::relu ? dnnl::algorithm::eltwise_relu
                    : s.kind == K::gelu_erf    ? dnnl::algorithm::eltwise_gelu_erf
                                               : dnnl::algorithm::eltwise_gelu_tanh;
            dnnl::eltwise_forward::primitive_desc pd(
                    dnnl::eltwise_forward::desc(pk::forward_inference, alg, sd, 0.f, 0.f), eng);
            prim = dnnl::eltwise_forward(pd);
            break;
        }
        case K::pool_max:
        case K::pool_avg: {
            dd = memory::desc({s.n, s.c, (s.h - 1) / 2 + 1, (s.w - 1) / 2 + 1}, dt::f32, data);
            const auto alg = s.kind == K::pool_max ? dnnl::algorithm::pooling_max
                                                   : dnnl::algorithm::pooling_avg_exclude_padding;
            dnnl::pooling_forward::primitive_desc pd(dnnl::pooling_forward::desc(pk::forward_inference,
                                                             alg, sd, dd, {2, 2}, {3, 3}, {1, 1}, {1, 1}),
                    eng);
            prim = dnnl::pooling_forward(pd);
            break;
        }
        case K::bnorm_infer:
        case K::bnorm_train: {
            const bool train = s.kind == K::bnorm_train;
            const auto flags = (train ? dnnl::normalization_flags::none
                                      : dnnl::normalization_flags::use_global_stats)
                    | dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
            dnnl::batch_normalization_forward::primitive_desc pd(
                    dnnl::batch_normalization_forward::desc(
                            train ? pk::forward_training : pk::forward_inference, sd, 1e-5f, flags),
                    eng);
            const memory::desc cd({s.c}, dt::f32, tag::a);
            args[DNNL_ARG_MEAN] = zeroed(eng, cd);
            args[DNNL_ARG_VARIANCE] = zeroed(eng, cd);
            args[DNNL_ARG_SCALE] = zeroed(eng, cd);
            args[DNNL_ARG_SHIFT] = zeroed(eng, cd);
            prim = dnnl::batch_normalization_forward(pd);
            break;
        }
        case K::softmax: {
            dnnl::softmax_forward::primitive_desc pd(
                    dnnl::softmax_forward::desc(pk::forward_inference, sd, s.axis), eng);
            prim = dnnl::softmax_forward(pd);
            break;
        }
    }
    args[DNNL_ARG_SRC] = zeroed(eng, sd);
    args[DNNL_ARG_DST] = zeroed(eng, dd);
    double bytes = 0;
    for (const auto &a : args) bytes += (double)a.second.get_desc().get_size();
    char id[128];
    time_training(strm, prim, args, s.id(id, sizeof(id)), bytes);
}
// Low-precision matmul (bench::lp_matmul_shapes): bf16 or f16 throughout,
// plain 2D layouts, zeros. Weights decompression (grouped scales, fpmath
// applied to integers) is not in oneDNN 2.x's API: those are refused.
void onednn_lp_matmul(dnnl::engine &eng, dnnl::stream &strm, const bench::lp_matmul_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    char id[96];
    s.id(id, sizeof(id));
    if (std::strcmp(s.dt, "bf16") && std::strcmp(s.dt, "f16"))
        return bench::refusal_line("onednn", id, "no_weights_decompression_in_the_v2_api");
    const dt t = !std::strcmp(s.dt, "f16") ? dt::f16 : dt::bf16;
    memory::desc sd({s.M, s.K}, t, tag::ab), wd({s.K, s.N}, t, tag::ab), dd({s.M, s.N}, t, tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(sd, wd, dd), eng);
    dnnl::primitive prim = dnnl::matmul(pd);
    std::unordered_map<int, memory> args = {
            {DNNL_ARG_SRC, zeroed(eng, sd)}, {DNNL_ARG_WEIGHTS, zeroed(eng, wd)}, {DNNL_ARG_DST, zeroed(eng, dd)}};
    time_training(strm, prim, args, id, s.flop());
}

// Creation latency (bench::create_shapes): primitive_desc + primitive,
// median microseconds; a miss with the primitive cache at capacity 0, a
// hit with the default capacity and the same problem created before.
void onednn_create(dnnl::engine &eng, const bench::create_shape_t &c, bool hit) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    using K = bench::create_kind_t;
    auto create = [&] {
        switch (c.kind) {
            case K::conv: {
                memory::desc sd({1, 64, 56, 56}, dt::f32, tag::nhwc), wd({64, 64, 3, 3}, dt::f32, tag::any),
                        dd({1, 64, 56, 56}, dt::f32, tag::nhwc);
                dnnl::convolution_forward::primitive_desc pd(
                        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                dnnl::algorithm::convolution_direct, sd, wd, dd, {1, 1}, {1, 1}, {1, 1}),
                        eng);
                dnnl::convolution_forward p(pd);
                break;
            }
            case K::matmul: {
                memory::desc sd({128, 3072}, dt::f32, tag::ab), wd({3072, 768}, dt::f32, tag::ab),
                        dd({128, 768}, dt::f32, tag::ab);
                dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(sd, wd, dd), eng);
                dnnl::matmul p(pd);
                break;
            }
            case K::eltwise: {
                memory::desc sd({16, 64, 56, 56}, dt::f32, tag::nchw);
                dnnl::eltwise_forward::primitive_desc pd(
                        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference,
                                dnnl::algorithm::eltwise_relu, sd, 0.f, 0.f),
                        eng);
                dnnl::eltwise_forward p(pd);
                break;
            }
            case K::reorder: {
                memory::desc sd({16, 64, 56, 56}, dt::f32, tag::nchw), dd({16, 64, 56, 56}, dt::f32, tag::nChw16c);
                dnnl::reorder::primitive_desc pd(eng, sd, eng, dd);
                dnnl::reorder p(pd);
                break;
            }
        }
    };
    const int capacity = dnnl::get_primitive_cache_capacity();
    if (!hit) dnnl::set_primitive_cache_capacity(0);
    const double sec = bench::median_seconds(create, 20, 0.1);
    dnnl::set_primitive_cache_capacity(capacity);
    char id[96];
    // The value column holds microseconds here.
    bench::machine_line("onednn", c.id(id, sizeof(id), hit), sec * 1e6);
}
#endif

#ifdef ANCHOR_HAVE_OPENBLAS
void openblas_sgemm(long batch, long M, long N, long K, char ta, char tb, const char *id, double flop) {
    std::vector<float> A(batch * M * K, 0.5f), B(batch * K * N, 0.25f), C(batch * M * N, 0.f);
    const long lda = ta == 'N' ? K : M, ldb = tb == 'N' ? N : K;
    const double sec = bench::median_seconds([&] {
        for (long b = 0; b < batch; ++b)
            cblas_sgemm(CblasRowMajor, ta == 'N' ? CblasNoTrans : CblasTrans,
                    tb == 'N' ? CblasNoTrans : CblasTrans, M, N, K, 1.f, A.data() + b * M * K, lda,
                    B.data() + b * K * N, ldb, 0.f, C.data() + b * M * N, N);
    });
    bench::machine_line("openblas", id, flop / sec * 1e-9);
}
#endif

#ifdef ANCHOR_HAVE_ONEDNN
// LSTM inference as bench/bench_rnn times it: weights `any` (oneDNN packs
// them; the reorder from ldigo runs once, outside the timing), data tnc,
// every buffer holding 0.01.
void onednn_lstm(dnnl::engine &eng, dnnl::stream &strm, const bench::rnn_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    const memory::dim L = s.L, T = s.T, N = s.N, C = s.C;
    memory::desc src({T, N, C}, dt::f32, tag::tnc), dst({T, N, C}, dt::f32, tag::tnc),
            b({L, 1, 4, C}, dt::f32, tag::ldgo), w_user({L, 1, C, 4, C}, dt::f32, tag::ldigo),
            w_any({L, 1, C, 4, C}, dt::f32, tag::any);
    dnnl::lstm_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::rnn_direction::unidirectional_left2right,
            src, memory::desc(), memory::desc(), w_any, w_any, b, dst, memory::desc(), memory::desc());
    dnnl::lstm_forward::primitive_desc pd(d, eng);
    auto filled = [&](const memory::desc &md) {
        memory m(md, eng);
        float *p = static_cast<float *>(m.get_data_handle());
        for (size_t i = 0; i < md.get_size() / sizeof(float); ++i) p[i] = 0.01f;
        return m;
    };
    memory ms = filled(src), mb = filled(b), md = filled(dst), wu = filled(w_user);
    memory wl(pd.weights_layer_desc(), eng), wi(pd.weights_iter_desc(), eng);
    dnnl::reorder(wu, wl).execute(strm, wu, wl);
    dnnl::reorder(wu, wi).execute(strm, wu, wi);
    strm.wait();
    dnnl::lstm_forward prim(pd);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC_LAYER, ms}, {DNNL_ARG_WEIGHTS_LAYER, wl},
            {DNNL_ARG_WEIGHTS_ITER, wi}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST_LAYER, md}};
    char id[96];
    time_training(strm, prim, args, s.id(id, sizeof(id)), s.flop());
}

// int8 LSTM inference as bench/bench_rnn times it: u8 data 129 (tnc), s8
// weights `any` (quantised once, outside the timing, by a reorder from
// f32 ldigo 1/127, so s8 1 as Kestrel's),
// bias 0.01, data qparams (64, 128), one weights scale 127.
void onednn_lstm_int8(dnnl::engine &eng, dnnl::stream &strm, const bench::lstm_int8_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    const memory::dim L = s.L, T = s.T, N = s.N, C = s.C;
    memory::desc src({T, N, C}, dt::u8, tag::tnc), dst({T, N, C}, dt::u8, tag::tnc),
            b({L, 1, 4, C}, dt::f32, tag::ldgo), w_user({L, 1, C, 4, C}, dt::f32, tag::ldigo),
            w_any({L, 1, C, 4, C}, dt::s8, tag::any);
    dnnl::primitive_attr attr;
    attr.set_rnn_data_qparams(64.f, 128.f);
    attr.set_rnn_weights_qparams(0, {127.f});
    dnnl::lstm_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::rnn_direction::unidirectional_left2right,
            src, memory::desc(), memory::desc(), w_any, w_any, b, dst, memory::desc(), memory::desc());
    dnnl::lstm_forward::primitive_desc pd(d, attr, eng);
    memory ms(src, eng), mb(b, eng), md(dst, eng), wu(w_user, eng);
    std::memset(ms.get_data_handle(), 129, src.get_size());
    float *pw = static_cast<float *>(wu.get_data_handle());
    for (size_t i = 0; i < w_user.get_size() / sizeof(float); ++i) pw[i] = 1.f / 127.f;
    float *pb = static_cast<float *>(mb.get_data_handle());
    for (size_t i = 0; i < b.get_size() / sizeof(float); ++i) pb[i] = 0.01f;
    memory wl(pd.weights_layer_desc(), eng), wi(pd.weights_iter_desc(), eng);
    dnnl::reorder(wu, wl, attr).execute(strm, wu, wl);
    dnnl::reorder(wu, wi, attr).execute(strm, wu, wi);
    strm.wait();
    dnnl::lstm_forward prim(pd);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC_LAYER, ms}, {DNNL_ARG_WEIGHTS_LAYER, wl},
            {DNNL_ARG_WEIGHTS_ITER, wi}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST_LAYER, md}};
    char id[96];
    time_training(strm, prim, args, s.id(id, sizeof(id)), s.flop());
}

// A GRU training step as bench/bench_rnn times it: forward training then
// backward, weights `any` (reordered from ldigo once, outside the timing).
void onednn_gru_train(dnnl::engine &eng, dnnl::stream &strm, const bench::gru_train_shape_t &s) {
    using tag = memory::format_tag;
    using dt = memory::data_type;
    const memory::dim L = s.L, T = s.T, N = s.N, C = s.C;
    memory::desc src({T, N, C}, dt::f32, tag::tnc), dst({T, N, C}, dt::f32, tag::tnc),
            b({L, 1, 3, C}, dt::f32, tag::ldgo), w_user({L, 1, C, 3, C}, dt::f32, tag::ldigo),
            w_any({L, 1, C, 3, C}, dt::f32, tag::any);
    const auto dir = dnnl::rnn_direction::unidirectional_left2right;
    dnnl::gru_forward::desc fd(dnnl::prop_kind::forward_training, dir, src, memory::desc(), w_any, w_any, b, dst,
            memory::desc());
    dnnl::gru_forward::primitive_desc fpd(fd, eng);
    dnnl::gru_backward::desc bd(dnnl::prop_kind::backward, dir, src, memory::desc(), w_any, w_any, b, dst,
            memory::desc(), src, memory::desc(), w_any, w_any, b, dst, memory::desc());
    dnnl::gru_backward::primitive_desc bpd(bd, eng, fpd);
    auto filled = [&](const memory::desc &md) {
        memory m(md, eng);
        float *p = static_cast<float *>(m.get_data_handle());
        for (size_t i = 0; i < md.get_size() / sizeof(float); ++i) p[i] = 0.01f;
        return m;
    };
    memory ms = filled(src), mb = filled(b), md = filled(dst), wu = filled(w_user), ws(fpd.workspace_desc(), eng);
    memory wl(fpd.weights_layer_desc(), eng), wi(fpd.weights_iter_desc(), eng);
    memory bwl(bpd.weights_layer_desc(), eng), bwi(bpd.weights_iter_desc(), eng);
    for (memory *m : {&wl, &wi, &bwl, &bwi}) dnnl::reorder(wu, *m).execute(strm, wu, *m);
    memory ddst = filled(dst), dsrc(src, eng), db = filled(b);
    memory dwl = filled(bpd.diff_weights_layer_desc()), dwi = filled(bpd.diff_weights_iter_desc());
    strm.wait();
    dnnl::gru_forward fp(fpd);
    dnnl::gru_backward bp(bpd);
    std::unordered_map<int, memory> fa = {{DNNL_ARG_SRC_LAYER, ms}, {DNNL_ARG_WEIGHTS_LAYER, wl},
            {DNNL_ARG_WEIGHTS_ITER, wi}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST_LAYER, md}, {DNNL_ARG_WORKSPACE, ws}};
    std::unordered_map<int, memory> ba = {{DNNL_ARG_SRC_LAYER, ms}, {DNNL_ARG_WEIGHTS_LAYER, bwl},
            {DNNL_ARG_WEIGHTS_ITER, bwi}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST_LAYER, md}, {DNNL_ARG_WORKSPACE, ws},
            {DNNL_ARG_DIFF_DST_LAYER, ddst}, {DNNL_ARG_DIFF_SRC_LAYER, dsrc}, {DNNL_ARG_DIFF_WEIGHTS_LAYER, dwl},
            {DNNL_ARG_DIFF_WEIGHTS_ITER, dwi}, {DNNL_ARG_DIFF_BIAS, db}};
    const double sec = bench::median_seconds([&] {
        fp.execute(strm, fa);
        bp.execute(strm, ba);
        strm.wait();
    });
    char id[96];
    bench::machine_line("onednn", s.id(id, sizeof(id)), s.flop() / sec * 1e-9);
}
#endif

} // namespace

// Runs one problem; a problem oneDNN refuses (or fails) prints a
// REFUSED line and the others go on.
template <typename F>
void guarded(const char *id, F f) {
    if (!bench::selected(id)) return;
#ifdef ANCHOR_HAVE_ONEDNN
    try {
        f();
    } catch (const dnnl::error &e) {
        static const char *const names[] = {"success", "out_of_memory", "invalid_arguments", "unimplemented",
                "iterator_ends", "runtime_error", "not_required"};
        const int st = (int)e.status;
        char why[64];
        if (st >= 0 && st < (int)(sizeof(names) / sizeof(names[0])))
            std::snprintf(why, sizeof(why), "%s", names[st]);
        else
            std::snprintf(why, sizeof(why), "status_%d", st);
        bench::refusal_line("onednn", id, why);
    }
#else
    f();
#endif
}

int main(int argc, char **argv) {
    bool gemm = false, conv = false, train = false, mem = false, rnn = false, create = false;
    for (int i = 1; i < argc; ++i) {
        gemm = gemm || !std::strcmp(argv[i], "--gemm");
        conv = conv || !std::strcmp(argv[i], "--conv");
        train = train || !std::strcmp(argv[i], "--train");
        mem = mem || !std::strcmp(argv[i], "--mem");
        rnn = rnn || !std::strcmp(argv[i], "--rnn");
        create = create || !std::strcmp(argv[i], "--create");
    }
    if (!gemm && !conv && !train && !mem && !rnn && !create) gemm = conv = train = mem = rnn = create = true;
    char id[128];
#ifdef ANCHOR_HAVE_ONEDNN
    try {
        dnnl::engine eng(dnnl::engine::kind::cpu, 0);
        dnnl::stream strm(eng);
        if (gemm) {
            for (const auto &s : bench::sgemm_shapes) guarded(s.id(id, sizeof(id)), [&] { onednn_sgemm(s); });
            for (const auto &s : bench::matmul_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_matmul(eng, strm, s); });
            for (const auto &s : bench::matmul_wany_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_matmul_wany(eng, strm, s); });
            for (const auto &s : bench::ip_fwd_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_ip_fwd(eng, strm, s); });
            for (const auto &s : bench::int8_shapes)
                guarded(s.id(id, sizeof(id), "gemm_u8s8s32"), [&] { onednn_gemm_u8s8s32(s); });
            for (const auto &s : bench::int8_shapes)
                guarded(s.id(id, sizeof(id), "matmul_u8s8s32"), [&] { onednn_int8_matmul(eng, strm, s); });
            for (const auto &s : bench::lp_matmul_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_lp_matmul(eng, strm, s); });
        }
        if (conv) {
            for (const auto &s : bench::conv_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_conv(eng, strm, s); });
            for (const auto &s : bench::int8_conv_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_int8_conv(eng, strm, s); });
            for (const auto &s : bench::int8_ip_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_int8_ip(eng, strm, s); });
        }
        if (train) {
            for (const auto &s : bench::conv_bwd_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_conv_bwd(eng, strm, s); });
            for (const auto &s : bench::ip_bwd_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_ip_bwd(eng, strm, s); });
        }
        if (mem)
            for (const auto &s : bench::mem_shapes) guarded(s.id(id, sizeof(id)), [&] { onednn_mem(eng, strm, s); });
        if (rnn) {
            for (const auto &s : bench::rnn_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_lstm(eng, strm, s); });
            for (const auto &s : bench::gru_train_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_gru_train(eng, strm, s); });
            for (const auto &s : bench::lstm_int8_shapes)
                guarded(s.id(id, sizeof(id)), [&] { onednn_lstm_int8(eng, strm, s); });
        }
        if (create)
            for (const auto &c : bench::create_shapes)
                for (bool hit : {false, true})
                    guarded(c.id(id, sizeof(id), hit), [&] { onednn_create(eng, c, hit); });
    } catch (const dnnl::error &e) {
        std::fprintf(stderr, "anchor_onednn: oneDNN error %d: %s\n", (int)e.status, e.what());
        return 1;
    }
#endif
#ifdef ANCHOR_HAVE_OPENBLAS
    if (gemm) {
        for (const auto &s : bench::sgemm_shapes)
            if (bench::selected(s.id(id, sizeof(id))))
                openblas_sgemm(1, s.M, s.N, s.K, s.ta, s.tb, id, s.flop());
        for (const auto &s : bench::matmul_shapes)
            if (bench::selected(s.id(id, sizeof(id)))) openblas_sgemm(s.B, s.M, s.N, s.K, 'N', 'N', id, s.flop());
    }
#endif
    (void)id;
    (void)train;
    (void)rnn;
    (void)create;
    return 0;
}
