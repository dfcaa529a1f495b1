// Convolution / deconvolution forward: every implementation, the
// reference included, against the naive expected result of conv_prb.hpp (a
// plain-index loop plus the attribute math of test/common/naive_attr.hpp,
// which shares no code with the library) over a shape grid, layouts,
// attribute sets and thread counts.
//
// Data are small integers (|src|, |wei| <= 2, K = IC*KD*KH*KW <= 600), so
// every partial sum is an integer below 2^24 and exact in f32 whatever the
// summation order; scales are powers of two and bias/binary/sum operands are
// small integers, so the epilogue is exact too: results must be EQUAL to the
// naive ones, except after tanh, where na::apply bounds the difference
// (a few f32 ulps of the result, carried through the rest of the chain).
// One block of cases uses uniform floats with the summation error bound.
#include <cstdio>

#include "conv/conv_prb.hpp"
#include "cpu/isa.hpp"

using namespace kc;

namespace {

bool equal(const std::vector<float> &a, const std::vector<float> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i]) && !(std::isnan(a[i]) && std::isnan(b[i]))) return false;
    return true;
}

// Runs every implementation; each must match the naive expected result.
// Returns the names seen.
std::vector<std::string> compare_impls(ktc::env_t &env, const prb_t &p, kt::tally_t &t) {
    std::vector<std::string> names;
    built_t b;
    dnnl_status_t st = build(env, p, b);
    if (st != dnnl_success) {
        t.check(false, ("create: " + p.str()).c_str());
        return names;
    }
    std::vector<double> tol;
    const std::vector<float> want = expected(p, b, tol);
    auto r = ktc::exec_all(env, b.pd, b.in, b.dst_init);
    const std::string ref = p.deconv ? "ref:any:deconv" : "ref:any";
    t.check(r.count(ref) == 1, ("reference reached: " + p.str()).c_str());
    for (auto &kv : r) {
        names.push_back(kv.first);
        const std::string what = kv.first + " == naive: " + p.str();
        t.check(na::match(kv.second, want, tol, what.c_str()), what.c_str());
    }
    return names;
}

} // namespace

int main() {
    kt::tally_t t;
    ktc::env_t env;
    const bool avx512 = kestrel::isa::has(kestrel::isa::avx512);
    const bool avx2 = kestrel::isa::has(kestrel::isa::avx2);
    std::printf("isa: %s\n", kestrel::isa::name(kestrel::isa::effective()));

    // The grid: channel tails, odd sizes, padding > kernel, asymmetric
    // padding, strides 2/3, dilation, groups, 1D/3D, batch 1 and 2.
    std::vector<prb_t> grid;
    const dim chans[][2] = {{1, 16}, {3, 17}, {15, 33}, {16, 16}, {17, 3}, {33, 15}, {32, 48}};
    int n = 0;
    for (auto &c : chans) {
        prb_t p = p2d(1 + n % 2, 1, c[0], c[1], 7, 13 + n, 3, 3, 1, 1);
        p.bias = n % 2 == 0;
        grid.push_back(p);
        ++n;
    }
    grid.push_back(p2d(2, 1, 16, 32, 9, 30, 3, 3, 2, 1)); // stride 2, several tiles
    grid.push_back(p2d(1, 1, 17, 17, 11, 26, 5, 3, 3, 2)); // stride 3
    grid.push_back(p2d(1, 1, 16, 16, 5, 5, 2, 2, 1, 3)); // padding larger than kernel
    grid.push_back(p2d(2, 1, 8, 20, 10, 25, 3, 3, 1, 2, 1)); // dilation 1 (gap of 1)
    grid.push_back(p2d(1, 1, 16, 16, 12, 40, 3, 3, 1, 3, 2)); // dilation 2, wide rows
    grid.push_back(p2d(1, 1, 5, 7, 1, 20, 1, 1, 1, 0)); // 1x1, height 1
    grid.push_back(p2d(2, 2, 34, 18, 5, 7, 1, 1, 1, 0)); // 1x1 with groups
    grid.push_back(p2d(1, 1, 16, 16, 45, 45, 3, 3, 1, 1)); // im2col in several chunks
    grid.push_back(p2d(2, 2, 32, 32, 6, 14, 3, 3, 1, 1)); // groups, blocked-friendly
    grid.push_back(p2d(1, 3, 15, 21, 6, 7, 3, 3, 2, 1)); // groups, odd per-group channels
    grid.push_back(p2d(2, 8, 8, 8, 9, 9, 3, 3, 1, 1)); // depthwise
    grid.push_back(p2d(1, 16, 16, 32, 5, 8, 3, 3, 2, 1)); // depthwise with multiplier 2
    grid.push_back(p2d(1, 1, 24, 80, 5, 30, 3, 3, 1, 1)); // 5 oc blocks of 16: ragged tile group
    grid.push_back(p2d(2, 1, 40, 48, 13, 17, 1, 1, 1, 0)); // 1x1 over 221 points: several segments
    grid.push_back(p2d(2, 1, 140, 32, 5, 9, 1, 1, 1, 0)); // 1x1, 9 ic blocks of 16 (tail 12): passes of 8
    // Weights of an oc group over 1 MiB: partial sums between passes (nCx8c:
    // 3 oc blocks, passes of 151 then 3 ic blocks; nCx16c: 2 oc blocks,
    // 56 then 21) over blocks of rows.
    grid.push_back(p2d(1, 1, 1230, 24, 4, 8, 3, 3, 1, 1));
    grid.push_back(p2d(1, 1, 8, 24, 3, 61, 1, 3, 1, 1)); // 1x3, wide row: full 24-column tiles
    // Rows the default tile cuts badly take the tile of least estimated
    // cost: 7 columns (3 oc blocks x 7 with a ragged group of 2), 13
    // columns at stride 2 (2 x 13), 25 columns of one block (18 + 7).
    grid.push_back(p2d(1, 1, 20, 80, 7, 7, 3, 3, 1, 1));
    grid.push_back(p2d(2, 1, 24, 64, 13, 26, 3, 3, 2, 1));
    grid.push_back(p2d(1, 1, 16, 12, 4, 25, 3, 3, 1, 1));
    // More oc blocks than a tile holds, at minibatch 3 and 2: each output
    // row runs every oc group in turn (direct kernels); 72 channels are 5
    // blocks of 16 (tail 8; ragged groups) or 9 of 8, 80 fill them (results
    // straight from registers); stride 2 with padding, odd sizes; with 2
    // threads the split falls inside a row's oc groups.
    grid.push_back(p2d(3, 1, 20, 72, 11, 13, 3, 3, 2, 1));
    grid.push_back(p2d(2, 1, 17, 80, 9, 10, 3, 3, 2, 1));
    {
        prb_t p = p2d(1, 1, 17, 19, 8, 15, 3, 4, 1, 0); // asymmetric padding, negative right pad
        p.pl[0] = 2, p.pr[0] = 0, p.pl[1] = 0, p.pr[1] = 3;
        grid.push_back(p);
        prb_t q = p2d(1, 1, 16, 16, 9, 9, 3, 3, 2, 0);
        q.pl[0] = q.pl[1] = 1, q.pr[0] = q.pr[1] = -1;
        grid.push_back(q);
    }
    {
        prb_t p; // 1D
        p.sp = 1, p.mb = 2, p.ic = 19, p.oc = 35, p.i[0] = 25, p.k[0] = 3, p.s[0] = 2, p.pl[0] = 1, p.pr[0] = 2;
        p.bias = true;
        grid.push_back(p);
        prb_t q; // 3D
        q.sp = 3, q.mb = 1, q.ic = 16, q.oc = 17;
        q.i[0] = 5, q.i[1] = 6, q.i[2] = 7, q.k[0] = 3, q.k[1] = 2, q.k[2] = 3;
        q.pl[0] = q.pl[2] = 1, q.pr[0] = q.pr[2] = 1, q.s[1] = 2, q.d[2] = 1;
        q.bias = true;
        grid.push_back(q);
    }
    const unsigned attrs[] = {0, a_relu, a_sum | a_relu, a_bin_c, a_bin_t | a_tanh, a_scales,
            a_sum | a_sum_zp | a_bin_c | a_relu | a_scales, a_bin_full,
            a_sum | a_sum_zp | a_scales_common | a_bin_c | a_tanh, a_scales_common | a_bin_t};
    const int nattrs = sizeof(attrs) / sizeof(attrs[0]);

    bool direct_seen = false, direct8_seen = false, gemm_1x1_seen = false, im2col_seen = false, col2im_seen = false;
    bool col2im_nhwc_seen = false, col2im_sum_seen = false, nhwc_seen = false, nhwc8_seen = false;
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            int ai = 0;
            for (const prb_t &base : grid) {
                for (layout_t l : {blocked16, blocked8, plain, nhwc}) {
                    prb_t p = base;
                    p.layout = l;
                    // Every case once without attributes, plus a rotating
                    // attribute set so every set meets several shapes.
                    for (unsigned a : {0u, attrs[ai++ % nattrs]}) {
                        p.attr = a;
                        p.bias = base.bias || (a & a_scales);
                        auto names = compare_impls(env, p, t);
                        for (auto &s : names) {
                            direct_seen |= s == "direct:avx512:nCx16c";
                            direct8_seen |= s == "direct:avx2:nCx8c";
                            nhwc_seen |= s == "direct:avx512:nhwc";
                            nhwc8_seen |= s == "direct:avx2:nhwc";
                            gemm_1x1_seen |= s == "gemm:1x1";
                            im2col_seen |= s == "gemm:im2col";
                        }
                        if (l == blocked16 && avx512 && (p.g == 1 || (p.ic / p.g % 16 == 0 && p.oc / p.g % 16 == 0)))
                            t.check(!names.empty() && names[0] == "direct:avx512:nCx16c",
                                    ("direct kernel first: " + p.str()).c_str());
                        if (l == blocked8 && avx2 && (p.g == 1 || (p.ic / p.g % 8 == 0 && p.oc / p.g % 8 == 0)))
                            t.check(!names.empty() && names[0] == "direct:avx2:nCx8c",
                                    ("direct 8c kernel first: " + p.str()).c_str());
                        if (a == 0 && l != plain) break;
                    }
                }
            }
        });
    }
    if (avx512) t.check(direct_seen, "direct kernel exercised");
    if (avx2) t.check(direct8_seen, "direct 8c kernel exercised");
    if (avx512) t.check(nhwc_seen, "direct nhwc kernel exercised");
    if (avx2) t.check(nhwc8_seen, "direct nhwc 8c kernel exercised");
    t.check(gemm_1x1_seen, "gemm 1x1 exercised");
    t.check(im2col_seen, "gemm im2col exercised");

    // Every attribute set on blocked shapes with a channel tail, and on a
    // flattened 1x1 (the post-op chain is cut where a w-row ends).
    for (unsigned a : attrs)
        for (layout_t l : {blocked16, blocked8})
            for (prb_t p : {p2d(2, 1, 17, 33, 6, 15, 3, 3, 1, 1), p2d(1, 1, 20, 35, 5, 7, 1, 1, 1, 0)}) {
                p.layout = l, p.attr = a, p.bias = true;
                compare_impls(env, p, t);
            }

    // Small problems on the first implementation in plain layouts, without
    // attributes, convolution and deconvolution, with and without bias.
    std::vector<prb_t> naive_cases = {p2d(2, 1, 3, 5, 7, 9, 3, 3, 1, 1), p2d(1, 2, 4, 6, 8, 7, 3, 2, 2, 1, 1),
            p2d(1, 1, 2, 3, 5, 6, 2, 3, 3, 2)};
    {
        prb_t q; // 3D with stride and dilation
        q.sp = 3, q.ic = 3, q.oc = 2, q.i[0] = 4, q.i[1] = 5, q.i[2] = 6, q.k[0] = 2, q.k[1] = 3, q.k[2] = 2;
        q.s[0] = 2, q.d[1] = 1, q.pl[2] = 1, q.pr[2] = 1;
        naive_cases.push_back(q);
        prb_t r; // 1D
        r.sp = 1, r.mb = 2, r.ic = 4, r.oc = 3, r.i[0] = 11, r.k[0] = 4, r.s[0] = 3, r.pl[0] = 2, r.pr[0] = 1;
        naive_cases.push_back(r);
    }
    for (bool deconv : {false, true}) {
        for (prb_t p : naive_cases) {
            p.deconv = deconv;
            for (bool bias : {false, true}) {
                p.bias = bias;
                built_t b;
                KT_OK(build(env, p, b));
                auto got = ktc::exec_pd(env, b.pd, b.in, b.dst_init);
                std::vector<double> tol;
                auto want = expected(p, b, tol);
                t.check(equal(got, want), (kt::impl_name(b.pd) + " == naive: " + p.str()).c_str());
            }
        }
    }

    // Deconvolution: every implementation against the naive result, with
    // attributes and layouts.
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            std::vector<prb_t> dg = {p2d(2, 1, 17, 16, 5, 7, 3, 3, 1, 1), p2d(1, 1, 16, 33, 4, 6, 3, 3, 2, 1),
                    p2d(1, 2, 32, 32, 4, 5, 4, 4, 2, 1), p2d(1, 3, 6, 9, 5, 5, 3, 2, 3, 0, 1),
                    p2d(2, 1, 3, 5, 9, 8, 2, 3, 3, 2), // stride > kernel: some dst untouched
                    p2d(1, 1, 8, 16, 45, 45, 3, 3, 1, 1)}; // col2im in several chunks
            {
                prb_t q; // 1D and 3D
                q.sp = 1, q.mb = 2, q.ic = 5, q.oc = 7, q.i[0] = 9, q.k[0] = 3, q.s[0] = 2, q.pl[0] = 1, q.pr[0] = 0;
                dg.push_back(q);
                prb_t r;
                r.sp = 3, r.ic = 4, r.oc = 6, r.i[0] = 3, r.i[1] = 4, r.i[2] = 5, r.k[0] = 2, r.k[1] = 3, r.k[2] = 2;
                r.s[0] = 2, r.d[2] = 1, r.pl[1] = 1, r.pr[1] = 1;
                dg.push_back(r);
            }
            int ai = 0;
            for (prb_t p : dg) {
                p.deconv = true;
                for (layout_t l : {plain, nhwc, blocked16}) {
                    p.layout = l;
                    // Beyond the rotating set: a leading sum (folded into
                    // dst's start) with bias, relu and dst scales.
                    for (unsigned a : {0u, attrs[ai++ % nattrs], (unsigned)(a_sum | a_sum_zp | a_relu | a_bin_t)}) {
                        p.attr = a;
                        p.bias = a != 0;
                        for (auto &s : compare_impls(env, p, t)) {
                            col2im_seen |= s == "gemm:col2im:deconv";
                            if (s == "gemm:col2im:deconv") {
                                col2im_nhwc_seen |= l == nhwc;
                                col2im_sum_seen |= (a & a_sum) != 0;
                            }
                        }
                    }
                }
            }
        });
    }

    t.check(col2im_seen, "gemm col2im deconvolution exercised");
    t.check(col2im_nhwc_seen, "gemm col2im deconvolution on nhwc exercised");
    t.check(col2im_sum_seen, "gemm col2im deconvolution with a sum post-op exercised");

    // Uniform floats: the sums are no longer exact. Every implementation
    // against the exact (double) sum: na::dot_error bounds the f32
    // accumulation by gamma_K * sum|products| in any order, with or without
    // FMA; na::apply adds one rounding for the bias addition.
    for (prb_t p : {p2d(2, 1, 33, 17, 7, 19, 3, 3, 1, 1), p2d(1, 2, 32, 64, 6, 9, 5, 5, 2, 2),
                 p2d(1, 1, 33, 17, 7, 19, 3, 3, 1, 1)}) {
        p.layout = p.mb == 1 && p.g == 1 ? blocked8 : blocked16;
        p.bias = true;
        built_t b;
        KT_OK(build(env, p, b, true));
        std::vector<double> tol;
        const auto want = expected(p, b, tol, true);
        auto r = ktc::exec_all(env, b.pd, b.in, b.dst_init);
        for (auto &kv : r) {
            const std::string what = kv.first + " floats within gamma_K * sum|products|: " + p.str();
            t.check(na::match(kv.second, want, tol, what.c_str()), what.c_str());
        }
    }
    return t.finish();
}
