// Kestrel's flagship demo: a small ResNet-style network written exactly as a
// oneDNN v3 program would be, run three times — with the global scratchpad
// arena, with private per-primitive scratchpads, and with one user-managed
// scratchpad buffer shared by every primitive — checked against a naive
// computation, with a report of the scratchpad memory each mode holds.
//
//   src 2x3x15x15 (nchw)
//   conv 3x3 pad 1 -> 16 ch, bias, post-op relu          (format any)
//   conv 3x3 pad 1 -> 16 ch on plain nchw (im2col + GEMM), bias,
//        post-op sum (residual), relu
//   conv 1x1 -> 16 ch on nchw (straight to GEMM), bias, relu
//   max pooling 3x3 stride 2                               -> 2x16x7x7
//   inner product -> 10, bias
//   softmax over the 10 classes
// and then trains a small CNN for a few steps (demo_train.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"
#include "dnnl_debug.h"

// Internal hooks (not part of the public API): the arena's statistics and
// the library-mode policy switch, so one process can show every mode.
#include "core/primitive.hpp"
#include "scratchpad/arena.hpp"

#include "demo_train.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

const memory::dim N = 2, IC = 3, H = 15, W = 15, C = 16, K = 10;
const memory::dim PH = 7, PW = 7; // (15 - 3) / 2 + 1

std::vector<float> make_data(size_t n, unsigned seed, float scale) {
    std::vector<float> v(n);
    unsigned s = seed;
    for (auto &x : v) {
        s = s * 1664525u + 1013904223u;
        x = scale * ((float)(s >> 8) / 16777216.f - 0.5f);
    }
    return v;
}

struct weights_t {
    std::vector<float> w1 = make_data(C * IC * 3 * 3, 1, 0.5f), b1 = make_data(C, 2, 0.2f);
    std::vector<float> w2 = make_data(C * C * 3 * 3, 3, 0.2f), b2 = make_data(C, 4, 0.2f);
    std::vector<float> w1x1 = make_data(C * C, 8, 0.4f), b1x1 = make_data(C, 9, 0.2f);
    std::vector<float> w3 = make_data(K * C * PH * PW, 5, 0.1f), b3 = make_data(K, 6, 0.1f);
    std::vector<float> src = make_data(N * IC * H * W, 7, 2.f);
};

// ------------------------------------------------------- naive reference
std::vector<float> reference(const weights_t &wt) {
    std::vector<float> a1(N * C * H * W), a2(N * C * H * W), a3(N * C * H * W), p(N * C * PH * PW), fc(N * K);
    for (int n = 0; n < N; ++n)
        for (int oc = 0; oc < C; ++oc)
            for (int h = 0; h < H; ++h)
                for (int w = 0; w < W; ++w) {
                    double acc = wt.b1[oc];
                    for (int ic = 0; ic < IC; ++ic)
                        for (int kh = 0; kh < 3; ++kh)
                            for (int kw = 0; kw < 3; ++kw) {
                                int ih = h + kh - 1, iw = w + kw - 1;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                acc += (double)wt.src[((n * IC + ic) * H + ih) * W + iw]
                                        * wt.w1[((oc * IC + ic) * 3 + kh) * 3 + kw];
                            }
                    a1[((n * C + oc) * H + h) * W + w] = std::max(0.f, (float)acc);
                }
    for (int n = 0; n < N; ++n)
        for (int oc = 0; oc < C; ++oc)
            for (int h = 0; h < H; ++h)
                for (int w = 0; w < W; ++w) {
                    double acc = wt.b2[oc];
                    for (int ic = 0; ic < C; ++ic)
                        for (int kh = 0; kh < 3; ++kh)
                            for (int kw = 0; kw < 3; ++kw) {
                                int ih = h + kh - 1, iw = w + kw - 1;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                acc += (double)a1[((n * C + ic) * H + ih) * W + iw]
                                        * wt.w2[((oc * C + ic) * 3 + kh) * 3 + kw];
                            }
                    const int i = ((n * C + oc) * H + h) * W + w;
                    a2[i] = std::max(0.f, (float)acc + a1[i]);
                }
    for (int n = 0; n < N; ++n)
        for (int oc = 0; oc < C; ++oc)
            for (int hw = 0; hw < H * W; ++hw) {
                double acc = wt.b1x1[oc];
                for (int ic = 0; ic < C; ++ic) acc += (double)a2[(n * C + ic) * H * W + hw] * wt.w1x1[oc * C + ic];
                a3[(n * C + oc) * H * W + hw] = std::max(0.f, (float)acc);
            }
    for (int n = 0; n < N; ++n)
        for (int c = 0; c < C; ++c)
            for (int ph = 0; ph < PH; ++ph)
                for (int pw = 0; pw < PW; ++pw) {
                    float m = -INFINITY;
                    for (int kh = 0; kh < 3; ++kh)
                        for (int kw = 0; kw < 3; ++kw)
                            m = std::max(m, a3[((n * C + c) * H + ph * 2 + kh) * W + pw * 2 + kw]);
                    p[((n * C + c) * PH + ph) * PW + pw] = m;
                }
    for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k) {
            double acc = wt.b3[k];
            for (int i = 0; i < C * PH * PW; ++i) acc += (double)p[n * C * PH * PW + i] * wt.w3[k * C * PH * PW + i];
            fc[n * K + k] = (float)acc;
        }
    for (int n = 0; n < N; ++n) {
        float mx = *std::max_element(&fc[n * K], &fc[n * K] + K);
        double sum = 0;
        for (int k = 0; k < K; ++k) sum += std::exp((double)fc[n * K + k] - mx);
        for (int k = 0; k < K; ++k) fc[n * K + k] = (float)(std::exp((double)fc[n * K + k] - mx) / sum);
    }
    return fc;
}

// ------------------------------------------------------- the network
struct step_t {
    primitive prim;
    std::unordered_map<int, memory> args;
    primitive_desc_base pd;
};

struct net_t {
    engine eng {engine::kind::cpu, 0};
    stream strm {eng};
    std::vector<step_t> steps;
    memory out;
    std::vector<memory> keep; // every memory the steps use

    memory user_mem(const std::vector<float> &data, const memory::dims &dims, tag t) {
        memory m({dims, dt::f32, t}, eng);
        std::memcpy(m.get_data_handle(), data.data(), data.size() * sizeof(float));
        keep.push_back(m);
        return m;
    }
    // A memory in `want`'s layout holding `from`'s contents (a reorder step
    // when the layouts differ).
    memory as(const memory &from, const memory::desc &want, const primitive_attr &attr) {
        if (from.get_desc() == want) return from;
        memory to(want, eng);
        keep.push_back(to);
        reorder::primitive_desc rpd(eng, from.get_desc(), eng, want, attr);
        steps.push_back({reorder(rpd), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, rpd});
        return to;
    }
    void add(const primitive &p, const primitive_desc_base &pd, std::unordered_map<int, memory> args) {
        steps.push_back({p, std::move(args), pd});
    }
    void print_impls() const {
        for (auto &s : steps)
            std::printf("  %-14s %-28s scratchpad %zu bytes\n", dnnl_prim_kind2str((dnnl_primitive_kind_t)s.pd.get_kind()),
                    s.pd.impl_info_str(), (size_t)s.pd.query_s64(query::memory_consumption_s64));
    }

    net_t(const weights_t &wt, scratchpad_mode mode) {
        // dnnl::primitive_attr is a handle: copies share one object, so each
        // primitive that adds post-ops gets an attr of its own.
        auto make_attr = [mode] {
            primitive_attr a;
            a.set_scratchpad_mode(mode);
            return a;
        };
        primitive_attr base = make_attr();
        auto src = user_mem(wt.src, {N, IC, H, W}, tag::nchw);

        // conv 3x3 + bias + relu, layouts chosen by the implementation.
        primitive_attr a1 = make_attr();
        post_ops po1;
        po1.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
        a1.set_post_ops(po1);
        memory::desc any_src({N, IC, H, W}, dt::f32, tag::any), any_dst({N, C, H, W}, dt::f32, tag::any);
        convolution_forward::primitive_desc c1(eng, prop_kind::forward_inference,
                algorithm::convolution_direct, any_src, {{C, IC, 3, 3}, dt::f32, tag::any},
                {{C}, dt::f32, tag::x}, any_dst, {1, 1}, {1, 1}, {1, 1}, a1);
        auto c1_src = as(src, c1.src_desc(), base);
        auto c1_w = as(user_mem(wt.w1, {C, IC, 3, 3}, tag::oihw), c1.weights_desc(), base);
        auto c1_dst = memory(c1.dst_desc(), eng);
        keep.push_back(c1_dst);
        add(convolution_forward(c1), c1,
                {{DNNL_ARG_SRC, c1_src}, {DNNL_ARG_WEIGHTS, c1_w},
                        {DNNL_ARG_BIAS, user_mem(wt.b1, {C}, tag::x)}, {DNNL_ARG_DST, c1_dst}});

        // conv 3x3 on plain nchw + bias, then += residual (sum post-op) and
        // relu. Plain layouts take the im2col + GEMM implementation, whose
        // column buffer and packing panels live in the scratchpad.
        primitive_attr a2 = make_attr();
        post_ops po2;
        po2.append_sum(1.f);
        po2.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
        a2.set_post_ops(po2);
        memory::desc plain_act({N, C, H, W}, dt::f32, tag::nchw);
        convolution_forward::primitive_desc c2(eng, prop_kind::forward_inference,
                algorithm::convolution_direct, plain_act, {{C, C, 3, 3}, dt::f32, tag::oihw},
                {{C}, dt::f32, tag::x}, plain_act, {1, 1}, {1, 1}, {1, 1}, a2);
        auto c2_src = as(c1_dst, c2.src_desc(), base);
        auto c2_w = as(user_mem(wt.w2, {C, C, 3, 3}, tag::oihw), c2.weights_desc(), base);
        auto c2_dst = memory(c2.dst_desc(), eng);
        keep.push_back(c2_dst);
        // The sum post-op adds to what dst holds: seed it with the residual.
        reorder::primitive_desc seed(eng, c2_src.get_desc(), eng, c2_dst.get_desc(), base);
        add(reorder(seed), seed, {{DNNL_ARG_FROM, c2_src}, {DNNL_ARG_TO, c2_dst}});
        add(convolution_forward(c2), c2,
                {{DNNL_ARG_SRC, c2_src}, {DNNL_ARG_WEIGHTS, c2_w},
                        {DNNL_ARG_BIAS, user_mem(wt.b2, {C}, tag::x)}, {DNNL_ARG_DST, c2_dst}});

        // conv 1x1 + bias + relu on plain nchw: straight to GEMM, no im2col.
        primitive_attr a3 = make_attr();
        post_ops po3;
        po3.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
        a3.set_post_ops(po3);
        convolution_forward::primitive_desc c3(eng, prop_kind::forward_inference,
                algorithm::convolution_direct, plain_act, {{C, C, 1, 1}, dt::f32, tag::oihw},
                {{C}, dt::f32, tag::x}, plain_act, {1, 1}, {0, 0}, {0, 0}, a3);
        auto c3_w = as(user_mem(wt.w1x1, {C, C, 1, 1}, tag::oihw), c3.weights_desc(), base);
        auto c3_dst = memory(c3.dst_desc(), eng);
        keep.push_back(c3_dst);
        add(convolution_forward(c3), c3,
                {{DNNL_ARG_SRC, c2_dst}, {DNNL_ARG_WEIGHTS, c3_w},
                        {DNNL_ARG_BIAS, user_mem(wt.b1x1, {C}, tag::x)}, {DNNL_ARG_DST, c3_dst}});

        // max pooling 3x3 stride 2.
        pooling_forward::primitive_desc p1(eng, prop_kind::forward_inference, algorithm::pooling_max,
                c3_dst.get_desc(), {{N, C, PH, PW}, dt::f32, tag::any}, {2, 2}, {3, 3}, {0, 0},
                {0, 0}, {0, 0}, base);
        auto p1_dst = memory(p1.dst_desc(), eng);
        keep.push_back(p1_dst);
        add(pooling_forward(p1), p1, {{DNNL_ARG_SRC, c3_dst}, {DNNL_ARG_DST, p1_dst}});

        // inner product to K classes.
        inner_product_forward::primitive_desc ip(eng, prop_kind::forward_inference, p1_dst.get_desc(),
                {{K, C, PH, PW}, dt::f32, tag::any}, {{K}, dt::f32, tag::x}, {{N, K}, dt::f32, tag::nc},
                base);
        auto ip_w = as(user_mem(wt.w3, {K, C, PH, PW}, tag::oihw), ip.weights_desc(), base);
        auto ip_dst = memory(ip.dst_desc(), eng);
        keep.push_back(ip_dst);
        add(inner_product_forward(ip), ip,
                {{DNNL_ARG_SRC, p1_dst}, {DNNL_ARG_WEIGHTS, ip_w},
                        {DNNL_ARG_BIAS, user_mem(wt.b3, {K}, tag::x)}, {DNNL_ARG_DST, ip_dst}});

        // softmax, in place.
        softmax_forward::primitive_desc sm(eng, prop_kind::forward_inference, algorithm::softmax_accurate,
                ip_dst.get_desc(), ip_dst.get_desc(), 1, base);
        add(softmax_forward(sm), sm, {{DNNL_ARG_SRC, ip_dst}, {DNNL_ARG_DST, ip_dst}});
        out = ip_dst;
    }

    // Runs every step; in user mode all steps share one scratchpad buffer.
    std::vector<float> run(const memory *shared_scratchpad) {
        for (auto &s : steps) {
            auto args = s.args;
            if (shared_scratchpad) args[DNNL_ARG_SCRATCHPAD] = *shared_scratchpad;
            s.prim.execute(strm, args);
        }
        strm.wait();
        const float *p = static_cast<const float *>(out.get_data_handle());
        return std::vector<float>(p, p + N * K);
    }

    size_t max_user_scratchpad() const {
        size_t m = 0;
        for (auto &s : steps) m = std::max(m, s.pd.scratchpad_desc().get_size());
        return m;
    }
    size_t sum_consumption() const {
        size_t m = 0;
        for (auto &s : steps) m += (size_t)s.pd.query_s64(query::memory_consumption_s64);
        return m;
    }
    size_t max_consumption() const {
        size_t m = 0;
        for (auto &s : steps) m = std::max(m, (size_t)s.pd.query_s64(query::memory_consumption_s64));
        return m;
    }
};

double max_abs_diff(const std::vector<float> &a, const std::vector<float> &b) {
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, (double)std::fabs(a[i] - b[i]));
    return d;
}

} // namespace

int main() {
    try {
        weights_t wt;
        const auto ref = reference(wt);
        using kestrel::scratchpad_policy_t;

        kestrel::set_library_scratchpad_policy(scratchpad_policy_t::global_arena);
        std::vector<float> out_global;
        size_t global_held = 0, global_sum = 0, global_max = 0;
        int nsteps = 0;
        {
            net_t net(wt, scratchpad_mode::library);
            nsteps = (int)net.steps.size();
            std::printf("Network steps (implementation chosen, scratchpad booked):\n");
            net.print_impls();
            out_global = net.run(nullptr);
            out_global = net.run(nullptr);
            global_held = kestrel::scratchpad::arena_t::global().stats().held_total;
            global_sum = net.sum_consumption();
            global_max = net.max_consumption();
        }
        const size_t global_after = kestrel::scratchpad::arena_t::global().stats().held_total;

        kestrel::set_library_scratchpad_policy(scratchpad_policy_t::private_buffer);
        std::vector<float> out_private;
        size_t private_held = 0;
        {
            net_t net(wt, scratchpad_mode::library);
            out_private = net.run(nullptr);
            private_held = net.sum_consumption();
        }

        std::vector<float> out_user;
        size_t user_held = 0;
        {
            net_t net(wt, scratchpad_mode::user);
            user_held = net.max_user_scratchpad();
            memory scratch({{(memory::dim)std::max<size_t>(user_held, 1)}, dt::u8, tag::x}, net.eng);
            out_user = net.run(&scratch);
        }

        std::printf("Kestrel demo: %d-step network (conv3x3+relu, conv3x3+sum+relu, conv1x1+relu, maxpool,\n"
                    "inner product, softmax, and the reorders format `any` asked for), N=%d.\n",
                (int)nsteps, (int)N);
        // Softmax outputs are in [0,1]; the tolerance covers f32 rounding of
        // the 27-, 144-, 16- and 784-term dot products against the double reference.
        const double tol = 1e-4;
        double err = max_abs_diff(out_global, ref);
        std::printf("max |kestrel - naive reference| = %.3g (tolerance %.0e)\n", err, tol);
        std::printf("class probabilities, image 0:");
        for (int k = 0; k < K; ++k) std::printf(" %.3f", out_global[k]);
        std::printf("\n\nScratchpad memory held by the network:\n");
        std::printf("  %-38s %10zu bytes  (largest primitive needs %zu, sum of all is %zu)\n",
                "library mode, global arena (default):", global_held, global_max, global_sum);
        std::printf("  %-38s %10zu bytes  (one buffer per primitive)\n", "library mode, private scratchpads:",
                private_held);
        std::printf("  %-38s %10zu bytes  (one buffer shared by all primitives)\n", "user mode, one shared buffer:",
                user_held);
        std::printf("  arena after the network was destroyed: %zu bytes\n", global_after);

        bool same = out_global == out_private && out_global == out_user;
        std::printf("outputs of the three modes bit-identical: %s\n", same ? "yes" : "NO");
        bool ok = err <= tol && same && global_after == 0 && global_held <= ((global_max + 4095) / 4096) * 4096;
        ok = demo_train() && ok;
        std::printf("%s\n", ok ? "demo: OK" : "demo: FAILED");
        return ok ? 0 : 1;
    } catch (const dnnl::error &e) {
        std::fprintf(stderr, "demo: %s (status %d)\n", e.what(), (int)e.status);
        return 1;
    }
}
