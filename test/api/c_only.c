/* A plain C99 program written the way a oneDNN v3 user writes one: only
 * <dnnl.h>, compiled with -std=c99 -pedantic -Werror and linked against the
 * shared libdnnl. It proves the public header is valid strict C and that the
 * exported ABI is enough for a whole engine/stream/memory/reorder flow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dnnl.h>

static int passed = 0;
static int failed = 0;

static void expect(int ok, const char *what, int line) {
    if (ok) {
        ++passed;
    } else {
        ++failed;
        fprintf(stderr, "c_only.c:%d: FAILED: %s\n", line, what);
    }
}

#define EXPECT(cond) expect((cond) ? 1 : 0, #cond, __LINE__)
#define EXPECT_OK(expr) expect((expr) == dnnl_success, #expr, __LINE__)

/* nchw -> nChw16c -> nchw; 17 channels leave a tail of 1 in the second
 * block, so the blocked buffer has padding the roundtrip must not see. */
static void reorder_roundtrip(dnnl_engine_t engine, dnnl_stream_t stream) {
    dnnl_dims_t dims = {2, 17, 3, 5};
    enum { N = 2 * 17 * 3 * 5 };
    float src[N], dst[N];
    dnnl_memory_desc_t plain_md = NULL, blocked_md = NULL;
    dnnl_memory_t src_m = NULL, blk_m = NULL, dst_m = NULL;
    dnnl_primitive_desc_t to_pd = NULL, back_pd = NULL;
    dnnl_primitive_t to = NULL, back = NULL;
    dnnl_exec_arg_t args[2];
    dnnl_status_t st;
    int i;

    for (i = 0; i < N; ++i) {
        src[i] = (float)((i * 13) % 97) * 0.25f - 12.f;
        dst[i] = -1.f;
    }
    EXPECT_OK(dnnl_memory_desc_create_with_tag(&plain_md, 4, dims, dnnl_f32, dnnl_nchw));
    EXPECT_OK(dnnl_memory_desc_create_with_tag(&blocked_md, 4, dims, dnnl_f32, dnnl_nChw16c));
    /* 32 padded channels: 2 * 32 * 3 * 5 floats. */
    EXPECT(dnnl_memory_desc_get_size(blocked_md) == 2 * 32 * 3 * 5 * sizeof(float));

    /* Reorder is part of the library: unimplemented here is a failure. */
    st = dnnl_reorder_primitive_desc_create(&to_pd, plain_md, engine, blocked_md, engine, NULL);
    EXPECT(st == dnnl_success);
    if (st != dnnl_success) goto out;
    EXPECT_OK(dnnl_reorder_primitive_desc_create(
            &back_pd, blocked_md, engine, plain_md, engine, NULL));
    EXPECT_OK(dnnl_primitive_create(&to, to_pd));
    EXPECT_OK(dnnl_primitive_create(&back, back_pd));

    EXPECT_OK(dnnl_memory_create(&src_m, plain_md, engine, src));
    EXPECT_OK(dnnl_memory_create(&blk_m, blocked_md, engine, DNNL_MEMORY_ALLOCATE));
    EXPECT_OK(dnnl_memory_create(&dst_m, plain_md, engine, dst));

    args[0].arg = DNNL_ARG_FROM;
    args[0].memory = src_m;
    args[1].arg = DNNL_ARG_TO;
    args[1].memory = blk_m;
    EXPECT_OK(dnnl_primitive_execute(to, stream, 2, args));
    args[0].memory = blk_m;
    args[1].memory = dst_m;
    EXPECT_OK(dnnl_primitive_execute(back, stream, 2, args));
    EXPECT_OK(dnnl_stream_wait(stream));
    EXPECT(memcmp(src, dst, sizeof(src)) == 0);

out:
    dnnl_primitive_destroy(to);
    dnnl_primitive_destroy(back);
    dnnl_primitive_desc_destroy(to_pd);
    dnnl_primitive_desc_destroy(back_pd);
    dnnl_memory_destroy(src_m);
    dnnl_memory_destroy(blk_m);
    dnnl_memory_destroy(dst_m);
    dnnl_memory_desc_destroy(plain_md);
    dnnl_memory_desc_destroy(blocked_md);
}

int main(void) {
    const dnnl_version_t *v = dnnl_version();
    dnnl_engine_t engine = NULL, got_engine = NULL;
    dnnl_stream_t stream = NULL;
    dnnl_memory_desc_t md = NULL;
    const_dnnl_memory_desc_t got_md = NULL;
    dnnl_memory_t mem = NULL;
    dnnl_dims_t dims = {4, 6};
    float user_buf[24];
    void *handle = NULL;

    EXPECT(v != NULL && v->major == 3);
    printf("library %d.%d.%d (%s)\n", v->major, v->minor, v->patch, v->hash);

    EXPECT(dnnl_engine_get_count(dnnl_cpu) == 1);
    EXPECT_OK(dnnl_engine_create(&engine, dnnl_cpu, 0));
    EXPECT_OK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    EXPECT_OK(dnnl_stream_get_engine(stream, &got_engine));
    EXPECT(got_engine == engine);

    EXPECT_OK(dnnl_memory_desc_create_with_tag(&md, 2, dims, dnnl_f32, dnnl_ab));
    EXPECT(dnnl_memory_desc_get_size(md) == sizeof(user_buf));
    EXPECT_OK(dnnl_memory_create(&mem, md, engine, user_buf));
    EXPECT_OK(dnnl_memory_get_data_handle(mem, &handle));
    EXPECT(handle == (void *)user_buf);
    EXPECT_OK(dnnl_memory_get_memory_desc(mem, &got_md));
    EXPECT(dnnl_memory_desc_equal(got_md, md) == 1);
    EXPECT(dnnl_memory_create(NULL, md, engine, user_buf) == dnnl_invalid_arguments);
    dnnl_memory_destroy(mem);
    dnnl_memory_desc_destroy(md);

    reorder_roundtrip(engine, stream);

    EXPECT_OK(dnnl_stream_destroy(stream));
    EXPECT_OK(dnnl_engine_destroy(engine));

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
