// Skip tiles of the int8 and bf16 direct convolutions: a row tile that
// reaches into zero padding along w sums each kw tap over the columns
// whose src point lies inside src only (a padded tap adds nothing). The
// columns are a bit mask per kw tap, found once per tile. A kernel file
// includes this inside its target region, so that with_live_columns,
// built for that target, inlines the tile's code; the file includes
// direct_conv.hpp before the region, so its inline helpers keep the
// default target.
#ifndef KESTREL_CPU_CONV_SKIP_COLUMNS_HPP
#define KESTREL_CPU_CONV_SKIP_COLUMNS_HPP

#include <cstdint>

#include "core/common.hpp"
#include "cpu/conv/direct_conv.hpp"
#include "cpu/simd.hpp"

namespace kestrel {

// Bit j set when column j (SW apart, column 0 at src w index iw) is
// inside [0, IW): valid_columns' run as a mask.
template <int URW>
inline uint32_t live_columns(dim_t iw, dim_t SW, dim_t IW) {
    int jlo, jhi;
    valid_columns(iw, SW, IW, URW, jlo, jhi);
    return jlo >= jhi ? 0u : ((1u << jhi) - 1) & ~((1u << jlo) - 1);
}

// The masks of a tile's kw taps (column 0 at iw0 at tap 0, taps DW1
// apart); taps past the table are computed when asked.
template <int URW>
struct skip_columns_t {
    static constexpr dim_t max_kw = 16;
    uint32_t m[max_kw];
    dim_t iw0, DW1, SW, IW;

    skip_columns_t(dim_t iw0_, dim_t DW1_, dim_t SW_, dim_t IW_, dim_t KW) : iw0(iw0_), DW1(DW1_), SW(SW_), IW(IW_) {
        for (dim_t kw = 0; kw < KW && kw < max_kw; ++kw) m[kw] = live_columns<URW>(iw0 + kw * DW1, SW, IW);
    }
    uint32_t at(dim_t kw) const { return kw < max_kw ? m[kw] : live_columns<URW>(iw0 + kw * DW1, SW, IW); }
};

// body(mask) with the masks that occur most (every column, all but the
// first, all but the last: 3x3 taps with padding 1) passed as constants,
// so that once inlined their columns carry no test.
template <int URW, typename F>
KESTREL_TILE_STEP void with_live_columns(uint32_t live, F &&body) {
    constexpr uint32_t all = URW >= 32 ? ~0u : (1u << URW) - 1;
    if (live == all)
        body(~0u);
    else if (live == (all & ~1u))
        body(all & ~1u);
    else if (live == (all >> 1))
        body(all >> 1);
    else
        body(live);
}

} // namespace kestrel

#endif
