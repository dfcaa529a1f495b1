// Convolution / deconvolution forward timings per implementation: every
// implementation a primitive descriptor offers is timed on the same problem
// (walking dnnl_primitive_desc_next_impl), references excluded. Compare with
// oneDNN side by side; numbers on a shared machine are indicative only.
// `--machine` instead runs the convolutions of bench/anchor_shapes.hpp with
// the implementation a user gets by default (the first one offered, weights
// in format `any`, as the anchor asks oneDNN) and prints
// "BENCH kestrel <shape> <GFLOP/s>" lines for bench/compare.sh.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "anchor_int8_shapes.hpp"
#include "anchor_shapes.hpp"
#include "anchor_timing.hpp"
#include "dnnl.h"

namespace {

#define CHECK(expr) \
    do { \
        dnnl_status_t s_ = (expr); \
        if (s_ != dnnl_success) { \
            std::fprintf(stderr, "%s -> %d\n", #expr, (int)s_); \
            return 1; \
        } \
    } while (0)

struct prb_t {
    const char *what;
    bool deconv;
    dnnl_format_tag_t data, wei;
    dnnl_dim_t mb, ic, oc, ih, k, stride, pad;
};

int run(dnnl_engine_t eng, dnnl_stream_t strm, const prb_t &p) {
    const dnnl_dim_t ext = p.k;
    const dnnl_dim_t oh = p.deconv ? (p.ih - 1) * p.stride - 2 * p.pad + ext : (p.ih - ext + 2 * p.pad) / p.stride + 1;
    dnnl_dims_t sd = {p.mb, p.ic, p.ih, p.ih}, wd = {p.oc, p.ic, p.k, p.k}, dd = {p.mb, p.oc, oh, oh};
    dnnl_memory_desc_t src, wei, dst;
    CHECK(dnnl_memory_desc_create_with_tag(&src, 4, sd, dnnl_f32, p.data));
    CHECK(dnnl_memory_desc_create_with_tag(&wei, 4, wd, dnnl_f32, p.wei));
    CHECK(dnnl_memory_desc_create_with_tag(&dst, 4, dd, dnnl_f32, p.data));
    dnnl_dims_t st = {p.stride, p.stride}, pad = {p.pad, p.pad};
    dnnl_primitive_desc_t pd = nullptr;
    auto fn = p.deconv ? dnnl_deconvolution_forward_primitive_desc_create
                       : dnnl_convolution_forward_primitive_desc_create;
    CHECK(fn(&pd, eng, dnnl_forward_inference, p.deconv ? dnnl_deconvolution_direct : dnnl_convolution_direct,
            src, wei, nullptr, dst, st, nullptr, pad, pad, nullptr));
    std::vector<float> a(dnnl_memory_desc_get_size(src) / 4, 1.f), w(dnnl_memory_desc_get_size(wei) / 4, 0.5f),
            d(dnnl_memory_desc_get_size(dst) / 4);
    dnnl_memory_t ma, mw, md;
    CHECK(dnnl_memory_create(&ma, src, eng, a.data()));
    CHECK(dnnl_memory_create(&mw, wei, eng, w.data()));
    CHECK(dnnl_memory_create(&md, dst, eng, d.data()));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    const double flop = 2.0 * p.mb * p.oc * p.ic * p.k * p.k * (p.deconv ? p.ih * p.ih : oh * oh);
    do {
        const char *name = nullptr;
        CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name));
        if (!std::strncmp(name, "ref:", 4)) continue;
        dnnl_primitive_t prim;
        CHECK(dnnl_primitive_create(&prim, pd));
        CHECK(dnnl_primitive_execute(prim, strm, 3, args)); // warm-up
        int iters = 0;
        auto t0 = std::chrono::steady_clock::now();
        double ms = 0;
        while (iters < 5 || ms < 200) {
            CHECK(dnnl_primitive_execute(prim, strm, 3, args));
            ++iters;
            ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        }
        std::printf("%-34s %-24s %9.3f ms %8.1f GFLOP/s\n", p.what, name, ms / iters, flop / (ms / iters) / 1e6);
        dnnl_primitive_destroy(prim);
    } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
    dnnl_memory_destroy(ma);
    dnnl_memory_destroy(mw);
    dnnl_memory_destroy(md);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(wei);
    dnnl_memory_desc_destroy(dst);
    return 0;
}

int run_machine(dnnl_engine_t eng, dnnl_stream_t strm, const bench::conv_shape_t &p) {
    const dnnl_format_tag_t data = p.layout == bench::layout_t::nchw ? dnnl_nchw
            : p.layout == bench::layout_t::nhwc                     ? dnnl_nhwc
                                                                    : dnnl_nChw16c;
    const dnnl_dim_t oh = p.oh();
    char id[96];
    if (!bench::selected(p.id(id, sizeof(id)))) return 0;
    dnnl_dims_t sd = {p.mb, p.ic, p.ih, p.ih}, wd = {p.oc, p.ic, p.k, p.k}, dd = {p.mb, p.oc, oh, oh};
    dnnl_memory_desc_t src, wei, dst;
    CHECK(dnnl_memory_desc_create_with_tag(&src, 4, sd, dnnl_f32, data));
    CHECK(dnnl_memory_desc_create_with_tag(&wei, 4, wd, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&dst, 4, dd, dnnl_f32, data));
    dnnl_dims_t st = {p.stride, p.stride}, pad = {p.pad, p.pad};
    dnnl_primitive_desc_t pd = nullptr;
    CHECK(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_convolution_direct, src, wei, nullptr, dst, st, nullptr, pad, pad, nullptr));
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    std::vector<float> a(dnnl_memory_desc_get_size(src) / 4, 0.f),
            w(dnnl_memory_desc_get_size(wmd) / 4, 0.f), d(dnnl_memory_desc_get_size(dst) / 4);
    dnnl_memory_t ma, mw, md;
    CHECK(dnnl_memory_create(&ma, src, eng, a.data()));
    CHECK(dnnl_memory_create(&mw, wmd, eng, w.data()));
    CHECK(dnnl_memory_create(&md, dst, eng, d.data()));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_status_t s = dnnl_success;
    const double sec = bench::median_seconds([&] {
        s = dnnl_primitive_execute(prim, strm, 3, args);
        dnnl_stream_wait(strm);
    });
    if (s == dnnl_success) bench::machine_line("kestrel", id, p.flop() / sec * 1e-9);
    dnnl_primitive_destroy(prim);
    dnnl_memory_destroy(ma);
    dnnl_memory_destroy(mw);
    dnnl_memory_destroy(md);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(wei);
    dnnl_memory_desc_destroy(dst);
    return 0;
}

// int8 (bench/anchor_int8_shapes.hpp): u8 src, s8 weights `any`, one
// common weights scale, u8 (conv) or s8 (ip) dst; the default implementation.
int run_int8(dnnl_engine_t eng, dnnl_stream_t strm, bool conv, const dnnl_dims_t sd, const dnnl_dims_t wd,
        const dnnl_dims_t dd, int nd, const dnnl_dim_t *st, const dnnl_dim_t *pad, const char *id, double flop) {
    dnnl_memory_desc_t src, wei, dst;
    if (!bench::selected(id)) return 0;
    CHECK(dnnl_memory_desc_create_with_tag(&src, nd, sd, dnnl_u8, nd == 4 ? dnnl_nhwc : dnnl_ab));
    CHECK(dnnl_memory_desc_create_with_tag(&wei, nd, wd, dnnl_s8, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&dst, 2, dd, conv ? dnnl_u8 : dnnl_s8, dnnl_ab));
    if (conv) {
        dnnl_memory_desc_destroy(dst);
        CHECK(dnnl_memory_desc_create_with_tag(&dst, nd, dd, dnnl_u8, dnnl_nhwc));
    }
    dnnl_primitive_attr_t attr;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 0));
    dnnl_primitive_desc_t pd = nullptr;
    if (conv)
        CHECK(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                dnnl_convolution_direct, src, wei, nullptr, dst, st, nullptr, pad, pad, attr));
    else
        CHECK(dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, src, wei,
                nullptr, dst, attr));
    dnnl_primitive_attr_destroy(attr);
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    std::vector<uint8_t> a(dnnl_memory_desc_get_size(src), 1), w(dnnl_memory_desc_get_size(wmd), 1),
            d(dnnl_memory_desc_get_size(dst));
    float scale = 0.01f;
    dnnl_memory_desc_t smd;
    const dnnl_dims_t one = {1};
    CHECK(dnnl_memory_desc_create_with_tag(&smd, 1, one, dnnl_f32, dnnl_a));
    dnnl_memory_t ma, mw, md, msc;
    CHECK(dnnl_memory_create(&ma, src, eng, a.data()));
    CHECK(dnnl_memory_create(&mw, wmd, eng, w.data()));
    CHECK(dnnl_memory_create(&md, dst, eng, d.data()));
    CHECK(dnnl_memory_create(&msc, smd, eng, &scale));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md},
            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, msc}};
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_status_t s = dnnl_success;
    const double sec = bench::median_seconds([&] {
        s = dnnl_primitive_execute(prim, strm, 4, args);
        dnnl_stream_wait(strm);
    });
    if (s == dnnl_success) bench::machine_line("kestrel", id, flop / sec * 1e-9);
    dnnl_primitive_destroy(prim);
    for (auto m : {ma, mw, md, msc}) dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);
    for (auto m : {src, wei, dst, smd}) dnnl_memory_desc_destroy(m);
    return 0;
}

int run_int8_all(dnnl_engine_t eng, dnnl_stream_t strm) {
    char id[96];
    for (const auto &p : bench::int8_conv_shapes) {
        const dnnl_dims_t sd = {p.mb, p.ic, p.ih, p.ih}, wd = {p.oc, p.ic, p.k, p.k},
                          dd = {p.mb, p.oc, p.oh(), p.oh()};
        const dnnl_dim_t st[2] = {p.stride, p.stride}, pad[2] = {p.pad, p.pad};
        if (run_int8(eng, strm, true, sd, wd, dd, 4, st, pad, p.id(id, sizeof(id)), p.flop())) return 1;
    }
    for (const auto &p : bench::int8_ip_shapes) {
        const dnnl_dims_t sd = {p.mb, p.ic}, wd = {p.oc, p.ic}, dd = {p.mb, p.oc};
        if (run_int8(eng, strm, false, sd, wd, dd, 2, nullptr, nullptr, p.id(id, sizeof(id)), p.flop())) return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    if (bench::machine_mode(argc, argv)) {
        for (const auto &p : bench::conv_shapes)
            if (run_machine(eng, strm, p)) return 1;
        if (run_int8_all(eng, strm)) return 1;
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
        return 0;
    }
    const prb_t prbs[] = {
            {"conv 3x3 64->64 56x56 nChw16c", false, dnnl_nChw16c, dnnl_OIhw16i16o, 2, 64, 64, 56, 3, 1, 1},
            {"conv 3x3 64->64 56x56 nchw", false, dnnl_nchw, dnnl_oihw, 2, 64, 64, 56, 3, 1, 1},
            {"conv 3x3 64->64 56x56 nhwc", false, dnnl_nhwc, dnnl_oihw, 2, 64, 64, 56, 3, 1, 1},
            {"conv 1x1 256->64 56x56 nhwc", false, dnnl_nhwc, dnnl_oihw, 2, 256, 64, 56, 1, 1, 0},
            {"conv 3x3 s2 128->256 28x28 nhwc", false, dnnl_nhwc, dnnl_oihw, 2, 128, 256, 28, 3, 2, 1},
            {"conv 1x1 256->64 56x56 nchw", false, dnnl_nchw, dnnl_oihw, 2, 256, 64, 56, 1, 1, 0},
            {"conv 1x1 256->64 56x56 nChw16c", false, dnnl_nChw16c, dnnl_OIhw16i16o, 2, 256, 64, 56, 1, 1, 0},
            {"conv 3x3 s2 128->256 28x28 nChw16c", false, dnnl_nChw16c, dnnl_OIhw16i16o, 2, 128, 256, 28, 3, 2, 1},
            {"deconv 4x4 s2 64->32 28x28 nchw", true, dnnl_nchw, dnnl_oihw, 2, 64, 32, 28, 4, 2, 1},
    };
    for (const auto &p : prbs)
        if (run(eng, strm, p)) return 1;
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
