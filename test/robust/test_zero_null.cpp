// Regressions of two conformance defects, through both APIs:
//  - pooling with a zero-sized minibatch or channel dimension crashed with
//    SIGFPE while creating the descriptor; oneDNN creates it and executing
//    is a no-op that leaves dst alone;
//  - an execution-argument entry whose memory is NULL made execute fail;
//    oneDNN ignores such entries (C++ passes an empty dnnl::memory() for an
//    absent bias, zero point or workspace).
#include <cmath>
#include <cstdio>
#include <vector>

#include "dnnl.hpp"
#include "kt_test.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

kt::tally_t t;

void zero_sized_pooling(engine &eng, stream &s) {
    const tag tags[] = {tag::nchw, tag::nhwc, tag::nChw8c, tag::nChw16c};
    const algorithm algs[] = {algorithm::pooling_max, algorithm::pooling_avg_include_padding,
            algorithm::pooling_avg_exclude_padding};
    const memory::dims shapes[][2] = {{{0, 16, 6, 6}, {0, 16, 3, 3}}, {{2, 0, 6, 6}, {2, 0, 3, 3}},
            {{0, 0, 6, 6}, {0, 0, 3, 3}}};
    for (tag tg : tags)
        for (algorithm alg : algs)
            for (auto &sh : shapes)
                for (prop_kind pk : {prop_kind::forward_inference, prop_kind::forward_training}) {
                    char what[128];
                    std::snprintf(what, sizeof(what), "pooling N=%lld C=%lld tag %d alg %d prop %d",
                            (long long)sh[0][0], (long long)sh[0][1], (int)tg, (int)alg, (int)pk);
                    bool ok = true;
                    try {
                        memory::desc sd(sh[0], dt::f32, tg), dd(sh[1], dt::f32, tg);
                        pooling_forward::primitive_desc pd(
                                eng, pk, alg, sd, dd, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {0, 0});
                        memory src(sd, eng), dst(dd, eng);
                        memory ws = pd.workspace_desc().get_size() ? memory(pd.workspace_desc(), eng) : memory();
                        pooling_forward(pd).execute(
                                s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}});
                        s.wait();
                        ok = pd.dst_desc().get_size() == 0;
                    } catch (const dnnl::error &e) {
                        std::fprintf(stderr, "%s: %s (status %d)\n", what, e.what(), (int)e.status);
                        ok = false;
                    }
                    t.check(ok, what);
                }

    // The same through the C API: creation succeeds, execution returns
    // success with no memory for the empty tensors at all.
    dnnl_dims_t sdims = {0, 16, 6, 6}, ddims = {0, 16, 3, 3}, two = {2, 2}, zero = {0, 0};
    dnnl_memory_desc_t sd = nullptr, dd = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&sd, 4, sdims, dnnl_f32, dnnl_nChw16c));
    KT_OK(dnnl_memory_desc_create_with_tag(&dd, 4, ddims, dnnl_f32, dnnl_nChw16c));
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = dnnl_pooling_forward_primitive_desc_create(
            &pd, eng.get(), dnnl_forward_training, dnnl_pooling_max, sd, dd, two, two, zero, zero, zero, nullptr);
    t.check(st == dnnl_success, "C API: max pooling N=0 nChw16c creates");
    if (st == dnnl_success) {
        dnnl_primitive_t p = nullptr;
        KT_OK(dnnl_primitive_create(&p, pd));
        t.check(dnnl_primitive_execute(p, s.get(), 0, nullptr) == dnnl_success, "C API: N=0 executes as a no-op");
        dnnl_primitive_destroy(p);
    }
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(sd);
    dnnl_memory_desc_destroy(dd);
}

void null_memory_entries(engine &eng, stream &s) {
    // matmul 3x4 * 4x2 with the bias entry empty: dst = src * weights.
    std::vector<float> a(12), b(8), d(6, -1.f);
    for (int i = 0; i < 12; ++i) a[i] = (float)(i % 5 - 2);
    for (int i = 0; i < 8; ++i) b[i] = (float)(i % 3 - 1);
    memory::desc ad({3, 4}, dt::f32, tag::ab), bd({4, 2}, dt::f32, tag::ab), dd({3, 2}, dt::f32, tag::ab);
    matmul::primitive_desc pd(eng, ad, bd, dd);
    memory am(ad, eng, a.data()), bm(bd, eng, b.data()), dm(dd, eng, d.data());
    bool ok = true;
    try {
        matmul(pd).execute(s, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_BIAS, memory()},
                                      {DNNL_ARG_DST, dm}});
        s.wait();
    } catch (const dnnl::error &e) {
        std::fprintf(stderr, "matmul with an empty bias memory: %s\n", e.what());
        ok = false;
    }
    for (int i = 0; ok && i < 3; ++i)
        for (int j = 0; j < 2; ++j) {
            float acc = 0; // small integers: exact in f32
            for (int k = 0; k < 4; ++k) acc += a[i * 4 + k] * b[k * 2 + j];
            ok = ok && d[i * 2 + j] == acc;
        }
    t.check(ok, "dnnl.hpp: matmul ignores an empty dnnl::memory() argument");

    // C API: a NULL memory entry among the arguments, and a NULL entry for
    // an argument the primitive needs (dst) is the same as a missing one.
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, am.get()}, {DNNL_ARG_BIAS, nullptr}, {DNNL_ARG_WEIGHTS, bm.get()},
            {DNNL_ARG_DST, dm.get()}};
    matmul prim(pd);
    t.check(dnnl_primitive_execute(prim.get(), s.get(), 4, args) == dnnl_success,
            "C API: a NULL memory entry is ignored");
    args[3].memory = nullptr;
    t.check(dnnl_primitive_execute(prim.get(), s.get(), 4, args) == dnnl_invalid_arguments,
            "C API: dst given as NULL memory is missing");
}

} // namespace

int main() {
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            zero_sized_pooling(eng, s);
            null_memory_entries(eng, s);
        });
    return t.finish();
}
