// Fuzz target: primitive cache blobs. A small primitive (eltwise, matmul or
// convolution, its shape and post-ops from the input) gives its blob; the
// blob, mutated by the input (bytes changed, truncated, extended, spliced
// with the input's own bytes, sometimes with the checksum made valid again
// so the fields behind it are reached), goes back to
// dnnl_primitive_create_from_cache_blob against the same descriptor or a
// neighbouring one. The library must accept exactly the blob the target
// descriptor's own primitive gives and refuse everything else with invalid_arguments,
// without a crash, a leak or a handle on failure.
#include "fuzz_common.hpp"

using namespace kfuzz;

namespace {

// The pd of problem `kind` with sizes a, b; null when refused.
dnnl_primitive_desc_t make_pd(int kind, dnnl_dim_t a, dnnl_dim_t b, bool post_op, mds_t &mds) {
    attr_t at;
    if (post_op && dnnl_post_ops_create(&at.po) == dnnl_success) {
        dnnl_post_ops_append_eltwise(at.po, dnnl_eltwise_relu, 0.f, 0.f);
        dnnl_primitive_attr_set_post_ops(at.attr, at.po);
    }
    dnnl_primitive_desc_t pd = nullptr;
    if (kind == 0) {
        const dnnl_dims_t d = {a, b};
        dnnl_memory_desc_t md = mds.tag(2, d, dnnl_f32, dnnl_ab);
        if (md) dnnl_eltwise_forward_primitive_desc_create(&pd, engine(), dnnl_forward_inference,
                dnnl_eltwise_tanh, md, md, 0.f, 0.f, at.attr);
    } else if (kind == 1) {
        const dnnl_dims_t s = {a, 5}, w = {5, b}, d = {a, b};
        dnnl_memory_desc_t ms = mds.tag(2, s, dnnl_f32, dnnl_ab), mw = mds.tag(2, w, dnnl_f32, dnnl_ab),
                           md = mds.tag(2, d, dnnl_f32, dnnl_ab);
        if (ms && mw && md) dnnl_matmul_primitive_desc_create(&pd, engine(), ms, mw, nullptr, md, at.attr);
    } else {
        const dnnl_dims_t s = {1, a, 5, 5}, w = {b, a, 3, 3}, d = {1, b, 3, 3};
        const dnnl_dims_t one = {1, 1}, zero = {0, 0};
        dnnl_memory_desc_t ms = mds.tag(4, s, dnnl_f32, dnnl_nchw), mw = mds.tag(4, w, dnnl_f32, dnnl_oihw),
                           md = mds.tag(4, d, dnnl_f32, dnnl_nchw);
        if (ms && mw && md)
            dnnl_convolution_forward_primitive_desc_create(&pd, engine(), dnnl_forward_inference,
                    dnnl_convolution_direct, ms, mw, nullptr, md, one, zero, zero, zero, at.attr);
    }
    return pd;
}

uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

// Makes the header's length and the trailing checksum fit the bytes, as
// core/prim_blob.hpp documents them (12-byte header, 8-byte checksum).
void reseal(std::vector<uint8_t> &b) {
    if (b.size() < 20) return;
    const uint32_t len = (uint32_t)(b.size() - 20);
    for (int i = 0; i < 4; ++i) b[8 + i] = (uint8_t)(len >> (8 * i));
    const uint64_t h = fnv1a(b.data(), b.size() - 8);
    for (int i = 0; i < 8; ++i) b[b.size() - 8 + i] = (uint8_t)(h >> (8 * i));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader_t r(data, size);
    mds_t mds;
    const int kind = (int)r.range(0, 2);
    const dnnl_dim_t a = r.range(1, 6), b = r.range(1, 6);
    const bool post_op = r.chance(30);
    dnnl_primitive_desc_t pd = make_pd(kind, a, b, post_op, mds);
    if (!pd) return 0;
    dnnl_primitive_t p = nullptr;
    if (dnnl_primitive_create(&p, pd) != dnnl_success) {
        dnnl_primitive_desc_destroy(pd);
        return 0;
    }
    size_t n = 0;
    KFUZZ_REQUIRE(dnnl_primitive_get_cache_blob(p, &n, nullptr) == dnnl_success && n > 0, "no blob size");
    std::vector<uint8_t> blob(n);
    KFUZZ_REQUIRE(dnnl_primitive_get_cache_blob(p, &n, blob.data()) == dnnl_success, "no blob");
    dnnl_primitive_destroy(p);

    // The descriptor it goes back to: the same one, or a neighbour.
    dnnl_primitive_desc_t target = pd;
    if (r.chance(20)) {
        dnnl_primitive_desc_t other = make_pd((int)r.range(0, 2), r.range(1, 6), r.range(1, 6), r.chance(30), mds);
        if (other) target = other;
    }
    // What the target's own primitive gives: the one blob it must accept.
    std::vector<uint8_t> want = blob;
    if (target != pd) {
        dnnl_primitive_t tp = nullptr;
        size_t tn = 0;
        if (dnnl_primitive_create(&tp, target) == dnnl_success
                && dnnl_primitive_get_cache_blob(tp, &tn, nullptr) == dnnl_success) {
            want.assign(tn, 0);
            KFUZZ_REQUIRE(dnnl_primitive_get_cache_blob(tp, &tn, want.data()) == dnnl_success, "no blob");
        } else {
            want.clear();
        }
        if (tp) dnnl_primitive_destroy(tp);
    }

    std::vector<uint8_t> m = blob;
    const int edits = (int)r.range(0, 4);
    for (int i = 0; i < edits; ++i) {
        switch (r.u8() % 5) {
            case 0: // change a byte
                if (!m.empty()) m[r.range(0, (int64_t)m.size() - 1)] ^= r.u8();
                break;
            case 1: // truncate
                m.resize((size_t)r.range(0, (int64_t)m.size()));
                break;
            case 2: // extend
                m.resize(m.size() + (size_t)r.range(1, 16), r.u8());
                break;
            case 3: { // splice the input's next bytes in
                const size_t at = m.empty() ? 0 : (size_t)r.range(0, (int64_t)m.size() - 1);
                for (size_t k = at; k < m.size() && r.left() > 0; ++k) m[k] = r.u8();
                break;
            }
            default: reseal(m); break;
        }
    }
    if (r.chance(30)) reseal(m);

    dnnl_primitive_t q = nullptr;
    const dnnl_status_t st = dnnl_primitive_create_from_cache_blob(&q, target, m.size(), m.empty() ? nullptr : m.data());
    if (!want.empty() && m == want) {
        KFUZZ_REQUIRE(st == dnnl_success && q, "the descriptor's own blob refused");
    } else {
        KFUZZ_REQUIRE(st == dnnl_invalid_arguments && !q, "a blob of something else not refused with invalid_arguments");
    }
    if (q) {
        // It executes, as the library promises of anything it creates.
        const_dnnl_primitive_desc_t qpd = nullptr;
        dnnl_primitive_get_primitive_desc(q, &qpd);
        int nargs = 0;
        dnnl_exec_arg_t args[4];
        dnnl_memory_t mem[4] = {};
        for (int arg : {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST}) {
            const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(qpd, dnnl_query_exec_arg_md, arg);
            if (!md || dnnl_memory_desc_get_size(md) == 0) continue;
            if (dnnl_memory_create(&mem[nargs], md, engine(), DNNL_MEMORY_ALLOCATE) != dnnl_success) continue;
            void *h = nullptr;
            dnnl_memory_get_data_handle(mem[nargs], &h);
            if (h) std::memset(h, 0, dnnl_memory_desc_get_size(md));
            args[nargs] = {arg, mem[nargs]};
            ++nargs;
        }
        const dnnl_status_t est = dnnl_primitive_execute(q, stream(), nargs, args);
        KFUZZ_REQUIRE(est == dnnl_success || est == dnnl_out_of_memory, "a primitive from a blob does not execute");
        for (int i = 0; i < nargs; ++i) dnnl_memory_destroy(mem[i]);
        dnnl_primitive_destroy(q);
    }
    if (target != pd) dnnl_primitive_desc_destroy(target);
    dnnl_primitive_desc_destroy(pd);
    return 0;
}
