// Resampling backward, the reference: any layouts, f32/bf16/f16, nearest
// and linear, 1 to 3 spatial dims. The forward pass scatters nothing but
// reads each source point from several output points; the backward pass
// inverts that per spatial dim at creation (for each source coordinate, the
// output coordinates that read it and their weights) and then computes
// every diff_src point as a gather over its diff_dst points: each output
// element is written by exactly one task, so no two threads race.
#include <vector>

#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/resampling/resampling_pd.hpp"

namespace kestrel {

namespace {

// For one spatial dim: the (o, weight) pairs of source coordinate i are
// o_[start_[i] .. start_[i + 1]).
struct readers_t {
    std::vector<dim_t> start, o;
    std::vector<float> w;

    void init(bool linear, dim_t O, dim_t I) {
        std::vector<std::vector<std::pair<dim_t, float>>> by_i((size_t)I);
        for (dim_t oo = 0; oo < O; ++oo) {
            if (!linear) {
                by_i[(size_t)resampling::nearest(oo, O, I)].push_back({oo, 1.f});
            } else {
                const resampling::linear_t c = resampling::linear(oo, O, I);
                by_i[(size_t)c.i0].push_back({oo, c.w0});
                by_i[(size_t)c.i1].push_back({oo, c.w1});
            }
        }
        start.assign(1, 0);
        o.clear();
        w.clear();
        for (const auto &v : by_i) {
            for (const auto &p : v) {
                o.push_back(p.first);
                w.push_back(p.second);
            }
            start.push_back((dim_t)o.size());
        }
    }
};

struct ref_resampling_bwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, resampling_bwd_pd_t, ref_resampling_bwd_t> {
        using desc_t = resampling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override {
            if (desc_.prop_kind != dnnl_backward_data) return status::unimplemented;
            if (!attr_.has_default_values()) return status::unimplemented;
            for (auto *md : {&diff_src_md_, &diff_dst_md_})
                if (!elt::is_float_dt(md->data_type)) return status::unimplemented;
            if (mdw_t(diff_dst_md_).is_any()) KESTREL_CHECK(elt::set_plain(diff_dst_md_));
            KESTREL_CHECK(elt::set_layout_like(diff_src_md_, diff_dst_md_));
            for (auto *md : {&diff_src_md_, &diff_dst_md_})
                if (!mdw_t(*md).is_blocked() || mdw_t(*md).has_runtime_dims_or_strides())
                    return status::unimplemented;
            const int ns = diff_src_md_.ndims - 2;
            for (int k = 0; k < 3; ++k) {
                const int d = 2 + k - (3 - ns);
                const dim_t I = d < 2 ? 1 : diff_src_md_.dims[d], O = d < 2 ? 1 : diff_dst_md_.dims[d];
                rd_[k].init(is_linear(), O, I);
            }
            return status::success;
        }
        readers_t rd_[3]; // d, h, w (missing dims: one reader of weight 1)
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t ddm(pd->diff_dst_md()), dsm(pd->diff_src_md());
        const void *dd = ctx.input(DNNL_ARG_DIFF_DST);
        void *ds = ctx.output(DNNL_ARG_DIFF_SRC);
        const int nd = dsm.ndims(), ns = nd - 2;
        const readers_t *rd = pd->rd_;
        elt::parallel_logical(nd, dsm.dims(), [&](const dim_t *pos) {
            dim_t i3[3] = {0, 0, 0};
            for (int k = 0; k < ns; ++k) i3[3 - ns + k] = pos[2 + k];
            dim_t q[max_ndims] = {pos[0], pos[1]};
            double sum = 0;
            for (dim_t a = rd[0].start[i3[0]]; a < rd[0].start[i3[0] + 1]; ++a)
                for (dim_t b = rd[1].start[i3[1]]; b < rd[1].start[i3[1] + 1]; ++b)
                    for (dim_t c = rd[2].start[i3[2]]; c < rd[2].start[i3[2] + 1]; ++c) {
                        const dim_t o3[3] = {rd[0].o[a], rd[1].o[b], rd[2].o[c]};
                        for (int k = 0; k < ns; ++k) q[2 + k] = o3[3 - ns + k];
                        const double wt = (double)rd[0].w[a] * rd[1].w[b] * rd[2].w[c];
                        sum += wt * load_f32(ddm.data_type(), dd, ddm.off_v(q));
                    }
            store_f32(dsm.data_type(), ds, dsm.off_v(pos), (float)sum);
        }, 256);
        elt::zero_padding(dsm.md(), ds);
        return status::success;
    }
};

} // namespace

const impl_entry_t resampling_bwd_impl_list[] = {
        {"ref:any", make_pd<ref_resampling_bwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
