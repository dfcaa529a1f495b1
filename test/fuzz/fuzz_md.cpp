// Fuzz target: memory descriptors. Creation by tag and by strides, every
// query, submemory, reshape, permute_axes, equality, size, clone, blobs, and a
// memory made from each descriptor that claims a size (written end to end,
// so a size smaller than the layout's reach shows as a heap overflow).
#include "fuzz_common.hpp"

using namespace kfuzz;

namespace {

void query_all(const_dnnl_memory_desc_t md) {
    int nd = 0, nib = 0;
    dnnl_data_type_t dt;
    dnnl_format_kind_t fk;
    dnnl_dim_t off0 = 0;
    const dnnl_dims_t *dims = nullptr, *pdims = nullptr, *poff = nullptr, *strides = nullptr,
                      *ib = nullptr, *iidx = nullptr;
    dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd);
    dnnl_memory_desc_query(md, dnnl_query_data_type, &dt);
    dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk);
    dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &off0);
    dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nib);
    dnnl_memory_desc_query(md, dnnl_query_dims, &dims);
    dnnl_memory_desc_query(md, dnnl_query_padded_dims, &pdims);
    dnnl_memory_desc_query(md, dnnl_query_padded_offsets, &poff);
    dnnl_memory_desc_query(md, dnnl_query_strides, &strides);
    dnnl_memory_desc_query(md, dnnl_query_inner_blks, &ib);
    dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &iidx);
    // Read what the pointers claim, so a dangling one is an ASan report.
    volatile uint64_t sink = 0; // unsigned: hostile values wrap
    for (int i = 0; i < nd && i < DNNL_MAX_NDIMS; ++i) {
        if (dims) sink = sink + (uint64_t)(*dims)[i];
        if (pdims) sink = sink + (uint64_t)(*pdims)[i];
        if (poff) sink = sink + (uint64_t)(*poff)[i];
        if (strides) sink = sink + (uint64_t)(*strides)[i];
    }
    for (int i = 0; i < nib && i < DNNL_MAX_NDIMS; ++i) {
        if (ib) sink = sink + (uint64_t)(*ib)[i];
        if (iidx) sink = sink + (uint64_t)(*iidx)[i];
    }
    int junk = 0;
    dnnl_memory_desc_query(md, (dnnl_query_t)0x7fff, &junk);
    dnnl_memory_desc_query_v2(md, dnnl_query_ndims_s32, 0, &junk);
    dnnl_memory_desc_query_v2(md, dnnl_query_ndims_s32, 3, &junk);
    dnnl_memory_desc_get_size_v2(md, 0);
    dnnl_memory_desc_get_size_v2(md, 1);
}

// A memory over the descriptor, its whole claimed size written; then a
// second memory over a user buffer of exactly that size, read by a reorder
// to a dense copy (which walks every element the layout reaches).
void touch(const_dnnl_memory_desc_t md, reader_t &r) {
    size_t bytes = dnnl_memory_desc_get_size(md);
    if (bytes == 0 || has_runtime_dims(md) || alloc_bytes(md) > ((size_t)16 << 20)) return;
    dnnl_memory_t m = nullptr;
    if (dnnl_memory_create(&m, md, engine(), DNNL_MEMORY_ALLOCATE) != dnnl_success) return;
    void *p = nullptr;
    dnnl_memory_get_data_handle(m, &p);
    if (p) fill(p, bytes, md_dt(md), 7);
    if (r.chance(50)) {
        int nd = md_ndims(md);
        const dnnl_dims_t *dims = nullptr;
        dnnl_memory_desc_query(md, dnnl_query_dims, &dims);
        mds_t own;
        dnnl_memory_desc_t dense = dims ? own.tag(nd, *dims, md_dt(md), (dnnl_format_tag_t)(dnnl_a + nd - 1)) : nullptr;
        size_t dense_bytes = dense ? dnnl_memory_desc_get_size(dense) : 0;
        if (dense && dense_bytes <= ((size_t)16 << 20)) {
            dnnl_primitive_desc_t pd = nullptr;
            if (dnnl_reorder_primitive_desc_create(&pd, md, engine(), dense, engine(), nullptr) == dnnl_success) {
                dnnl_memory_t d = nullptr;
                dnnl_primitive_t prim = nullptr;
                if (dnnl_memory_create(&d, dense, engine(), DNNL_MEMORY_ALLOCATE) == dnnl_success
                        && dnnl_primitive_create(&prim, pd) == dnnl_success) {
                    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, d}};
                    dnnl_status_t st = dnnl_primitive_execute(prim, stream(), 2, args);
                    KFUZZ_REQUIRE(st == dnnl_success || st == dnnl_out_of_memory,
                            "a reorder from a descriptor the library made does not execute");
                }
                if (prim) dnnl_primitive_destroy(prim);
                if (d) dnnl_memory_destroy(d);
                dnnl_primitive_desc_destroy(pd);
            }
        }
    }
    dnnl_memory_destroy(m);
}

// Dimensions: mostly small positive ones; hostile values when asked.
void pick_dims(reader_t &r, int nd, dnnl_dims_t d, bool hostile) {
    for (int i = 0; i < nd; ++i) d[i] = r.range(1, 9);
    if (hostile) d[r.range(0, nd > 0 ? nd - 1 : 0)] = hostile_dim(r);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader_t r(data, size);
    hostility_t h(r);
    mds_t mds;

    int nd = (int)r.range(1, 6);
    if (h.is(0)) nd = (int)r.range(-2, 14);
    dnnl_dims_t dims = {0};
    pick_dims(r, nd > 0 && nd <= DNNL_MAX_NDIMS ? nd : 1, dims, h.is(1));
    dnnl_data_type_t dt = pick_dt(r, h.is(2));

    dnnl_memory_desc_t md = nullptr;
    if (r.chance(60)) {
        md = mds.tag(nd, dims, dt, pick_tag(r, nd, true));
    } else {
        // Strides: dense in a random order, sometimes padded, overlapping or
        // hostile.
        dnnl_dims_t strides = {0};
        int order[DNNL_MAX_NDIMS];
        int n = nd > 0 && nd <= DNNL_MAX_NDIMS ? nd : 0;
        for (int i = 0; i < n; ++i) order[i] = i;
        for (int i = n - 1; i > 0; --i) {
            int j = (int)r.range(0, i);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        dnnl_dim_t s = 1;
        for (int i = n - 1; i >= 0; --i) {
            strides[order[i]] = s;
            dnnl_dim_t d = dims[order[i]] > 0 && dims[order[i]] < 1024 ? dims[order[i]] : 1;
            s *= d + (r.chance(10) ? r.range(1, 3) : 0);
        }
        if (n > 0 && r.chance(10)) strides[r.range(0, n - 1)] = 0;
        if (n > 0 && h.is(3)) strides[r.range(0, n - 1)] = hostile_dim(r);
        dnnl_memory_desc_t m = nullptr;
        if (dnnl_memory_desc_create_with_strides(&m, nd, dims, dt, r.chance(10) ? nullptr : strides)
                == dnnl_success)
            mds.keep(m), md = m;
    }
    if (!md) return 0;
    query_all(md);
    touch(md, r);

    dnnl_memory_desc_t clone = nullptr;
    if (dnnl_memory_desc_clone(&clone, md) == dnnl_success) {
        mds.keep(clone);
        KFUZZ_REQUIRE(dnnl_memory_desc_equal(md, clone), "a clone differs from its source");
        KFUZZ_REQUIRE(dnnl_memory_desc_get_size(md) == dnnl_memory_desc_get_size(clone),
                "a clone has another size");
    }

    // Blob: the round trip gives the descriptor back; a blob with one byte
    // changed is refused or (never, with the checksum) read as a usable
    // descriptor.
    size_t blob_size = 0;
    if (dnnl_memory_desc_get_blob(nullptr, &blob_size, md) == dnnl_success && blob_size > 0 && blob_size < 4096) {
        uint8_t blob[4096 + 64] = {};
        KFUZZ_REQUIRE(dnnl_memory_desc_get_blob(blob, &blob_size, md) == dnnl_success, "get_blob fails on its size");
        dnnl_memory_desc_t back = nullptr;
        KFUZZ_REQUIRE(dnnl_memory_desc_create_with_blob(&back, blob) == dnnl_success, "a blob is not read back");
        mds.keep(back);
        KFUZZ_REQUIRE(dnnl_memory_desc_equal(md, back), "a blob gives another descriptor");
        blob[r.range(0, (dnnl_dim_t)blob_size - 1)] ^= (uint8_t)r.range(1, 255);
        dnnl_memory_desc_t bad = nullptr;
        if (dnnl_memory_desc_create_with_blob(&bad, blob) == dnnl_success) {
            mds.keep(bad);
            query_all(bad);
        }
    }

    // Submemory: a window inside the parent, sometimes outside it.
    int rnd = md_ndims(md);
    const dnnl_dims_t *pd_dims = nullptr;
    dnnl_memory_desc_query(md, dnnl_query_dims, &pd_dims);
    if (rnd > 0 && pd_dims) {
        dnnl_dims_t sd, so;
        for (int i = 0; i < rnd; ++i) {
            dnnl_dim_t full = (*pd_dims)[i];
            sd[i] = full > 0 ? r.range(1, full) : full;
            so[i] = full > sd[i] ? r.range(0, full - sd[i]) : 0;
        }
        if (h.is(4)) {
            int k = (int)r.range(0, rnd - 1);
            if (r.chance(50)) sd[k] = hostile_dim(r);
            else so[k] = hostile_dim(r);
        }
        dnnl_memory_desc_t sub = nullptr;
        if (dnnl_memory_desc_create_submemory(&sub, md, sd, so) == dnnl_success) {
            mds.keep(sub);
            query_all(sub);
            touch(sub, r);
            dnnl_memory_desc_equal(sub, md);
        }
    }

    // Reshape: the same elements regrouped (split or merge a dimension, add
    // or drop ones), sometimes a hostile shape.
    if (rnd > 0 && pd_dims) {
        dnnl_dims_t rd;
        int rn = 0;
        for (int i = 0; i < rnd && rn < DNNL_MAX_NDIMS; ++i) {
            dnnl_dim_t d = (*pd_dims)[i];
            uint8_t op = r.u8() % 5;
            if (op == 1 && rn + 2 <= DNNL_MAX_NDIMS && d > 0 && d % 2 == 0) {
                rd[rn++] = 2;
                rd[rn++] = d / 2;
            } else if (op == 2 && rn > 0 && rd[rn - 1] > 0 && d > 0) {
                rd[rn - 1] *= d;
            } else if (op == 3 && rn + 2 <= DNNL_MAX_NDIMS) {
                rd[rn++] = 1;
                rd[rn++] = d;
            } else {
                rd[rn++] = d;
            }
        }
        if (h.is(5)) {
            if (r.chance(50)) rn = (int)r.range(-1, 14);
            else if (rn > 0) rd[r.range(0, rn - 1)] = hostile_dim(r);
        }
        dnnl_memory_desc_t re = nullptr;
        if (dnnl_memory_desc_reshape(&re, md, rn, rd) == dnnl_success) {
            mds.keep(re);
            query_all(re);
            touch(re, r);
            KFUZZ_REQUIRE(dnnl_memory_desc_get_size(re) <= dnnl_memory_desc_get_size(md)
                            || md_dt(md) == dnnl_data_type_undef,
                    "a reshape claims more memory than its source");
        }
    }

    // Permute axes: a permutation, sometimes not one.
    if (rnd > 0) {
        int perm[DNNL_MAX_NDIMS];
        for (int i = 0; i < rnd; ++i) perm[i] = i;
        for (int i = rnd - 1; i > 0; --i) {
            int j = (int)r.range(0, i);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        if (h.is(6)) perm[r.range(0, rnd - 1)] = (int)r.range(-3, 15);
        dnnl_memory_desc_t pm = nullptr;
        if (dnnl_memory_desc_permute_axes(&pm, md, perm) == dnnl_success) {
            mds.keep(pm);
            query_all(pm);
            touch(pm, r);
            KFUZZ_REQUIRE(dnnl_memory_desc_get_size(pm) == dnnl_memory_desc_get_size(md),
                    "a permutation changes the size");
            // Undoing it gives the source back.
            int inv[DNNL_MAX_NDIMS];
            for (int i = 0; i < rnd; ++i) inv[perm[i]] = i;
            dnnl_memory_desc_t back = nullptr;
            if (dnnl_memory_desc_permute_axes(&back, pm, inv) == dnnl_success) {
                mds.keep(back);
                KFUZZ_REQUIRE(dnnl_memory_desc_equal(back, md), "permuting back does not give the source");
            }
        }
    }

    // Equality with a second descriptor decoded from the rest.
    int nd2 = (int)r.range(1, 6);
    dnnl_dims_t dims2 = {0};
    pick_dims(r, nd2, dims2, h.is(7));
    dnnl_memory_desc_t md2 = mds.tag(nd2, dims2, pick_dt(r, false), pick_tag(r, nd2, false));
    if (md2) {
        int a = dnnl_memory_desc_equal(md, md2), b = dnnl_memory_desc_equal(md2, md);
        KFUZZ_REQUIRE(a == b, "equality is not symmetric");
    }
    dnnl_memory_desc_equal(md, nullptr);
    return 0;
}
