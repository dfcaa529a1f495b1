// Recurrent primitives: LSTM inference (f32 and int8) and a GRU training step on the
// shapes of bench/rnn_shapes.hpp through the C API, weights ldigo (int8:
// `any`, reordered from ldigo outside the timing, as the anchor does), no
// initial states. Prints one line per
// shape; `--machine` prints "BENCH kestrel <shape> <GFLOP/s>" lines for
// bench/compare.sh. Numbers on a shared machine are indicative only.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "anchor_timing.hpp"
#include "dnnl.h"
#include "rnn_shapes.hpp"

namespace {

#define CHECK(expr) \
    do { \
        dnnl_status_t s_ = (expr); \
        if (s_ != dnnl_success) { \
            std::fprintf(stderr, "%s -> %d\n", #expr, (int)s_); \
            return 1; \
        } \
    } while (0)

dnnl_memory_desc_t md(std::initializer_list<dnnl_dim_t> dims, dnnl_format_tag_t tag, dnnl_data_type_t dt = dnnl_f32) {
    dnnl_dims_t d = {};
    int n = 0;
    for (auto v : dims) d[n++] = v;
    dnnl_memory_desc_t m = nullptr;
    dnnl_memory_desc_create_with_tag(&m, n, d, dt, tag);
    return m;
}

int time_lstm(dnnl_engine_t eng, dnnl_stream_t strm, const bench::rnn_shape_t &s, bool machine) {
    const dnnl_dim_t L = s.L, T = s.T, N = s.N, C = s.C;
    dnnl_memory_desc_t src = md({T, N, C}, dnnl_tnc), wl = md({L, 1, C, 4, C}, dnnl_ldigo),
                       wi = md({L, 1, C, 4, C}, dnnl_ldigo), b = md({L, 1, 4, C}, dnnl_ldgo),
                       dst = md({T, N, C}, dnnl_tnc);
    dnnl_primitive_desc_t pd = nullptr;
    CHECK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dnnl_unidirectional_left2right,
            src, nullptr, nullptr, wl, wi, nullptr, nullptr, b, dst, nullptr, nullptr, 0, nullptr));
    const struct {
        int arg;
        dnnl_memory_desc_t md;
    } args[] = {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_WEIGHTS_LAYER, wl}, {DNNL_ARG_WEIGHTS_ITER, wi},
            {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST_LAYER, dst}};
    std::vector<std::vector<float>> bufs;
    std::vector<dnnl_exec_arg_t> ea;
    for (const auto &a : args) {
        bufs.emplace_back(dnnl_memory_desc_get_size(a.md) / sizeof(float), 0.01f); // same as the anchor
        dnnl_memory_t m;
        CHECK(dnnl_memory_create(&m, a.md, eng, bufs.back().data()));
        ea.push_back({a.arg, m});
    }
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_status_t st = dnnl_success;
    const double sec = bench::median_seconds([&] {
        st = dnnl_primitive_execute(prim, strm, (int)ea.size(), ea.data());
        dnnl_stream_wait(strm);
    });
    CHECK(st);
    char id[96];
    if (machine) {
        bench::machine_line("kestrel", s.id(id, sizeof id), s.flop() / sec * 1e-9);
    } else {
        std::printf("%-36s %9.3f ms %8.1f GFLOP/s\n", s.id(id, sizeof id), sec * 1e3, s.flop() / sec * 1e-9);
    }
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    for (auto &a : ea) dnnl_memory_destroy(a.memory);
    for (auto &a : args) dnnl_memory_desc_destroy(a.md);
    return 0;
}

// int8 LSTM inference (see rnn_shapes.hpp): u8 data 129, s8 weights 1,
// bias 0.01, as the anchor fills them.
int time_lstm_int8(dnnl_engine_t eng, dnnl_stream_t strm, const bench::lstm_int8_shape_t &s, bool machine) {
    const dnnl_dim_t L = s.L, T = s.T, N = s.N, C = s.C;
    dnnl_memory_desc_t src = md({T, N, C}, dnnl_tnc, dnnl_u8), wl = md({L, 1, C, 4, C}, dnnl_ldigo, dnnl_s8),
                       wi = md({L, 1, C, 4, C}, dnnl_ldigo, dnnl_s8), b = md({L, 1, 4, C}, dnnl_ldgo),
                       dst = md({T, N, C}, dnnl_tnc, dnnl_u8), w_any = md({L, 1, C, 4, C}, dnnl_format_tag_any, dnnl_s8);
    dnnl_primitive_attr_t attr = nullptr;
    CHECK(dnnl_primitive_attr_create(&attr));
    const float wscale = 127.f;
    CHECK(dnnl_primitive_attr_set_rnn_data_qparams(attr, 64.f, 128.f));
    CHECK(dnnl_primitive_attr_set_rnn_weights_qparams(attr, 1, 0, &wscale));
    dnnl_primitive_desc_t pd = nullptr;
    // Weights `any`, as the anchor asks oneDNN: the layout the primitive
    // prefers (Kestrel: packed), filled by a reorder outside the timing.
    CHECK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dnnl_unidirectional_left2right,
            src, nullptr, nullptr, w_any, w_any, nullptr, nullptr, b, dst, nullptr, nullptr, 0, attr));
    dnnl_primitive_attr_destroy(attr);
    std::vector<uint8_t> vsrc((size_t)(T * N * C), 129), vdst((size_t)(T * N * C), 0);
    std::vector<int8_t> vwl((size_t)(L * C * 4 * C), 1), vwi(vwl);
    std::vector<float> vb((size_t)(L * 4 * C), 0.01f);
    const struct {
        int arg;
        dnnl_memory_desc_t md;
        void *data;
    } args[] = {{DNNL_ARG_SRC_LAYER, src, vsrc.data()}, {DNNL_ARG_WEIGHTS_LAYER, wl, vwl.data()},
            {DNNL_ARG_WEIGHTS_ITER, wi, vwi.data()}, {DNNL_ARG_BIAS, b, vb.data()},
            {DNNL_ARG_DST_LAYER, dst, vdst.data()}};
    std::vector<dnnl_exec_arg_t> ea;
    std::vector<dnnl_memory_t> users;
    for (const auto &a : args) {
        dnnl_memory_t m;
        CHECK(dnnl_memory_create(&m, a.md, eng, a.data));
        const bool w = a.arg == DNNL_ARG_WEIGHTS_LAYER || a.arg == DNNL_ARG_WEIGHTS_ITER;
        const_dnnl_memory_desc_t want = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a.arg);
        if (w && !dnnl_memory_desc_equal(want, a.md)) {
            dnnl_memory_t p;
            CHECK(dnnl_memory_create(&p, want, eng, DNNL_MEMORY_ALLOCATE));
            dnnl_primitive_desc_t rpd;
            CHECK(dnnl_reorder_primitive_desc_create(&rpd, a.md, eng, want, eng, nullptr));
            dnnl_primitive_t r;
            CHECK(dnnl_primitive_create(&r, rpd));
            dnnl_exec_arg_t ra[] = {{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, p}};
            CHECK(dnnl_primitive_execute(r, strm, 2, ra));
            CHECK(dnnl_stream_wait(strm));
            dnnl_primitive_destroy(r);
            dnnl_primitive_desc_destroy(rpd);
            users.push_back(m);
            m = p;
        }
        ea.push_back({a.arg, m});
    }
    dnnl_primitive_t prim;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_status_t st = dnnl_success;
    const double sec = bench::median_seconds([&] {
        st = dnnl_primitive_execute(prim, strm, (int)ea.size(), ea.data());
        dnnl_stream_wait(strm);
    });
    CHECK(st);
    for (dnnl_memory_t m : users) dnnl_memory_destroy(m);
    char id[96];
    if (machine) {
        bench::machine_line("kestrel", s.id(id, sizeof id), s.flop() / sec * 1e-9);
    } else {
        std::printf("%-36s %9.3f ms %8.1f GOP/s\n", s.id(id, sizeof id), sec * 1e3, s.flop() / sec * 1e-9);
    }
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    for (auto &a : ea) dnnl_memory_destroy(a.memory);
    for (auto &a : args) dnnl_memory_desc_destroy(a.md);
    dnnl_memory_desc_destroy(w_any);
    return 0;
}

// Forward training plus backward, both timed together; weights ldigo for
// both (Kestrel's backward takes them as they are), diff weights ldigo.
int time_gru_train(dnnl_engine_t eng, dnnl_stream_t strm, const bench::gru_train_shape_t &s, bool machine) {
    const dnnl_dim_t L = s.L, T = s.T, N = s.N, C = s.C;
    dnnl_memory_desc_t src = md({T, N, C}, dnnl_tnc), w = md({L, 1, C, 3, C}, dnnl_ldigo), b = md({L, 1, 3, C}, dnnl_ldgo),
                       dst = md({T, N, C}, dnnl_tnc);
    dnnl_primitive_desc_t fpd = nullptr, bpd = nullptr;
    CHECK(dnnl_gru_forward_primitive_desc_create(&fpd, eng, dnnl_forward_training, dnnl_unidirectional_left2right,
            src, nullptr, w, w, b, dst, nullptr, 0, nullptr));
    CHECK(dnnl_gru_backward_primitive_desc_create(&bpd, eng, dnnl_backward, dnnl_unidirectional_left2right, src,
            nullptr, w, w, b, dst, nullptr, src, nullptr, w, w, b, dst, nullptr, 0, fpd, nullptr));
    const_dnnl_memory_desc_t ws = dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0);
    const struct {
        int arg;
        const_dnnl_memory_desc_t md;
        bool fwd, bwd;
    } args[] = {{DNNL_ARG_SRC_LAYER, src, true, true}, {DNNL_ARG_WEIGHTS_LAYER, w, true, true},
            {DNNL_ARG_WEIGHTS_ITER, w, true, true}, {DNNL_ARG_BIAS, b, true, true},
            {DNNL_ARG_DST_LAYER, dst, true, true}, {DNNL_ARG_WORKSPACE, ws, true, true},
            {DNNL_ARG_DIFF_DST_LAYER, dst, false, true}, {DNNL_ARG_DIFF_SRC_LAYER, src, false, true},
            {DNNL_ARG_DIFF_WEIGHTS_LAYER, w, false, true}, {DNNL_ARG_DIFF_WEIGHTS_ITER, w, false, true},
            {DNNL_ARG_DIFF_BIAS, b, false, true}};
    std::vector<std::vector<float>> bufs;
    std::vector<dnnl_exec_arg_t> fa, ba;
    for (const auto &a : args) {
        bufs.emplace_back(dnnl_memory_desc_get_size(a.md) / sizeof(float) + 1, 0.01f); // same as the anchor
        dnnl_memory_t m;
        CHECK(dnnl_memory_create(&m, a.md, eng, bufs.back().data()));
        if (a.fwd) fa.push_back({a.arg, m});
        ba.push_back({a.arg, m});
    }
    dnnl_primitive_t fp, bp;
    CHECK(dnnl_primitive_create(&fp, fpd));
    CHECK(dnnl_primitive_create(&bp, bpd));
    dnnl_status_t st = dnnl_success, st2 = dnnl_success;
    const double sec = bench::median_seconds([&] {
        st = dnnl_primitive_execute(fp, strm, (int)fa.size(), fa.data());
        st2 = dnnl_primitive_execute(bp, strm, (int)ba.size(), ba.data());
        dnnl_stream_wait(strm);
    });
    CHECK(st);
    CHECK(st2);
    char id[96];
    if (machine) {
        bench::machine_line("kestrel", s.id(id, sizeof id), s.flop() / sec * 1e-9);
    } else {
        std::printf("%-36s %9.3f ms %8.1f GFLOP/s\n", s.id(id, sizeof id), sec * 1e3, s.flop() / sec * 1e-9);
    }
    dnnl_primitive_destroy(fp);
    dnnl_primitive_destroy(bp);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(bpd);
    for (auto &a : ba) dnnl_memory_destroy(a.memory);
    for (auto m : {src, w, b, dst}) dnnl_memory_desc_destroy(m);
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    const bool machine = bench::machine_mode(argc, argv);
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    char id[96];
    for (const auto &s : bench::rnn_shapes)
        if (bench::selected(s.id(id, sizeof id)) && time_lstm(eng, strm, s, machine)) return 1;
    for (const auto &s : bench::gru_train_shapes)
        if (bench::selected(s.id(id, sizeof id)) && time_gru_train(eng, strm, s, machine)) return 1;
    for (const auto &s : bench::lstm_int8_shapes)
        if (bench::selected(s.id(id, sizeof id)) && time_lstm_int8(eng, strm, s, machine)) return 1;
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
