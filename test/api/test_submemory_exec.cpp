// A primitive created on a sub-memory descriptor (a view into a larger
// plain tensor) runs on the memory of the whole tensor, as oneDNN allows
// and its RNN training example does: the view is read and written in
// place, nothing outside it is touched. A memory of another layout, or one
// whose buffer does not cover the view, is refused with invalid_arguments
// and nothing is written.
#include <cstring>
#include <vector>

#include "common/kt_test.hpp"

namespace {

kt::tally_t tally;
dnnl_engine_t eng;
dnnl_stream_t strm;

constexpr dnnl_dim_t R = 4, C = 6, r = 2, c = 3, r0 = 1, c0 = 2;

dnnl_memory_t filled(const_dnnl_memory_desc_t md, float base) {
    dnnl_memory_t m;
    KT_OK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    float *p;
    KT_OK(dnnl_memory_get_data_handle(m, (void **)&p));
    const size_t n = dnnl_memory_desc_get_size(md) / sizeof(float);
    for (size_t i = 0; i < n; ++i) p[i] = base + (float)i;
    return m;
}

float *data(dnnl_memory_t m) {
    void *p;
    KT_OK(dnnl_memory_get_data_handle(m, &p));
    return static_cast<float *>(p);
}

// dst = 2 * src through eltwise linear, src and dst given as mds.
dnnl_primitive_t linear(const_dnnl_memory_desc_t src, const_dnnl_memory_desc_t dst) {
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_eltwise_forward_primitive_desc_create(
            &pd, eng, dnnl_forward_inference, dnnl_eltwise_linear, src, dst, 2.f, 0.f, nullptr));
    dnnl_primitive_t p;
    KT_OK(dnnl_primitive_create(&p, pd));
    dnnl_primitive_desc_destroy(pd);
    return p;
}

dnnl_status_t run(dnnl_primitive_t p, dnnl_memory_t src, dnnl_memory_t dst) {
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    dnnl_status_t st = dnnl_primitive_execute(p, strm, 2, args);
    if (st == dnnl_success) st = dnnl_stream_wait(strm);
    return st;
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    kt::md_t whole(kt::make_md({R, C}, dnnl_f32, dnnl_ab)), dense(kt::make_md({r, c}, dnnl_f32, dnnl_ab));
    dnnl_memory_desc_t view_h;
    const dnnl_dims_t vd = {r, c}, vo = {r0, c0};
    KT_OK(dnnl_memory_desc_create_submemory(&view_h, whole, vd, vo));
    kt::md_t view(view_h);

    // The view as src, the whole tensor's memory given.
    {
        dnnl_memory_t src = filled(whole, 0.f), dst = filled(dense, -100.f);
        dnnl_primitive_t p = linear(view, dense);
        tally.check(run(p, src, dst) == dnnl_success, "src view on the whole memory: runs");
        bool ok = true;
        for (dnnl_dim_t i = 0; i < r; ++i)
            for (dnnl_dim_t j = 0; j < c; ++j) ok = ok && data(dst)[i * c + j] == 2.f * (float)((r0 + i) * C + c0 + j);
        tally.check(ok, "src view on the whole memory: reads the view's elements");
        dnnl_primitive_destroy(p);
        dnnl_memory_destroy(src);
        dnnl_memory_destroy(dst);
    }
    // The view as dst: only the view is written.
    {
        dnnl_memory_t src = filled(dense, 1.f), dst = filled(whole, 1000.f);
        dnnl_primitive_t p = linear(dense, view);
        tally.check(run(p, src, dst) == dnnl_success, "dst view on the whole memory: runs");
        bool ok = true;
        for (dnnl_dim_t i = 0; i < R; ++i)
            for (dnnl_dim_t j = 0; j < C; ++j) {
                const bool in = i >= r0 && i < r0 + r && j >= c0 && j < c0 + c;
                const float want = in ? 2.f * (1.f + (float)((i - r0) * c + (j - c0))) : 1000.f + (float)(i * C + j);
                ok = ok && data(dst)[i * C + j] == want;
            }
        tally.check(ok, "dst view on the whole memory: the view written, the rest untouched");
        dnnl_primitive_destroy(p);
        dnnl_memory_destroy(src);
        dnnl_memory_destroy(dst);
    }
    // A dense descriptor whose outer dim is 1 on the memory of a tensor
    // with more rows (oneDNN's RNN training example hands the previous
    // primitive's larger dst_iter to the next one's src_iter this way): the
    // stride of the size-1 dim does not matter, the first rows are read.
    {
        kt::md_t few(kt::make_md({1, r, c}, dnnl_f32, dnnl_abc)), more(kt::make_md({1, R, c}, dnnl_f32, dnnl_abc));
        dnnl_memory_t src = filled(more, 5.f), dst = filled(few, 0.f);
        dnnl_primitive_t p = linear(few, few);
        tally.check(run(p, src, dst) == dnnl_success, "a size-1 outer dim with another stride: runs");
        bool ok = true;
        for (dnnl_dim_t i = 0; i < r * c; ++i) ok = ok && data(dst)[i] == 2.f * (5.f + (float)i);
        tally.check(ok, "a size-1 outer dim with another stride: reads the first rows");
        dnnl_primitive_destroy(p);
        dnnl_memory_destroy(src);
        dnnl_memory_destroy(dst);
    }
    // Refusals: another layout of the whole tensor (other strides), a
    // smaller tensor, and a buffer with the view's strides that ends before
    // the view does. dst must stay as it was.
    {
        kt::md_t trans(kt::make_md({R, C}, dnnl_f32, dnnl_ba)), small(kt::make_md({r, c}, dnnl_f32, dnnl_ab));
        dnnl_memory_desc_t short_h;
        const dnnl_dims_t sd = {2, C}, ss = {C, 1};
        KT_OK(dnnl_memory_desc_create_with_strides(&short_h, 2, sd, dnnl_f32, ss));
        kt::md_t shorter(short_h);
        dnnl_primitive_t p = linear(view, dense);
        const struct {
            const_dnnl_memory_desc_t md;
            const char *what;
        } bad[] = {{trans, "the whole tensor in another layout"}, {small, "a tensor smaller than the view's parent"},
                {shorter, "a buffer with the view's strides that ends before the view"}};
        for (const auto &b : bad) {
            dnnl_memory_t src = filled(b.md, 0.f), dst = filled(dense, -7.f);
            std::vector<float> before(data(dst), data(dst) + r * c);
            const bool refused = run(p, src, dst) == dnnl_invalid_arguments;
            const bool untouched = std::memcmp(before.data(), data(dst), before.size() * sizeof(float)) == 0;
            tally.check(refused && untouched, b.what);
            dnnl_memory_destroy(src);
            dnnl_memory_destroy(dst);
        }
        dnnl_primitive_destroy(p);
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
