// What sum and concat share: n sources passed as DNNL_ARG_MULTIPLE_SRC + i,
// one dst whose format `any` follows the layout of source 0, the checks of
// their C entry points, and the element walk of their reference kernels.
#ifndef KESTREL_CPU_REORDER_MULTI_SRC_PD_HPP
#define KESTREL_CPU_REORDER_MULTI_SRC_PD_HPP

#include <vector>

#include "core/primitive.hpp"
#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

// The memory part of a sum or concat op desc.
struct multi_src_mds_t {
    memory_desc_t dst_md = zero_md(); // format any allowed
    std::vector<memory_desc_t> src_mds;

    void serialize_mds(key_writer_t &k) const {
        k.put(dst_md);
        k.put(src_mds);
    }
};

// Checks every source and the dst for what all sum and concat
// implementations need, and resolves a dst of format any to the dense
// layout of source 0.
status_t multi_src_init_mds(const char *impl, const std::vector<memory_desc_t> &srcs,
        memory_desc_t &dst);

// The C entry points' checks of the n source descriptors: each present,
// blocked and of the rank of source 0, with the dims of source 0 except
// along `free_dim` (-1: none). invalid_arguments for bad input,
// unimplemented for runtime dims.
status_t multi_src_check_srcs(int n, const_dnnl_memory_desc_t const *srcs, int free_dim);
// Same for a user-given dst against `want` dims.
status_t multi_src_check_dst(const memory_desc_t &dst, int ndims, const dim_t *want);

template <typename desc_t>
struct multi_src_pd_t : pd_t {
    multi_src_pd_t(const desc_t *d, const attr_t *a)
        : pd_t(a, d->kind), desc_(*d), dst_md_(d->dst_md) {}

    const memory_desc_t *src_md(int idx = 0) const override {
        return idx >= 0 && idx < n() ? &desc_.src_mds[(size_t)idx] : &zero_md_;
    }
    const memory_desc_t *dst_md(int idx = 0) const override {
        return idx == 0 ? &dst_md_ : &zero_md_;
    }
    arg_usage_t arg_usage(int arg) const override {
        if (arg >= DNNL_ARG_MULTIPLE_SRC && arg < DNNL_ARG_MULTIPLE_SRC + n()) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return n(); }
    int n_outputs() const override { return 1; }

    int n() const { return (int)desc_.src_mds.size(); }

protected:
    status_t init_mds(const char *impl) { return multi_src_init_mds(impl, desc_.src_mds, dst_md_); }

    desc_t desc_;
    memory_desc_t dst_md_;
};

// Visits every element of the dst, padding included, in parallel: padding
// elements get zeros, the others f(pos, doff) with the logical position and
// the physical offset.
template <typename F>
void for_each_dst_elem(const memory_desc_t &dmd, char *dst, const F &f) {
    const mdw_t d(dmd);
    const int nd = dmd.ndims;
    parallel_nd(d.nelems(true), [&](dim_t l) {
        dim_t pos[max_ndims] = {};
        bool inside = true;
        for (int k = nd - 1; k >= 0; --k) {
            pos[k] = l % dmd.padded_dims[k];
            l /= dmd.padded_dims[k];
            inside = inside && pos[k] < dmd.dims[k];
        }
        const dim_t doff = d.off_v(pos);
        if (inside)
            f(pos, doff);
        else
            zero_elem(d.dt_size(), dst, doff);
    });
}

} // namespace kestrel

#endif
