// The recurrent primitives' API surface, through the shared library:
// queries (src/weights/dst indices, exec_arg_md, format any, workspace,
// cell kind, direction, alpha), memory_consumption against the user
// scratchpad size, a missing or wrong workspace at execution (refused,
// nothing written), bad descriptors (invalid_arguments / unimplemented,
// nothing written), the rnn quantisation attributes, and the C++ classes
// of every cell run against the naive reference (rnn_ref.hpp).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"
#include "rnn/rnn_ref.hpp"

namespace {

using namespace rnn_ref;
kt::tally_t tally;
dnnl_engine_t eng = nullptr;
dnnl_stream_t strm = nullptr;

using kt::make_md;
using kt::md_t;

bool same_md(const_dnnl_memory_desc_t a, const_dnnl_memory_desc_t b) { return dnnl_memory_desc_equal(a, b) != 0; }

const_dnnl_memory_desc_t q(const_dnnl_primitive_desc_t pd, dnnl_query_t what, int idx) {
    return dnnl_primitive_desc_query_md(pd, what, idx);
}

bool is_zero(const_dnnl_memory_desc_t md) {
    int nd = -1;
    return md && dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) == dnnl_success && nd == 0;
}

// LSTM L2 D2 concat, T3 N2 SLC=DIC=3 (layer 1 of each direction reads
// layer 0 of the same direction), DLC 6, DHC 4, DIC 3 (projection),
// peepholes, everything `any`.
void check_lstm_queries() {
    const int L = 2, D = 2, T = 3, N = 2, DHC = 4, DIC = 3, SLC = DIC;
    const auto any = dnnl_format_tag_any;
    md_t src(make_md({T, N, SLC}, dnnl_f32, any)), si(make_md({L, D, N, DIC}, dnnl_f32, any)),
            sic(make_md({L, D, N, DHC}, dnnl_f32, any)), wl(make_md({L, D, SLC, 4, DHC}, dnnl_f32, any)),
            wi(make_md({L, D, DIC, 4, DHC}, dnnl_f32, any)), wp(make_md({L, D, 3, DHC}, dnnl_f32, any)),
            wr(make_md({L, D, DHC, DIC}, dnnl_f32, any)), b(make_md({L, D, 4, DHC}, dnnl_f32, any)),
            dst(make_md({T, N, 2 * DIC}, dnnl_f32, any)), di(make_md({L, D, N, DIC}, dnnl_f32, any)),
            dic(make_md({L, D, N, DHC}, dnnl_f32, any));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_training, dnnl_bidirectional_concat, src,
            si, sic, wl, wi, wp, wr, b, dst, di, dic, 0, nullptr));
    md_t e_src(make_md({T, N, SLC}, dnnl_f32, dnnl_tnc)), e_si(make_md({L, D, N, DIC}, dnnl_f32, dnnl_ldnc)),
            e_sic(make_md({L, D, N, DHC}, dnnl_f32, dnnl_ldnc)),
            e_wl(make_md({L, D, SLC, 4, DHC}, dnnl_f32, dnnl_ldigo)),
            e_wi(make_md({L, D, DIC, 4, DHC}, dnnl_f32, dnnl_ldigo)),
            e_wp(make_md({L, D, 3, DHC}, dnnl_f32, dnnl_ldgo)), e_wr(make_md({L, D, DHC, DIC}, dnnl_f32, dnnl_ldio)),
            e_b(make_md({L, D, 4, DHC}, dnnl_f32, dnnl_ldgo)), e_dst(make_md({T, N, 2 * DIC}, dnnl_f32, dnnl_tnc));
    tally.check(same_md(q(pd, dnnl_query_src_md, 0), e_src), "lstm: src_md(0) is src_layer, tnc");
    tally.check(same_md(q(pd, dnnl_query_src_md, 1), e_si), "lstm: src_md(1) is src_iter, ldnc");
    tally.check(same_md(q(pd, dnnl_query_src_md, 2), e_sic), "lstm: src_md(2) is src_iter_c, ldnc");
    tally.check(same_md(q(pd, dnnl_query_weights_md, 0), e_wl), "lstm: weights_md(0) is weights_layer, ldigo");
    tally.check(same_md(q(pd, dnnl_query_weights_md, 1), e_wi), "lstm: weights_md(1) is weights_iter, ldigo");
    tally.check(same_md(q(pd, dnnl_query_weights_md, 2), e_wp), "lstm: weights_md(2) is peephole, ldgo");
    tally.check(same_md(q(pd, dnnl_query_weights_md, 3), e_wr), "lstm: weights_md(3) is projection, ldio");
    tally.check(same_md(q(pd, dnnl_query_weights_md, 4), e_b), "lstm: weights_md(4) is bias, ldgo");
    tally.check(same_md(q(pd, dnnl_query_dst_md, 0), e_dst), "lstm: dst_md(0) is dst_layer, tnc");
    tally.check(same_md(q(pd, dnnl_query_dst_md, 1), e_si), "lstm: dst_md(1) is dst_iter");
    tally.check(same_md(q(pd, dnnl_query_dst_md, 2), e_sic), "lstm: dst_md(2) is dst_iter_c");
    const struct {
        int arg;
        const_dnnl_memory_desc_t want;
    } args[] = {{DNNL_ARG_SRC_LAYER, e_src}, {DNNL_ARG_SRC_ITER, e_si}, {DNNL_ARG_SRC_ITER_C, e_sic},
            {DNNL_ARG_WEIGHTS_LAYER, e_wl}, {DNNL_ARG_WEIGHTS_ITER, e_wi}, {DNNL_ARG_WEIGHTS_PEEPHOLE, e_wp},
            {DNNL_ARG_WEIGHTS_PROJECTION, e_wr}, {DNNL_ARG_BIAS, e_b}, {DNNL_ARG_DST_LAYER, e_dst},
            {DNNL_ARG_DST_ITER, e_si}, {DNNL_ARG_DST_ITER_C, e_sic}};
    for (const auto &a : args)
        tally.check(same_md(q(pd, dnnl_query_exec_arg_md, a.arg), a.want),
                ("lstm: exec_arg_md " + std::to_string(a.arg)).c_str());
    tally.check(is_zero(q(pd, dnnl_query_exec_arg_md, DNNL_ARG_AUGRU_ATTENTION)), "lstm: no attention");
    const_dnnl_memory_desc_t ws = q(pd, dnnl_query_workspace_md, 0);
    tally.check(!is_zero(ws) && dnnl_memory_desc_get_size(ws) > 0, "lstm training: workspace");
    tally.check(same_md(q(pd, dnnl_query_exec_arg_md, DNNL_ARG_WORKSPACE), ws), "lstm: exec_arg_md workspace");
    dnnl_alg_kind_t cell = dnnl_alg_kind_undef;
    dnnl_rnn_direction_t dir = dnnl_rnn_direction_undef;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_cell_kind, 0, &cell));
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_direction, 0, &dir));
    tally.check(cell == dnnl_vanilla_lstm && dir == dnnl_bidirectional_concat, "lstm: cell kind and direction");
    int nin = 0, nout = 0;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_num_of_inputs_s32, 0, &nin));
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_num_of_outputs_s32, 0, &nout));
    tally.check(nin == 8 && nout == 4, "lstm: 8 inputs, 4 outputs (with workspace)");
    dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &kind));
    tally.check(kind == dnnl_rnn, "lstm: kind rnn");

    // Missing or wrong workspace: refused, dst untouched.
    std::vector<float> vsrc(T * N * SLC, 0.5f), vsi(L * D * N * DIC, 0.1f), vsic(L * D * N * DHC, 0.1f),
            vwl(L * D * SLC * 4 * DHC, 0.01f), vwi(L * D * DIC * 4 * DHC, 0.01f), vwp(L * D * 3 * DHC, 0.1f),
            vwr(L * D * DHC * DIC, 0.1f), vb(L * D * 4 * DHC, 0.1f), vdst(T * N * 2 * DIC, 7.f),
            vdi(L * D * N * DIC, 7.f), vdic(L * D * N * DHC, 7.f);
    std::vector<dnnl_memory_t> mems;
    std::vector<dnnl_exec_arg_t> ea;
    auto add = [&](int arg, const_dnnl_memory_desc_t md, void *p) {
        dnnl_memory_t m = nullptr;
        KT_OK(dnnl_memory_create(&m, md, eng, p));
        mems.push_back(m);
        ea.push_back({arg, m});
    };
    add(DNNL_ARG_SRC_LAYER, e_src, vsrc.data());
    add(DNNL_ARG_SRC_ITER, e_si, vsi.data());
    add(DNNL_ARG_SRC_ITER_C, e_sic, vsic.data());
    add(DNNL_ARG_WEIGHTS_LAYER, e_wl, vwl.data());
    add(DNNL_ARG_WEIGHTS_ITER, e_wi, vwi.data());
    add(DNNL_ARG_WEIGHTS_PEEPHOLE, e_wp, vwp.data());
    add(DNNL_ARG_WEIGHTS_PROJECTION, e_wr, vwr.data());
    add(DNNL_ARG_BIAS, e_b, vb.data());
    add(DNNL_ARG_DST_LAYER, e_dst, vdst.data());
    add(DNNL_ARG_DST_ITER, e_si, vdi.data());
    add(DNNL_ARG_DST_ITER_C, e_sic, vdic.data());
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    auto untouched = [&] {
        for (float v : vdst)
            if (v != 7.f) return false;
        for (float v : vdi)
            if (v != 7.f) return false;
        return true;
    };
    tally.check(dnnl_primitive_execute(prim, strm, (int)ea.size(), ea.data()) == dnnl_invalid_arguments
                    && untouched(),
            "lstm training without workspace: invalid_arguments, nothing written");
    const size_t ws_size = dnnl_memory_desc_get_size(ws);
    std::vector<char> wsbuf(ws_size + 64);
    md_t small(make_md({(dnnl_dim_t)ws_size - 1}, dnnl_u8, dnnl_a));
    add(DNNL_ARG_WORKSPACE, small, wsbuf.data());
    tally.check(dnnl_primitive_execute(prim, strm, (int)ea.size(), ea.data()) == dnnl_invalid_arguments
                    && untouched(),
            "lstm training with a wrong workspace descriptor: invalid_arguments, nothing written");
    dnnl_memory_destroy(mems.back());
    mems.pop_back();
    ea.pop_back();
    add(DNNL_ARG_WORKSPACE, ws, wsbuf.data());
    tally.check(dnnl_primitive_execute(prim, strm, (int)ea.size(), ea.data()) == dnnl_success && !untouched(),
            "lstm training with its workspace: runs");
    dnnl_primitive_destroy(prim);
    for (auto m : mems) dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);

    // Inference: no workspace; memory_consumption (library mode) equals the
    // user-mode scratchpad size.
    dnnl_primitive_desc_t pdi = nullptr, pdu = nullptr;
    KT_OK(dnnl_lstm_forward_primitive_desc_create(&pdi, eng, dnnl_forward_inference, dnnl_bidirectional_concat,
            src, si, sic, wl, wi, wp, wr, b, dst, di, dic, 0, nullptr));
    dnnl_primitive_attr_t a = nullptr;
    KT_OK(dnnl_primitive_attr_create(&a));
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(a, dnnl_scratchpad_mode_user));
    KT_OK(dnnl_lstm_forward_primitive_desc_create(&pdu, eng, dnnl_forward_inference, dnnl_bidirectional_concat,
            src, si, sic, wl, wi, wp, wr, b, dst, di, dic, 0, a));
    dnnl_primitive_attr_destroy(a);
    tally.check(is_zero(q(pdi, dnnl_query_workspace_md, 0)), "lstm inference: no workspace");
    dnnl_dim_t cons_lib = -1, cons_user = -1;
    KT_OK(dnnl_primitive_desc_query(pdi, dnnl_query_memory_consumption_s64, 0, &cons_lib));
    KT_OK(dnnl_primitive_desc_query(pdu, dnnl_query_memory_consumption_s64, 0, &cons_user));
    const size_t sp = dnnl_memory_desc_get_size(q(pdu, dnnl_query_scratchpad_md, 0));
    tally.check(cons_user == 0 && sp > 0 && (size_t)cons_lib == sp,
            "lstm: memory_consumption in library mode == user scratchpad size");
    dnnl_primitive_desc_destroy(pdi);
    dnnl_primitive_desc_destroy(pdu);
}

// Bad descriptors give a clear status and leave the output handle alone.
void check_bad_input() {
    const int T = 2, N = 2, C = 4;
    md_t src(make_md({T, N, C}, dnnl_f32, dnnl_tnc)), wl(make_md({1, 1, C, 1, C}, dnnl_f32, dnnl_ldigo)),
            wi(make_md({1, 1, C, 1, C}, dnnl_f32, dnnl_ldigo)), dst(make_md({T, N, C}, dnnl_f32, dnnl_tnc)),
            bad_src(make_md({T, N, C + 1}, dnnl_f32, dnnl_tnc)), wl3(make_md({1, 1, C, 3, C}, dnnl_f32, dnnl_ldigo)),
            wl_d2(make_md({1, 2, C, 1, C}, dnnl_f32, dnnl_ldigo)), bias_bad(make_md({1, 1, 2, C}, dnnl_f32, dnnl_ldgo)),
            si_bad(make_md({1, 1, N + 1, C}, dnnl_f32, dnnl_ldnc)),
            src_bf(make_md({T, N, C}, dnnl_bf16, dnnl_tnc)), dst_s8(make_md({T, N, C}, dnnl_u8, dnnl_tnc));
    struct bad_t {
        const char *what;
        dnnl_status_t want;
        std::function<dnnl_status_t(dnnl_primitive_desc_t *)> make;
    };
    const auto F = dnnl_forward_inference;
    const auto l2r = dnnl_unidirectional_left2right;
    const bad_t cases[] = {
            {"src_layer channels differ from weights", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, F, dnnl_eltwise_tanh, l2r,
                                bad_src, nullptr, wl, wi, nullptr, dst, nullptr, 0, 0.f, 0.f, nullptr);
                    }},
            {"vanilla RNN weights with 3 gates", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, F, dnnl_eltwise_tanh, l2r, src,
                                nullptr, wl3, wi, nullptr, dst, nullptr, 0, 0.f, 0.f, nullptr);
                    }},
            {"two directions for left2right", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, F, dnnl_eltwise_tanh, l2r, src,
                                nullptr, wl_d2, wi, nullptr, dst, nullptr, 0, 0.f, 0.f, nullptr);
                    }},
            {"bias with the wrong gate count", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, F, dnnl_eltwise_tanh, l2r, src,
                                nullptr, wl, wi, bias_bad, dst, nullptr, 0, 0.f, 0.f, nullptr);
                    }},
            {"src_iter of the wrong batch", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, F, dnnl_eltwise_tanh, l2r, src,
                                si_bad, wl, wi, nullptr, dst, nullptr, 0, 0.f, 0.f, nullptr);
                    }},
            {"activation gelu", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, F, dnnl_eltwise_gelu_tanh, l2r,
                                src, nullptr, wl, wi, nullptr, dst, nullptr, 0, 0.f, 0.f, nullptr);
                    }},
            {"backward prop kind to forward", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, dnnl_backward,
                                dnnl_eltwise_tanh, l2r, src, nullptr, wl, wi, nullptr, dst, nullptr, 0, 0.f, 0.f,
                                nullptr);
                    }},
            {"null src_layer", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_gru_forward_primitive_desc_create(pd, eng, F, l2r, nullptr, nullptr, wl3, wi,
                                nullptr, dst, nullptr, 0, nullptr);
                    }},
            {"AUGRU without attention", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_augru_forward_primitive_desc_create(pd, eng, F, l2r, src, nullptr, nullptr, wl3,
                                wi, nullptr, dst, nullptr, 0, nullptr);
                    }},
            {"bf16 src_layer with f32 weights and dst_layer (a mix oneDNN refuses)", dnnl_unimplemented,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, F, dnnl_eltwise_tanh, l2r,
                                src_bf, nullptr, wl, wi, nullptr, dst, nullptr, 0, 0.f, 0.f, nullptr);
                    }},
            {"u8 dst_layer of an f32 vanilla RNN (no such int8 mix)", dnnl_unimplemented,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, F, dnnl_eltwise_tanh, l2r, src,
                                nullptr, wl, wi, nullptr, dst_s8, nullptr, 0, 0.f, 0.f, nullptr);
                    }},
            {"backward without the forward hint", dnnl_invalid_arguments,
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_vanilla_rnn_backward_primitive_desc_create(pd, eng, dnnl_backward,
                                dnnl_eltwise_tanh, l2r, src, nullptr, wl, wi, nullptr, dst, nullptr, src, nullptr, wl,
                                wi, nullptr, dst, nullptr, 0, 0.f, 0.f, nullptr, nullptr);
                    }},
    };
    for (const auto &c : cases) {
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t st = c.make(&pd);
        if (st != c.want) std::fprintf(stderr, "%s: status %d\n", c.what, (int)st);
        tally.check(st == c.want && pd == nullptr, c.what);
        if (pd) dnnl_primitive_desc_destroy(pd);
    }
}

// oneDNN's shape rules (src/common/rnn.cpp): SIC = weights_iter dims[2],
// GRU cells need SIC == DHC, T > 1 needs SIC == DIC, DLC == (concat ? 2 :
// 1) * DIC and L > 1 needs SLC == DIC.
void check_dims_rules() {
    struct case_t {
        const char *what;
        dnnl_status_t want;
        bool gru; // else LSTM
        dnnl_rnn_direction_t dir;
        int L, T, SLC, SIC, DHC, DIC; // DIC != DHC: LSTM projection
    };
    const auto l2r = dnnl_unidirectional_left2right, concat = dnnl_bidirectional_concat;
    const case_t cases[] = {
            {"LSTM, one step, SIC 5 != DIC 3 (oneDNN's decoder shape): accepted", dnnl_success, false, l2r, 2, 1, 3,
                    5, 3, 3},
            {"LSTMP, one step, SIC 2 != DIC 3 != DHC 4: accepted", dnnl_success, false, l2r, 1, 1, 4, 2, 4, 3},
            {"LSTM, two steps, SIC 5 != DIC 3: invalid_arguments", dnnl_invalid_arguments, false, l2r, 1, 2, 3, 5, 3,
                    3},
            {"GRU, one step, SIC 5 != DHC 3: invalid_arguments", dnnl_invalid_arguments, true, l2r, 1, 1, 3, 5, 3, 3},
            {"GRU, SIC == DHC: accepted", dnnl_success, true, l2r, 1, 2, 4, 3, 3, 3},
            {"concat, two layers, SLC == DIC: accepted", dnnl_success, false, concat, 2, 2, 3, 3, 3, 3},
            {"concat, two layers, SLC == 2 * DIC: invalid_arguments", dnnl_invalid_arguments, false, concat, 2, 2, 6,
                    3, 3, 3},
            {"concat, one layer, SLC == 2 * DIC: accepted", dnnl_success, false, concat, 1, 2, 6, 3, 3, 3},
            {"left2right, two layers, SLC != DIC: invalid_arguments", dnnl_invalid_arguments, false, l2r, 2, 2, 4, 3,
                    3, 3},
    };
    for (const case_t &c : cases) {
        const int D = c.dir == concat ? 2 : 1, N = 2, G = c.gru ? 3 : 4;
        const int DLC = c.dir == concat ? 2 * c.DIC : c.DIC;
        md_t src(make_md({c.T, N, c.SLC}, dnnl_f32, dnnl_tnc)), dst(make_md({c.T, N, DLC}, dnnl_f32, dnnl_tnc)),
                wl(make_md({c.L, D, c.SLC, G, c.DHC}, dnnl_f32, dnnl_ldigo)),
                wi(make_md({c.L, D, c.SIC, G, c.DHC}, dnnl_f32, dnnl_ldigo)),
                si(make_md({c.L, D, N, c.SIC}, dnnl_f32, dnnl_ldnc)), di(make_md({c.L, D, N, c.DIC}, dnnl_f32, dnnl_ldnc)),
                cs(make_md({c.L, D, N, c.DHC}, dnnl_f32, dnnl_ldnc)),
                wr(make_md({c.L, D, c.DHC, c.DIC}, dnnl_f32, dnnl_ldio));
        const bool proj = c.DIC != c.DHC;
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t st = c.gru
                ? dnnl_gru_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, c.dir, src, si, wl, wi,
                        nullptr, dst, di, 0, nullptr)
                : dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, c.dir, src, si, cs, wl,
                        wi, nullptr, proj ? (const_dnnl_memory_desc_t)wr : nullptr, nullptr, dst, di, cs, 0, nullptr);
        if (st != c.want) std::fprintf(stderr, "%s: status %d\n", c.what, (int)st);
        tally.check(st == c.want && (pd != nullptr) == (c.want == dnnl_success), c.what);
        if (pd) {
            // The accepted ones answer their shapes back.
            tally.check(same_md(q(pd, dnnl_query_src_md, 1), si) && same_md(q(pd, dnnl_query_weights_md, 1), wi)
                            && same_md(q(pd, dnnl_query_dst_md, 1), di),
                    (std::string(c.what) + ": src_iter {L, D, N, SIC}, weights_iter {L, D, SIC, G, DHC}").c_str());
            dnnl_primitive_desc_destroy(pd);
        }
    }
}

void check_qparams() {
    dnnl::primitive_attr a;
    a.set_rnn_data_qparams(64.f, 128.f);
    float s = 0, sh = 0;
    a.get_rnn_data_qparams(s, sh);
    tally.check(s == 64.f && sh == 128.f, "rnn_data_qparams: stored and returned");
    a.set_rnn_weights_qparams(3, {1.f, 2.f, 3.f});
    int mask = 0;
    std::vector<float> sc;
    a.get_rnn_weights_qparams(mask, sc);
    tally.check(mask == 3 && sc == std::vector<float>({1.f, 2.f, 3.f}), "rnn_weights_qparams: stored and returned");
    a.set_rnn_weights_projection_qparams(0, {0.5f});
    a.get_rnn_weights_projection_qparams(mask, sc);
    tally.check(mask == 0 && sc == std::vector<float>({0.5f}), "rnn_weights_projection_qparams: stored and returned");
    float one = 1.f;
    tally.check(dnnl_primitive_attr_set_rnn_weights_qparams(a.get(), 0, 0, &one) == dnnl_invalid_arguments
                    && dnnl_primitive_attr_set_rnn_weights_qparams(a.get(), 1, 0, nullptr) == dnnl_invalid_arguments
                    && dnnl_primitive_attr_set_rnn_data_qparams(nullptr, 1.f, 0.f) == dnnl_invalid_arguments,
            "rnn qparams: bad count, null scales, null attr -> invalid_arguments");
    a.get_rnn_weights_qparams(mask, sc);
    tally.check(mask == 3 && sc.size() == 3, "rnn_weights_qparams: a refused set changes nothing");

    // The qparams belong to the RNN family: an f32 vanilla RNN takes the
    // attr (the f32 computation does not read them), any other primitive
    // declines it, as oneDNN does.
    using namespace dnnl;
    engine e(engine::kind::cpu, 0);
    using tag = memory::format_tag;
    auto md = [](memory::dims d, tag t) { return memory::desc(d, memory::data_type::f32, t); };
    const memory::dim T = 2, N = 2, C = 4;
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = dnnl_vanilla_rnn_forward_primitive_desc_create(&pd, e.get(), dnnl_forward_inference,
            dnnl_eltwise_tanh, dnnl_unidirectional_left2right, md({T, N, C}, tag::tnc).get(), nullptr,
            md({1, 1, C, 1, C}, tag::ldigo).get(), md({1, 1, C, 1, C}, tag::ldigo).get(),
            md({1, 1, 1, C}, tag::ldgo).get(),
            md({T, N, C}, tag::tnc).get(), nullptr, dnnl_rnn_flags_undef, 0.f, 0.f, a.get());
    tally.check(st == dnnl_success, "rnn qparams: an f32 vanilla RNN accepts them");
    dnnl_primitive_desc_destroy(pd);
    pd = nullptr;
    st = dnnl_eltwise_forward_primitive_desc_create(&pd, e.get(), dnnl_forward_inference, dnnl_eltwise_relu,
            md({N, C}, tag::ab).get(), md({N, C}, tag::ab).get(), 0.f, 0.f, a.get());
    tally.check(st == dnnl_unimplemented && pd == nullptr, "rnn qparams: eltwise declines them (unimplemented)");
    dnnl_primitive_desc_destroy(pd);
}

// Every cell through its C++ class, against the naive reference.
void check_cpp(const prob_t &p, uint64_t seed) {
    using namespace dnnl;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    engine e(engine::kind::cpu, 0);
    stream s(e);
    data_t x;
    make_data(p, x, seed);
    std::vector<double> rdst, rdi, rdic;
    reference(p, x, rdst, rdi, rdic);
    const memory::dim L = p.L, D = p.D(), T = p.T, N = p.N, G = p.G(), DHC = p.DHC, DIC = p.dic();
    memory::desc src({T, N, p.SLC}, dt::f32, tag::tnc), wl({L, D, p.SLC, G, DHC}, dt::f32, tag::ldigo),
            wi({L, D, DIC, G, DHC}, dt::f32, tag::ldigo), b({L, D, p.GB(), DHC}, dt::f32, tag::ldgo),
            dst({T, N, p.DLC()}, dt::f32, tag::tnc), si({L, D, N, DIC}, dt::f32, tag::ldnc),
            di({L, D, N, DIC}, dt::f32, tag::ldnc), sic({L, D, N, DHC}, dt::f32, tag::ldnc),
            att({T, N, 1}, dt::f32, tag::tnc);
    const auto pk = prop_kind::forward_training;
    const auto dir = static_cast<rnn_direction>(p.dir);
    primitive prim;
    primitive_desc_base pdb;
    memory::desc ws_md;
    std::string name = "C++ " + p.name();
    bool kinds_ok = false;
    switch (p.cell) {
        case c_rnn: {
            vanilla_rnn_forward::primitive_desc pd(e, pk, static_cast<algorithm>(p.act), dir, src, si, wl, wi, b,
                    dst, di, p.alpha);
            kinds_ok = pd.get_cell_kind() == algorithm::vanilla_rnn
                    && pd.get_activation_kind() == static_cast<algorithm>(p.act) && pd.get_alpha() == p.alpha;
            ws_md = pd.workspace_desc();
            prim = vanilla_rnn_forward(pd);
            break;
        }
        case c_lstm: {
            lstm_forward::primitive_desc pd(e, pk, dir, src, si, sic, wl, wi, b, dst, di, sic);
            kinds_ok = pd.get_cell_kind() == algorithm::vanilla_lstm && pd.src_iter_c_desc() == sic
                    && pd.weights_layer_desc() == wl && pd.bias_desc() == b;
            ws_md = pd.workspace_desc();
            prim = lstm_forward(pd);
            break;
        }
        case c_gru: {
            gru_forward::primitive_desc pd(e, pk, dir, src, si, wl, wi, b, dst, di);
            kinds_ok = pd.get_cell_kind() == algorithm::vanilla_gru && pd.get_direction() == dir;
            ws_md = pd.workspace_desc();
            prim = gru_forward(pd);
            break;
        }
        case c_lbr_gru: {
            lbr_gru_forward::primitive_desc pd(e, pk, dir, src, si, wl, wi, b, dst, di);
            kinds_ok = pd.get_cell_kind() == algorithm::lbr_gru && pd.dst_layer_desc() == dst;
            ws_md = pd.workspace_desc();
            prim = lbr_gru_forward(pd);
            break;
        }
        case c_augru: {
            augru_forward::primitive_desc pd(e, pk, dir, src, si, att, wl, wi, b, dst, di);
            kinds_ok = pd.get_cell_kind() == algorithm::vanilla_augru && pd.augru_attention_desc() == att;
            ws_md = pd.workspace_desc();
            prim = augru_forward(pd);
            break;
        }
        case c_lbr_augru: {
            lbr_augru_forward::primitive_desc pd(e, pk, dir, src, si, att, wl, wi, b, dst, di);
            kinds_ok = pd.get_cell_kind() == algorithm::lbr_augru && pd.src_iter_desc() == si;
            ws_md = pd.workspace_desc();
            prim = lbr_augru_forward(pd);
            break;
        }
    }
    tally.check(kinds_ok, (name + ": queries").c_str());
    std::vector<float> vdst((size_t)T * N * p.DLC(), NAN), vdi((size_t)L * D * N * DIC, NAN),
            vdic((size_t)L * D * N * DHC, NAN);
    memory m_ws(ws_md, e);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC_LAYER, memory(src, e, x.src.data())},
            {DNNL_ARG_SRC_ITER, memory(si, e, x.si.data())}, {DNNL_ARG_WEIGHTS_LAYER, memory(wl, e, x.wl.data())},
            {DNNL_ARG_WEIGHTS_ITER, memory(wi, e, x.wi.data())}, {DNNL_ARG_BIAS, memory(b, e, x.bias.data())},
            {DNNL_ARG_DST_LAYER, memory(dst, e, vdst.data())}, {DNNL_ARG_DST_ITER, memory(di, e, vdi.data())},
            {DNNL_ARG_WORKSPACE, m_ws}};
    if (p.cell == c_lstm) {
        args.insert({DNNL_ARG_SRC_ITER_C, memory(sic, e, x.sic.data())});
        args.insert({DNNL_ARG_DST_ITER_C, memory(sic, e, vdic.data())});
    }
    if (p.augru()) args.insert({DNNL_ARG_AUGRU_ATTENTION, memory(att, e, x.att.data())});
    prim.execute(s, args);
    s.wait();
    const double tol = tolerance(p);
    tally.check(max_abs_diff(vdst, rdst) <= tol && max_abs_diff(vdi, rdi) <= tol,
            (name + ": dst_layer and dst_iter vs reference").c_str());
    if (p.cell == c_lstm) tally.check(max_abs_diff(vdic, rdic) <= 2 * tol, (name + ": dst_iter_c vs reference").c_str());
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    check_lstm_queries();
    check_bad_input();
    check_dims_rules();
    check_qparams();
    const cell_t cells[] = {c_rnn, c_lstm, c_gru, c_lbr_gru, c_augru, c_lbr_augru};
    uint64_t seed = 500;
    for (cell_t cell : cells)
        for (int nthr : {1, 2}) {
            prob_t p;
            p.cell = cell;
            p.act = dnnl_eltwise_relu;
            p.alpha = 0.5f;
            p.dir = nthr == 1 ? dnnl_bidirectional_sum : dnnl_unidirectional_left2right;
            p.L = 2;
            p.T = 3;
            p.N = 3;
            p.DHC = 5;
            p.SLC = p.dic();
            kt::with_threads(nthr, [&] { check_cpp(p, seed++); });
        }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
