// Shuffle forward: the axis of size C read as a (C/G) x G matrix is
// transposed to G x (C/G): dst channel u + v*(C/G) takes src channel u*G + v.
// One implementation: an element-by-element gather over any layout (pure
// data movement, so exact).
#include "cpu/eltwise/shuffle.hpp"

#include <cstring>

#include "cpu/eltwise/common.hpp"

namespace kestrel {

status_t shuffle_ref_t::pd_t::init(dnnl_engine *) {
    const char *me = "ref:shuffle";
    const data_type_t dt = src_md_.data_type;
    if (!elt::is_float_dt(dt) && !elt::is_int_dt(dt)) return decline(me, "data type");
    if (dst_md_.data_type != dt) return decline(me, "data types differ");
    if (!mdw_t(src_md_).is_blocked()) return decline(me, "src layout");
    KESTREL_CHECK(elt::set_layout_like(dst_md_, src_md_));
    if (!mdw_t(dst_md_).is_blocked()) return decline(me, "dst layout");
    if (!attr_.has_default_values()) return decline(me, "attributes");
    return status::success;
}

status_t shuffle_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const mdw_t sm(pd->src_md()), dm(pd->dst_md());
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const int ax = pd->desc().axis, nd = sm.ndims();
    const dim_t C = sm.dims()[ax], G = pd->desc().group_size, CG = C / G;
    const size_t esz = sm.dt_size();
    elt::parallel_logical(nd, dm.dims(), [&](const dim_t *pos) {
        dim_t p[max_ndims];
        for (int d = 0; d < nd; ++d) p[d] = pos[d];
        const dim_t c = pos[ax];
        p[ax] = (c % CG) * G + c / CG;
        std::memcpy(dst + dm.off_v(pos) * esz, src + sm.off_v(p) * esz, esz);
    });
    elt::zero_padding(dm.md(), dst);
    return status::success;
}

const impl_entry_t shuffle_impl_list[] = {
        {"ref:any", make_pd<shuffle_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
