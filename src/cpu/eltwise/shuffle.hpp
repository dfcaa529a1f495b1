// Shuffle forward: op desc, base pd and the implementation.
#ifndef KESTREL_CPU_ELTWISE_SHUFFLE_HPP
#define KESTREL_CPU_ELTWISE_SHUFFLE_HPP

#include "core/primitive.hpp"
#include "cpu/eltwise/src_dst_pd.hpp"

namespace kestrel {

struct shuffle_desc_t : src_dst_desc_t<shuffle_desc_t> {
    shuffle_desc_t() : src_dst_desc_t(dnnl_shuffle) {}
    int axis = 1;
    dim_t group_size = 1;

    bool serialize(key_writer_t &k) const override {
        // x86-64 size of the fields above: a new field fails the build here
        // until it is written into the key.
        static_assert(sizeof(shuffle_desc_t) == 1264, "shuffle_desc_t changed: update serialize");
        serialize_src_dst(k);
        k.put(axis);
        k.put(group_size);
        return true;
    }
};

// The queries shuffle answers beyond the base pd's, forward and backward
// alike; false when `what` is not one of them.
template <typename desc_t>
bool shuffle_query(const desc_t &d, dnnl_query_t what, void *result) {
    switch (what) {
        case dnnl_query_axis_s32: *(int *)result = d.axis; return true;
        case dnnl_query_group_size_s64: *(dim_t *)result = d.group_size; return true;
        default: return false;
    }
}

struct shuffle_fwd_pd_t : src_dst_pd_t<shuffle_desc_t> {
    using src_dst_pd_t::src_dst_pd_t;

    status_t query(dnnl_query_t what, int idx, void *result) const override {
        return shuffle_query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
    }

protected:
    // Checks shared by the implementations; resolves dst format `any`.
    status_t init_common(const char *impl);
};

// Dense plain layouts, src and dst alike, read as [outer][C][inner] around
// the axis: each dst channel is one contiguous copy of a src channel.
struct shuffle_copy_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, shuffle_fwd_pd_t, shuffle_copy_t> {
        using desc_t = shuffle_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "copy:plain"; }
        status_t init(dnnl_engine *) override;
        dim_t outer_ = 0, inner_ = 1;
    };
    explicit shuffle_copy_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

struct shuffle_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, shuffle_fwd_pd_t, shuffle_ref_t> {
        using desc_t = shuffle_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override { return init_common("ref:shuffle"); }
    };
    explicit shuffle_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

extern const impl_entry_t shuffle_impl_list[];

struct shuffle_bwd_desc_t : src_dst_bwd_desc_t<shuffle_bwd_desc_t> {
    shuffle_bwd_desc_t() : src_dst_bwd_desc_t(dnnl_shuffle) {}
    int axis = 1;
    dim_t group_size = 1;

    bool serialize(key_writer_t &k) const override {
        static_assert(sizeof(shuffle_bwd_desc_t) == 1880, "shuffle_bwd_desc_t changed: update serialize");
        serialize_bwd(k);
        k.put(axis);
        k.put(group_size);
        return true;
    }
};

// Backward: the inverse permutation, diff_src channel u*G + v takes
// diff_dst channel u + v*(C/G). Reads no data tensor.
struct shuffle_bwd_pd_t : src_dst_bwd_pd_t<shuffle_bwd_desc_t> {
    shuffle_bwd_pd_t(const shuffle_bwd_desc_t *d, const attr_t *a, const pd_t *hint)
        : src_dst_bwd_pd_t(d, a, hint, 0) {}

    status_t query(dnnl_query_t what, int idx, void *result) const override {
        return shuffle_query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
    }
};

struct shuffle_bwd_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, shuffle_bwd_pd_t, shuffle_bwd_ref_t> {
        using desc_t = shuffle_bwd_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override;
    };
    explicit shuffle_bwd_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

extern const impl_entry_t shuffle_bwd_impl_list[];

} // namespace kestrel

#endif
