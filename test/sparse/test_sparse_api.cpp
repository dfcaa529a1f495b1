// Sparse memory descriptors and memory objects through the C and C++ APIs:
// the CSR, COO and packed encodings' queries and buffer sizes, equality,
// blobs, memory objects with several buffers; and every bad input of sparse
// memory and sparse matmul: statuses, no crash, and nothing written.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "dnnl.hpp"
#include "sparse_util.hpp"

namespace {

dnnl_engine_t eng;
kt::tally_t t;

#define CHECK(cond) t.check((cond), #cond)

dnnl_memory_desc_t csr(int64_t r, int64_t c, int64_t nnz, dnnl_data_type_t it = dnnl_s32,
        dnnl_data_type_t pt = dnnl_s32) {
    dnnl_dims_t d = {r, c};
    dnnl_memory_desc_t md = nullptr;
    KT_OK(dnnl_memory_desc_create_with_csr_encoding(&md, 2, d, dnnl_f32, nnz, it, pt));
    return md;
}
dnnl_memory_desc_t coo(int64_t r, int64_t c, int64_t nnz, dnnl_data_type_t it = dnnl_s32) {
    dnnl_dims_t d = {r, c};
    dnnl_memory_desc_t md = nullptr;
    KT_OK(dnnl_memory_desc_create_with_coo_encoding(&md, 2, d, dnnl_f32, nnz, it));
    return md;
}

template <typename T>
T q(const_dnnl_memory_desc_t md, dnnl_query_t what, int index = 0) {
    T v {};
    KT_OK(dnnl_memory_desc_query_v2(md, what, index, &v));
    return v;
}

void queries() {
    dnnl_memory_desc_t a = csr(5, 7, 9, dnnl_s32, dnnl_s8);
    CHECK(q<dnnl_format_kind_t>(a, dnnl_query_format_kind) == dnnl_format_kind_sparse);
    CHECK(q<dnnl_sparse_encoding_t>(a, dnnl_query_sparse_encoding) == dnnl_csr);
    CHECK(q<dnnl_dim_t>(a, dnnl_query_nnz_s64) == 9);
    CHECK(q<int>(a, dnnl_query_num_handles_s32) == 3);
    CHECK(q<dnnl_data_type_t>(a, dnnl_query_data_type, 0) == dnnl_f32);
    CHECK(q<dnnl_data_type_t>(a, dnnl_query_data_type, 1) == dnnl_s32);
    CHECK(q<dnnl_data_type_t>(a, dnnl_query_data_type, 2) == dnnl_s8);
    CHECK(q<int>(a, dnnl_query_ndims_s32) == 2);
    CHECK(dnnl_memory_desc_get_size_v2(a, 0) == 9 * 4);
    CHECK(dnnl_memory_desc_get_size_v2(a, 1) == 9 * 4);
    CHECK(dnnl_memory_desc_get_size_v2(a, 2) == 6 * 1);
    CHECK(dnnl_memory_desc_get_size_v2(a, 3) == 0);
    CHECK(dnnl_memory_desc_get_size(a) == 9 * 4);
    void *res = nullptr;
    dnnl_data_type_t dtv;
    CHECK(dnnl_memory_desc_query_v2(a, dnnl_query_data_type, 3, &dtv) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_query_v2(a, dnnl_query_dims, 1, &res) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_query(a, dnnl_query_strides, &res) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_query(a, dnnl_query_inner_nblks_s32, &res) == dnnl_invalid_arguments);

    dnnl_memory_desc_t b = coo(5, 7, 4, dnnl_s32);
    CHECK(q<dnnl_sparse_encoding_t>(b, dnnl_query_sparse_encoding) == dnnl_coo);
    CHECK(q<int>(b, dnnl_query_num_handles_s32) == 3);
    CHECK(q<dnnl_data_type_t>(b, dnnl_query_data_type, 1) == dnnl_s32);
    CHECK(q<dnnl_data_type_t>(b, dnnl_query_data_type, 2) == dnnl_s32);
    CHECK(dnnl_memory_desc_get_size_v2(b, 0) == 16 && dnnl_memory_desc_get_size_v2(b, 1) == 16
            && dnnl_memory_desc_get_size_v2(b, 2) == 16 && dnnl_memory_desc_get_size_v2(b, 3) == 0);
    dnnl_dims_t d1 = {11};
    dnnl_memory_desc_t c1;
    KT_OK(dnnl_memory_desc_create_with_coo_encoding(&c1, 1, d1, dnnl_f32, 3, dnnl_s32));
    CHECK(q<int>(c1, dnnl_query_num_handles_s32) == 2);

    dnnl_memory_desc_t p;
    dnnl_dims_t dp = {64, 32};
    KT_OK(dnnl_memory_desc_create_with_packed_encoding(&p, 2, dp, dnnl_s8, 100));
    CHECK(q<dnnl_sparse_encoding_t>(p, dnnl_query_sparse_encoding) == dnnl_packed);
    CHECK(q<dnnl_dim_t>(p, dnnl_query_nnz_s64) == 100);
    CHECK(q<int>(p, dnnl_query_num_handles_s32) == 3);
    // A packed layout is chosen by an implementation: a user-made one has no size.
    CHECK(dnnl_memory_desc_get_size_v2(p, 0) == 0 && dnnl_memory_desc_get_size_v2(p, 2) == 0);

    dnnl_memory_desc_t dense = nullptr;
    dnnl_dims_t dd = {5, 7};
    KT_OK(dnnl_memory_desc_create_with_tag(&dense, 2, dd, dnnl_f32, dnnl_ab));
    CHECK(q<int>(dense, dnnl_query_num_handles_s32) == 1);
    dnnl_sparse_encoding_t e;
    CHECK(dnnl_memory_desc_query_v2(dense, dnnl_query_sparse_encoding, 0, &e) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_query_v2(dense, dnnl_query_data_type, 1, &dtv) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_get_size_v2(dense, 1) == 0);

    // Equality follows every field of the encoding.
    dnnl_memory_desc_t a2 = csr(5, 7, 9, dnnl_s32, dnnl_s8), a3 = csr(5, 7, 10, dnnl_s32, dnnl_s8),
                       a4 = csr(5, 7, 9, dnnl_s32, dnnl_s32), b2 = coo(5, 7, 9);
    CHECK(dnnl_memory_desc_equal(a, a2) == 1);
    CHECK(dnnl_memory_desc_equal(a, a3) == 0);
    CHECK(dnnl_memory_desc_equal(a, a4) == 0);
    CHECK(dnnl_memory_desc_equal(a4, b2) == 0);
    CHECK(dnnl_memory_desc_equal(a, dense) == 0);

    // Blobs round-trip every encoding; a damaged one is refused.
    for (dnnl_memory_desc_t m : {a, b, c1, p}) {
        size_t n = 0;
        KT_OK(dnnl_memory_desc_get_blob(nullptr, &n, m));
        std::vector<uint8_t> blob(n + 64);
        KT_OK(dnnl_memory_desc_get_blob(blob.data(), &n, m));
        dnnl_memory_desc_t back = nullptr;
        KT_OK(dnnl_memory_desc_create_with_blob(&back, blob.data()));
        CHECK(dnnl_memory_desc_equal(back, m) == 1);
        CHECK(q<dnnl_dim_t>(back, dnnl_query_nnz_s64) == q<dnnl_dim_t>(m, dnnl_query_nnz_s64));
        dnnl_memory_desc_destroy(back);
        for (size_t i = 12; i < n; i += 5) {
            std::vector<uint8_t> bad = blob;
            bad[i] ^= 0x5a;
            dnnl_memory_desc_t x = nullptr;
            CHECK(dnnl_memory_desc_create_with_blob(&x, bad.data()) == dnnl_invalid_arguments && !x);
        }
    }

    // No view of a sparse descriptor.
    dnnl_memory_desc_t v = nullptr;
    dnnl_dims_t rd = {35}, sd = {2, 2}, so = {0, 0};
    int perm[2] = {1, 0};
    CHECK(dnnl_memory_desc_reshape(&v, a, 1, rd) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_permute_axes(&v, a, perm) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_create_submemory(&v, a, sd, so) != dnnl_success);
    CHECK(v == nullptr);

    for (auto m : {a, a2, a3, a4, b, b2, c1, p, dense}) dnnl_memory_desc_destroy(m);
}

void bad_descs() {
    dnnl_memory_desc_t md = nullptr;
    dnnl_dims_t d2 = {4, 6}, d3 = {2, 4, 6}, neg = {-4, 6}, rt = {DNNL_RUNTIME_DIM_VAL, 6};
    CHECK(dnnl_memory_desc_create_with_csr_encoding(nullptr, 2, d2, dnnl_f32, 3, dnnl_s32, dnnl_s32)
            == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_create_with_csr_encoding(&md, 3, d3, dnnl_f32, 3, dnnl_s32, dnnl_s32)
            == dnnl_unimplemented);
    CHECK(dnnl_memory_desc_create_with_coo_encoding(&md, 3, d3, dnnl_f32, 3, dnnl_s32) == dnnl_unimplemented);
    CHECK(dnnl_memory_desc_create_with_csr_encoding(&md, 2, d2, dnnl_f32, -1, dnnl_s32, dnnl_s32)
            == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_create_with_csr_encoding(&md, 2, neg, dnnl_f32, 3, dnnl_s32, dnnl_s32)
            == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_create_with_csr_encoding(&md, 2, rt, dnnl_f32, 3, dnnl_s32, dnnl_s32)
            == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_create_with_csr_encoding(&md, 2, d2, dnnl_data_type_undef, 3, dnnl_s32, dnnl_s32)
            == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_create_with_packed_encoding(&md, 2, d2, dnnl_f32, -5) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_desc_create_with_coo_encoding(&md, 2, d2, dnnl_f32, (int64_t)1 << 62, dnnl_s32)
            == dnnl_invalid_arguments);
    CHECK(md == nullptr);
    // ndims 0 is the zero descriptor, as for dense ones.
    KT_OK(dnnl_memory_desc_create_with_csr_encoding(&md, 0, d2, dnnl_f32, 3, dnnl_s32, dnnl_s32));
    CHECK(q<int>(md, dnnl_query_ndims_s32) == 0);
    dnnl_memory_desc_destroy(md);
}

void memory_objects() {
    dnnl_memory_desc_t a = csr(6, 9, 5);
    dnnl_memory_t m = nullptr;
    void *h3[3] = {DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_ALLOCATE};
    CHECK(dnnl_memory_create_v2(&m, a, eng, 2, h3) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_create_v2(&m, a, eng, 4, h3) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_create_v2(&m, a, eng, 3, nullptr) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_create(&m, a, eng, DNNL_MEMORY_ALLOCATE) == dnnl_invalid_arguments);
    CHECK(m == nullptr);
    KT_OK(dnnl_memory_create_v2(&m, a, eng, 3, h3));
    void *p[3] = {};
    for (int i = 0; i < 3; ++i) KT_OK(dnnl_memory_get_data_handle_v2(m, &p[i], i));
    CHECK(p[0] && p[1] && p[2] && p[0] != p[1] && p[1] != p[2]);
    // Every allocated buffer holds its whole size (ASan checks the writes).
    std::memset(p[0], 0, 5 * 4);
    std::memset(p[1], 0, 5 * 4);
    std::memset(p[2], 0, 7 * 4);
    void *x = nullptr;
    CHECK(dnnl_memory_get_data_handle_v2(m, &x, 3) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_get_data_handle_v2(m, &x, -1) == dnnl_invalid_arguments);
    CHECK(dnnl_memory_set_data_handle_v2(m, &x, 3) == dnnl_invalid_arguments);
    int32_t mine[7];
    KT_OK(dnnl_memory_set_data_handle_v2(m, mine, 2));
    KT_OK(dnnl_memory_get_data_handle_v2(m, &x, 2));
    CHECK(x == mine);
    KT_OK(dnnl_memory_map_data_v2(m, &x, 1));
    CHECK(x == p[1]);
    KT_OK(dnnl_memory_unmap_data_v2(m, x, 1));
    CHECK(dnnl_memory_map_data_v2(m, &x, 3) == dnnl_invalid_arguments);
    dnnl_memory_destroy(m);
    // DNNL_MEMORY_NONE leaves a buffer unset.
    void *hn[3] = {DNNL_MEMORY_NONE, DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_NONE};
    KT_OK(dnnl_memory_create_v2(&m, a, eng, 3, hn));
    KT_OK(dnnl_memory_get_data_handle_v2(m, &x, 0));
    CHECK(x == nullptr);
    KT_OK(dnnl_memory_get_data_handle_v2(m, &x, 1));
    CHECK(x != nullptr);
    dnnl_memory_destroy(m);
    dnnl_memory_desc_destroy(a);

    // One buffer, through v2, exactly as dnnl_memory_create.
    dnnl_memory_desc_t dense = nullptr;
    dnnl_dims_t dd = {3, 4};
    KT_OK(dnnl_memory_desc_create_with_tag(&dense, 2, dd, dnnl_f32, dnnl_ab));
    float buf[12];
    void *one[1] = {buf};
    KT_OK(dnnl_memory_create_v2(&m, dense, eng, 1, one));
    KT_OK(dnnl_memory_get_data_handle_v2(m, &x, 0));
    CHECK(x == buf);
    CHECK(dnnl_memory_get_data_handle_v2(m, &x, 1) == dnnl_invalid_arguments);
    dnnl_memory_destroy(m);
    CHECK(dnnl_memory_create_v2(&m, dense, eng, 2, h3) == dnnl_invalid_arguments);
    dnnl_memory_desc_destroy(dense);
}

void cpp_api() {
    using namespace dnnl;
    using dt = memory::data_type;
    engine e(engine::kind::cpu, 0);
    auto c = memory::desc::csr({8, 5}, dt::f32, 6, dt::s32, dt::s32);
    CHECK(c.get_format_kind() == memory::format_kind::sparse);
    CHECK(c.get_sparse_encoding() == memory::sparse_encoding::csr);
    CHECK(c.get_nnz() == 6 && c.get_num_handles() == 3);
    CHECK(c.get_size(0) == 24 && c.get_size(1) == 24 && c.get_size(2) == 36);
    CHECK(c.get_data_type(1) == dt::s32 && c.get_data_type(2) == dt::s32);
    auto o = memory::desc::coo({8, 5}, dt::f32, 6, dt::s32);
    CHECK(o.get_sparse_encoding() == memory::sparse_encoding::coo && o.get_num_handles() == 3);
    auto p = memory::desc::packed({8, 5}, dt::s8, 6);
    CHECK(p.get_sparse_encoding() == memory::sparse_encoding::packed);
    CHECK(c != o && c == memory::desc::csr({8, 5}, dt::f32, 6, dt::s32, dt::s32));
    CHECK(memory::desc(c.get_blob()) == c);
    // The library allocates every buffer.
    memory m(c, e);
    CHECK(m.get_data_handle(0) && m.get_data_handle(1) && m.get_data_handle(2));
    int32_t ptrs[9];
    m.set_data_handle(ptrs, 2);
    CHECK(m.get_data_handle(2) == ptrs);
    bool threw = false;
    try {
        memory::desc::csr({2, 3, 4}, dt::f32, 6, dt::s32, dt::s32);
    } catch (const error &err) {
        threw = err.status == dnnl_unimplemented;
    }
    CHECK(threw);
    CHECK(!memory::desc::csr({2, 3, 4}, dt::f32, 6, dt::s32, dt::s32, true));
}

// A 4x6 CSR src times 6x3 dense weights, for the bad-input cases.
struct problem_t {
    std::vector<float> a = sp::make_dense(4, 6, 0.5, 11), b = sp::make_dense(6, 3, 0, 12);
    sp::csr_t c = sp::to_csr(a, 4, 6);
    dnnl_memory_desc_t smd = csr(4, 6, (int64_t)c.val.size()), wmd, dmd;
    problem_t() {
        dnnl_dims_t w = {6, 3}, d = {4, 3};
        KT_OK(dnnl_memory_desc_create_with_tag(&wmd, 2, w, dnnl_f32, dnnl_ab));
        KT_OK(dnnl_memory_desc_create_with_tag(&dmd, 2, d, dnnl_f32, dnnl_ab));
    }
    ~problem_t() {
        for (auto m : {smd, wmd, dmd}) dnnl_memory_desc_destroy(m);
    }
};

dnnl_status_t make_pd(const_dnnl_memory_desc_t s, const_dnnl_memory_desc_t w, const_dnnl_memory_desc_t bias,
        const_dnnl_memory_desc_t d, const_dnnl_primitive_attr_t attr = nullptr) {
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, s, w, bias, d, attr);
    if (st == dnnl_success) dnnl_primitive_desc_destroy(pd);
    return st;
}

void bad_matmul() {
    problem_t pr;
    dnnl_dims_t w = {6, 3}, d = {4, 3}, b = {1, 3};
    // Both sparse; sparse dst; bias; attributes; data types; encodings.
    dnnl_memory_desc_t wsp = csr(6, 3, 4), dsp = csr(4, 3, 4), bias, wf16, ps8, dbad, s8idx, wpk;
    KT_OK(dnnl_memory_desc_create_with_tag(&bias, 2, b, dnnl_f32, dnnl_ab));
    KT_OK(dnnl_memory_desc_create_with_tag(&wf16, 2, w, dnnl_f16, dnnl_ab));
    KT_OK(dnnl_memory_desc_create_with_tag(&dbad, 2, d, dnnl_f32, dnnl_ba));
    KT_OK(dnnl_memory_desc_create_with_packed_encoding(&wpk, 2, w, dnnl_f32, 4));
    KT_OK(dnnl_memory_desc_create_with_packed_encoding(&ps8, 2, w, dnnl_s8, 4));
    s8idx = csr(4, 6, 3, dnnl_s8, dnnl_s32);
    CHECK(make_pd(pr.smd, pr.wmd, nullptr, pr.dmd) == dnnl_success);
    CHECK(make_pd(pr.smd, wsp, nullptr, pr.dmd) == dnnl_unimplemented);
    CHECK(make_pd(pr.smd, pr.wmd, nullptr, dsp) == dnnl_unimplemented);
    CHECK(make_pd(pr.smd, pr.wmd, bias, pr.dmd) == dnnl_unimplemented);
    CHECK(make_pd(pr.smd, wf16, nullptr, pr.dmd) == dnnl_unimplemented);
    CHECK(make_pd(pr.smd, pr.wmd, nullptr, dbad) == dnnl_unimplemented);
    CHECK(make_pd(s8idx, pr.wmd, nullptr, pr.dmd) == dnnl_unimplemented);
    dnnl_dims_t sdims = {4, 6};
    dnnl_memory_desc_t sdense;
    KT_OK(dnnl_memory_desc_create_with_tag(&sdense, 2, sdims, dnnl_f32, dnnl_ab));
    // f32 packed weights: sparse:packed (test_packed); f32 src with s8
    // packed weights is not a combination it takes.
    CHECK(make_pd(sdense, wpk, nullptr, pr.dmd) == dnnl_success);
    CHECK(make_pd(sdense, ps8, nullptr, pr.dmd) == dnnl_unimplemented);
    CHECK(make_pd(pr.smd, pr.wmd, nullptr, pr.dmd, nullptr) == dnnl_success);
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    dnnl_post_ops_t po;
    KT_OK(dnnl_post_ops_create(&po));
    KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK(make_pd(pr.smd, pr.wmd, nullptr, pr.dmd, attr) == dnnl_unimplemented);
    dnnl_primitive_attr_destroy(attr);
    dnnl_primitive_attr_create(&attr);
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    CHECK(make_pd(pr.smd, pr.wmd, nullptr, pr.dmd, attr) == dnnl_unimplemented);
    dnnl_primitive_attr_destroy(attr);
    // A sparse dropout mask is refused (the mask is written densely).
    dnnl_primitive_attr_create(&attr);
    dnnl_dims_t md_dims = {4, 3};
    dnnl_memory_desc_t mask;
    KT_OK(dnnl_memory_desc_create_with_coo_encoding(&mask, 2, md_dims, dnnl_u8, 2, dnnl_s32));
    CHECK(dnnl_primitive_attr_set_dropout(attr, mask) == dnnl_invalid_arguments);
    dnnl_memory_desc_destroy(mask);
    dnnl_primitive_attr_destroy(attr);
    // A sparse second operand of a binary post-op is refused.
    CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, pr.smd) == dnnl_invalid_arguments);
    dnnl_post_ops_destroy(po);
    // Shapes that do not agree.
    dnnl_memory_desc_t s57 = csr(4, 5, 2);
    CHECK(make_pd(s57, pr.wmd, nullptr, pr.dmd) == dnnl_invalid_arguments);
    // Other primitives never take sparse memory.
    dnnl_primitive_desc_t epd = nullptr;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&epd, eng, dnnl_forward_inference, dnnl_eltwise_relu,
                  pr.smd, pr.smd, 0.f, 0.f, nullptr)
            == dnnl_unimplemented);
    CHECK(dnnl_reorder_primitive_desc_create(&epd, pr.smd, eng, sdense, eng, nullptr) == dnnl_unimplemented);
    dnnl_memory_desc_t spk;
    KT_OK(dnnl_memory_desc_create_with_packed_encoding(&spk, 2, sdims, dnnl_f32, 4));
    CHECK(dnnl_reorder_primitive_desc_create(&epd, sdense, eng, spk, eng, nullptr) == dnnl_unimplemented);
    dnnl_memory_desc_destroy(spk);
    CHECK(epd == nullptr);
    for (auto m : {wsp, dsp, bias, wf16, ps8, dbad, s8idx, wpk, sdense, s57}) dnnl_memory_desc_destroy(m);
}

// Execution with a missing buffer, a wrong descriptor or an output that
// overlaps a sparse buffer: invalid_arguments, dst untouched. Hostile
// indices and pointers: entries out of range are skipped, nothing else.
void bad_exec() {
    problem_t pr;
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, pr.smd, pr.wmd, nullptr, pr.dmd, nullptr));
    dnnl_primitive_t p;
    KT_OK(dnnl_primitive_create(&p, pd));
    dnnl_stream_t st;
    KT_OK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
    std::vector<void *> h = {pr.c.val.data(), pr.c.idx.data(), pr.c.ptr.data()};
    dnnl_memory_t sm, wm, dm;
    KT_OK(dnnl_memory_create_v2(&sm, pr.smd, eng, 3, h.data()));
    KT_OK(dnnl_memory_create(&wm, pr.wmd, eng, pr.b.data()));
    std::vector<float> out(12, 42.f);
    KT_OK(dnnl_memory_create(&dm, pr.dmd, eng, out.data()));
    auto exec = [&](dnnl_memory_t s) {
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
        return dnnl_primitive_execute(p, st, s ? 3 : 2, s ? args : args + 1);
    };
    auto untouched = [&] {
        for (float v : out)
            if (v != 42.f) return false;
        return true;
    };
    for (int i = 0; i < 3; ++i) {
        KT_OK(dnnl_memory_set_data_handle_v2(sm, nullptr, i));
        CHECK(exec(sm) == dnnl_invalid_arguments && untouched());
        KT_OK(dnnl_memory_set_data_handle_v2(sm, h[i], i));
    }
    CHECK(exec(nullptr) == dnnl_invalid_arguments && untouched());
    // Same shape, other nnz: another descriptor.
    dnnl_memory_desc_t other = csr(4, 6, (int64_t)pr.c.val.size() + 1);
    std::vector<float> v2(pr.c.val.size() + 1);
    std::vector<int32_t> i2(pr.c.val.size() + 1);
    void *h2[3] = {v2.data(), i2.data(), pr.c.ptr.data()};
    dnnl_memory_t om;
    KT_OK(dnnl_memory_create_v2(&om, other, eng, 3, h2));
    CHECK(exec(om) == dnnl_invalid_arguments && untouched());
    dnnl_memory_destroy(om);
    dnnl_memory_desc_destroy(other);
    // A dense memory in place of the sparse one.
    dnnl_memory_t dense_src;
    dnnl_dims_t sd = {4, 6};
    dnnl_memory_desc_t sdmd;
    KT_OK(dnnl_memory_desc_create_with_tag(&sdmd, 2, sd, dnnl_f32, dnnl_ab));
    KT_OK(dnnl_memory_create(&dense_src, sdmd, eng, pr.a.data()));
    CHECK(exec(dense_src) == dnnl_invalid_arguments && untouched());
    dnnl_memory_destroy(dense_src);
    dnnl_memory_desc_destroy(sdmd);
    // dst overlapping the column indices.
    std::vector<float> big(64, 0.f);
    std::vector<int32_t> idx_in_dst(pr.c.idx);
    dnnl_memory_t alias_dst;
    KT_OK(dnnl_memory_create(&alias_dst, pr.dmd, eng, big.data()));
    KT_OK(dnnl_memory_set_data_handle_v2(sm, big.data() + 2, 1));
    {
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, alias_dst}};
        CHECK(dnnl_primitive_execute(p, st, 3, args) == dnnl_invalid_arguments);
    }
    KT_OK(dnnl_memory_set_data_handle_v2(sm, h[1], 1));
    dnnl_memory_destroy(alias_dst);

    // A correct run, then hostile metadata.
    CHECK(exec(sm) == dnnl_success);
    CHECK(std::memcmp(out.data(), sp::naive_matmul(pr.a, pr.b, 4, 6, 3).data(), 48) == 0);
    if (!pr.c.val.empty()) {
        // The first entry's column out of range: that entry is dropped.
        std::vector<int32_t> bad_idx = pr.c.idx;
        bad_idx[0] = 6;
        std::vector<float> a2 = pr.a;
        int64_t row0 = 0;
        while (pr.c.ptr[(size_t)row0 + 1] == 0) ++row0;
        a2[(size_t)(row0 * 6 + pr.c.idx[0])] = 0.f;
        KT_OK(dnnl_memory_set_data_handle_v2(sm, bad_idx.data(), 1));
        CHECK(exec(sm) == dnnl_success);
        CHECK(std::memcmp(out.data(), sp::naive_matmul(a2, pr.b, 4, 6, 3).data(), 48) == 0);
        bad_idx[0] = -3;
        CHECK(exec(sm) == dnnl_success);
        CHECK(std::memcmp(out.data(), sp::naive_matmul(a2, pr.b, 4, 6, 3).data(), 48) == 0);
        // Pointers beyond nnz or decreasing: clamped, no read outside.
        std::vector<int32_t> bad_ptr = {0, 1000, -5, 3, 2147483647};
        KT_OK(dnnl_memory_set_data_handle_v2(sm, pr.c.idx.data(), 1));
        KT_OK(dnnl_memory_set_data_handle_v2(sm, bad_ptr.data(), 2));
        CHECK(exec(sm) == dnnl_success);
        bool finite = true;
        for (float v : out) finite = finite && std::isfinite(v);
        CHECK(finite);
    }
    for (auto m : {sm, wm, dm}) dnnl_memory_destroy(m);
    dnnl_stream_destroy(st);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
}

// The primitive descriptor reports the sparse descriptor as given, and the
// primitive cache tells apart problems that differ only in nnz.
void pd_queries() {
    problem_t pr;
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, pr.smd, pr.wmd, nullptr, pr.dmd, nullptr));
    CHECK(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), pr.smd) == 1);
    CHECK(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC), pr.smd)
            == 1);
    CHECK(kt::impl_name(pd) == "sparse:f32");
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    queries();
    bad_descs();
    memory_objects();
    cpp_api();
    bad_matmul();
    bad_exec();
    pd_queries();
    dnnl_engine_destroy(eng);
    return t.finish();
}
