// Backward primitive descriptors created without the forward hint, as
// oneDNN allows for every kind whose backward needs nothing only the forward
// knows: batch normalization (also with the fused ReLU, whose workspace
// layout follows from src), layer and group normalization, LRN and average
// pooling. Each must give bit for bit what the same backward created with a
// hint gives (both run the same arithmetic; the LRN hint is an inference
// one, so neither side reuses a forward workspace). Max pooling, whose
// workspace layout only the forward knows, refuses with invalid_arguments.
// Also: backward over an empty minibatch writes zero parameter gradients
// (sums over no example), as oneDNN does, and leaves the rest alone.
#include <cstring>
#include <functional>
#include <map>
#include <vector>

#include "common/kt_test.hpp"

namespace {

kt::tally_t t;
dnnl_engine_t eng;
dnnl_stream_t strm;

using args_t = std::map<int, std::vector<char>>;

size_t arg_size(const_dnnl_primitive_desc_t pd, int arg) {
    const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
    return md ? dnnl_memory_desc_get_size(md) : 0;
}

// Executes pd with the buffers of `in` for every argument it takes that is
// there, and fresh zeroed buffers (returned) for the others.
args_t run(const_dnnl_primitive_desc_t pd, const args_t &in) {
    const int all[] = {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC, DNNL_ARG_MEAN,
            DNNL_ARG_VARIANCE, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_WORKSPACE, DNNL_ARG_DIFF_SCALE,
            DNNL_ARG_DIFF_SHIFT};
    args_t out, keep = in;
    std::vector<dnnl_exec_arg_t> ea;
    std::vector<dnnl_memory_t> mems;
    for (int arg : all) {
        const size_t sz = arg_size(pd, arg);
        if (!sz) continue;
        std::vector<char> *buf;
        if (keep.count(arg)) {
            buf = &keep[arg];
            if (buf->size() < sz) buf->resize(sz, 0);
        } else {
            buf = &out[arg];
            buf->assign(sz, 0);
        }
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg), eng, buf->data()));
        mems.push_back(m);
        ea.push_back({arg, m});
    }
    dnnl_primitive_t p;
    KT_OK(dnnl_primitive_create(&p, pd));
    KT_OK(dnnl_primitive_execute(p, strm, (int)ea.size(), ea.data()));
    KT_OK(dnnl_stream_wait(strm));
    KT_OK(dnnl_primitive_destroy(p));
    for (auto m : mems) KT_OK(dnnl_memory_destroy(m));
    return out;
}

std::vector<char> random_f32(size_t bytes, uint64_t seed) {
    std::vector<float> v(bytes / 4);
    kt::fill(v, seed, -1.f, 1.f);
    std::vector<char> b(bytes);
    std::memcpy(b.data(), v.data(), bytes);
    return b;
}

// fwd: a forward pd to run first (its outputs feed the backward) and to
// hint with; bwd(hint) creates the backward pd.
void same_without_hint(const char *what, dnnl_primitive_desc_t fwd, dnnl_primitive_desc_t hint,
        const std::function<dnnl_status_t(dnnl_primitive_desc_t *, const_dnnl_primitive_desc_t)> &bwd) {
    args_t in;
    for (int arg : {DNNL_ARG_SRC, DNNL_ARG_SCALE, DNNL_ARG_SHIFT})
        if (size_t sz = arg_size(fwd, arg)) in[arg] = random_f32(sz, 100 + arg);
    const args_t fout = run(fwd, in);
    for (const auto &kv : fout) in[kv.first] = kv.second; // mean, variance, workspace, dst
    dnnl_primitive_desc_t with = nullptr, without = nullptr;
    KT_OK(bwd(&with, hint));
    const dnnl_status_t st = bwd(&without, nullptr);
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: created without a hint", what);
    t.check(st == dnnl_success, msg);
    if (st == dnnl_success) {
        in[DNNL_ARG_DIFF_DST] = random_f32(arg_size(with, DNNL_ARG_DIFF_DST), 7);
        const args_t a = run(with, in), b = run(without, in);
        std::snprintf(msg, sizeof msg, "%s: same outputs with and without the hint", what);
        t.check(!a.empty() && a == b, msg);
        KT_OK(dnnl_primitive_desc_destroy(without));
    }
    KT_OK(dnnl_primitive_desc_destroy(with));
}

// Executes a backward pd over an empty minibatch with every parameter
// gradient prefilled with 7s; they must come back 0.
void empty_batch(const char *what, dnnl_primitive_desc_t pd) {
    const int grads[] = {DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_SCALE, DNNL_ARG_DIFF_SHIFT};
    args_t in;
    for (int arg : grads)
        if (size_t sz = arg_size(pd, arg)) {
            std::vector<float> sevens(sz / 4, 7.f);
            in[arg].resize(sz);
            std::memcpy(in[arg].data(), sevens.data(), sz);
        }
    // run() hands `in`'s buffers over as copies: execute on them in place.
    std::vector<dnnl_exec_arg_t> ea;
    std::vector<dnnl_memory_t> mems;
    std::vector<float> dummy(16, 0.f);
    for (int arg : {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE,
                 DNNL_ARG_SCALE, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_SCALE,
                 DNNL_ARG_DIFF_SHIFT}) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
        int nd = 0;
        if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) != dnnl_success || nd == 0) continue;
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, md, eng, in.count(arg) ? (void *)in[arg].data() : (void *)dummy.data()));
        mems.push_back(m);
        ea.push_back({arg, m});
    }
    dnnl_primitive_t p;
    KT_OK(dnnl_primitive_create(&p, pd));
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s over an empty minibatch: success", what);
    t.check(dnnl_primitive_execute(p, strm, (int)ea.size(), ea.data()) == dnnl_success, msg);
    KT_OK(dnnl_stream_wait(strm));
    bool zero = !in.empty();
    for (const auto &kv : in)
        for (size_t i = 0; i < kv.second.size(); i += 4) {
            float v;
            std::memcpy(&v, kv.second.data() + i, 4);
            zero = zero && v == 0.f;
        }
    std::snprintf(msg, sizeof msg, "%s over an empty minibatch: parameter gradients are 0", what);
    t.check(zero, msg);
    KT_OK(dnnl_primitive_destroy(p));
    for (auto m : mems) KT_OK(dnnl_memory_destroy(m));
    KT_OK(dnnl_primitive_desc_destroy(pd));
}

void empty_batches() {
    kt::md_t src(kt::make_md({0, 4, 5, 5}, dnnl_f32, dnnl_nchw)), wei(kt::make_md({6, 4, 3, 3}, dnnl_f32, dnnl_oihw)),
            bia(kt::make_md({6}, dnnl_f32, dnnl_a)), dst(kt::make_md({0, 6, 5, 5}, dnnl_f32, dnnl_nchw));
    const dnnl_dims_t st = {1, 1}, pad = {1, 1};
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_convolution_backward_weights_primitive_desc_create(&pd, eng, dnnl_convolution_direct, src, wei, bia,
            dst, st, nullptr, pad, pad, nullptr, nullptr));
    empty_batch("conv bwd weights", pd);
    KT_OK(dnnl_deconvolution_backward_weights_primitive_desc_create(&pd, eng, dnnl_deconvolution_direct, src, wei,
            bia, dst, st, nullptr, pad, pad, nullptr, nullptr));
    empty_batch("deconv bwd weights", pd);
    kt::md_t is(kt::make_md({0, 16}, dnnl_f32, dnnl_nc)), iw(kt::make_md({8, 16}, dnnl_f32, dnnl_oi)),
            ib(kt::make_md({8}, dnnl_f32, dnnl_a)), io(kt::make_md({0, 8}, dnnl_f32, dnnl_nc));
    KT_OK(dnnl_inner_product_backward_weights_primitive_desc_create(&pd, eng, is, iw, ib, io, nullptr, nullptr));
    empty_batch("inner product bwd weights", pd);
    KT_OK(dnnl_batch_normalization_backward_primitive_desc_create(&pd, eng, dnnl_backward, src, src, src, 1e-3f,
            dnnl_use_scale | dnnl_use_shift, nullptr, nullptr));
    empty_batch("bnorm bwd", pd);
    KT_OK(dnnl_group_normalization_backward_primitive_desc_create(&pd, eng, dnnl_backward, src, src, src, 2, 1e-3f,
            dnnl_use_scale | dnnl_use_shift, nullptr, nullptr));
    empty_batch("gnorm bwd", pd);
    kt::md_t pw(kt::make_md({1, 4, 1, 1}, dnnl_f32, dnnl_nchw));
    KT_OK(dnnl_prelu_backward_primitive_desc_create(&pd, eng, src, pw, src, pw, src, nullptr, nullptr));
    empty_batch("prelu bwd", pd);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    kt::md_t x(kt::make_md({3, 20, 5, 7}, dnnl_f32, dnnl_nchw)), xb(kt::make_md({2, 19, 6, 5}, dnnl_f32, dnnl_nChw16c));
    kt::md_t pooled(kt::make_md({3, 20, 2, 4}, dnnl_f32, dnnl_nchw));

    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const_dnnl_memory_desc_t md : {(const_dnnl_memory_desc_t)x, (const_dnnl_memory_desc_t)xb})
                for (unsigned flags : {0u, (unsigned)(dnnl_use_scale | dnnl_use_shift), (unsigned)dnnl_fuse_norm_relu,
                             (unsigned)(dnnl_use_global_stats | dnnl_use_scale)}) {
                    dnnl_primitive_desc_t f;
                    KT_OK(dnnl_batch_normalization_forward_primitive_desc_create(
                            &f, eng, dnnl_forward_training, md, md, 1e-3f, flags, nullptr));
                    same_without_hint("bnorm", f, f, [&](dnnl_primitive_desc_t *p, const_dnnl_primitive_desc_t h) {
                        return dnnl_batch_normalization_backward_primitive_desc_create(
                                p, eng, dnnl_backward, md, md, md, 1e-3f, flags, h, nullptr);
                    });
                    KT_OK(dnnl_primitive_desc_destroy(f));
                }
            {
                const unsigned flags = dnnl_use_scale | dnnl_use_shift;
                dnnl_primitive_desc_t f;
                KT_OK(dnnl_layer_normalization_forward_primitive_desc_create(
                        &f, eng, dnnl_forward_training, x, x, nullptr, 1e-3f, flags, nullptr));
                same_without_hint("lnorm", f, f, [&](dnnl_primitive_desc_t *p, const_dnnl_primitive_desc_t h) {
                    return dnnl_layer_normalization_backward_primitive_desc_create(
                            p, eng, dnnl_backward, x, x, x, nullptr, 1e-3f, flags, h, nullptr);
                });
                KT_OK(dnnl_primitive_desc_destroy(f));
                KT_OK(dnnl_group_normalization_forward_primitive_desc_create(
                        &f, eng, dnnl_forward_training, x, x, 4, 1e-3f, flags, nullptr));
                same_without_hint("gnorm", f, f, [&](dnnl_primitive_desc_t *p, const_dnnl_primitive_desc_t h) {
                    return dnnl_group_normalization_backward_primitive_desc_create(
                            p, eng, dnnl_backward, x, x, x, 4, 1e-3f, flags, h, nullptr);
                });
                KT_OK(dnnl_primitive_desc_destroy(f));
            }
            for (auto alg : {dnnl_lrn_across_channels, dnnl_lrn_within_channel}) {
                dnnl_primitive_desc_t f;
                KT_OK(dnnl_lrn_forward_primitive_desc_create(
                        &f, eng, dnnl_forward_inference, alg, x, x, 5, 1e-2f, 0.75f, 1.f, nullptr));
                same_without_hint("lrn", f, f, [&](dnnl_primitive_desc_t *p, const_dnnl_primitive_desc_t h) {
                    return dnnl_lrn_backward_primitive_desc_create(
                            p, eng, alg, x, x, x, 5, 1e-2f, 0.75f, 1.f, h, nullptr);
                });
                KT_OK(dnnl_primitive_desc_destroy(f));
            }
            const dnnl_dims_t st = {2, 2}, k = {3, 3}, dil = {0, 0}, pl = {0, 1}, pr = {1, 1};
            for (auto alg : {dnnl_pooling_avg_include_padding, dnnl_pooling_avg_exclude_padding}) {
                dnnl_primitive_desc_t f;
                KT_OK(dnnl_pooling_forward_primitive_desc_create(
                        &f, eng, dnnl_forward_training, alg, x, pooled, st, k, dil, pl, pr, nullptr));
                same_without_hint("avg pooling", f, f, [&](dnnl_primitive_desc_t *p, const_dnnl_primitive_desc_t h) {
                    return dnnl_pooling_backward_primitive_desc_create(
                            p, eng, alg, x, pooled, st, k, dil, pl, pr, h, nullptr);
                });
                KT_OK(dnnl_primitive_desc_destroy(f));
            }
            dnnl_primitive_desc_t p = nullptr;
            t.check(dnnl_pooling_backward_primitive_desc_create(
                            &p, eng, dnnl_pooling_max, x, pooled, st, k, dil, pl, pr, nullptr, nullptr)
                            == dnnl_invalid_arguments,
                    "max pooling without a hint: invalid_arguments");
        });
    empty_batches();
    KT_OK(dnnl_stream_destroy(strm));
    KT_OK(dnnl_engine_destroy(eng));
    return t.finish();
}
