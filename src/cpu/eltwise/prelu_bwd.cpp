// PReLU backward, the reference: any layouts, every weights broadcast.
// diff_src is element-wise. diff_weights is a reduction over the broadcast
// dims: without broadcast each weight has one term and is written
// directly; otherwise each thread sums its share of the elements into its
// own partial array in the scratchpad (one double per weight, booked at
// creation), and the partials are then added up in parallel over weights.
#include <algorithm>
#include <cstring>

#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/prelu.hpp"

namespace kestrel {

namespace {
enum : scratchpad::key_t { key_partial = 1 };
constexpr dim_t min_work = 4096;

// Row-major index of the weight that logical position `pos` reads.
inline dim_t weight_index(int nd, const dim_t *wdims, const dim_t *pos) {
    dim_t j = 0;
    for (int d = 0; d < nd; ++d) j = j * wdims[d] + (wdims[d] == 1 ? 0 : pos[d]);
    return j;
}
} // namespace

struct prelu_bwd_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, prelu_bwd_pd_t, prelu_bwd_ref_t> {
        using desc_t = prelu_bwd_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override;
        bool reduce_ = false; // the weights are broadcast along some dim
    };
    explicit prelu_bwd_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

status_t prelu_bwd_ref_t::pd_t::init(dnnl_engine *) {
    const char *me = "ref:prelu_bwd";
    if (desc_.prop_kind != dnnl_backward) return decline(me, "prop kind");
    for (auto *md : {&src_md_, &weights_md_, &diff_src_md_, &diff_weights_md_, &diff_dst_md_})
        if (!elt::is_float_dt(md->data_type)) return decline(me, "data type");
    if (mdw_t(src_md_).is_any()) return decline(me, "src layout");
    if (mdw_t(weights_md_).is_any()) {
        if (elt::same_dims(weights_md_, src_md_))
            KESTREL_CHECK(elt::set_layout_like(weights_md_, src_md_));
        else
            KESTREL_CHECK(elt::set_plain(weights_md_));
    }
    KESTREL_CHECK(elt::set_layout_like(diff_src_md_, src_md_));
    KESTREL_CHECK(elt::set_layout_like(diff_dst_md_, src_md_));
    KESTREL_CHECK(elt::set_layout_like(diff_weights_md_, weights_md_));
    for (auto *md : {&src_md_, &weights_md_, &diff_src_md_, &diff_weights_md_, &diff_dst_md_})
        if (!mdw_t(*md).is_blocked()) return decline(me, "layout");
    if (!attr_.has_default_values()) return decline(me, "attributes");
    reduce_ = false;
    for (int d = 0; d < src_md_.ndims; ++d)
        if (weights_md_.dims[d] != src_md_.dims[d]) reduce_ = true;
    if (reduce_) {
        const dim_t nw = mdw_t(weights_md_).nelems();
        scratchpad_registry().book_per_thread(key_partial, sizeof(double) * (size_t)nw);
    }
    return status::success;
}

status_t prelu_bwd_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const mdw_t sm(pd->src_md()), wm(pd->weights_md()), ddm(pd->diff_dst_md());
    const mdw_t dsm(pd->diff_src_md()), dwm(pd->diff_weights_md());
    const void *src = ctx.input(DNNL_ARG_SRC);
    const void *w = ctx.input(DNNL_ARG_WEIGHTS);
    const void *dd = ctx.input(DNNL_ARG_DIFF_DST);
    void *ds = ctx.output(DNNL_ARG_DIFF_SRC);
    void *dw = ctx.output(DNNL_ARG_DIFF_WEIGHTS);
    const int nd = sm.ndims();
    const dim_t *wdims = wm.dims();
    // One element: writes diff_src and returns its diff_weights term.
    auto point = [&](const dim_t *pos, dim_t *wp) {
        for (int d = 0; d < nd; ++d) wp[d] = wdims[d] == 1 ? 0 : pos[d];
        const float x = load_f32(sm.data_type(), src, sm.off_v(pos));
        const float g = load_f32(ddm.data_type(), dd, ddm.off_v(pos));
        const float wv = load_f32(wm.data_type(), w, wm.off_v(wp));
        store_f32(dsm.data_type(), ds, dsm.off_v(pos), x > 0 ? g : wv * g);
        return x > 0 ? 0.0 : (double)x * g;
    };
    if (!pd->reduce_) {
        elt::parallel_logical(nd, sm.dims(), [&](const dim_t *pos) {
            dim_t wp[max_ndims];
            const double t = point(pos, wp);
            store_f32(dwm.data_type(), dw, dwm.off_v(pos), (float)t);
        });
    } else {
        const dim_t n = sm.nelems(), nw = wm.nelems();
        const auto &sp = ctx.scratchpad();
        const int nthr = std::min(sp.nthr(), nthr_for(n, min_work));
        for (int t = 0; t < nthr; ++t)
            if (!sp.get<double>(key_partial, t)) return status::out_of_memory;
        parallel(nthr, [&](int ithr, int nt) {
            double *part = sp.get<double>(key_partial, ithr);
            std::memset(part, 0, sizeof(double) * (size_t)nw);
            dim_t s, e;
            balance211(n, nt, ithr, s, e);
            if (s >= e) return;
            dim_t pos[max_ndims] = {}, wp[max_ndims];
            elt::logical_pos(nd, sm.dims(), s, pos);
            for (dim_t l = s; l < e; ++l) {
                const double t = point(pos, wp);
                part[weight_index(nd, wdims, pos)] += t;
                nd_next(nd, sm.dims(), pos);
            }
        });
        // Partial arrays of threads that got no elements are zero.
        parallel(nthr_for(nw, 1024), [&](int ithr, int nt) {
            dim_t s, e;
            balance211(nw, nt, ithr, s, e);
            dim_t wp[max_ndims] = {};
            if (s < e) elt::logical_pos(nd, wdims, s, wp);
            for (dim_t j = s; j < e; ++j) {
                double sum = 0;
                for (int t = 0; t < nthr; ++t) sum += sp.get<double>(key_partial, t)[j];
                store_f32(dwm.data_type(), dw, dwm.off_v(wp), (float)sum);
                nd_next(nd, wdims, wp);
            }
        });
    }
    elt::zero_padding(dsm.md(), ds);
    elt::zero_padding(dwm.md(), dw);
    return status::success;
}

const impl_entry_t prelu_bwd_impl_list[] = {
        {"ref:any", make_pd<prelu_bwd_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
