// Getting started with the C++ API.
//
// A two-layer perceptron on a batch of 8: y = softmax(relu(x W1 + b1) W2 + b2),
// written with dnnl::matmul (bias and a fused ReLU post-op) and
// dnnl::softmax_forward, then checked against plain loops. It also shows how
// errors surface in C++: a mismatched shape throws dnnl::error with
// dnnl_invalid_arguments, and nothing is computed.
//
// Build against an installed Kestrel:
//   c++ -std=c++17 getting_started.cpp $(pkg-config --cflags --libs dnnl)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "dnnl.hpp"

using namespace dnnl;
using dt = memory::data_type;
using tag = memory::format_tag;

namespace {

const memory::dim B = 8, IN = 33, HID = 20, OUT = 6;

std::vector<float> make(size_t n, unsigned seed) {
    std::vector<float> v(n);
    for (auto &x : v) {
        seed = seed * 1103515245u + 12345u;
        x = float((seed >> 9) & 0xffff) / 32768.f - 1.f;
    }
    return v;
}

// y[b][o] = sum_i x[b][i] * w[i][o] + bias[o], in double.
std::vector<double> dense(const std::vector<double> &x, const std::vector<float> &w,
        const std::vector<float> &bias, memory::dim in, memory::dim out) {
    std::vector<double> y(B * out);
    for (memory::dim b = 0; b < B; ++b)
        for (memory::dim o = 0; o < out; ++o) {
            double acc = bias[o];
            for (memory::dim i = 0; i < in; ++i)
                acc += x[b * in + i] * w[i * out + o];
            y[b * out + o] = acc;
        }
    return y;
}

} // namespace

int main() {
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);

    auto x = make(B * IN, 1), w1 = make(IN * HID, 2), b1 = make(HID, 3);
    auto w2 = make(HID * OUT, 4), b2 = make(OUT, 5);
    std::vector<float> h(B * HID), logits(B * OUT), prob(B * OUT);

    // Memory objects over the user's buffers: row-major 2D tensors.
    memory::desc x_md({B, IN}, dt::f32, tag::ab), w1_md({IN, HID}, dt::f32, tag::ab);
    memory::desc b1_md({1, HID}, dt::f32, tag::ab), h_md({B, HID}, dt::f32, tag::ab);
    memory::desc w2_md({HID, OUT}, dt::f32, tag::ab), b2_md({1, OUT}, dt::f32, tag::ab);
    memory::desc y_md({B, OUT}, dt::f32, tag::ab);
    memory x_m(x_md, eng, x.data()), w1_m(w1_md, eng, w1.data()), b1_m(b1_md, eng, b1.data());
    memory h_m(h_md, eng, h.data()), w2_m(w2_md, eng, w2.data()), b2_m(b2_md, eng, b2.data());
    memory y_m(y_md, eng, logits.data()), p_m(y_md, eng, prob.data());

    // Layer 1: matmul with bias and a fused ReLU.
    post_ops ops;
    ops.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    primitive_attr attr;
    attr.set_post_ops(ops);
    matmul::primitive_desc l1_pd(eng, x_md, w1_md, b1_md, h_md, attr);
    matmul(l1_pd).execute(strm, {{DNNL_ARG_SRC, x_m}, {DNNL_ARG_WEIGHTS, w1_m},
            {DNNL_ARG_BIAS, b1_m}, {DNNL_ARG_DST, h_m}});

    // Layer 2: matmul with bias, then softmax over the classes (axis 1).
    matmul::primitive_desc l2_pd(eng, h_md, w2_md, b2_md, y_md);
    matmul(l2_pd).execute(strm, {{DNNL_ARG_SRC, h_m}, {DNNL_ARG_WEIGHTS, w2_m},
            {DNNL_ARG_BIAS, b2_m}, {DNNL_ARG_DST, y_m}});
    softmax_forward::primitive_desc sm_pd(eng, prop_kind::forward_inference,
            algorithm::softmax_accurate, y_md, y_md, 1);
    softmax_forward(sm_pd).execute(strm, {{DNNL_ARG_SRC, y_m}, {DNNL_ARG_DST, p_m}});
    strm.wait();

    // The same network with plain loops, in double.
    std::vector<double> xd(x.begin(), x.end());
    auto hd = dense(xd, w1, b1, IN, HID);
    for (auto &v : hd) v = std::max(v, 0.0);
    auto yd = dense(hd, w2, b2, HID, OUT);
    // Error bound of the float computation (eps = 2^-24 = 6e-8; a float sum
    // of k terms is off by at most k * eps * sum|terms|):
    //  - hidden value: 34 terms below 1, so |h| < 34 and error < 34*eps*34 = 7e-5;
    //  - logit: 21 terms below 34, so 21*eps*(20*34+1) = 8.6e-4, plus 20 weights
    //    below 1 times the hidden error, 1.4e-3: E < 2.3e-3 in all;
    //  - softmax: p_i changes by p_i*(e_i - sum_j p_j e_j), at most 2E < 4.6e-3.
    // So 5e-3; in practice the difference is near 1e-7.
    double worst = 0;
    int bad = 0;
    for (memory::dim b = 0; b < B; ++b) {
        double mx = yd[b * OUT], sum = 0;
        for (memory::dim o = 1; o < OUT; ++o) mx = std::max(mx, yd[b * OUT + o]);
        for (memory::dim o = 0; o < OUT; ++o) sum += std::exp(yd[b * OUT + o] - mx);
        for (memory::dim o = 0; o < OUT; ++o) {
            double p = std::exp(yd[b * OUT + o] - mx) / sum;
            double e = std::fabs(p - prob[b * OUT + o]);
            worst = std::max(worst, e);
            if (!(e <= 5e-3)) ++bad;
        }
    }
    std::printf("MLP %ldx%ld -> %ld -> %ld: matmul [%s], softmax [%s]\n", (long)B, (long)IN,
            (long)HID, (long)OUT, l1_pd.impl_info_str(), sm_pd.impl_info_str());
    std::printf("largest difference from the plain loops: %.3g; %d of %ld off\n", worst, bad,
            (long)(B * OUT));

    // Errors are exceptions: weights of the wrong shape are refused at
    // creation with dnnl_invalid_arguments.
    bool refused = false;
    try {
        memory::desc wrong({IN + 1, HID}, dt::f32, tag::ab);
        matmul::primitive_desc bad_pd(eng, x_md, wrong, h_md);
    } catch (const error &e) {
        refused = e.status == dnnl_invalid_arguments;
        std::printf("a matmul with mismatched shapes is refused: %s (status %d)\n", e.what(),
                (int)e.status);
    }

    bool ok = bad == 0 && refused;
    std::printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
