// Every primitive that writes a blocked destination (nChw8c, nChw16c) with a
// channel tail leaves the padded channels exactly +0.0, post-ops included,
// whatever was in the buffer before: the whole buffer is poisoned with a NaN
// first. The real elements must match the same problem run with plain
// layouts. Every implementation a descriptor offers is run, with 1 and 2
// threads.
#include <cmath>
#include <string>

#include "zpad/zp_util.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
using zp::dims;

namespace {

engine eng(engine::kind::cpu, 0);
kt::tally_t tally;

// The arguments a descriptor may read, asked for by exec_arg_md.
const int input_args[] = {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS,
        DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1,
        DNNL_ARG_MULTIPLE_SRC + 2, DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
        DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1};

// Runs the descriptor's current implementation; returns the dst holder.
zp::buf_t run(const primitive_desc_base &pd) {
    stream strm(eng);
    std::vector<zp::buf_t> ins;
    ins.reserve(sizeof(input_args) / sizeof(input_args[0]));
    std::unordered_map<int, memory> args;
    for (int arg : input_args) {
        memory::desc md = pd.query_md(query::exec_arg_md, arg);
        if (md.get_ndims() == 0) continue;
        ins.emplace_back(eng, md);
        ins.back().put(zp::values(zp::nelems(md), arg % 97));
        args[arg] = ins.back().mem;
    }
    zp::buf_t dst(eng, pd.dst_desc());
    dst.poison();
    args[DNNL_ARG_DST] = dst.mem;
    primitive(pd.get()).execute(strm, args);
    strm.wait();
    return dst;
}

// tol: largest allowed |got - ref| / max(1, |ref|), from the case's arithmetic.
using make_t = std::function<primitive_desc_base(tag src, tag dst, memory::dim C)>;

void sweep(const std::string &name, const make_t &make, double tol = 0.0,
        std::vector<memory::dim> chans = {13, 19}) {
    for (memory::dim C : chans)
        for (tag t : {tag::nChw8c, tag::nChw16c}) {
            const zp::buf_t plain = run(make(tag::nchw, tag::nchw, C));
            const std::vector<float> ref = plain.get();
            primitive_desc_base pd;
            try {
                pd = make(t, t, C);
            } catch (const error &) {
                tally.check(false, (name + ": no implementation for the blocked layout").c_str());
                continue;
            }
            do {
                for (int nthr : {1, 2}) {
                    const std::string what = name + " C=" + std::to_string(C) + (t == tag::nChw8c ? " 8c " : " 16c ")
                            + pd.impl_info_str() + " nthr=" + std::to_string(nthr);
                    kt::with_threads(nthr, [&] {
                        zp::buf_t dst = run(pd);
                        const long bad = dst.bad_padding();
                        tally.check(bad == 0, (what + ": padding not zero").c_str());
                        const std::vector<float> got = dst.get();
                        double worst = 0;
                        for (size_t i = 0; i < ref.size(); ++i) {
                            const double d = std::fabs((double)got[i] - ref[i]) / std::fmax(1.0, std::fabs(ref[i]));
                            worst = std::isnan(got[i]) != std::isnan(ref[i]) ? INFINITY : std::fmax(worst, d);
                        }
                        if (worst > tol) std::fprintf(stderr, "%s: worst %g > %g\n", what.c_str(), worst, tol);
                        tally.check(worst <= tol, (what + ": values").c_str());
                    });
                }
            } while (dnnl_primitive_desc_next_impl(pd.get()) == dnnl_success);
        }
}

memory::desc md(dims d, tag t) { return memory::desc(d, dt::f32, t); }

primitive_attr with_post_ops(const std::function<void(post_ops &)> &f) {
    post_ops po;
    f(po);
    primitive_attr a;
    a.set_post_ops(po);
    return a;
}

// Post-op chains that map 0 to something else.
const std::vector<std::pair<std::string, std::function<void(post_ops &)>>> chains = {
        {"linear", [](post_ops &p) { p.append_eltwise(algorithm::eltwise_linear, 1.f, 0.5f); }},
        {"exp", [](post_ops &p) { p.append_eltwise(algorithm::eltwise_exp, 0.f, 0.f); }},
        {"logistic", [](post_ops &p) { p.append_eltwise(algorithm::eltwise_logistic, 0.f, 0.f); }},
        {"clip", [](post_ops &p) { p.append_eltwise(algorithm::eltwise_clip, 0.25f, 2.f); }},
        {"add", [](post_ops &p) { p.append_binary(algorithm::binary_add, md({1, 1, 1, 1}, tag::abcd)); }},
        {"add_c", [](post_ops &p) { p.append_binary(algorithm::binary_add, md({1, 13, 1, 1}, tag::abcd)); }},
};

} // namespace

int main() {
    // Convolution and deconvolution, every post-op chain, every impl. The
    // sums of halves are exact; exp and logistic are the same function on
    // the same value in both runs.
    for (auto &ch : chains) {
        const bool per_c = ch.first == "add_c";
        const std::vector<memory::dim> cs = per_c ? std::vector<memory::dim> {13} : std::vector<memory::dim> {13, 19};
        sweep("conv+" + ch.first, [&](tag s, tag d, memory::dim C) {
            return convolution_forward::primitive_desc(eng, prop_kind::forward_inference,
                    algorithm::convolution_direct, md({2, 6, 7, 6}, s), md({C, 6, 3, 3}, tag::any),
                    md({C}, tag::a), md({2, C, 7, 6}, d), {1, 1}, {1, 1}, {1, 1}, with_post_ops(ch.second));
        }, 0.0, cs);
        sweep("deconv+" + ch.first, [&](tag s, tag d, memory::dim C) {
            return deconvolution_forward::primitive_desc(eng, prop_kind::forward_inference,
                    algorithm::deconvolution_direct, md({2, 5, 5, 4}, s), md({C, 5, 3, 3}, tag::any),
                    md({2, C, 7, 6}, d), {1, 1}, {0, 0}, {0, 0}, with_post_ops(ch.second));
        }, 0.0, cs);
        sweep("pool_max+" + ch.first, [&](tag s, tag d, memory::dim C) {
            return pooling_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::pooling_max,
                    md({2, C, 7, 6}, s), md({2, C, 4, 3}, d), {2, 2}, {3, 3}, {0, 0}, {1, 1}, {1, 1},
                    with_post_ops(ch.second));
        }, 0.0, cs);
        sweep("pool_avg+" + ch.first, [&](tag s, tag d, memory::dim C) {
            return pooling_forward::primitive_desc(eng, prop_kind::forward_inference,
                    algorithm::pooling_avg_include_padding, md({2, C, 7, 6}, s), md({2, C, 4, 3}, d), {2, 2},
                    {3, 3}, {0, 0}, {1, 1}, {1, 1}, with_post_ops(ch.second));
        }, 0.0, cs);
        sweep("eltwise_relu+" + ch.first, [&](tag s, tag d, memory::dim C) {
            return eltwise_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::eltwise_relu,
                    md({2, C, 5, 6}, s), md({2, C, 5, 6}, d), 0.f, 0.f, with_post_ops(ch.second));
        }, 0.0, cs);
        sweep("binary_mul+" + ch.first, [&](tag s, tag d, memory::dim C) {
            return binary::primitive_desc(eng, algorithm::binary_mul, md({2, C, 5, 6}, s), md({1, C, 1, 1}, tag::abcd),
                    md({2, C, 5, 6}, d), with_post_ops(ch.second));
        }, 0.0, cs);
        sweep("reduction_sum+" + ch.first, [&](tag s, tag d, memory::dim C) {
            return reduction::primitive_desc(eng, algorithm::reduction_sum, md({2, C, 5, 6}, s),
                    md({2, C, 1, 1}, d), 0.f, 0.f, with_post_ops(ch.second));
        }, 0.0, cs);
    }
    // Element-wise kinds that map 0 to non-zero on their own.
    sweep("eltwise_linear", [](tag s, tag d, memory::dim C) {
        return eltwise_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::eltwise_linear,
                md({2, C, 5, 6}, s), md({2, C, 5, 6}, d), 2.f, 0.5f);
    });
    sweep("eltwise_logistic", [](tag s, tag d, memory::dim C) {
        return eltwise_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::eltwise_logistic,
                md({2, C, 5, 6}, s), md({2, C, 5, 6}, d), 0.f, 0.f);
    });
    sweep("binary_add_const", [](tag s, tag d, memory::dim C) {
        return binary::primitive_desc(eng, algorithm::binary_add, md({2, C, 5, 6}, s), md({1, 1, 1, 1}, tag::abcd),
                md({2, C, 5, 6}, d));
    });
    sweep("prelu", [](tag s, tag d, memory::dim C) {
        return prelu_forward::primitive_desc(eng, prop_kind::forward_inference, md({2, C, 5, 6}, s),
                md({1, C, 1, 1}, tag::abcd), md({2, C, 5, 6}, d));
    });
    sweep("shuffle", [](tag s, tag d, memory::dim C) {
        return shuffle_forward::primitive_desc(eng, prop_kind::forward_inference, md({2, C, 5, 6}, s),
                md({2, C, 5, 6}, d), 1, 3);
    }, 0.0, {12, 21});
    sweep("resampling_nearest", [](tag s, tag d, memory::dim C) {
        return resampling_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::resampling_nearest,
                md({2, C, 4, 3}, s), md({2, C, 7, 6}, d));
    });
    sweep("reorder", [](tag s, tag d, memory::dim C) {
        (void)s;
        return reorder::primitive_desc(eng, md({2, C, 5, 6}, tag::nchw), eng, md({2, C, 5, 6}, d));
    });
    sweep("sum", [](tag s, tag d, memory::dim C) {
        return sum::primitive_desc(eng, md({2, C, 5, 6}, d), {1.f, 0.5f}, {md({2, C, 5, 6}, s), md({2, C, 5, 6}, s)});
    });
    sweep("concat", [](tag s, tag d, memory::dim C) {
        (void)s;
        return concat::primitive_desc(eng, md({2, C, 5, 6}, d), 1, {md({2, 5, 5, 6}, tag::nchw), md({2, C - 5, 5, 6}, tag::nchw)});
    });
    sweep("pool_avg_excl", [](tag s, tag d, memory::dim C) {
        return pooling_forward::primitive_desc(eng, prop_kind::forward_inference,
                algorithm::pooling_avg_exclude_padding, md({2, C, 7, 6}, s), md({2, C, 3, 2}, d), {2, 2}, {3, 3},
                {1, 1}, {1, 1}, {1, 1}); // dilated
    });
    // Normalizations, softmax, LRN and linear resampling divide, take roots
    // or exponentials of sums; the blocked and plain runs may sum in another
    // order (each of the n <= 60 terms rounded once: n * 2^-24 relative) and
    // use another vector code path for exp/pow/sqrt (a few ulp). 2^-16
    // covers both with room and still catches any wrong element.
    const double tol_red = std::ldexp(1.0, -16);
    sweep("bnorm", [](tag s, tag d, memory::dim C) {
        return batch_normalization_forward::primitive_desc(eng, prop_kind::forward_inference, md({2, C, 5, 6}, s),
                md({2, C, 5, 6}, d), 1e-3f, normalization_flags::use_scale | normalization_flags::use_shift);
    }, tol_red);
    sweep("lnorm", [](tag s, tag d, memory::dim C) {
        return layer_normalization_forward::primitive_desc(eng, prop_kind::forward_inference, md({2, C, 5, 6}, s),
                md({2, C, 5, 6}, d), 1e-3f, normalization_flags::use_scale | normalization_flags::use_shift);
    }, tol_red);
    sweep("gnorm", [](tag s, tag d, memory::dim C) {
        return group_normalization_forward::primitive_desc(eng, prop_kind::forward_inference, md({2, C, 5, 6}, s),
                md({2, C, 5, 6}, d), 1, 1e-3f, normalization_flags::use_scale | normalization_flags::use_shift);
    }, tol_red);
    sweep("lrn", [](tag s, tag d, memory::dim C) {
        return lrn_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::lrn_across_channels,
                md({2, C, 5, 6}, s), md({2, C, 5, 6}, d), 5, 1e-2f, 0.75f, 1.f);
    }, tol_red);
    for (int axis : {1, 3})
        sweep("softmax axis " + std::to_string(axis), [axis](tag s, tag d, memory::dim C) {
            return softmax_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::softmax_accurate,
                    md({2, C, 5, 6}, s), md({2, C, 5, 6}, d), axis);
        }, tol_red);
    sweep("resampling_linear", [](tag s, tag d, memory::dim C) {
        return resampling_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::resampling_linear,
                md({2, C, 4, 3}, s), md({2, C, 7, 6}, d));
    }, tol_red);
    sweep("reduction_mean", [](tag s, tag d, memory::dim C) {
        return reduction::primitive_desc(eng, algorithm::reduction_mean, md({2, C, 5, 6}, s), md({2, C, 1, 1}, d),
                0.f, 0.f);
    }, tol_red);
    return tally.finish();
}
