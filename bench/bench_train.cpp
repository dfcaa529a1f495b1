// Training primitives: convolution backward data / backward weights and
// inner product backward data / weights on the shapes of
// bench/anchor_shapes.hpp, with the implementation a user gets by default
// (weights in format `any`, the forward pd as hint). Prints one line per
// shape; `--machine` prints "BENCH kestrel <shape> <GFLOP/s>" lines for
// bench/compare.sh. Numbers on a shared machine are indicative only.
#include <cstdio>
#include <vector>

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

struct ctx_t {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    bool machine;
};

// Times `pd` with zero-filled memories for the given (arg, query) pairs.
int time_pd(const ctx_t &c, dnnl_primitive_desc_t pd, const int (*args)[2], int nargs, const char *id, double flop) {
    std::vector<std::vector<char>> bufs;
    std::vector<dnnl_exec_arg_t> ea;
    for (int i = 0; i < nargs; ++i) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, (dnnl_query_t)args[i][1], 0);
        bufs.emplace_back(dnnl_memory_desc_get_size(md), 0);
        dnnl_memory_t m;
        CHECK(dnnl_memory_create(&m, md, c.eng, bufs.back().data()));
        ea.push_back({args[i][0], m});
    }
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_status_t s = dnnl_success;
    const double sec = bench::median_seconds([&] {
        s = dnnl_primitive_execute(prim, c.strm, nargs, ea.data());
        dnnl_stream_wait(c.strm);
    });
    CHECK(s);
    if (c.machine) {
        bench::machine_line("kestrel", id, flop / sec * 1e-9);
    } else {
        const char *name = nullptr;
        CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name));
        std::printf("%-44s %-26s %9.3f ms %8.1f GFLOP/s\n", id, name, sec * 1e3, flop / sec * 1e-9);
    }
    dnnl_primitive_destroy(prim);
    for (auto &a : ea) dnnl_memory_destroy(a.memory);
    return 0;
}

int run_conv(const ctx_t &c, const bench::conv_bwd_shape_t &b) {
    const bench::conv_shape_t &p = b.c;
    const dnnl_format_tag_t data = p.layout == bench::layout_t::nchw ? dnnl_nchw
            : p.layout == bench::layout_t::nhwc                     ? dnnl_nhwc
                                                                    : dnnl_nChw16c;
    const dnnl_dim_t oh = p.oh();
    dnnl_dims_t sd = {p.mb, p.ic, p.ih, p.ih}, wd = {p.oc, p.ic, p.k, p.k}, dd = {p.mb, p.oc, oh, oh};
    dnnl_memory_desc_t src, wei, dst;
    CHECK(dnnl_memory_desc_create_with_tag(&src, 4, sd, dnnl_f32, data));
    CHECK(dnnl_memory_desc_create_with_tag(&wei, 4, wd, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&dst, 4, dd, dnnl_f32, data));
    dnnl_dims_t st = {p.stride, p.stride}, pad = {p.pad, p.pad};
    dnnl_primitive_desc_t fpd, pd;
    CHECK(dnnl_convolution_forward_primitive_desc_create(&fpd, c.eng, dnnl_forward_training,
            dnnl_convolution_direct, src, wei, nullptr, dst, st, nullptr, pad, pad, nullptr));
    char id[128];
    b.id(id, sizeof(id));
    int rc;
    if (b.what == 'd') {
        CHECK(dnnl_convolution_backward_data_primitive_desc_create(&pd, c.eng, dnnl_convolution_direct, src,
                wei, dst, st, nullptr, pad, pad, fpd, nullptr));
        const int args[][2] = {{DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md}, {DNNL_ARG_WEIGHTS, dnnl_query_weights_md},
                {DNNL_ARG_DIFF_SRC, dnnl_query_diff_src_md}};
        rc = time_pd(c, pd, args, 3, id, b.flop());
    } else {
        CHECK(dnnl_convolution_backward_weights_primitive_desc_create(&pd, c.eng, dnnl_convolution_direct, src,
                wei, nullptr, dst, st, nullptr, pad, pad, fpd, nullptr));
        const int args[][2] = {{DNNL_ARG_SRC, dnnl_query_src_md}, {DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md},
                {DNNL_ARG_DIFF_WEIGHTS, dnnl_query_diff_weights_md}};
        rc = time_pd(c, pd, args, 3, id, b.flop());
    }
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(wei);
    dnnl_memory_desc_destroy(dst);
    return rc;
}

int run_ip(const ctx_t &c, const bench::ip_bwd_shape_t &b) {
    dnnl_dims_t sd = {b.mb, b.ic}, wd = {b.oc, b.ic}, dd = {b.mb, b.oc};
    dnnl_memory_desc_t src, wei, dst;
    CHECK(dnnl_memory_desc_create_with_tag(&src, 2, sd, dnnl_f32, dnnl_nc));
    CHECK(dnnl_memory_desc_create_with_tag(&wei, 2, wd, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&dst, 2, dd, dnnl_f32, dnnl_nc));
    dnnl_primitive_desc_t fpd, pd;
    CHECK(dnnl_inner_product_forward_primitive_desc_create(&fpd, c.eng, dnnl_forward_training, src, wei, nullptr,
            dst, nullptr));
    char id[128];
    b.id(id, sizeof(id));
    int rc;
    if (b.what == 'd') {
        CHECK(dnnl_inner_product_backward_data_primitive_desc_create(&pd, c.eng, src, wei, dst, fpd, nullptr));
        const int args[][2] = {{DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md}, {DNNL_ARG_WEIGHTS, dnnl_query_weights_md},
                {DNNL_ARG_DIFF_SRC, dnnl_query_diff_src_md}};
        rc = time_pd(c, pd, args, 3, id, b.flop());
    } else {
        CHECK(dnnl_inner_product_backward_weights_primitive_desc_create(&pd, c.eng, src, wei, nullptr, dst, fpd,
                nullptr));
        const int args[][2] = {{DNNL_ARG_SRC, dnnl_query_src_md}, {DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md},
                {DNNL_ARG_DIFF_WEIGHTS, dnnl_query_diff_weights_md}};
        rc = time_pd(c, pd, args, 3, id, b.flop());
    }
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(wei);
    dnnl_memory_desc_destroy(dst);
    return rc;
}

} // namespace

int main(int argc, char **argv) {
    ctx_t c;
    c.machine = bench::machine_mode(argc, argv);
    CHECK(dnnl_engine_create(&c.eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&c.strm, c.eng, dnnl_stream_default_flags));
    char id[128];
    for (const auto &s : bench::conv_bwd_shapes)
        if (bench::selected(s.id(id, sizeof(id))) && run_conv(c, s)) return 1;
    for (const auto &s : bench::ip_bwd_shapes)
        if (bench::selected(s.id(id, sizeof(id))) && run_ip(c, s)) return 1;
    dnnl_stream_destroy(c.strm);
    dnnl_engine_destroy(c.eng);
    return 0;
}
