// Primitive cache keys of the pooling family: two descriptors that differ in
// one parameter must never share an implementation (different keys), and
// two equal descriptors must (equal keys).
#include <functional>
#include <string>

#include "dnnl.h"
#include "core/primitive_cache.hpp"
#include "../common/kt_test.hpp"

namespace {

using make_fn = std::function<dnnl_status_t(dnnl_primitive_desc_t *)>;

std::string key_of(const make_fn &make) {
    dnnl_primitive_desc_t pd = nullptr;
    if (make(&pd) != dnnl_success) return "<create failed>";
    std::string k;
    bool ok = kestrel::primitive_cache_key(*pd, k);
    dnnl_primitive_desc_destroy(pd);
    return ok ? k : "<no key>";
}

void expect_keys(kt::tally_t &t, const char *kind, const make_fn &base, std::initializer_list<make_fn> variants) {
    const std::string k0 = key_of(base);
    t.check(k0[0] != '<', (std::string(kind) + ": base descriptor has a key").c_str());
    t.check(key_of(base) == k0, (std::string(kind) + ": equal descriptors, equal keys").c_str());
    int i = 0;
    for (const auto &v : variants) {
        const std::string k = key_of(v);
        std::string what = std::string(kind) + ": variant " + std::to_string(i++) + " has its own key";
        t.check(k[0] != '<' && k != k0, what.c_str());
    }
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    kt::md_t src(kt::make_md({2, 16, 9, 9}, dnnl_f32, dnnl_nchw));
    kt::md_t dst(kt::make_md({2, 16, 4, 4}, dnnl_f32, dnnl_nchw));
    kt::md_t dst_s1(kt::make_md({2, 16, 7, 7}, dnnl_f32, dnnl_nchw));

    // Pooling: every stride/kernel/dilation/padding component and the alg.
    auto pool = [&](dnnl_prop_kind_t prop, dnnl_alg_kind_t alg, dnnl_dims_t s, dnnl_dims_t k, dnnl_dims_t d,
                        dnnl_dims_t pl, dnnl_dims_t pr, const_dnnl_memory_desc_t dmd) {
        dnnl_dims_t S, Kk, D, PL, PR;
        for (int i = 0; i < 2; ++i) S[i] = s[i], Kk[i] = k[i], D[i] = d[i], PL[i] = pl[i], PR[i] = pr[i];
        return make_fn([=, &src](dnnl_primitive_desc_t *pd) mutable {
            return dnnl_pooling_forward_primitive_desc_create(pd, eng, prop, alg, src, dmd, S, Kk, D, PL, PR, nullptr);
        });
    };
    dnnl_dims_t s2 = {2, 2}, k3 = {3, 3}, d0 = {0, 0}, p0 = {0, 0};
    dnnl_dims_t s21 = {2, 1}, k23 = {2, 3}, k32 = {3, 2}, d10 = {1, 0}, p10 = {1, 0}, p01 = {0, 1}, s1 = {1, 1};
    // Shapes chosen so each variant still gives the 4x4 (or 7x7) dst.
    kt::md_t dst_wide(kt::make_md({2, 16, 4, 7}, dnnl_f32, dnnl_nchw));
    kt::md_t dst_k23(kt::make_md({2, 16, 4, 4}, dnnl_f32, dnnl_nchw));
    expect_keys(t, "pooling", pool(dnnl_forward_inference, dnnl_pooling_max, s2, k3, d0, p0, p0, dst),
            {pool(dnnl_forward_training, dnnl_pooling_max, s2, k3, d0, p0, p0, dst),
                    pool(dnnl_forward_inference, dnnl_pooling_avg_include_padding, s2, k3, d0, p0, p0, dst),
                    pool(dnnl_forward_inference, dnnl_pooling_avg_exclude_padding, s2, k3, d0, p0, p0, dst),
                    pool(dnnl_forward_inference, dnnl_pooling_max, s21, k3, d0, p0, p0, dst_wide),
                    pool(dnnl_forward_inference, dnnl_pooling_max, s2, k23, d0, p0, p0, dst_k23),
                    pool(dnnl_forward_inference, dnnl_pooling_max, s2, k32, d0, p0, p0, dst_k23),
                    pool(dnnl_forward_inference, dnnl_pooling_max, s2, k3, d10, p10, p10, dst),
                    pool(dnnl_forward_inference, dnnl_pooling_max, s2, k3, d0, p10, p0, dst),
                    pool(dnnl_forward_inference, dnnl_pooling_max, s2, k3, d0, p0, p01, dst),
                    pool(dnnl_forward_inference, dnnl_pooling_max, s1, k3, d0, p0, p0, dst_s1)});

    // Batch normalization: epsilon, flags, prop kind.
    auto bn = [&](dnnl_prop_kind_t prop, float eps, unsigned flags) {
        return make_fn([=, &src](dnnl_primitive_desc_t *pd) {
            return dnnl_batch_normalization_forward_primitive_desc_create(pd, eng, prop, src, src, eps, flags, nullptr);
        });
    };
    expect_keys(t, "batch normalization", bn(dnnl_forward_inference, 1e-5f, 0u),
            {bn(dnnl_forward_inference, 2e-5f, 0u), bn(dnnl_forward_training, 1e-5f, 0u),
                    bn(dnnl_forward_inference, 1e-5f, dnnl_use_scale), bn(dnnl_forward_inference, 1e-5f, dnnl_use_shift),
                    bn(dnnl_forward_inference, 1e-5f, dnnl_use_global_stats),
                    bn(dnnl_forward_inference, 1e-5f, dnnl_fuse_norm_relu)});

    // Layer normalization: epsilon, flags, prop kind, scale/shift type.
    kt::md_t tnc(kt::make_md({4, 3, 32}, dnnl_f32, dnnl_tnc));
    auto ln = [&](dnnl_prop_kind_t prop, float eps, unsigned flags, dnnl_data_type_t ss) {
        return make_fn([=, &tnc](dnnl_primitive_desc_t *pd) {
            return dnnl_layer_normalization_forward_primitive_desc_create_v2(
                    pd, eng, prop, tnc, tnc, nullptr, ss, eps, flags, nullptr);
        });
    };
    expect_keys(t, "layer normalization", ln(dnnl_forward_inference, 1e-5f, 0u, dnnl_f32),
            {ln(dnnl_forward_inference, 3e-5f, 0u, dnnl_f32), ln(dnnl_forward_training, 1e-5f, 0u, dnnl_f32),
                    ln(dnnl_forward_inference, 1e-5f, dnnl_use_scale, dnnl_f32),
                    ln(dnnl_forward_inference, 1e-5f, dnnl_use_scale, dnnl_bf16),
                    ln(dnnl_forward_inference, 1e-5f, dnnl_use_global_stats, dnnl_f32)});

    // Reduction: alg, p, eps.
    kt::md_t rdst(kt::make_md({2, 16, 1, 1}, dnnl_f32, dnnl_nchw));
    auto red = [&](dnnl_alg_kind_t alg, float p, float eps) {
        return make_fn([=, &src, &rdst](dnnl_primitive_desc_t *pd) {
            return dnnl_reduction_primitive_desc_create(pd, eng, alg, src, rdst, p, eps, nullptr);
        });
    };
    expect_keys(t, "reduction", red(dnnl_reduction_norm_lp_sum, 2.f, 0.f),
            {red(dnnl_reduction_norm_lp_sum, 3.f, 0.f), red(dnnl_reduction_norm_lp_sum, 2.f, 1e-3f),
                    red(dnnl_reduction_norm_lp_max, 2.f, 0.f), red(dnnl_reduction_sum, 2.f, 0.f)});

    dnnl_engine_destroy(eng);
    return t.finish();
}
