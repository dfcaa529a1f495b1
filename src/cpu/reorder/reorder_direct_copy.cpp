#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/reorder/reorder_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

bool reorder_direct_copy_t::pd_t::may_accept(const desc_t &d, const attr_t *) {
    return md_equal(d.src_md, d.dst_md);
}

status_t reorder_direct_copy_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(init_common(name()));
    if (!quant_.trivial()) return decline(name(), "attributes");
    if (!reorder_dt_supported(src_md_.data_type)) return decline(name(), "data type");
    if (!may_accept(desc_, &attr_)) return decline(name(), "layouts differ");
    if (!mdw_t(src_md_).is_dense(true)) return decline(name(), "not dense");
    // The padding of a blocked dst must come out as zeros whatever the
    // src padding holds; the generic path writes it.
    if (mdw_t(src_md_).has_padding()) return decline(name(), "padded dims");
    return status::success;
}

status_t reorder_direct_copy_t::execute(const exec_ctx_t &ctx) const {
    const memory_desc_t &md = *pd()->src_md();
    const mdw_t w(md);
    const size_t dsz = w.dt_size();
    const char *src = ctx.input<char>(DNNL_ARG_FROM) + md.offset0 * dsz;
    char *dst = ctx.output<char>(DNNL_ARG_TO) + md.offset0 * dsz;
    const size_t bytes = (size_t)w.nelems(true) * dsz;
    if (bytes == 0 || src == dst) return status::success;
    // Chunks of 64 KiB at least, aligned to cache lines.
    const size_t line = 64;
    const dim_t lines = (dim_t)div_up(bytes, line);
    parallel(nthr_for(lines, 1024), [&](int ithr, int nthr) {
        dim_t s, e;
        balance211(lines, nthr, ithr, s, e);
        size_t b0 = (size_t)s * line, b1 = std::min(bytes, (size_t)e * line);
        if (b1 > b0) std::memcpy(dst + b0, src + b0, b1 - b0);
    });
    return status::success;
}

} // namespace kestrel
