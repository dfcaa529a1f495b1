// Pooling with eltwise and binary post-ops, dilated, in every layout and
// algorithm; batch normalization with its relu post-op and the
// fuse_norm_relu flag. Naive references written here.
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

const char *tag_name(tag t) {
    return t == tag::nchw ? "nchw" : t == tag::nhwc ? "nhwc" : t == tag::nChw8c ? "nChw8c" : "nChw16c";
}

struct pool_shape_t {
    dim N, C, IH, IW, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR;
    dim OH() const { return (IH + PT + PB - ((KH - 1) * (DH + 1) + 1)) / SH + 1; }
    dim OW() const { return (IW + PL + PR - ((KW - 1) * (DW + 1) + 1)) / SW + 1; }
};

// Post-ops: 0 none, 1 linear(2, 0.5), 2 add per channel, 3 mul by a full
// tensor, 4 linear then add per channel.
primitive_attr pool_attr(int chain, const dims &dd) {
    post_ops po;
    if (chain == 1 || chain == 4) po.append_eltwise(algorithm::eltwise_linear, 2.f, 0.5f);
    if (chain == 2 || chain == 4) po.append_binary(algorithm::binary_add, md({1, dd[1], 1, 1}, tag::abcd));
    if (chain == 3) po.append_binary(algorithm::binary_mul, md(dd, tag::abcd));
    primitive_attr a;
    a.set_post_ops(po);
    return a;
}

void pool_case(const pool_shape_t &s, algorithm alg, tag t, int chain) {
    const dim OH = s.OH(), OW = s.OW();
    const dims sd = {s.N, s.C, s.IH, s.IW}, dd = {s.N, s.C, OH, OW};
    const auto src = zp::values(zp::nelems(md(sd, tag::nchw)), 21);
    const auto pc = zp::values(s.C, 22), full = zp::values(zp::nelems(md(dd, tag::nchw)), 23);
    std::vector<float> ref((size_t)zp::nelems(md(dd, tag::nchw)));
    for (dim n = 0; n < s.N; ++n)
        for (dim c = 0; c < s.C; ++c)
            for (dim oh = 0; oh < OH; ++oh)
                for (dim ow = 0; ow < OW; ++ow) {
                    double sum = 0, mx = -INFINITY;
                    dim cnt = 0;
                    for (dim kh = 0; kh < s.KH; ++kh)
                        for (dim kw = 0; kw < s.KW; ++kw) {
                            const dim ih = oh * s.SH - s.PT + kh * (s.DH + 1);
                            const dim iw = ow * s.SW - s.PL + kw * (s.DW + 1);
                            if (ih < 0 || ih >= s.IH || iw < 0 || iw >= s.IW) continue;
                            const double v = src[(size_t)(((n * s.C + c) * s.IH + ih) * s.IW + iw)];
                            sum += v;
                            mx = std::fmax(mx, v);
                            ++cnt;
                        }
                    KT_EXPECT(cnt > 0); // shapes below keep every window non-empty
                    float v = alg == algorithm::pooling_max ? (float)mx
                            : alg == algorithm::pooling_avg_exclude_padding ? (float)(sum / (double)cnt)
                                                                               : (float)(sum / (double)(s.KH * s.KW));
                    const size_t l = (size_t)(((n * s.C + c) * OH + oh) * OW + ow);
                    if (chain == 1 || chain == 4) v = 2.f * v + 0.5f;
                    if (chain == 2 || chain == 4) v = v + pc[(size_t)c];
                    if (chain == 3) v = v * full[l];
                    ref[l] = v;
                }
    // Max and the sums of halves are exact; an average is one division
    // (correctly rounded here, a multiply by 1/count or a division there:
    // at most 2 ulp apart), which linear(2, 0.5) and the post-op add or mul
    // carry over with one more rounding each: 2^-21 relative is the bound.
    const double tol = alg == algorithm::pooling_max ? 0.0 : std::ldexp(1.0, -21);
    auto pd = pooling_forward::primitive_desc(eng, prop_kind::forward_inference, alg, md(sd, t), md(dd, t),
            {s.SH, s.SW}, {s.KH, s.KW}, {s.DH, s.DW}, {s.PT, s.PL}, {s.PB, s.PR}, pool_attr(chain, dd));
    do {
        for (int nthr : {1, 2}) {
            const std::string what = std::string("pooling ") + tag_name(t) + " alg=" + std::to_string((int)alg)
                    + " chain=" + std::to_string(chain) + " C=" + std::to_string(s.C) + " " + pd.impl_info_str()
                    + " nthr=" + std::to_string(nthr);
            kt::with_threads(nthr, [&] {
                stream strm(eng);
                zp::buf_t bs(eng, pd.src_desc()), bd(eng, pd.dst_desc());
                bs.put(src);
                bd.poison();
                std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, bs.mem}, {DNNL_ARG_DST, bd.mem}};
                std::vector<zp::buf_t> extra;
                extra.reserve(2);
                if (chain >= 2) {
                    const int arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(chain == 4 ? 1 : 0) | DNNL_ARG_SRC_1;
                    extra.emplace_back(eng, pd.query_md(query::exec_arg_md, arg));
                    extra.back().put(chain == 3 ? full : pc);
                    args[arg] = extra.back().mem;
                }
                pooling_forward(pd).execute(strm, args);
                strm.wait();
                const auto got = bd.get();
                double worst = 0;
                for (size_t i = 0; i < ref.size(); ++i)
                    worst = std::fmax(worst, std::fabs((double)got[i] - ref[i]) / std::fmax(1.0, std::fabs(ref[i])));
                if (!(worst <= tol)) std::fprintf(stderr, "%s: worst %g > %g\n", what.c_str(), worst, tol);
                tally.check(worst <= tol && bd.bad_padding() == 0, what.c_str());
            });
        }
    } while (pd.next_impl());
}

// Batch normalization forward. relu: 0 none, 1 relu post-op (slope alpha),
// 2 fuse_norm_relu flag.
void bnorm_case(tag t, prop_kind pk, int relu, float alpha) {
    const dim N = 2, C = 13, H = 5, W = 7, SP = H * W;
    const dims sd = {N, C, H, W};
    const auto src = zp::values(N * C * SP, 31), sc = zp::values(C, 32), sh = zp::values(C, 33);
    std::vector<float> ref((size_t)(N * C * SP)), rmean((size_t)C), rvar((size_t)C);
    const float eps = 1e-3f;
    for (dim c = 0; c < C; ++c) {
        double m = 0, v = 0;
        for (dim n = 0; n < N; ++n)
            for (dim p = 0; p < SP; ++p) m += src[(size_t)((n * C + c) * SP + p)];
        m /= (double)(N * SP);
        for (dim n = 0; n < N; ++n)
            for (dim p = 0; p < SP; ++p) {
                const double d = src[(size_t)((n * C + c) * SP + p)] - m;
                v += d * d;
            }
        v /= (double)(N * SP);
        rmean[(size_t)c] = (float)m;
        rvar[(size_t)c] = (float)v;
        for (dim n = 0; n < N; ++n)
            for (dim p = 0; p < SP; ++p) {
                const size_t l = (size_t)((n * C + c) * SP + p);
                double y = sc[(size_t)c] * (src[l] - m) / std::sqrt(v + eps) + sh[(size_t)c];
                if (relu && !(y > 0)) y = relu == 1 ? alpha * y : 0.0;
                ref[l] = (float)y;
            }
    }
    normalization_flags flags = normalization_flags::use_scale | normalization_flags::use_shift;
    if (relu == 2) flags = flags | normalization_flags::fuse_norm_relu;
    primitive_attr attr;
    if (relu == 1) {
        post_ops po;
        po.append_eltwise(algorithm::eltwise_relu, alpha, 0.f);
        attr.set_post_ops(po);
    }
    const bool training = pk == prop_kind::forward_training;
    const std::string name = std::string("bnorm ") + tag_name(t) + (training ? " training" : " inference")
            + " relu=" + std::to_string(relu) + " alpha=" + std::to_string(alpha);
    batch_normalization_forward::primitive_desc pd;
    dnnl_status_t st = dnnl_success;
    try {
        pd = batch_normalization_forward::primitive_desc(eng, pk, md(sd, t), md(sd, t), eps, flags, attr);
    } catch (const error &e) { st = e.status; }
    // A leaky relu post-op in training would need a workspace it does not
    // get: oneDNN takes slope 0 only there.
    if (training && relu == 1 && alpha != 0.f) {
        tally.check(st == dnnl_unimplemented, (name + ": unimplemented").c_str());
        return;
    }
    tally.check(st == dnnl_success, (name + ": created").c_str());
    if (st != dnnl_success) return;
    // The workspace exists exactly for the flag in training.
    const bool want_ws = training && relu == 2;
    tally.check((pd.workspace_desc().get_size() > 0) == want_ws, (name + ": workspace").c_str());
    // Statistics: n = 70 terms each rounded once in f32, relative error of
    // the variance <= 70 * 2^-24 < 2^-17.8, half of it in 1/sqrt; scale,
    // shift and the final roundings add a few ulp. 2^-16 bounds it.
    const double tol = std::ldexp(1.0, -16);
    do {
        for (int nthr : {1, 2}) {
            const std::string what = name + " " + pd.impl_info_str() + " nthr=" + std::to_string(nthr);
            kt::with_threads(nthr, [&] {
                stream strm(eng);
                zp::buf_t bs(eng, pd.src_desc()), bd(eng, pd.dst_desc());
                zp::buf_t bsc(eng, md({C}, tag::a)), bsh(eng, md({C}, tag::a));
                zp::buf_t bm(eng, md({C}, tag::a)), bv(eng, md({C}, tag::a));
                zp::buf_t bw(eng, pd.workspace_desc());
                bs.put(src);
                bsc.put(sc);
                bsh.put(sh);
                bd.poison();
                std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, bs.mem}, {DNNL_ARG_DST, bd.mem},
                        {DNNL_ARG_SCALE, bsc.mem}, {DNNL_ARG_SHIFT, bsh.mem}};
                if (training) {
                    args[DNNL_ARG_MEAN] = bm.mem;
                    args[DNNL_ARG_VARIANCE] = bv.mem;
                }
                if (want_ws) args[DNNL_ARG_WORKSPACE] = bw.mem;
                batch_normalization_forward(pd).execute(strm, args);
                strm.wait();
                const auto got = bd.get();
                double worst = 0;
                for (size_t i = 0; i < ref.size(); ++i)
                    worst = std::fmax(worst, std::fabs((double)got[i] - ref[i]) / std::fmax(1.0, std::fabs(ref[i])));
                if (training) {
                    const auto m = bm.get(), v = bv.get();
                    for (dim c = 0; c < C; ++c) {
                        worst = std::fmax(worst, std::fabs((double)m[(size_t)c] - rmean[(size_t)c]) / std::fmax(1.0, std::fabs(rmean[(size_t)c])));
                        worst = std::fmax(worst, std::fabs((double)v[(size_t)c] - rvar[(size_t)c]) / std::fmax(1.0, std::fabs(rvar[(size_t)c])));
                    }
                }
                if (!(worst <= tol)) std::fprintf(stderr, "%s: worst %g > %g\n", what.c_str(), worst, tol);
                tally.check(worst <= tol && bd.bad_padding() == 0, what.c_str());
            });
        }
    } while (pd.next_impl());
}

// Post-ops batch normalization does not take: unimplemented.
void bnorm_rejects() {
    const dims sd = {2, 3, 4, 5};
    auto status_with = [&](const std::function<void(post_ops &)> &f) {
        post_ops po;
        f(po);
        primitive_attr a;
        a.set_post_ops(po);
        try {
            batch_normalization_forward::primitive_desc(eng, prop_kind::forward_inference, md(sd, tag::nchw),
                    md(sd, tag::nchw), 1e-3f, normalization_flags::none, a);
            return dnnl_success;
        } catch (const error &e) { return e.status; }
    };
    tally.check(status_with([](post_ops &p) { p.append_eltwise(algorithm::eltwise_linear, 1.f, 0.f); })
                    == dnnl_unimplemented,
            "bnorm + linear post-op -> unimplemented");
    tally.check(status_with([](post_ops &p) {
        p.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
        p.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    }) == dnnl_unimplemented,
            "bnorm + two relu post-ops -> unimplemented");
    tally.check(status_with([](post_ops &p) { p.append_sum(1.f); }) == dnnl_unimplemented,
            "bnorm + sum post-op -> unimplemented");
}

} // namespace

int main() {
    const pool_shape_t shapes[] = {
            // N C  IH IW KH KW SH SW DH DW PT PL PB PR
            {2, 13, 9, 8, 3, 2, 2, 1, 1, 2, 1, 1, 1, 2}, // dilated both ways, padding, channel tail
            {1, 5, 7, 7, 3, 3, 2, 2, 0, 1, 0, 1, 1, 1}, // dilated W only, asymmetric padding
            {2, 19, 6, 5, 2, 3, 1, 2, 2, 0, 2, 0, 1, 1}, // dilation 2 on H, odd sizes
    };
    const algorithm algs[] = {algorithm::pooling_max, algorithm::pooling_avg_include_padding,
            algorithm::pooling_avg_exclude_padding};
    for (const auto &s : shapes)
        for (algorithm a : algs)
            for (tag t : {tag::nchw, tag::nhwc, tag::nChw8c, tag::nChw16c})
                for (int chain = 0; chain <= 4; ++chain) pool_case(s, a, t, chain);
    for (tag t : {tag::nchw, tag::nhwc, tag::nChw8c, tag::nChw16c})
        for (prop_kind pk : {prop_kind::forward_inference, prop_kind::forward_training}) {
            bnorm_case(t, pk, 0, 0.f);
            bnorm_case(t, pk, 1, 0.f);
            bnorm_case(t, pk, 1, 0.25f);
            bnorm_case(t, pk, 2, 0.f);
        }
    bnorm_rejects();
    return tally.finish();
}
