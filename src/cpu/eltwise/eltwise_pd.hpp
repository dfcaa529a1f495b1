// Eltwise forward: the op desc and the base pd every implementation derives.
#ifndef KESTREL_CPU_ELTWISE_ELTWISE_PD_HPP
#define KESTREL_CPU_ELTWISE_ELTWISE_PD_HPP

#include "cpu/eltwise/src_dst_pd.hpp"

namespace kestrel {

struct eltwise_desc_t : src_dst_desc_t<eltwise_desc_t> {
    eltwise_desc_t() : src_dst_desc_t(dnnl_eltwise) {}
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    float alpha = 0.f, beta = 0.f;

    // alpha and beta go in by their bits, even for algs that ignore them:
    // a spare miss is cheap, a wrong hit is not.
    bool serialize(key_writer_t &k) const override {
        // x86-64 size of the fields above: a new field fails the build here
        // until it is written into the key.
        static_assert(sizeof(eltwise_desc_t) == 1264, "eltwise_desc_t changed: update serialize");
        serialize_src_dst(k);
        k.put(alg);
        k.put(alpha);
        k.put(beta);
        return true;
    }
};

// The queries eltwise answers beyond the base pd's, forward and backward
// alike; false when `what` is not one of them.
template <typename desc_t>
bool eltwise_query(const desc_t &d, dnnl_query_t what, void *result) {
    switch (what) {
        case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = d.alg; return true;
        case dnnl_query_alpha_f32: *(float *)result = d.alpha; return true;
        case dnnl_query_beta_f32: *(float *)result = d.beta; return true;
        default: return false;
    }
}

struct eltwise_fwd_pd_t : src_dst_pd_t<eltwise_desc_t> {
    using src_dst_pd_t::src_dst_pd_t;

    status_t query(dnnl_query_t what, int idx, void *result) const override {
        return eltwise_query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
    }

protected:
    // Checks shared by the implementations: float types, layouts, the
    // post-op chains oneDNN's eltwise takes (resolves their src1 `any`).
    status_t init_common(const char *impl);
};

extern const impl_entry_t eltwise_impl_list[];

struct eltwise_bwd_desc_t : src_dst_bwd_desc_t<eltwise_bwd_desc_t> {
    eltwise_bwd_desc_t() : src_dst_bwd_desc_t(dnnl_eltwise) {}
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    float alpha = 0.f, beta = 0.f;

    bool serialize(key_writer_t &k) const override {
        static_assert(sizeof(eltwise_bwd_desc_t) == 1880, "eltwise_bwd_desc_t changed: update serialize");
        serialize_bwd(k);
        k.put(alg);
        k.put(alpha);
        k.put(beta);
        return true;
    }
};

// Backward: diff_src = diff_dst * f'(src), or through dst for the
// _use_dst_for_bwd algorithms (the data tensor is then DNNL_ARG_DST).
struct eltwise_bwd_pd_t : src_dst_bwd_pd_t<eltwise_bwd_desc_t> {
    eltwise_bwd_pd_t(const eltwise_bwd_desc_t *d, const attr_t *a, const pd_t *hint)
        : src_dst_bwd_pd_t(d, a, hint, data_arg_of(d->alg)) {}

    static int data_arg_of(dnnl_alg_kind_t alg);

    status_t query(dnnl_query_t what, int idx, void *result) const override {
        return eltwise_query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
    }

protected:
    status_t init_common(const char *impl);
};

extern const impl_entry_t eltwise_bwd_impl_list[];

} // namespace kestrel

#endif
