#include "cpu/eltwise/eltwise.hpp"

#include <cstdio>

#include "cpu/eltwise/common.hpp"
#include "cpu/math/eltwise_math.hpp"

namespace kestrel {

status_t eltwise_init_common(eltwise_desc_t &desc, memory_desc_t &src, memory_desc_t &dst) {
    (void)desc;
    if (!elt::is_float_dt(src.data_type) || !elt::is_float_dt(dst.data_type))
        return decline("eltwise", "data type");
    if (!mdw_t(src).is_blocked() || mdw_t(src).has_runtime_dims_or_strides())
        return decline("eltwise", "src layout");
    KESTREL_CHECK(elt::set_layout_like(dst, src));
    if (!mdw_t(dst).is_blocked() || mdw_t(dst).has_runtime_dims_or_strides())
        return decline("eltwise", "dst layout");
    return status::success;
}

// ---------------------------------------------------------------- vec

status_t eltwise_vec_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(eltwise_init_common(desc_, src_md_, dst_md_));
    if (!attr_.has_default_values()) return decline("vec:eltwise", "attributes");
    k_ = elt::best_kernels();
    if (!k_) return decline("vec:eltwise", "no avx2");
    if (!k_->eltwise_has(desc_.alg)) return decline("vec:eltwise", "algorithm");
    if (src_md_.data_type != dst_md_.data_type || !elt::vec_dt(src_md_.data_type))
        return decline("vec:eltwise", "data types");
    if (!elt::same_layout(src_md_, dst_md_)) return decline("vec:eltwise", "layouts differ");
    // Padding holds zeros; a flat pass keeps them only when f(0) == 0.
    const float f0 = math::eltwise_fwd(desc_.alg, 0.f, desc_.alpha, desc_.beta);
    if (!elt::flat_ok(src_md_, f0 == 0.f)) return decline("vec:eltwise", "not dense");
    std::snprintf(name_, sizeof(name_), "vec:%s", k_->isa);
    return status::success;
}

status_t eltwise_vec_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto &d = pd->desc();
    const data_type_t dt = pd->src_md()->data_type;
    const size_t esz = data_type_size(dt);
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const dim_t n = elt::flat_nelems(*pd->src_md());
    // Chunks of whole cache lines per thread; 16K elements keep the
    // threading overhead well below the memory time.
    const dim_t blk = 64;
    const dim_t nblk = div_up(n, blk);
    parallel(nthr_for(nblk, 256), [&](int ithr, int nthr) {
        dim_t s, e;
        balance211(nblk, nthr, ithr, s, e);
        s *= blk;
        e = e * blk < n ? e * blk : n;
        if (s < e) pd->k_->eltwise(d.alg, d.alpha, d.beta, dt, src + s * esz, dst + s * esz, e - s);
    });
    return status::success;
}

// ---------------------------------------------------------------- ref

status_t eltwise_ref_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(eltwise_init_common(desc_, src_md_, dst_md_));
    if (!attr_.has_default_values()) return decline("ref:eltwise", "attributes");
    return status::success;
}

status_t eltwise_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const auto &d = pd->desc();
    const mdw_t src_m(pd->src_md()), dst_m(pd->dst_md());
    const void *src = ctx.input(DNNL_ARG_SRC);
    void *dst = ctx.output(DNNL_ARG_DST);
    const data_type_t sdt = src_m.data_type(), ddt = dst_m.data_type();
    // In place (the same buffer and layout) each element is read before it
    // is written, by the same thread.
    elt::parallel_logical(src_m.ndims(), src_m.dims(), [&](const dim_t *pos) {
        float x = load_f32(sdt, src, src_m.off_v(pos));
        store_f32(ddt, dst, dst_m.off_v(pos), math::eltwise_fwd(d.alg, x, d.alpha, d.beta));
    });
    elt::zero_padding(dst_m.md(), dst);
    return status::success;
}

// Fastest first, reference last.
const impl_entry_t eltwise_impl_list[] = {
        {"vec", make_pd<eltwise_vec_t::pd_t>},
        {"ref:any", make_pd<eltwise_ref_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
