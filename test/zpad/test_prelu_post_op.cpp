// PReLU post-op (dnnl_post_ops_append_prelu) on convolution,
// deconvolution, inner product and matmul against naive references written here. Inputs are halves of
// small integers, so every sum is exact in f32 in any order and the
// expected values are exact: the comparison is bit for bit (as values).
#include <cmath>
#include <string>

#include "zpad/zp_util.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
using zp::dim;
using zp::dims;

namespace {

engine eng(engine::kind::cpu, 0);
kt::tally_t tally;

memory::desc md(dims d, tag t) { return memory::desc(d, dt::f32, t); }

// The weights shape of a prelu post-op over dst dims d with mask m.
dims prelu_dims(const dims &d, int m) {
    dims w(d.size());
    for (size_t i = 0; i < d.size(); ++i) w[i] = (m >> i) & 1 ? d[i] : 1;
    return w;
}

tag plain_tag(size_t nd) { return nd == 2 ? tag::ab : nd == 3 ? tag::abc : tag::abcd; }

// Chain: either prelu alone, or linear(1, -1) -> prelu -> add(scalar 0.5).
struct chain_t {
    int mask;
    bool long_chain;
};

// Applies the chain to v at dst position pos (dst dims d), as the
// documented formulas say.
float apply_chain(float v, const chain_t &c, const std::vector<float> &w, const dims &d, const dims &pos) {
    if (c.long_chain) v = v - 1.f;
    dim off = 0;
    for (size_t i = 0; i < d.size(); ++i) off = off * ((c.mask >> i) & 1 ? d[i] : 1) + ((c.mask >> i) & 1 ? pos[i] : 0);
    const float wv = w[(size_t)off];
    v = v > 0.f ? v : wv * v;
    if (c.long_chain) v = v + 0.5f;
    return v;
}

primitive_attr chain_attr(const chain_t &c, const dims &dd) {
    post_ops po;
    if (c.long_chain) po.append_eltwise(algorithm::eltwise_linear, 1.f, -1.f);
    po.append_prelu(c.mask);
    if (c.long_chain) po.append_binary(algorithm::binary_add, md(dims(dd.size(), 1), plain_tag(dd.size())));
    primitive_attr a;
    a.set_post_ops(po);
    return a;
}

// Runs every implementation of pd on the inputs; compares dst with ref.
// `ins` maps args to logical values; weights of the prelu post-op and the
// binary src1 are added here.
void run_all(const std::string &name, primitive_desc pd, std::map<int, std::vector<float>> ins,
        const chain_t &c, const std::vector<float> &pw, const std::vector<float> &ref) {
    const int pidx = c.long_chain ? 1 : 0;
    const dims dd = pd.dst_desc().get_dims();
    ins[DNNL_ARG_ATTR_MULTIPLE_POST_OP(pidx) | DNNL_ARG_WEIGHTS] = pw;
    if (c.long_chain) ins[DNNL_ARG_ATTR_MULTIPLE_POST_OP(2) | DNNL_ARG_SRC_1] = {0.5f};
    do {
        for (int nthr : {1, 2}) {
            const std::string what = name + " mask=" + std::to_string(c.mask) + (c.long_chain ? " chain " : " ")
                    + pd.impl_info_str() + " nthr=" + std::to_string(nthr);
            kt::with_threads(nthr, [&] {
                stream strm(eng);
                std::vector<zp::buf_t> bufs;
                bufs.reserve(ins.size() + 1);
                std::unordered_map<int, memory> args;
                for (auto &kv : ins) {
                    memory::desc m = pd.query_md(query::exec_arg_md, kv.first);
                    if (m.get_ndims() == 0) // prelu weights have no md to query
                        m = md(prelu_dims(dd, c.mask), plain_tag(dd.size()));
                    bufs.emplace_back(eng, m);
                    bufs.back().put(kv.second);
                    args[kv.first] = bufs.back().mem;
                }
                bufs.emplace_back(eng, pd.dst_desc());
                bufs.back().poison();
                args[DNNL_ARG_DST] = bufs.back().mem;
                primitive(pd).execute(strm, args);
                strm.wait();
                const std::vector<float> got = bufs.back().get();
                size_t bad = 0;
                for (size_t i = 0; i < ref.size(); ++i) bad += !(got[i] == ref[i]);
                if (bad) std::fprintf(stderr, "%s: %zu of %zu differ\n", what.c_str(), bad, ref.size());
                tally.check(bad == 0, what.c_str());
            });
        }
    } while (pd.next_impl());
}

void conv_case(tag t, const chain_t &c) {
    const dim N = 2, IC = 5, OC = 13, IH = 7, IW = 6, KH = 3, KW = 2, SH = 2, SW = 1, PH = 1, PW = 0;
    const dim OH = (IH + 2 * PH - KH) / SH + 1, OW = (IW + 2 * PW - KW) / SW + 1;
    const dims sd = {N, IC, IH, IW}, wd = {OC, IC, KH, KW}, dd = {N, OC, OH, OW};
    const auto src = zp::values(N * IC * IH * IW, 1), wei = zp::values(OC * IC * KH * KW, 2);
    const auto bias = zp::values(OC, 3);
    const auto pw = zp::values(zp::nelems(md(prelu_dims(dd, c.mask), tag::abcd)), 4);
    std::vector<float> ref((size_t)(N * OC * OH * OW));
    for (dim n = 0; n < N; ++n)
        for (dim oc = 0; oc < OC; ++oc)
            for (dim oh = 0; oh < OH; ++oh)
                for (dim ow = 0; ow < OW; ++ow) {
                    double acc = bias[(size_t)oc];
                    for (dim ic = 0; ic < IC; ++ic)
                        for (dim kh = 0; kh < KH; ++kh)
                            for (dim kw = 0; kw < KW; ++kw) {
                                const dim ih = oh * SH - PH + kh, iw = ow * SW - PW + kw;
                                if (ih < 0 || ih >= IH || iw < 0 || iw >= IW) continue;
                                acc += (double)src[(size_t)(((n * IC + ic) * IH + ih) * IW + iw)]
                                        * wei[(size_t)(((oc * IC + ic) * KH + kh) * KW + kw)];
                            }
                    ref[(size_t)(((n * OC + oc) * OH + oh) * OW + ow)]
                            = apply_chain((float)acc, c, pw, dd, {n, oc, oh, ow});
                }
    auto pd = convolution_forward::primitive_desc(eng, prop_kind::forward_inference,
            algorithm::convolution_direct, md(sd, t), md(wd, tag::any), md({OC}, tag::a), md(dd, t), {SH, SW},
            {PH, PW}, {PH, PW}, chain_attr(c, dd));
    run_all(std::string("conv ") + (t == tag::nchw ? "nchw" : t == tag::nhwc ? "nhwc" : "blocked"), pd,
            {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}}, c, pw, ref);
}

void deconv_case(tag t, const chain_t &c) {
    const dim N = 2, IC = 5, OC = 11, IH = 4, IW = 5, KH = 3, KW = 2, SH = 2, SW = 1, PH = 1, PW = 0;
    const dim OH = (IH - 1) * SH + KH - 2 * PH, OW = (IW - 1) * SW + KW - 2 * PW;
    const dims sd = {N, IC, IH, IW}, wd = {OC, IC, KH, KW}, dd = {N, OC, OH, OW};
    const auto src = zp::values(N * IC * IH * IW, 12), wei = zp::values(OC * IC * KH * KW, 13);
    const auto bias = zp::values(OC, 14);
    const auto pw = zp::values(zp::nelems(md(prelu_dims(dd, c.mask), tag::abcd)), 15);
    std::vector<float> ref((size_t)(N * OC * OH * OW));
    for (dim n = 0; n < N; ++n)
        for (dim oc = 0; oc < OC; ++oc)
            for (dim oh = 0; oh < OH; ++oh)
                for (dim ow = 0; ow < OW; ++ow) {
                    double acc = bias[(size_t)oc];
                    for (dim ic = 0; ic < IC; ++ic)
                        for (dim kh = 0; kh < KH; ++kh)
                            for (dim kw = 0; kw < KW; ++kw) {
                                // dst row oh gets src row ih through tap kh when oh = ih * SH - PH + kh.
                                const dim th = oh + PH - kh, tw = ow + PW - kw;
                                if (th < 0 || tw < 0 || th % SH || tw % SW) continue;
                                const dim ih = th / SH, iw = tw / SW;
                                if (ih >= IH || iw >= IW) continue;
                                acc += (double)src[(size_t)(((n * IC + ic) * IH + ih) * IW + iw)]
                                        * wei[(size_t)(((oc * IC + ic) * KH + kh) * KW + kw)];
                            }
                    ref[(size_t)(((n * OC + oc) * OH + oh) * OW + ow)]
                            = apply_chain((float)acc, c, pw, dd, {n, oc, oh, ow});
                }
    auto pd = deconvolution_forward::primitive_desc(eng, prop_kind::forward_inference,
            algorithm::deconvolution_direct, md(sd, t), md(wd, tag::any), md({OC}, tag::a), md(dd, t), {SH, SW},
            {PH, PW}, {PH, PW}, chain_attr(c, dd));
    run_all(std::string("deconv ") + (t == tag::nchw ? "nchw" : t == tag::nhwc ? "nhwc" : "blocked"), pd,
            {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}}, c, pw, ref);
}

void ip_case(const chain_t &c) {
    const dim N = 5, IC = 7, OC = 11;
    const dims dd = {N, OC};
    const auto src = zp::values(N * IC, 5), wei = zp::values(OC * IC, 6), bias = zp::values(OC, 7);
    const auto pw = zp::values(zp::nelems(md(prelu_dims(dd, c.mask), tag::ab)), 8);
    std::vector<float> ref((size_t)(N * OC));
    for (dim n = 0; n < N; ++n)
        for (dim oc = 0; oc < OC; ++oc) {
            double acc = bias[(size_t)oc];
            for (dim ic = 0; ic < IC; ++ic) acc += (double)src[(size_t)(n * IC + ic)] * wei[(size_t)(oc * IC + ic)];
            ref[(size_t)(n * OC + oc)] = apply_chain((float)acc, c, pw, dd, {n, oc});
        }
    auto pd = inner_product_forward::primitive_desc(eng, prop_kind::forward_inference, md({N, IC}, tag::ab),
            md({OC, IC}, tag::any), md({OC}, tag::a), md(dd, tag::ab), chain_attr(c, dd));
    run_all("inner product", pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}}, c, pw, ref);
}

void matmul_case(const chain_t &c, bool bcast_wei) {
    const dim B = 3, M = 4, K = 7, N = 9, WB = bcast_wei ? 1 : B;
    const dims dd = {B, M, N};
    const auto src = zp::values(B * M * K, 9), wei = zp::values(WB * K * N, 10);
    const auto pw = zp::values(zp::nelems(md(prelu_dims(dd, c.mask), tag::abc)), 11);
    std::vector<float> ref((size_t)(B * M * N));
    for (dim b = 0; b < B; ++b)
        for (dim m = 0; m < M; ++m)
            for (dim n = 0; n < N; ++n) {
                double acc = 0;
                const dim wb = bcast_wei ? 0 : b;
                for (dim k = 0; k < K; ++k)
                    acc += (double)src[(size_t)((b * M + m) * K + k)] * wei[(size_t)((wb * K + k) * N + n)];
                ref[(size_t)((b * M + m) * N + n)] = apply_chain((float)acc, c, pw, dd, {b, m, n});
            }
    auto pd = matmul::primitive_desc(eng, md({B, M, K}, tag::abc), md({WB, K, N}, tag::abc), md(dd, tag::abc),
            chain_attr(c, dd));
    run_all(std::string("matmul") + (bcast_wei ? " bcast" : ""), pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}},
            c, pw, ref);
}

// Missing or malformed prelu weights: a status, never a crash; prelu on a
// primitive kind that does not take it: unimplemented at creation.
void bad_input() {
    const dims dd = {2, 3};
    post_ops po;
    po.append_prelu(2);
    primitive_attr a;
    a.set_post_ops(po);
    auto pd = inner_product_forward::primitive_desc(eng, prop_kind::forward_inference, md({2, 4}, tag::ab),
            md({3, 4}, tag::ab), md(dd, tag::ab), a);
    std::vector<float> s(8, 1.f), w(12, 1.f), d(6, 0.f), pw(6, 1.f);
    memory ms(pd.src_desc(), eng, s.data()), mw(pd.weights_desc(), eng, w.data()), md_(pd.dst_desc(), eng, d.data());
    stream strm(eng);
    auto status_of = [&](std::unordered_map<int, memory> args) {
        try {
            inner_product_forward(pd).execute(strm, args);
            return dnnl_success;
        } catch (const error &e) { return e.status; }
    };
    const int parg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_WEIGHTS;
    tally.check(status_of({{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md_}}) == dnnl_invalid_arguments,
            "prelu weights missing -> invalid_arguments");
    memory wrong(md({2, 3}, tag::ab), eng, pw.data()); // mask 2 wants {1, 3}
    tally.check(status_of({{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md_}, {parg, wrong}})
                    == dnnl_invalid_arguments,
            "prelu weights of the wrong shape -> invalid_arguments");
    memory right(md({1, 3}, tag::ab), eng, pw.data());
    tally.check(status_of({{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md_}, {parg, right}}) == dnnl_success,
            "prelu weights of the right shape -> success");
    dnnl_status_t st = dnnl_success;
    try {
        eltwise_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::eltwise_relu, md(dd, tag::ab),
                md(dd, tag::ab), 0.f, 0.f, a);
    } catch (const error &e) { st = e.status; }
    tally.check(st == dnnl_unimplemented, "prelu post-op on eltwise -> unimplemented");
}

} // namespace

int main() {
    for (bool lc : {false, true}) {
        for (int mask : {0, 2, 15})
            for (tag t : {tag::nchw, tag::nhwc, tag::nChw8c, tag::nChw16c}) {
                conv_case(t, {mask, lc});
                deconv_case(t, {mask, lc});
            }
        for (int mask : {0, 2, 3}) ip_case({mask, lc});
        for (int mask : {0, 1, 4, 7}) {
            matmul_case({mask, lc}, false);
            matmul_case({mask, lc}, true);
        }
    }
    bad_input();
    return tally.finish();
}
