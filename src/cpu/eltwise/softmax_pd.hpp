// Softmax forward: the op desc and the base pd every implementation derives.
#ifndef KESTREL_CPU_ELTWISE_SOFTMAX_PD_HPP
#define KESTREL_CPU_ELTWISE_SOFTMAX_PD_HPP

#include "cpu/eltwise/src_dst_pd.hpp"

namespace kestrel {

struct softmax_desc_t : src_dst_desc_t<softmax_desc_t> {
    softmax_desc_t() : src_dst_desc_t(dnnl_softmax) {}
    dnnl_alg_kind_t alg = dnnl_softmax_accurate;
    int axis = 0;

    bool serialize(key_writer_t &k) const override {
        // x86-64 size of the fields above: a new field fails the build here
        // until it is written into the key.
        static_assert(sizeof(softmax_desc_t) == 1256, "softmax_desc_t changed: update serialize");
        serialize_src_dst(k);
        k.put(alg);
        k.put(axis);
        return true;
    }
};

// The queries softmax answers beyond the base pd's, forward and backward
// alike; false when `what` is not one of them.
template <typename desc_t>
bool softmax_query(const desc_t &d, dnnl_query_t what, void *result) {
    switch (what) {
        case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = d.alg; return true;
        case dnnl_query_axis_s32: *(int *)result = d.axis; return true;
        default: return false;
    }
}

struct softmax_fwd_pd_t : src_dst_pd_t<softmax_desc_t> {
    using src_dst_pd_t::src_dst_pd_t;

    bool is_log() const { return desc_.alg == dnnl_softmax_log; }

    status_t query(dnnl_query_t what, int idx, void *result) const override {
        return softmax_query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
    }
};

extern const impl_entry_t softmax_impl_list[];

struct softmax_bwd_desc_t : src_dst_bwd_desc_t<softmax_bwd_desc_t> {
    softmax_bwd_desc_t() : src_dst_bwd_desc_t(dnnl_softmax) {}
    dnnl_alg_kind_t alg = dnnl_softmax_accurate;
    int axis = 0;

    bool serialize(key_writer_t &k) const override {
        static_assert(sizeof(softmax_bwd_desc_t) == 1872, "softmax_bwd_desc_t changed: update serialize");
        serialize_bwd(k);
        k.put(alg);
        k.put(axis);
        return true;
    }
};

// Backward from dst (DNNL_ARG_DST) and diff_dst: for y = softmax(x),
// diff_src = y * (diff_dst - sum(diff_dst * y)); for y = logsoftmax(x),
// diff_src = diff_dst - exp(y) * sum(diff_dst), sums along the axis.
struct softmax_bwd_pd_t : src_dst_bwd_pd_t<softmax_bwd_desc_t> {
    softmax_bwd_pd_t(const softmax_bwd_desc_t *d, const attr_t *a, const pd_t *hint)
        : src_dst_bwd_pd_t(d, a, hint, DNNL_ARG_DST) {}

    bool is_log() const { return desc_.alg == dnnl_softmax_log; }

    status_t query(dnnl_query_t what, int idx, void *result) const override {
        return softmax_query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
    }
};

extern const impl_entry_t softmax_bwd_impl_list[];

} // namespace kestrel

#endif
