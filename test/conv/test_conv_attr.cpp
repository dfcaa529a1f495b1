// Convolution and deconvolution attributes against the naive reference:
// every eltwise algorithm as a post-op (alone, and followed by a sum and a
// binary so an inexact value travels through the chain), every binary
// algorithm with every broadcast of a 4D dst (16 masks: per-tensor, per
// channel, per spatial row, per batch ... full), sums with scales and zero
// points in several positions. Every implementation the descriptor offers
// runs, on blocked, plain and channels-last layouts, with 1 and 2 threads.
//
// Data are integers in [-2, 2]; with K = 3 * 3 * 3 = 27 products per output
// |acc| <= 108 and the src scale 1/32 keeps eltwise inputs exact multiples
// of 1/32 with |x| <= 3.4 (the range na::eltwise_ulps is derived for).
// Exact chains must match bit for bit; na::apply bounds the others.
#include <cstdio>

#include "common/attr_cases.hpp"
#include "conv/conv_prb.hpp"

using namespace kc;

namespace {

int n_runs = 0; // implementation runs compared

void run(ktc::env_t &env, prb_t p, const std::vector<conv_op_t> &ops, kt::tally_t &t, const char *what) {
    p.ops = ops;
    built_t b;
    if (build(env, p, b) != dnnl_success) {
        t.check(false, (std::string("create: ") + what + " " + p.str()).c_str());
        return;
    }
    std::vector<double> tol;
    const std::vector<float> want = expected(p, b, tol);
    const auto r = ktc::exec_all(env, b.pd, b.in, b.dst_init);
    const std::string ref = p.deconv ? "ref:any:deconv" : "ref:any";
    t.check(r.count(ref) == 1, (std::string("reference reached: ") + what).c_str());
    for (const auto &kv : r) {
        const std::string w = kv.first + " " + what + ": " + p.str();
        t.check(na::match(kv.second, want, tol, w.c_str()), w.c_str());
        ++n_runs;
    }
}

prb_t base_conv(layout_t l) {
    prb_t p = p2d(2, 1, 3, 17, 5, 6, 3, 3, 1, 1); // 17 channels: a tail in 8 and 16 blocks
    p.layout = l;
    p.bias = true;
    p.src_scale = 1.f / 32;
    return p;
}

prb_t base_deconv(layout_t l) {
    prb_t p = p2d(1, 1, 3, 9, 4, 5, 3, 3, 2, 1); // stride 2: some dst points get few terms
    p.deconv = true;
    p.layout = l;
    p.bias = true;
    p.src_scale = 1.f / 32;
    return p;
}

prb_t base_1x1(layout_t l) {
    prb_t p = p2d(2, 1, 5, 17, 4, 7, 1, 1, 1, 0); // served by gemm:1x1 in plain layouts
    p.layout = l;
    p.bias = true;
    p.src_scale = 1.f / 8;
    return p;
}

} // namespace

int main() {
    kt::tally_t t;
    ktc::env_t env;
    const layout_t layouts[] = {blocked16, blocked8, plain, nhwc};
    char what[160];
    int i = 0;

    // Every eltwise algorithm.
    for (const auto &e : na::all_eltwise) {
        const conv_op_t elt = {dnnl_eltwise, e.alg, e.alpha, e.beta, 0, 0};
        const conv_op_t sum = {dnnl_sum, dnnl_alg_kind_undef, 0.5f, 0.f, 0, 1};
        const conv_op_t add_c = {dnnl_binary, dnnl_binary_add, 0.f, 0.f, 2, 0};
        kt::with_threads(1 + i % 2, [&] {
            std::snprintf(what, sizeof what, "eltwise alg %d alpha %g beta %g", (int)e.alg, e.alpha, e.beta);
            run(env, base_conv(layouts[i % 4]), {elt}, t, what);
            run(env, base_deconv(layouts[(i + 1) % 4]), {elt}, t, what);
            std::snprintf(what, sizeof what, "eltwise alg %d + sum(0.5, zp 1) + add per channel", (int)e.alg);
            run(env, base_1x1(layouts[(i + 2) % 4]), {elt, sum, add_c}, t, what);
        });
        ++i;
    }

    // Every binary algorithm with every broadcast mask of the 4D dst.
    for (auto alg : na::all_binary)
        for (int mask = 0; mask < 16; ++mask) {
            const conv_op_t bin = {dnnl_binary, alg, 0.f, 0.f, mask, 0};
            kt::with_threads(1 + i % 2, [&] {
                std::snprintf(what, sizeof what, "binary alg %d mask %d", (int)alg, mask);
                run(env, i % 3 == 2 ? base_1x1(layouts[i % 4]) : base_conv(layouts[i % 4]), {bin}, t, what);
                if (mask % 5 == 0) run(env, base_deconv(layouts[i % 4]), {bin}, t, what);
            });
            ++i;
        }

    // Sums: scale, zero point, after other post-ops, twice; with the bits'
    // per-channel weights and dst scales.
    const std::vector<std::vector<conv_op_t>> sums = {
            {{dnnl_sum, dnnl_alg_kind_undef, 2.f, 0.f, 0, 0}},
            {{dnnl_sum, dnnl_alg_kind_undef, -0.75f, 0.f, 0, -3}},
            {{dnnl_eltwise, dnnl_eltwise_linear, 2.f, -1.f, 0, 0}, {dnnl_sum, dnnl_alg_kind_undef, 1.5f, 0.f, 0, 2}},
            {{dnnl_sum, dnnl_alg_kind_undef, 1.f, 0.f, 0, 0}, {dnnl_binary, dnnl_binary_mul, 0.f, 0.f, 10, 0},
                    {dnnl_sum, dnnl_alg_kind_undef, 0.25f, 0.f, 0, 1}},
    };
    int k = 0;
    for (const auto &ch : sums) {
        for (layout_t l : layouts) {
            for (unsigned bits : {0u, (unsigned)a_scales}) {
                kt::with_threads(1 + i % 2, [&] {
                    std::snprintf(what, sizeof what, "sum chain %d scales %u", k, bits);
                    prb_t p = base_conv(l);
                    p.attr = bits;
                    if (bits) p.src_scale = 0.f; // the bits' scales
                    run(env, p, ch, t, what);
                    prb_t q = base_deconv(l);
                    q.attr = bits;
                    if (bits) q.src_scale = 0.f;
                    run(env, q, ch, t, what);
                });
                ++i;
            }
        }
        ++k;
    }
    // Scales that are not powers of two: per-oc weights and dst scales
    // (dst per oc is a Kestrel extension of oneDNN's mask 0), common ones.
    std::vector<float> wsc(17), dsc(17);
    for (int c = 0; c < 17; ++c) wsc[c] = 0.7f + 0.11f * (float)c, dsc[c] = 1.3f - 0.03f * (float)c;
    for (layout_t l : layouts)
        for (int v = 0; v < 2; ++v) {
            kt::with_threads(1 + v, [&] {
                prb_t p = v ? base_1x1(l) : base_conv(l);
                p.src_scale = 0.3f;
                p.wei_scales = v ? std::vector<float> {1.7f} : wsc;
                p.dst_scales = v ? dsc : std::vector<float> {0.45f};
                run(env, p, {{dnnl_eltwise, dnnl_eltwise_relu, 0.1f, 0.f, 0, 0}, {dnnl_sum, dnnl_alg_kind_undef, 0.6f, 0.f, 0, 1}},
                        t, "non-power-of-two scales");
                prb_t q = base_deconv(l);
                q.src_scale = 0.3f, q.wei_scales = {1.7f}, q.dst_scales = {0.45f};
                run(env, q, {}, t, "non-power-of-two scales");
            });
        }
    std::printf("%d implementation runs compared with the naive reference\n", n_runs);
    return t.finish();
}
