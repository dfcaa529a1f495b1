/* Getting started with the C API.
 *
 * One convolution with a bias and a fused ReLU, the way a oneDNN v3 C
 * program writes it:
 *
 *   1. an engine and a stream;
 *   2. memory descriptors for the user's data, in plain nchw/oihw;
 *   3. a convolution primitive descriptor that chooses its own layouts
 *      (format `any`), with a ReLU post-op in its attributes;
 *   4. reorders from the user's layouts to the chosen ones and back, only
 *      where the layouts differ;
 *   5. execution, then a check against a plain loop over the same formula.
 *
 * The program prints what it did and exits with status 0 only when every
 * output matches the plain computation.
 *
 * Build against an installed Kestrel:
 *   cc getting_started_c.c $(pkg-config --cflags --libs dnnl)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <dnnl.h>

#define CHECK(expr)                                                        \
    do {                                                                   \
        dnnl_status_t s_ = (expr);                                         \
        if (s_ != dnnl_success) {                                          \
            fprintf(stderr, "%s:%d: %s failed with status %d\n", __FILE__, \
                    __LINE__, #expr, (int)s_);                             \
            exit(2);                                                       \
        }                                                                  \
    } while (0)

enum { N = 2, IC = 5, OC = 7, H = 9, W = 8, KH = 3, KW = 3, PAD = 1 };

/* Deterministic input values in [-1, 1). */
static void fill(float *v, size_t n, unsigned seed) {
    size_t i;
    for (i = 0; i < n; ++i) {
        seed = seed * 1103515245u + 12345u;
        v[i] = (float)((seed >> 9) & 0xffff) / 32768.f - 1.f;
    }
}

/* Copies `from` into `to`, converting the layout. */
static void reorder(dnnl_memory_t from, dnnl_memory_t to, dnnl_engine_t eng,
        dnnl_stream_t strm) {
    const_dnnl_memory_desc_t a, b;
    dnnl_primitive_desc_t rpd;
    dnnl_primitive_t r;
    dnnl_exec_arg_t args[2];

    CHECK(dnnl_memory_get_memory_desc(from, &a));
    CHECK(dnnl_memory_get_memory_desc(to, &b));
    CHECK(dnnl_reorder_primitive_desc_create(&rpd, a, eng, b, eng, NULL));
    CHECK(dnnl_primitive_create(&r, rpd));
    args[0].arg = DNNL_ARG_FROM;
    args[0].memory = from;
    args[1].arg = DNNL_ARG_TO;
    args[1].memory = to;
    CHECK(dnnl_primitive_execute(r, strm, 2, args));
    CHECK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
}

/* The memory object for `want`: the user's own memory when the layouts
 * agree, or a new one (filled by a reorder from the user's, for an input). */
static dnnl_memory_t as_layout(dnnl_memory_t user, const_dnnl_memory_desc_t want,
        dnnl_engine_t eng, dnnl_stream_t strm, int to_user) {
    const_dnnl_memory_desc_t have;
    dnnl_memory_t mem;

    CHECK(dnnl_memory_get_memory_desc(user, &have));
    if (dnnl_memory_desc_equal(have, want)) return user;
    CHECK(dnnl_memory_create(&mem, want, eng, DNNL_MEMORY_ALLOCATE));
    if (!to_user) reorder(user, mem, eng, strm); /* an output is reordered back later */
    return mem;
}

int main(void) {
    static float src[N * IC * H * W], wei[OC * IC * KH * KW], bia[OC];
    static float dst[N * OC * H * W];
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_dims_t src_dims = {N, IC, H, W}, wei_dims = {OC, IC, KH, KW};
    dnnl_dims_t bia_dims = {OC}, dst_dims = {N, OC, H, W};
    dnnl_dims_t strides = {1, 1}, dilates = {0, 0}, pad = {PAD, PAD};
    dnnl_memory_desc_t src_md, wei_md, bia_md, dst_md, any_src, any_wei, any_dst;
    dnnl_memory_t src_m, wei_m, bia_m, dst_m, c_src, c_wei, c_dst;
    dnnl_post_ops_t ops;
    dnnl_primitive_attr_t attr;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t conv;
    const char *impl = NULL;
    dnnl_exec_arg_t args[4];
    int n, oc, oh, ow, ic, kh, kw, bad = 0;
    double worst = 0;

    fill(src, sizeof(src) / sizeof(*src), 1);
    fill(wei, sizeof(wei) / sizeof(*wei), 2);
    fill(bia, sizeof(bia) / sizeof(*bia), 3);

    /* 1. Engine and stream. */
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    /* 2. The user's data, in plain layouts. */
    CHECK(dnnl_memory_desc_create_with_tag(&src_md, 4, src_dims, dnnl_f32, dnnl_nchw));
    CHECK(dnnl_memory_desc_create_with_tag(&wei_md, 4, wei_dims, dnnl_f32, dnnl_oihw));
    CHECK(dnnl_memory_desc_create_with_tag(&bia_md, 1, bia_dims, dnnl_f32, dnnl_x));
    CHECK(dnnl_memory_desc_create_with_tag(&dst_md, 4, dst_dims, dnnl_f32, dnnl_nchw));
    CHECK(dnnl_memory_create(&src_m, src_md, eng, src));
    CHECK(dnnl_memory_create(&wei_m, wei_md, eng, wei));
    CHECK(dnnl_memory_create(&bia_m, bia_md, eng, bia));
    CHECK(dnnl_memory_create(&dst_m, dst_md, eng, dst));

    /* 3. The convolution picks its layouts; ReLU is fused as a post-op. */
    CHECK(dnnl_memory_desc_create_with_tag(&any_src, 4, src_dims, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&any_wei, 4, wei_dims, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_memory_desc_create_with_tag(&any_dst, 4, dst_dims, dnnl_f32, dnnl_format_tag_any));
    CHECK(dnnl_post_ops_create(&ops));
    CHECK(dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_relu, 0.f, 0.f));
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, ops));
    CHECK(dnnl_convolution_forward_primitive_desc_create(&pd, eng,
            dnnl_forward_inference, dnnl_convolution_direct, any_src, any_wei,
            bia_md, any_dst, strides, dilates, pad, pad, attr));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    CHECK(dnnl_primitive_create(&conv, pd));

    /* 4. Reorder into the chosen layouts where they differ. */
    c_src = as_layout(src_m, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), eng, strm, 0);
    c_wei = as_layout(wei_m, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), eng, strm, 0);
    c_dst = as_layout(dst_m, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), eng, strm, 1);

    /* 5. Execute, and bring dst back to nchw if the convolution chose another layout. */
    args[0].arg = DNNL_ARG_SRC;
    args[0].memory = c_src;
    args[1].arg = DNNL_ARG_WEIGHTS;
    args[1].memory = c_wei;
    args[2].arg = DNNL_ARG_BIAS;
    args[2].memory = bia_m;
    args[3].arg = DNNL_ARG_DST;
    args[3].memory = c_dst;
    CHECK(dnnl_primitive_execute(conv, strm, 4, args));
    CHECK(dnnl_stream_wait(strm));
    if (c_dst != dst_m) reorder(c_dst, dst_m, eng, strm);

    /* The same formula as a plain loop, in double. Each output adds the
     * bias and IC*KH*KW = 45 products, every term below 1 in magnitude; a
     * float sum of k = 46 terms is off by at most k * 2^-24 * sum|terms|
     * < 46 * 6e-8 * 46 = 1.3e-4, in any order of summation. */
    for (n = 0; n < N; ++n)
        for (oc = 0; oc < OC; ++oc)
            for (oh = 0; oh < H; ++oh)
                for (ow = 0; ow < W; ++ow) {
                    double acc = bia[oc], err;
                    for (ic = 0; ic < IC; ++ic)
                        for (kh = 0; kh < KH; ++kh)
                            for (kw = 0; kw < KW; ++kw) {
                                int ih = oh - PAD + kh, iw = ow - PAD + kw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                acc += (double)src[((n * IC + ic) * H + ih) * W + iw]
                                        * wei[((oc * IC + ic) * KH + kh) * KW + kw];
                            }
                    if (acc < 0) acc = 0;
                    err = fabs(acc - dst[((n * OC + oc) * H + oh) * W + ow]);
                    if (err > worst) worst = err;
                    if (!(err <= 1.3e-4)) ++bad;
                }

    printf("convolution %dx%dx%dx%d -> %d channels, 3x3, pad 1, bias, ReLU\n", N, IC, H, W, OC);
    printf("implementation: %s; src/weights/dst reordered: %s/%s/%s\n", impl,
            c_src != src_m ? "yes" : "no", c_wei != wei_m ? "yes" : "no",
            c_dst != dst_m ? "yes" : "no");
    printf("largest difference from the plain loop: %.3g; %d of %d outputs off\n",
            worst, bad, N * OC * H * W);

    if (c_src != src_m) dnnl_memory_destroy(c_src);
    if (c_wei != wei_m) dnnl_memory_destroy(c_wei);
    if (c_dst != dst_m) dnnl_memory_destroy(c_dst);
    dnnl_memory_destroy(src_m);
    dnnl_memory_destroy(wei_m);
    dnnl_memory_destroy(bia_m);
    dnnl_memory_destroy(dst_m);
    dnnl_primitive_destroy(conv);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_post_ops_destroy(ops);
    dnnl_memory_desc_destroy(src_md);
    dnnl_memory_desc_destroy(wei_md);
    dnnl_memory_desc_destroy(bia_md);
    dnnl_memory_desc_destroy(dst_md);
    dnnl_memory_desc_destroy(any_src);
    dnnl_memory_desc_destroy(any_wei);
    dnnl_memory_desc_destroy(any_dst);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);

    printf("%s\n", bad == 0 ? "PASSED" : "FAILED");
    return bad == 0 ? 0 : 1;
}
