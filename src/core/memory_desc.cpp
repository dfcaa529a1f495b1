#include "core/memory_desc.hpp"
#include "core/packed_layout.hpp"

#include <algorithm>

#include "core/verbose.hpp"
#include "dnnl_debug.h"

namespace kestrel {

size_t data_type_size(data_type_t dt) {
    switch (dt) {
        case dnnl_f64: return 8;
        case dnnl_f32:
        case dnnl_s32: return 4;
        case dnnl_bf16:
        case dnnl_f16: return 2;
        case dnnl_s8:
        case dnnl_u8:
        case dnnl_boolean:
        case dnnl_f8_e5m2:
        case dnnl_f8_e4m3:
        case dnnl_s4:
        case dnnl_u4: return 1;
        default: return 0;
    }
}

memory_desc_t zero_md() {
    memory_desc_t md;
    std::memset(&md, 0, sizeof(md));
    md.format_kind = dnnl_format_kind_undef;
    return md;
}

namespace {

bool is_runtime(dim_t v) { return v == DNNL_RUNTIME_DIM_VAL; }

// A format tag's layout, decoded from its canonical name: the outer letters
// give the order of dims (outermost first, upper case = blocked), then pairs
// of <size><letter> give the inner blocks, outermost first.
struct tag_layout_t {
    int ndims = 0;
    int order[max_ndims] = {};
    int nblks = 0;
    dim_t blks[max_ndims] = {};
    int idxs[max_ndims] = {};
};

// Parses a tag's canonical name (ASCII letters and digits only, so no
// locale-dependent <cctype> calls).
bool parse_tag(const char *s, tag_layout_t &t) {
    auto is_alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    auto dim_of = [](char c) { return (c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a'); };
    int seen = 0;
    for (; *s && is_alpha(*s); ++s) {
        int d = dim_of(*s);
        if (d < 0 || d >= max_ndims || (seen & (1 << d)) || t.ndims >= max_ndims) return false;
        seen |= 1 << d;
        t.order[t.ndims++] = d;
    }
    if (t.ndims == 0 || seen != (1 << t.ndims) - 1) return false;
    while (*s) {
        if (!is_digit(*s) || t.nblks >= max_ndims) return false;
        dim_t b = 0;
        for (; is_digit(*s) && b < (dim_t(1) << 40); ++s)
            b = b * 10 + (*s - '0');
        if (b <= 0 || !is_alpha(*s)) return false;
        int d = dim_of(*s);
        if (d < 0 || d >= t.ndims) return false;
        t.blks[t.nblks] = b;
        t.idxs[t.nblks++] = d;
        ++s;
    }
    return true;
}

// Every primary tag's layout, parsed once on first use (a function-local
// static: its initialisation is thread-safe). Primitive creation asks for
// tag layouts many times per candidate implementation; parsing the name
// each time was a tenth of a creation's cost. Entries are bytes (~34 KiB in
// all); a tag whose block would not fit one is parsed on each use.
class tag_table_t {
public:
    tag_table_t() {
        for (int i = 0; i < (int)dnnl_format_tag_last; ++i) {
            entry_t &e = entries_[i];
            tag_layout_t t;
            const char *s = dnnl_fmt_tag2str((format_tag_t)i);
            if (!s || !parse_tag(s, t)) continue;
            e.state = state_t::compact;
            e.ndims = (uint8_t)t.ndims;
            e.nblks = (uint8_t)t.nblks;
            for (int d = 0; d < t.ndims; ++d) e.order[d] = (uint8_t)t.order[d];
            for (int b = 0; b < t.nblks; ++b) {
                if (t.blks[b] > 255) e.state = state_t::parse;
                e.blks[b] = (uint8_t)t.blks[b];
                e.idxs[b] = (uint8_t)t.idxs[b];
            }
        }
    }

    bool get(format_tag_t tag, tag_layout_t &t) const {
        if ((int)tag <= 0 || (int)tag >= (int)dnnl_format_tag_last) return false;
        const entry_t &e = entries_[tag];
        if (e.state == state_t::invalid) return false;
        if (e.state == state_t::parse) return parse_tag(dnnl_fmt_tag2str(tag), t);
        t.ndims = e.ndims;
        t.nblks = e.nblks;
        for (int d = 0; d < e.ndims; ++d) t.order[d] = e.order[d];
        for (int b = 0; b < e.nblks; ++b) {
            t.blks[b] = e.blks[b];
            t.idxs[b] = e.idxs[b];
        }
        return true;
    }

private:
    enum class state_t : uint8_t { invalid, compact, parse };
    struct entry_t {
        state_t state = state_t::invalid;
        uint8_t ndims = 0, nblks = 0;
        uint8_t order[max_ndims] = {}, blks[max_ndims] = {}, idxs[max_ndims] = {};
    };
    entry_t entries_[dnnl_format_tag_last];
};

bool decode_tag(format_tag_t tag, tag_layout_t &t) {
    static const tag_table_t table;
    return table.get(tag, t);
}

bool valid_dt(data_type_t dt) { return data_type_size(dt) != 0; }

status_t check_dims(int ndims, const dim_t *dims) {
    KESTREL_VCHECK(ndims >= 1 && ndims <= max_ndims && dims, status::invalid_arguments, verbose::component_memory,
            "ndims %d is out of range or dims are null", ndims);
    for (int d = 0; d < ndims; ++d)
        KESTREL_VCHECK(dims[d] >= 0 || is_runtime(dims[d]), status::invalid_arguments, verbose::component_memory,
                "dim %d is negative (%lld)", d, (long long)dims[d]);
    return status::success;
}

// A descriptor whose size in bytes, or whose farthest element, is not
// representable would wrap every later size and offset computation: such
// dims are refused when the descriptor is made.
bool size_fits(const memory_desc_t &md) {
    dim_t elems = (dim_t)data_type_size(md.data_type), far = 0;
    for (int d = 0; d < md.ndims; ++d) {
        dim_t p = md.padded_dims[d], st = md.blocking.strides[d];
        if (is_runtime(p)) continue;
        if (__builtin_mul_overflow(elems, std::max<dim_t>(p, 1), &elems)) return false;
        dim_t reach;
        if (!is_runtime(st) && p > 0
                && (__builtin_mul_overflow(p - 1, st, &reach) || __builtin_add_overflow(far, reach, &far)))
            return false;
    }
    return !__builtin_mul_overflow(far, (dim_t)data_type_size(md.data_type), &far);
}

// False when a padded dim or a stride would overflow (a hostile dim near
// INT64_MAX rounded up to its block: found by fuzz_pooling).
bool fill_blocked(memory_desc_t &md, const tag_layout_t &t) {
    auto &b = md.blocking;
    dim_t blk[max_ndims];
    for (int d = 0; d < max_ndims; ++d) blk[d] = 1;
    b.inner_nblks = t.nblks;
    dim_t inner = 1;
    for (int i = 0; i < t.nblks; ++i) {
        b.inner_blks[i] = t.blks[i];
        b.inner_idxs[i] = t.idxs[i];
        blk[t.idxs[i]] *= t.blks[i];
        inner *= t.blks[i];
    }
    for (int d = 0; d < md.ndims; ++d) {
        md.padded_offsets[d] = 0;
        dim_t up = 0;
        if (!is_runtime(md.dims[d]) && __builtin_add_overflow(md.dims[d], blk[d] - 1, &up)) return false;
        md.padded_dims[d] = is_runtime(md.dims[d]) ? DNNL_RUNTIME_DIM_VAL : up / blk[d] * blk[d];
    }
    dim_t stride = inner;
    for (int i = t.ndims - 1; i >= 0; --i) {
        int d = t.order[i];
        b.strides[d] = stride;
        if (is_runtime(stride) || is_runtime(md.padded_dims[d]))
            stride = DNNL_RUNTIME_DIM_VAL;
        else if (__builtin_mul_overflow(stride, std::max<dim_t>(md.padded_dims[d] / blk[d], 1), &stride))
            return false;
    }
    md.format_kind = dnnl_blocked;
    md.offset0 = 0;
    return true;
}

} // namespace

status_t md_set_tag(memory_desc_t &md, format_tag_t tag) {
    tag_layout_t t;
    if (!decode_tag(tag, t) || t.ndims != md.ndims) return status::invalid_arguments;
    return fill_blocked(md, t) ? status::success : status::invalid_arguments;
}

status_t md_init_by_tag(memory_desc_t &md, int ndims, const dim_t *dims,
        data_type_t dt, format_tag_t tag) {
    KESTREL_CHECK(check_dims(ndims, dims));
    KESTREL_VCHECK(valid_dt(dt), status::invalid_arguments, verbose::component_memory, "data type %d is not valid", (int)dt);
    memory_desc_t r = zero_md();
    r.ndims = ndims;
    r.data_type = dt;
    for (int d = 0; d < ndims; ++d) r.dims[d] = r.padded_dims[d] = dims[d];
    if (tag == dnnl_format_tag_any) {
        r.format_kind = dnnl_format_kind_any;
    } else {
        KESTREL_VCHECK(tag != dnnl_format_tag_undef && md_set_tag(r, tag) == status::success,
                status::invalid_arguments, verbose::component_memory, "format tag %s does not fit %d dims",
                dnnl_fmt_tag2str(tag), ndims);
    }
    KESTREL_VCHECK(size_fits(r), status::invalid_arguments, verbose::component_memory, "the tensor size overflows");
    md = r;
    return status::success;
}

status_t md_init_by_strides(memory_desc_t &md, int ndims, const dim_t *dims,
        data_type_t dt, const dim_t *strides) {
    KESTREL_CHECK(check_dims(ndims, dims));
    KESTREL_VCHECK(valid_dt(dt), status::invalid_arguments, verbose::component_memory, "data type %d is not valid", (int)dt);
    memory_desc_t r = zero_md();
    r.ndims = ndims;
    r.data_type = dt;
    r.format_kind = dnnl_blocked;
    dim_t running = 1;
    for (int d = ndims - 1; d >= 0; --d) {
        r.dims[d] = r.padded_dims[d] = dims[d];
        if (strides) {
            KESTREL_VCHECK(strides[d] >= 0 || is_runtime(strides[d]), status::invalid_arguments, verbose::component_memory,
                    "stride %d is negative (%lld)", d, (long long)strides[d]);
            r.blocking.strides[d] = strides[d];
        } else {
            r.blocking.strides[d] = running;
            // Dims whose dense strides overflow cannot fit either (found by
            // fuzz_md).
            if (is_runtime(running) || is_runtime(dims[d]))
                running = DNNL_RUNTIME_DIM_VAL;
            else if (__builtin_mul_overflow(running, std::max<dim_t>(dims[d], 1), &running))
                return status::invalid_arguments;
        }
    }
    KESTREL_VCHECK(size_fits(r), status::invalid_arguments, verbose::component_memory, "the tensor size overflows");
    md = r;
    return status::success;
}

status_t md_init_submemory(memory_desc_t &md, const memory_desc_t &parent,
        const dim_t *dims, const dim_t *offsets) {
    mdw_t p(parent);
    // A view the layout cannot express is unimplemented, as in oneDNN:
    // runtime sizes, non-blocked formats, views that split a block.
    KESTREL_VCHECK(!p.is_zero() && dims && offsets, status::invalid_arguments, verbose::component_memory,
            "submemory of a zero descriptor, or null dims or offsets");
    if (p.has_runtime_dims_or_strides()) return status::unimplemented;
    for (int d = 0; d < p.ndims(); ++d)
        // Written so that no sum of two hostile values can overflow.
        if (dims[d] < 0 || offsets[d] < 0 || dims[d] > parent.dims[d]
                || offsets[d] > parent.dims[d] - dims[d]) {
            KESTREL_VCHECK(false, status::invalid_arguments, verbose::component_memory,
                    "submemory dim %d (size %lld at offset %lld) is outside the parent", d,
                    (long long)dims[d], (long long)offsets[d]);
        }
    if (!p.is_blocked()) return status::unimplemented;
    memory_desc_t r = parent;
    dim_t off0 = parent.offset0;
    for (int d = 0; d < p.ndims(); ++d) {
        dim_t blk = p.block_of(d);
        if (offsets[d] % blk != 0) return status::unimplemented;
        bool to_end = dims[d] + offsets[d] == parent.dims[d];
        if (blk > 1 && dims[d] % blk != 0 && !to_end) return status::unimplemented;
        r.dims[d] = dims[d];
        r.padded_dims[d] = to_end ? parent.padded_dims[d] - offsets[d] : rnd_up(dims[d], blk);
        off0 += offsets[d] / blk * parent.blocking.strides[d];
    }
    r.offset0 = off0;
    md = r;
    return status::success;
}

// Reshape, walking the old and new dims from the innermost (last) one in
// groups: a unit old dim that is not padded is dropped, a unit new dim is
// inserted, a dim found on both sides is kept with its layout (blocks and
// padding included), and otherwise the smallest groups of equal volume are
// matched: the old group must be dense, in order and unblocked, and the new
// group gets dense strides starting from the old group's innermost stride.
status_t md_reshape(memory_desc_t &md, const memory_desc_t &src, int ndims,
        const dim_t *dims) {
    KESTREL_CHECK(check_dims(ndims, dims));
    mdw_t s(src);
    if (s.is_zero() || s.has_runtime_dims_or_strides()) return status::invalid_arguments;
    if (!s.is_any() && !s.is_blocked()) return status::invalid_arguments;
    for (int d = 0; d < ndims; ++d)
        if (is_runtime(dims[d])) return status::invalid_arguments;
    {
        dim_t a = 1, b = 1;
        // The source's count fits (its size did when it was made); the
        // new dims may be anything, so their product is checked.
        for (int d = 0; d < src.ndims; ++d) a *= src.dims[d];
        for (int d = 0; d < ndims; ++d)
            if (__builtin_mul_overflow(b, dims[d], &b)) return status::invalid_arguments;
        if (a != b) return status::invalid_arguments;
    }
    if (s.is_any()) return md_init_by_tag(md, ndims, dims, src.data_type, dnnl_format_tag_any);

    memory_desc_t r = src;
    r.ndims = ndims;
    for (int d = 0; d < ndims; ++d) r.dims[d] = dims[d];
    for (int d = ndims; d < max_ndims; ++d) {
        r.dims[d] = r.padded_dims[d] = r.padded_offsets[d] = 0;
        r.blocking.strides[d] = 0;
    }
    const int ind = src.ndims;
    const auto &ib = src.blocking;
    auto &ob = r.blocking;
    dim_t blocks[max_ndims];
    for (int d = 0; d < max_ndims; ++d) blocks[d] = d < ind ? s.block_of(d) : 1;
    // Inner blocks whose dim is not kept are an error; marked -1 until kept.
    for (int i = 0; i < ib.inner_nblks; ++i) ob.inner_idxs[i] = -1;

    int ie = ind, oe = ndims;
    while (ie > 0 || oe > 0) {
        int ibeg, obeg;
        if (ie > 0 && src.dims[ie - 1] == 1) {
            ibeg = ie - 1;
            if (src.padded_dims[ie - 1] == 1) {
                // Remove a unit dim (its unit blocks, if any, go with it).
                for (int i = 0; i < ib.inner_nblks; ++i)
                    if (ib.inner_idxs[i] == ibeg) ob.inner_idxs[i] = -2;
                obeg = oe;
            } else if (oe > 0 && dims[oe - 1] == 1) {
                obeg = oe - 1;
                goto keep;
            } else {
                return status::invalid_arguments;
            }
        } else if (oe > 0 && dims[oe - 1] == 1) {
            // Insert a unit dim; its stride continues the layout on its right.
            ibeg = ie;
            obeg = oe - 1;
            dim_t st = 1;
            if (ie == ind) {
                for (int i = 0; i < ib.inner_nblks; ++i) st *= ib.inner_blks[i];
            } else {
                st = ib.strides[ie] * (src.padded_dims[ie] / blocks[ie]);
            }
            r.padded_dims[obeg] = 1;
            r.padded_offsets[obeg] = 0;
            ob.strides[obeg] = st;
        } else {
            if (ie == 0 || oe == 0) return status::invalid_arguments;
            ibeg = ie - 1;
            obeg = oe - 1;
            dim_t iv = src.dims[ibeg], ov = dims[obeg];
            while (iv != ov) {
                if (iv < ov) {
                    if (ibeg == 0 || __builtin_mul_overflow(iv, src.dims[ibeg - 1], &iv))
                        return status::invalid_arguments;
                    --ibeg;
                } else {
                    if (obeg == 0 || __builtin_mul_overflow(ov, dims[obeg - 1], &ov))
                        return status::invalid_arguments;
                    --obeg;
                }
                // A zero-sized dim may only be matched on its own.
                if (iv == 0 || ov == 0) return status::invalid_arguments;
            }
            if (ibeg + 1 == ie && obeg + 1 == oe) goto keep;
            for (int d = ibeg; d < ie; ++d)
                if (blocks[d] != 1) return status::invalid_arguments;
            for (int d = ie - 1; d > ibeg; --d)
                if (src.dims[d] * ib.strides[d] != ib.strides[d - 1]) return status::invalid_arguments;
            for (int d = oe - 1; d >= obeg; --d) {
                ob.strides[d] = d == oe - 1 ? ib.strides[ie - 1] : ob.strides[d + 1] * dims[d + 1];
                r.padded_dims[d] = dims[d];
                r.padded_offsets[d] = 0;
            }
        }
        ie = ibeg;
        oe = obeg;
        continue;
    keep:
        // The same dim on both sides: its layout moves to the new index.
        r.padded_dims[obeg] = src.padded_dims[ibeg];
        r.padded_offsets[obeg] = src.padded_offsets[ibeg];
        ob.strides[obeg] = ib.strides[ibeg];
        for (int i = 0; i < ib.inner_nblks; ++i)
            if (ib.inner_idxs[i] == ibeg) ob.inner_idxs[i] = obeg;
        ie = ibeg;
        oe = obeg;
    }
    // Drop the unit blocks of removed dims; any other orphan is an error.
    int n = 0;
    for (int i = 0; i < ib.inner_nblks; ++i) {
        if (ob.inner_idxs[i] == -2 && ib.inner_blks[i] == 1) continue;
        if (ob.inner_idxs[i] < 0) return status::invalid_arguments;
        ob.inner_blks[n] = ib.inner_blks[i];
        ob.inner_idxs[n++] = ob.inner_idxs[i];
    }
    for (int i = n; i < max_ndims; ++i) ob.inner_blks[i] = ob.inner_idxs[i] = 0;
    ob.inner_nblks = n;
    md = r;
    return status::success;
}

status_t md_permute_axes(memory_desc_t &md, const memory_desc_t &src, const int *perm) {
    mdw_t s(src);
    if (s.is_zero() || !perm || s.has_runtime_dims_or_strides()) return status::invalid_arguments;
    // A sparse encoding fixes which dim is the row, packed RNN weights the
    // roles of all five: no permuted view of either.
    if (s.is_sparse() || md_is_rnn_packed(src)) return status::invalid_arguments;
    int seen = 0;
    for (int d = 0; d < src.ndims; ++d) {
        if (perm[d] < 0 || perm[d] >= src.ndims || (seen & (1 << perm[d])))
            return status::invalid_arguments;
        seen |= 1 << perm[d];
    }
    memory_desc_t r = src;
    for (int d = 0; d < src.ndims; ++d) {
        int nd = perm[d];
        r.dims[nd] = src.dims[d];
        r.padded_dims[nd] = src.padded_dims[d];
        r.padded_offsets[nd] = src.padded_offsets[d];
        r.blocking.strides[nd] = src.blocking.strides[d];
    }
    for (int i = 0; i < src.blocking.inner_nblks; ++i)
        r.blocking.inner_idxs[i] = perm[src.blocking.inner_idxs[i]];
    md = r;
    return status::success;
}

status_t md_init_sparse(memory_desc_t &md, dnnl_sparse_encoding_t encoding,
        int ndims, const dim_t *dims, data_type_t dt, dim_t nnz,
        data_type_t indices_dt, data_type_t pointers_dt) {
    if (ndims == 0) {
        md = zero_md();
        return status::success;
    }
    const bool listed = encoding == dnnl_csr || encoding == dnnl_coo;
    if (!listed && encoding != dnnl_packed) return status::invalid_arguments;
    if (ndims < 0 || ndims > max_ndims || !dims) return status::invalid_arguments;
    if (listed && ndims > 2) return status::unimplemented;
    if (!valid_dt(dt) || nnz < 0) return status::invalid_arguments;
    if (encoding != dnnl_packed && !valid_dt(indices_dt)) return status::invalid_arguments;
    if (encoding == dnnl_csr && !valid_dt(pointers_dt)) return status::invalid_arguments;
    // Every buffer size, and the element count (a packed layout's bitmask
    // and offsets follow it), must be representable.
    dim_t bytes = 0, elems = 8;
    for (int d = 0; d < ndims; ++d)
        if (dims[d] < 0 || is_runtime(dims[d]) || dims[d] > ((dim_t)1 << 40)
                || __builtin_mul_overflow(elems, std::max<dim_t>(dims[d], 1), &elems))
            return status::invalid_arguments;
    if (__builtin_mul_overflow(nnz, (dim_t)8, &bytes)) return status::invalid_arguments;
    memory_desc_t r = zero_md();
    r.ndims = ndims;
    r.data_type = dt;
    for (int d = 0; d < ndims; ++d) r.dims[d] = r.padded_dims[d] = dims[d];
    r.format_kind = dnnl_format_kind_sparse;
    r.sparse.encoding = encoding;
    r.sparse.nnz = nnz;
    r.sparse.metadata_types[0] = encoding == dnnl_packed ? dnnl_data_type_undef : indices_dt;
    r.sparse.metadata_types[1] = encoding == dnnl_csr ? pointers_dt : dnnl_data_type_undef;
    md = r;
    return status::success;
}

status_t md_init_rnn_packed(memory_desc_t &md, const memory_desc_t &like, int nr, dim_t k, dim_t n,
        dim_t n_first, dim_t slice_bytes) {
    if (like.ndims != 5 || nr <= 0 || k <= 0 || n <= 0 || n_first <= 0 || n_first > n || slice_bytes <= 0
            || slice_bytes % 64)
        return status::invalid_arguments;
    // K is the input channels, N the gates times the output channels; and
    // the whole buffer stays within 2^40 bytes (no product below overflows).
    const dim_t lim = ((dim_t)1 << 40) / slice_bytes;
    for (int d = 0; d < 5; ++d)
        if (like.dims[d] <= 0 || like.dims[d] > ((dim_t)1 << 40)) return status::invalid_arguments;
    if (k != like.dims[2] || like.dims[3] > n / like.dims[4] || n != like.dims[3] * like.dims[4]
            || like.dims[0] > lim || like.dims[1] > lim / like.dims[0])
        return status::invalid_arguments;
    memory_desc_t r = zero_md();
    r.ndims = 5;
    r.data_type = dnnl_s8;
    for (int d = 0; d < 5; ++d) r.dims[d] = r.padded_dims[d] = like.dims[d];
    r.format_kind = dnnl_format_kind_opaque;
    r.rnn_packed.nr = nr;
    r.rnn_packed.k = k;
    r.rnn_packed.n = n;
    r.rnn_packed.n_first = n_first;
    r.rnn_packed.slice_bytes = slice_bytes;
    md = r;
    return status::success;
}

int md_num_handles(const memory_desc_t &md) {
    if (md.format_kind != dnnl_format_kind_sparse) return 1;
    switch (md.sparse.encoding) {
        case dnnl_csr:
        case dnnl_coo: return md.ndims + 1;
        case dnnl_packed: return 3;
        default: return 0;
    }
}

// ---------------------------------------------------------------- mdw_t

bool mdw_t::has_runtime_dims_or_strides() const {
    for (int d = 0; d < ndims(); ++d)
        if (is_runtime(md_->dims[d]) || (is_blocked() && is_runtime(blk().strides[d])))
            return true;
    return false;
}

bool mdw_t::has_zero_dim() const {
    for (int d = 0; d < ndims(); ++d)
        if (md_->dims[d] == 0) return true;
    return false;
}

dim_t mdw_t::nelems(bool with_padding) const {
    if (is_zero()) return 0;
    dim_t n = 1;
    for (int d = 0; d < ndims(); ++d) {
        dim_t v = with_padding ? md_->padded_dims[d] : md_->dims[d];
        if (is_runtime(v)) return DNNL_RUNTIME_DIM_VAL;
        n *= v;
    }
    return n;
}

dim_t mdw_t::block_of(int d) const {
    dim_t b = 1;
    if (!is_blocked()) return b;
    for (int i = 0; i < blk().inner_nblks; ++i)
        if (blk().inner_idxs[i] == d) b *= blk().inner_blks[i];
    return b;
}

dim_t mdw_t::inner_block_size() const {
    dim_t b = 1;
    if (!is_blocked()) return b;
    for (int i = 0; i < blk().inner_nblks; ++i) b *= blk().inner_blks[i];
    return b;
}

size_t mdw_t::size(int index) const {
    if (is_sparse()) {
        if (has_zero_dim() || index < 0 || index >= md_num_handles(*md_)) return 0;
        const auto &sp = md_->sparse;
        // A packed layout is chosen by an implementation (core/packed_layout.hpp):
        // a user-made descriptor has no sizes yet.
        if (sp.encoding == dnnl_packed) return packed::buffer_size(*md_, index);
        const size_t nnz = (size_t)sp.nnz;
        if (index == 0) return nnz * dt_size();
        switch (sp.encoding) {
            case dnnl_csr:
                return index == 1 ? nnz * data_type_size(sp.metadata_types[0])
                                  : (size_t)(md_->dims[0] + 1) * data_type_size(sp.metadata_types[1]);
            case dnnl_coo: return nnz * data_type_size(sp.metadata_types[0]);
            default: return 0;
        }
    }
    if (md_is_rnn_packed(*md_)) // one slice per (layer, direction)
        return index == 0 ? (size_t)(md_->dims[0] * md_->dims[1] * md_->rnn_packed.slice_bytes) : 0;
    if (index != 0 || is_zero() || !is_blocked() || has_zero_dim()) return 0;
    if (has_runtime_dims_or_strides()) return DNNL_RUNTIME_SIZE_VAL;
    return bytes_of(data_type(), span_elems());
}

dim_t mdw_t::span_elems() const {
    // The extent of each outer dim times its stride bounds the buffer (a dim
    // of extent 1 contributes no stride), as oneDNN computes it; and so does
    // the farthest element plus one inner block, which is larger only when
    // strides overlap (dims {174, 1, 2} with strides {9, 1, 9} reach element
    // 1566 of a 1566-element product: found by fuzz_md).
    const dim_t inner = inner_block_size();
    dim_t span = inner, far = 0;
    for (int d = 0; d < ndims(); ++d) {
        dim_t extent = md_->padded_dims[d] / block_of(d);
        dim_t s = extent == 1 ? 1 : extent * blk().strides[d];
        span = std::max(span, s);
        far += (extent - 1) * blk().strides[d];
    }
    return std::max(span, far + inner);
}

bool mdw_t::has_padding() const {
    for (int d = 0; d < ndims(); ++d)
        if (md_->dims[d] != md_->padded_dims[d]) return true;
    return false;
}

bool mdw_t::is_dense(bool with_padding) const {
    if (!is_blocked() || has_runtime_dims_or_strides()) return false;
    dim_t n = nelems(with_padding);
    if (n == 0) return true;
    return span_elems() == n;
}

dim_t mdw_t::off_v(const dim_t *pos) const {
    const auto &b = blk();
    dim_t p[max_ndims];
    dim_t off = md_->offset0;
    for (int d = 0; d < ndims(); ++d) {
        p[d] = pos[d] + md_->padded_offsets[d];
        off += p[d] / block_of(d) * b.strides[d];
    }
    // Innermost block varies fastest: peel blocks from the last one.
    dim_t mult = 1;
    dim_t div[max_ndims];
    for (int d = 0; d < ndims(); ++d) div[d] = 1;
    for (int i = b.inner_nblks - 1; i >= 0; --i) {
        int d = b.inner_idxs[i];
        dim_t bs = b.inner_blks[i];
        off += (p[d] / div[d]) % bs * mult;
        div[d] *= bs;
        mult *= bs;
    }
    return off;
}

dim_t mdw_t::off_l(dim_t l) const {
    dim_t pos[max_ndims];
    for (int d = ndims() - 1; d >= 0; --d) {
        pos[d] = l % md_->dims[d];
        l /= md_->dims[d];
    }
    return off_v(pos);
}

bool mdw_t::matches_tag(format_tag_t tag) const {
    if (!is_blocked()) return false;
    memory_desc_t ref = *md_;
    if (md_set_tag(ref, tag) != status::success) return false;
    return equal(mdw_t(ref));
}

bool mdw_t::equal(const mdw_t &o) const {
    const memory_desc_t &a = *md_, &b = *o.md_;
    if (a.ndims != b.ndims || a.data_type != b.data_type || a.format_kind != b.format_kind)
        return false;
    for (int d = 0; d < a.ndims; ++d)
        if (a.dims[d] != b.dims[d]) return false;
    if (a.format_kind == dnnl_format_kind_sparse)
        return a.sparse.encoding == b.sparse.encoding && a.sparse.nnz == b.sparse.nnz
                && a.sparse.metadata_types[0] == b.sparse.metadata_types[0]
                && a.sparse.metadata_types[1] == b.sparse.metadata_types[1];
    if (md_is_rnn_packed(a))
        return a.rnn_packed.nr == b.rnn_packed.nr && a.rnn_packed.k == b.rnn_packed.k
                && a.rnn_packed.n == b.rnn_packed.n && a.rnn_packed.n_first == b.rnn_packed.n_first
                && a.rnn_packed.slice_bytes == b.rnn_packed.slice_bytes;
    if (a.format_kind != dnnl_blocked) return true;
    if (a.offset0 != b.offset0) return false;
    const auto &x = a.blocking, &y = b.blocking;
    if (x.inner_nblks != y.inner_nblks) return false;
    for (int i = 0; i < x.inner_nblks; ++i)
        if (x.inner_blks[i] != y.inner_blks[i] || x.inner_idxs[i] != y.inner_idxs[i])
            return false;
    for (int d = 0; d < a.ndims; ++d) {
        if (a.padded_dims[d] != b.padded_dims[d] || a.padded_offsets[d] != b.padded_offsets[d])
            return false;
        // A stride of a unit dim never matters.
        if (a.padded_dims[d] / block_of(d) > 1 && x.strides[d] != y.strides[d]) return false;
    }
    return true;
}

} // namespace kestrel
