// The small CNN trainer shared by the training example (cnn_training.cpp)
// and the flagship demo: written with the public C++ API only, the way a
// oneDNN v3 training program is (forward_training primitives and their
// workspaces; backward data and backward weights primitives created with the
// forward primitive descriptors as hints).
//
//   src 8x3x8x8 (nchw), labels 0..3
//   conv1 3x3 pad 1 -> 8 ch, bias; relu
//   conv2 3x3 pad 1 -> 8 ch, bias; relu
//   max pooling 2x2 stride 2 (workspace)                 -> 8x8x4x4
//   inner product -> 4, bias; logsoftmax
//   loss = -mean(log p[label])
//
// One program includes it once: its definitions live in an unnamed namespace.
#ifndef KESTREL_EXAMPLES_CNN_TRAINER_HPP
#define KESTREL_EXAMPLES_CNN_TRAINER_HPP

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"

namespace {

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

const memory::dim N = 8, IC = 3, H = 8, W = 8, C = 8, K = 4, PH = 4, PW = 4;
const float learning_rate = 0.2f;
const int steps = 12;

std::vector<float> seeded(size_t n, unsigned seed, float scale) {
    std::vector<float> v(n);
    unsigned s = seed;
    for (auto &x : v) {
        s = s * 1664525u + 1013904223u;
        x = scale * ((float)(s >> 8) / 16777216.f - 0.5f);
    }
    return v;
}

struct step_t {
    primitive prim;
    std::unordered_map<int, memory> args;
    primitive_desc_base pd;
};

struct trainer_t {
    engine eng {engine::kind::cpu, 0};
    stream strm {eng};
    std::vector<step_t> fwd, bwd;
    // Parameters and their gradients (plain layouts, so SGD is one loop).
    memory w1, b1, w2, b2, w3, b3, dw1, db1, dw2, db2, dw3, db3;
    memory src, logp, diff_logp;
    std::vector<int> labels;

    memory mem(const memory::desc &d) { return memory(d, eng); }
    memory filled(const memory::desc &d, const std::vector<float> &v) {
        memory m(d, eng);
        std::memcpy(m.get_data_handle(), v.data(), v.size() * sizeof(float));
        return m;
    }

    explicit trainer_t(scratchpad_mode mode) {
        primitive_attr attr;
        attr.set_scratchpad_mode(mode);
        const memory::desc x_d({N, IC, H, W}, dt::f32, tag::nchw), a_d({N, C, H, W}, dt::f32, tag::nchw);
        const memory::desc w1_d({C, IC, 3, 3}, dt::f32, tag::oihw), w2_d({C, C, 3, 3}, dt::f32, tag::oihw);
        const memory::desc bias_d({C}, dt::f32, tag::x), p_d({N, C, PH, PW}, dt::f32, tag::nchw);
        const memory::desc w3_d({K, C, PH, PW}, dt::f32, tag::oihw), b3_d({K}, dt::f32, tag::x);
        const memory::desc y_d({N, K}, dt::f32, tag::nc);
        const memory::dims s1 = {1, 1}, pad1 = {1, 1};

        src = filled(x_d, seeded(N * IC * H * W, 11, 2.f));
        for (int n = 0; n < N; ++n) labels.push_back(n % K);
        w1 = filled(w1_d, seeded(C * IC * 9, 12, 0.6f)), b1 = filled(bias_d, seeded(C, 13, 0.1f));
        w2 = filled(w2_d, seeded(C * C * 9, 14, 0.3f)), b2 = filled(bias_d, seeded(C, 15, 0.1f));
        w3 = filled(w3_d, seeded(K * C * PH * PW, 16, 0.3f)), b3 = filled(b3_d, seeded(K, 17, 0.1f));
        dw1 = mem(w1_d), db1 = mem(bias_d), dw2 = mem(w2_d), db2 = mem(bias_d), dw3 = mem(w3_d), db3 = mem(b3_d);

        // ---- forward (training): every primitive keeps what backward needs.
        const auto fwd_t = prop_kind::forward_training;
        convolution_forward::primitive_desc c1(eng, fwd_t, algorithm::convolution_direct, x_d, w1_d, bias_d, a_d,
                s1, pad1, pad1, attr);
        eltwise_forward::primitive_desc r1(eng, fwd_t, algorithm::eltwise_relu, a_d, a_d, 0.f, 0.f, attr);
        convolution_forward::primitive_desc c2(eng, fwd_t, algorithm::convolution_direct, a_d, w2_d, bias_d, a_d,
                s1, pad1, pad1, attr);
        eltwise_forward::primitive_desc r2(eng, fwd_t, algorithm::eltwise_relu, a_d, a_d, 0.f, 0.f, attr);
        pooling_forward::primitive_desc pl(eng, fwd_t, algorithm::pooling_max, a_d, p_d, {2, 2}, {2, 2}, {0, 0},
                {0, 0}, {0, 0}, attr);
        inner_product_forward::primitive_desc ip(eng, fwd_t, p_d, w3_d, b3_d, y_d, attr);
        softmax_forward::primitive_desc sm(eng, fwd_t, algorithm::softmax_log, y_d, y_d, 1, attr);

        memory a1 = mem(a_d), r1o = mem(a_d), a2 = mem(a_d), r2o = mem(a_d), po = mem(p_d), ws = mem(pl.workspace_desc());
        memory y = mem(y_d);
        logp = mem(y_d);
        fwd.push_back({convolution_forward(c1),
                {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w1}, {DNNL_ARG_BIAS, b1}, {DNNL_ARG_DST, a1}}, c1});
        fwd.push_back({eltwise_forward(r1), {{DNNL_ARG_SRC, a1}, {DNNL_ARG_DST, r1o}}, r1});
        fwd.push_back({convolution_forward(c2),
                {{DNNL_ARG_SRC, r1o}, {DNNL_ARG_WEIGHTS, w2}, {DNNL_ARG_BIAS, b2}, {DNNL_ARG_DST, a2}}, c2});
        fwd.push_back({eltwise_forward(r2), {{DNNL_ARG_SRC, a2}, {DNNL_ARG_DST, r2o}}, r2});
        fwd.push_back({pooling_forward(pl), {{DNNL_ARG_SRC, r2o}, {DNNL_ARG_DST, po}, {DNNL_ARG_WORKSPACE, ws}}, pl});
        fwd.push_back({inner_product_forward(ip),
                {{DNNL_ARG_SRC, po}, {DNNL_ARG_WEIGHTS, w3}, {DNNL_ARG_BIAS, b3}, {DNNL_ARG_DST, y}}, ip});
        fwd.push_back({softmax_forward(sm), {{DNNL_ARG_SRC, y}, {DNNL_ARG_DST, logp}}, sm});

        // ---- backward, last layer first.
        diff_logp = mem(y_d);
        memory dy = mem(y_d), dpo = mem(p_d), dr2 = mem(a_d), da2 = mem(a_d), dr1 = mem(a_d), da1 = mem(a_d);
        softmax_backward::primitive_desc smb(eng, algorithm::softmax_log, y_d, y_d, y_d, 1, sm, attr);
        inner_product_backward_data::primitive_desc ipd(eng, p_d, w3_d, y_d, ip, attr);
        inner_product_backward_weights::primitive_desc ipw(eng, p_d, w3_d, b3_d, y_d, ip, attr);
        pooling_backward::primitive_desc plb(eng, algorithm::pooling_max, a_d, p_d, {2, 2}, {2, 2}, {0, 0}, {0, 0},
                {0, 0}, pl, attr);
        eltwise_backward::primitive_desc r2b(eng, algorithm::eltwise_relu, a_d, a_d, a_d, 0.f, 0.f, r2, attr);
        convolution_backward_data::primitive_desc c2d(eng, algorithm::convolution_direct, a_d, w2_d, a_d, s1, pad1,
                pad1, c2, attr);
        convolution_backward_weights::primitive_desc c2w(eng, algorithm::convolution_direct, a_d, w2_d, bias_d, a_d,
                s1, pad1, pad1, c2, attr);
        eltwise_backward::primitive_desc r1b(eng, algorithm::eltwise_relu, a_d, a_d, a_d, 0.f, 0.f, r1, attr);
        convolution_backward_weights::primitive_desc c1w(eng, algorithm::convolution_direct, x_d, w1_d, bias_d, a_d,
                s1, pad1, pad1, c1, attr);
        bwd.push_back({softmax_backward(smb), {{DNNL_ARG_DST, logp}, {DNNL_ARG_DIFF_DST, diff_logp},
                {DNNL_ARG_DIFF_SRC, dy}}, smb});
        bwd.push_back({inner_product_backward_weights(ipw), {{DNNL_ARG_SRC, po}, {DNNL_ARG_DIFF_DST, dy},
                {DNNL_ARG_DIFF_WEIGHTS, dw3}, {DNNL_ARG_DIFF_BIAS, db3}}, ipw});
        bwd.push_back({inner_product_backward_data(ipd), {{DNNL_ARG_DIFF_DST, dy}, {DNNL_ARG_WEIGHTS, w3},
                {DNNL_ARG_DIFF_SRC, dpo}}, ipd});
        bwd.push_back({pooling_backward(plb), {{DNNL_ARG_DIFF_DST, dpo}, {DNNL_ARG_WORKSPACE, ws},
                {DNNL_ARG_DIFF_SRC, dr2}}, plb});
        bwd.push_back({eltwise_backward(r2b), {{DNNL_ARG_SRC, a2}, {DNNL_ARG_DIFF_DST, dr2},
                {DNNL_ARG_DIFF_SRC, da2}}, r2b});
        bwd.push_back({convolution_backward_weights(c2w), {{DNNL_ARG_SRC, r1o}, {DNNL_ARG_DIFF_DST, da2},
                {DNNL_ARG_DIFF_WEIGHTS, dw2}, {DNNL_ARG_DIFF_BIAS, db2}}, c2w});
        bwd.push_back({convolution_backward_data(c2d), {{DNNL_ARG_DIFF_DST, da2}, {DNNL_ARG_WEIGHTS, w2},
                {DNNL_ARG_DIFF_SRC, dr1}}, c2d});
        bwd.push_back({eltwise_backward(r1b), {{DNNL_ARG_SRC, a1}, {DNNL_ARG_DIFF_DST, dr1},
                {DNNL_ARG_DIFF_SRC, da1}}, r1b});
        bwd.push_back({convolution_backward_weights(c1w), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, da1},
                {DNNL_ARG_DIFF_WEIGHTS, dw1}, {DNNL_ARG_DIFF_BIAS, db1}}, c1w});
    }

    void run(std::vector<step_t> &list, const memory *scratch) {
        for (auto &s : list) {
            auto args = s.args;
            if (scratch) args[DNNL_ARG_SCRATCHPAD] = *scratch;
            s.prim.execute(strm, args);
        }
        strm.wait();
    }

    // Forward and the loss; also sets diff_logp = d loss / d logp.
    double forward(const memory *scratch) {
        run(fwd, scratch);
        const float *lp = static_cast<const float *>(logp.get_data_handle());
        float *g = static_cast<float *>(diff_logp.get_data_handle());
        double loss = 0;
        for (int n = 0; n < N; ++n)
            for (int k = 0; k < K; ++k) {
                const bool hit = labels[n] == k;
                if (hit) loss -= lp[n * K + k];
                g[n * K + k] = hit ? -1.f / N : 0.f;
            }
        return loss / N;
    }

    void sgd() {
        const std::pair<memory *, memory *> params[] = {
                {&w1, &dw1}, {&b1, &db1}, {&w2, &dw2}, {&b2, &db2}, {&w3, &dw3}, {&b3, &db3}};
        for (auto &p : params) {
            float *w = static_cast<float *>(p.first->get_data_handle());
            const float *g = static_cast<const float *>(p.second->get_data_handle());
            const size_t n = p.first->get_desc().get_size() / sizeof(float);
            for (size_t i = 0; i < n; ++i) w[i] -= learning_rate * g[i];
        }
    }

    size_t max_scratchpad() const {
        size_t m = 0;
        for (auto *l : {&fwd, &bwd})
            for (auto &s : *l) m = std::max(m, s.pd.scratchpad_desc().get_size());
        return m;
    }
    size_t sum_consumption() const {
        size_t m = 0;
        for (auto *l : {&fwd, &bwd})
            for (auto &s : *l) m += (size_t)s.pd.query_s64(query::memory_consumption_s64);
        return m;
    }
};

// Central difference of the loss in one parameter element, against the
// gradient backward computed. The loss is piecewise smooth (relu, max
// pooling); a step of 1e-3 stays inside one piece unless a pre-activation or
// a pooling tie lies that close, which these seeded inputs avoid. Error
// budget: the f32 forward's rounding (~1e-6 relative on a loss of ~1)
// divided by 2h gives ~5e-4, plus the O(h^2) truncation.
bool check_gradient(trainer_t &t, memory &param, const memory &grad, size_t i, const char *name) {
    float *w = static_cast<float *>(param.get_data_handle());
    const float g = static_cast<const float *>(grad.get_data_handle())[i];
    const float h = 1e-3f, keep = w[i];
    w[i] = keep + h;
    const double lp = t.forward(nullptr);
    w[i] = keep - h;
    const double lm = t.forward(nullptr);
    w[i] = keep;
    t.forward(nullptr);
    const double fd = (lp - lm) / (2.0 * h);
    const bool ok = std::fabs(fd - g) <= 2e-3 + 2e-2 * std::fabs(fd);
    std::printf("    d loss / d %s[%zu]: backward %+.5f, finite difference %+.5f %s\n", name, i, g, fd,
            ok ? "" : "MISMATCH");
    return ok;
}

} // namespace

#endif
