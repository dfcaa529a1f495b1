// Layout helpers shared by reorder, sum and concat: per-dim offset tables,
// index masks of quantization parameters, and the dense layout that format
// `any` resolves to when it must follow another tensor's layout.
#ifndef KESTREL_CPU_REORDER_LAYOUT_UTIL_HPP
#define KESTREL_CPU_REORDER_LAYOUT_UTIL_HPP

#include <vector>

#include "core/memory_desc.hpp"

namespace kestrel {
namespace data_movement {

// The physical offset of an element of a blocked layout is offset0 plus a
// sum of per-dim terms, each depending on that dim's index only. This holds
// those terms: at(d, x) is the offset contribution of index x along dim d,
// for x in [0, extent(d)). Built once at descriptor creation, so kernels add
// table entries instead of dividing per element.
class offset_table_t {
public:
    // Covers indices [0, extents[d]) of every dim; extents must not exceed
    // the padded dims of md.
    void init(const memory_desc_t &md, const dim_t *extents);
    void init_padded(const memory_desc_t &md) { init(md, md.padded_dims); }

    dim_t at(int d, dim_t x) const { return tab_[start_[d] + x]; }
    const dim_t *row(int d) const { return tab_.data() + start_[d]; }
    dim_t offset0() const { return offset0_; }
    // The offset change of a unit step along d (the dim's finest stride).
    dim_t step(int d) const { return extent_[d] > 1 ? at(d, 1) : 0; }

private:
    std::vector<dim_t> tab_;
    dim_t start_[max_ndims] = {};
    dim_t extent_[max_ndims] = {};
    dim_t offset0_ = 0;
};

// Multipliers that turn a logical position into the index of a parameter
// stored for the dims selected by `mask` (row-major over those dims):
// index = sum_d pos[d] * ms[d]; ms[d] = 0 for dims outside the mask.
void mask_strides(int mask, int ndims, const dim_t *dims, dim_t *ms);

// Gives md (dims and data type already set) a dense layout with the same
// inner blocks and the same order of outer dims as `like`.
status_t md_dense_like(memory_desc_t &md, const memory_desc_t &like);

// Dims of md sorted by their finest stride, largest first (physical order,
// outermost first); ties keep logical order.
void physical_order(const offset_table_t &t, int ndims, int *order);

} // namespace data_movement
} // namespace kestrel

#endif
