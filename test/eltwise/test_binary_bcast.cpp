// Binary with a broadcast src0 (alone, with src1 broadcast on other dims,
// and in select with src1 and src2 broadcast too) against a naive reference
// written here: every tensor is a buffer whose strides this file computes
// from a dim order, and each dst element is computed from its logical
// position. Only the public C API is used; nothing is shared with src/.
// Also: oneDNN's shape refusals, format `any` following src0's dim order,
// in place refused with a broadcast src0, which implementation serves what
// (vectorised for a scalar or per-channel src0 but with div; the reference
// otherwise), and a blocked layout (data moved in and out by reorders).
#include <functional>

#include "../common/kt_test.hpp"

namespace {

using dims_t = std::vector<dnnl_dim_t>;
using order_t = std::vector<int>; // dims outermost first

order_t plain(size_t nd) {
    order_t o(nd);
    for (size_t i = 0; i < nd; ++i) o[i] = (int)i;
    return o;
}
// Channel last: n, spatial dims, then c.
order_t chan_last(size_t nd) {
    order_t o = {0};
    for (size_t i = 2; i < nd; ++i) o.push_back((int)i);
    o.push_back(1);
    return o;
}

dnnl_memory_desc_t strided_md(const dims_t &dims, const order_t &order, dnnl_data_type_t dt) {
    dnnl_dims_t d = {}, s = {};
    dnnl_dim_t stride = 1;
    for (int i = (int)order.size() - 1; i >= 0; --i) {
        s[order[i]] = stride;
        stride *= dims[order[i]];
    }
    for (size_t i = 0; i < dims.size(); ++i) d[i] = dims[i];
    dnnl_memory_desc_t md = nullptr;
    KT_OK(dnnl_memory_desc_create_with_strides(&md, (int)dims.size(), d, dt, s));
    return md;
}

// A dense f32 or s8 tensor over a buffer of this file.
struct tensor_t {
    dims_t dims;
    dnnl_data_type_t dt;
    dims_t strides;
    std::vector<float> f;
    std::vector<int8_t> s8;
    dnnl_memory_desc_t md = nullptr;
    dnnl_memory_t mem = nullptr;

    tensor_t(const dims_t &d, const order_t &order, dnnl_data_type_t t, dnnl_engine_t eng)
        : dims(d), dt(t), strides(d.size()) {
        dnnl_dim_t stride = 1;
        for (int i = (int)order.size() - 1; i >= 0; --i) {
            strides[order[i]] = stride;
            stride *= dims[order[i]];
        }
        md = strided_md(dims, order, dt);
        void *buf;
        if (dt == dnnl_s8) {
            s8.assign((size_t)stride, 0);
            buf = s8.data();
        } else {
            f.assign((size_t)stride, 0.f);
            buf = f.data();
        }
        KT_OK(dnnl_memory_create(&mem, md, eng, buf));
    }
    tensor_t(const tensor_t &) = delete;
    ~tensor_t() {
        dnnl_memory_destroy(mem);
        dnnl_memory_desc_destroy(md);
    }
    // Offset of dst position pos: a broadcast dim (size 1) reads index 0.
    size_t off(const dims_t &pos) const {
        size_t o = 0;
        for (size_t d = 0; d < dims.size(); ++d)
            o += (size_t)((dims[d] == 1 ? 0 : pos[d]) * strides[d]);
        return o;
    }
    float get(const dims_t &pos) const { return dt == dnnl_s8 ? (float)s8[off(pos)] : f[off(pos)]; }
    size_t size() const { return dt == dnnl_s8 ? s8.size() : f.size(); }
    // Small integers (exact sums and products); div sources stay away from 0.
    void fill(uint64_t seed, bool nonzero) {
        kt::rng_t r(seed);
        for (size_t i = 0; i < size(); ++i) {
            if (dt == dnnl_s8)
                s8[i] = (int8_t)r.small_int(0, 1);
            else
                f[i] = r.small_int(-3, 3) + (nonzero ? 0.5f : 0.f);
        }
    }
};

float ref_op(dnnl_alg_kind_t alg, float x, float y) {
    switch (alg) {
    case dnnl_binary_add:
        return x + y;
    case dnnl_binary_mul:
        return x * y;
    case dnnl_binary_max:
        return x > y ? x : y;
    case dnnl_binary_min:
        return x < y ? x : y;
    case dnnl_binary_div:
        return x / y;
    case dnnl_binary_sub:
        return x - y;
    case dnnl_binary_ge:
        return x >= y ? 1.f : 0.f;
    case dnnl_binary_gt:
        return x > y ? 1.f : 0.f;
    case dnnl_binary_le:
        return x <= y ? 1.f : 0.f;
    case dnnl_binary_lt:
        return x < y ? 1.f : 0.f;
    case dnnl_binary_eq:
        return x == y ? 1.f : 0.f;
    case dnnl_binary_ne:
        return x != y ? 1.f : 0.f;
    default:
        return NAN;
    }
}

// Calls f(pos) for every position of dims in row-major order.
void for_each(const dims_t &dims, const std::function<void(const dims_t &)> &f) {
    dims_t pos(dims.size(), 0);
    dnnl_dim_t n = 1;
    for (auto d : dims) n *= d;
    for (dnnl_dim_t l = 0; l < n; ++l) {
        f(pos);
        for (int d = (int)dims.size() - 1; d >= 0; --d) {
            if (++pos[d] < dims[d]) break;
            pos[d] = 0;
        }
    }
}

struct problem_t {
    dnnl_alg_kind_t alg;
    dims_t d0, d1, d2, dd; // d2: select only
    order_t order;         // of every tensor
    bool scales = false;
    bool post_ops = false; // sum(2) + leaky relu(0.5) + per-channel binary mul
    bool dst_any = false;  // dst format `any`: must come out in `order`
};

constexpr float sum_scale = 2.f, relu_alpha = 0.5f, s0_val = 0.5f, s1_val = -2.f;

// Creates, runs and checks one problem; returns the implementation name.
std::string check(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const problem_t &p,
                  const char *what) {
    const bool select = p.alg == dnnl_binary_select;
    tensor_t a(p.d0, p.order, dnnl_f32, eng), b(p.d1, p.order, dnnl_f32, eng),
            c(select ? p.d2 : p.d1, p.order, dnnl_s8, eng), dst(p.dd, p.order, dnnl_f32, eng);
    dims_t dchan(p.dd.size(), 1);
    dchan[1] = p.dd[1];
    tensor_t po_src(dchan, p.order, dnnl_f32, eng);
    a.fill(p.d0.size() * 31 + p.d0[1] + (size_t)p.alg, false);
    b.fill(p.d1.size() * 17 + p.d1[1] + (size_t)p.alg, p.alg == dnnl_binary_div);
    c.fill(p.dd[1] + 5, false);
    dst.fill(77, false); // the sum post-op reads it
    po_src.fill(3, false);
    const std::vector<float> dst_old = dst.f;

    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    if (p.scales) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_0, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_1, 0));
    }
    if (p.post_ops) {
        dnnl_post_ops_t po = nullptr;
        KT_OK(dnnl_post_ops_create(&po));
        KT_OK(dnnl_post_ops_append_sum(po, sum_scale, 0, dnnl_data_type_undef));
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, relu_alpha, 0.f));
        KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_mul, po_src.md));
        KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
        dnnl_post_ops_destroy(po);
    }
    dnnl_memory_desc_t any = nullptr;
    if (p.dst_any) {
        dnnl_dims_t d = {};
        for (size_t i = 0; i < p.dd.size(); ++i) d[i] = p.dd[i];
        KT_OK(dnnl_memory_desc_create_with_tag(&any, (int)p.dd.size(), d, dnnl_f32,
                                               dnnl_format_tag_any));
    }
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_binary_primitive_desc_create_v2(&pd, eng, p.alg, a.md, b.md, select ? c.md : nullptr,
                                               p.dst_any ? any : dst.md, attr));
    dnnl_primitive_attr_destroy(attr);
    dnnl_memory_desc_destroy(any);
    const std::string impl = kt::impl_name(pd);
    char msg[256];
    std::snprintf(msg, sizeof(msg), "%s (%s)", what, impl.c_str());
    if (p.dst_any) {
        std::string m = std::string(msg) + ": dst `any` follows src0's dim order";
        t.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0),
                                       dst.md)
                        == 1,
                m.c_str());
    }

    float sv0 = s0_val, sv1 = s1_val;
    dnnl_memory_desc_t smd = nullptr;
    dnnl_dims_t one = {1};
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, 1, one, dnnl_f32, dnnl_a));
    dnnl_memory_t s0m = nullptr, s1m = nullptr;
    KT_OK(dnnl_memory_create(&s0m, smd, eng, &sv0));
    KT_OK(dnnl_memory_create(&s1m, smd, eng, &sv1));
    std::vector<dnnl_exec_arg_t> args = {
            {DNNL_ARG_SRC_0, a.mem}, {DNNL_ARG_SRC_1, b.mem}, {DNNL_ARG_DST, dst.mem}};
    if (select) args.push_back({DNNL_ARG_SRC_2, c.mem});
    if (p.scales) {
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_0, s0m});
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_1, s1m});
    }
    if (p.post_ops)
        args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(2) | DNNL_ARG_SRC_1, po_src.mem});
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(s0m);
    dnnl_memory_destroy(s1m);
    dnnl_memory_desc_destroy(smd);

    bool ok = true;
    for_each(p.dd, [&](const dims_t &pos) {
        if (!ok) return;
        const float x = a.get(pos) * (p.scales ? s0_val : 1.f);
        const float y = b.get(pos) * (p.scales ? s1_val : 1.f);
        float want = select ? (c.get(pos) != 0 ? x : y) : ref_op(p.alg, x, y);
        if (p.post_ops) {
            want += sum_scale * dst_old[dst.off(pos)];
            want = want > 0 ? want : relu_alpha * want;
            want *= po_src.get(pos);
        }
        const float got = dst.get(pos);
        if (got != want) {
            std::fprintf(stderr, "%s: at offset %zu got %g want %g\n", msg, dst.off(pos), got,
                         want);
            ok = false;
        }
    });
    t.check(ok, msg);
    return impl;
}

const dnnl_alg_kind_t algs[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max, dnnl_binary_min,
                                dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge,  dnnl_binary_gt,
                                dnnl_binary_le,  dnnl_binary_lt,  dnnl_binary_eq,  dnnl_binary_ne};

// dnnl_cpu_isa_avx2's bits are set for AVX2 and every AVX-512 level.
bool has_vec() {
    return (dnnl_get_effective_cpu_isa() & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2;
}

void reorder(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_memory_t from, dnnl_memory_t to) {
    const_dnnl_memory_desc_t fmd = nullptr, tmd = nullptr;
    KT_OK(dnnl_memory_get_memory_desc(from, &fmd));
    KT_OK(dnnl_memory_get_memory_desc(to, &tmd));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_reorder_primitive_desc_create(&pd, fmd, eng, tmd, eng, nullptr));
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    KT_OK(dnnl_primitive_execute(p, strm, 2, args));
    KT_OK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
}

// src1 and dst in nChw16c (C = 20, so the last block is padded), src0
// plain and broadcast: the data goes in and out through reorders, and the
// result is checked in plain order against the naive formula.
void check_blocked(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, dnnl_alg_kind_t alg,
                   const dims_t &d0, bool scales) {
    const dims_t full = {2, 20, 3, 5};
    tensor_t a(d0, plain(4), dnnl_f32, eng), b(full, plain(4), dnnl_f32, eng),
            dst(full, plain(4), dnnl_f32, eng);
    a.fill(11 + (size_t)alg, false);
    b.fill(13 + (size_t)alg, alg == dnnl_binary_div);
    dnnl_dims_t fd = {2, 20, 3, 5};
    dnnl_memory_desc_t bmd = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&bmd, 4, fd, dnnl_f32, dnnl_nChw16c));
    dnnl_memory_t bb = nullptr, db = nullptr;
    KT_OK(dnnl_memory_create(&bb, bmd, eng, DNNL_MEMORY_ALLOCATE));
    KT_OK(dnnl_memory_create(&db, bmd, eng, DNNL_MEMORY_ALLOCATE));
    reorder(eng, strm, b.mem, bb);
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    if (scales) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_0, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_1, 0));
    }
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_binary_primitive_desc_create(&pd, eng, alg, a.md, bmd, bmd, attr));
    dnnl_primitive_attr_destroy(attr);
    char what[160];
    std::snprintf(what, sizeof(what), "nChw16c src1/dst, src0 {%ld,%ld,%ld,%ld}, alg %#x%s (%s)",
                  (long)d0[0], (long)d0[1], (long)d0[2], (long)d0[3], (unsigned)alg,
                  scales ? " scales" : "", kt::impl_name(pd).c_str());
    float sv0 = s0_val, sv1 = s1_val;
    dnnl_memory_desc_t smd = nullptr;
    dnnl_dims_t one = {1};
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, 1, one, dnnl_f32, dnnl_a));
    dnnl_memory_t s0m = nullptr, s1m = nullptr;
    KT_OK(dnnl_memory_create(&s0m, smd, eng, &sv0));
    KT_OK(dnnl_memory_create(&s1m, smd, eng, &sv1));
    std::vector<dnnl_exec_arg_t> args = {
            {DNNL_ARG_SRC_0, a.mem}, {DNNL_ARG_SRC_1, bb}, {DNNL_ARG_DST, db}};
    if (scales) {
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_0, s0m});
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_1, s1m});
    }
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));
    reorder(eng, strm, db, dst.mem);
    bool ok = true;
    for_each(full, [&](const dims_t &pos) {
        const float x = a.get(pos) * (scales ? s0_val : 1.f),
                    y = b.get(pos) * (scales ? s1_val : 1.f);
        ok = ok && dst.get(pos) == ref_op(alg, x, y);
    });
    t.check(ok, what);
    // Padded layouts stay vectorised only when op(0, 0) is +0 without
    // scales, and only for a per-channel src0 (whose padding is zero too).
    if (has_vec() && d0[1] > 1 && !scales && alg != dnnl_binary_div) {
        std::string m = std::string(what) + ": vectorised";
        t.check(kt::impl_name(pd).rfind("vec", 0) == 0, m.c_str());
    }
    // The padded channels 20..31 of dst stay zero.
    const float *raw = nullptr;
    KT_OK(dnnl_memory_get_data_handle(db, (void **)&raw));
    bool pad = true;
    for (int n = 0; n < 2; ++n)
        for (int sp = 0; sp < 15; ++sp)
            for (int c = 4; c < 16; ++c) pad = pad && raw[((n * 2 + 1) * 15 + sp) * 16 + c] == 0.f;
    std::string m = std::string(what) + ": padding zero";
    t.check(pad, m.c_str());
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(s0m);
    dnnl_memory_destroy(s1m);
    dnnl_memory_desc_destroy(smd);
    dnnl_memory_destroy(bb);
    dnnl_memory_destroy(db);
    dnnl_memory_desc_destroy(bmd);
}

void run_problems(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, int nthr) {
    char what[200];
    const dims_t full = {2, 5, 3, 4};
    // Scalar src0 against a full src1, every algorithm, both plain orders.
    for (auto alg : algs)
        for (const order_t &o : {plain(4), chan_last(4)}) {
            std::snprintf(what, sizeof(what), "nthr %d: alg %#x scalar src0, %s", nthr,
                          (unsigned)alg, o[1] == 1 ? "nchw" : "nhwc");
            const std::string impl =
                    check(t, eng, strm, {alg, {1, 1, 1, 1}, full, {}, full, o}, what);
            std::string m = std::string(what)
                            + ": vectorised (mirrored) but for div, which the reference serves";
            t.check((impl.rfind("vec", 0) == 0) == (has_vec() && alg != dnnl_binary_div),
                    m.c_str());
        }
    // Per-channel src0, with scales, and with dst `any`.
    std::snprintf(what, sizeof(what), "nthr %d: per-channel src0 sub, scales, nhwc", nthr);
    check(t, eng, strm, {dnnl_binary_sub, {1, 5, 1, 1}, full, {}, full, chan_last(4), true}, what);
    std::snprintf(what, sizeof(what), "nthr %d: per-channel src0 div, dst any, nhwc", nthr);
    check(t, eng, strm,
          {dnnl_binary_div, {1, 5, 1, 1}, full, {}, full, chan_last(4), false, false, true}, what);
    std::snprintf(what, sizeof(what), "nthr %d: scalar src0 add, dst any, nchw", nthr);
    check(t, eng, strm,
          {dnnl_binary_add, {1, 1, 1, 1}, full, {}, full, plain(4), false, false, true}, what);
    // src0 and src1 broadcast on different dims.
    std::snprintf(what, sizeof(what), "nthr %d: src0 {2,1,3,4} src1 {1,5,3,1}", nthr);
    check(t, eng, strm, {dnnl_binary_sub, {2, 1, 3, 4}, {1, 5, 3, 1}, {}, full, plain(4)}, what);
    std::snprintf(what, sizeof(what), "nthr %d: 5D src0 {1,4,1,3,1} src1 {2,1,3,1,5} max", nthr);
    check(t, eng, strm,
          {dnnl_binary_max, {1, 4, 1, 3, 1}, {2, 1, 3, 1, 5}, {}, {2, 4, 3, 3, 5}, chan_last(5)},
          what);
    // Large enough (> 8192 elements) for the reference to split over threads.
    const dims_t big = {2, 16, 16, 17};
    std::snprintf(what, sizeof(what), "nthr %d: big, per-row src0 {1,16,16,1} mul, scales", nthr);
    check(t, eng, strm, {dnnl_binary_mul, {1, 16, 16, 1}, big, {}, big, plain(4), true}, what);
    // Post-ops: sum, eltwise, per-channel binary.
    std::snprintf(what, sizeof(what), "nthr %d: scalar src0 add + sum/relu/binary post-ops", nthr);
    check(t, eng, strm, {dnnl_binary_add, {1, 1, 1, 1}, full, {}, full, plain(4), false, true},
          what);
    std::snprintf(what, sizeof(what), "nthr %d: big src0 {2,1,16,17} ge + post-ops, nhwc", nthr);
    check(t, eng, strm,
          {dnnl_binary_ge, {2, 1, 16, 17}, {1, 16, 1, 1}, {}, big, chan_last(4), false, true},
          what);
    // Blocked src1/dst with a per-channel and a scalar src0 (the mirrored
    // sub with a negative scale included).
    for (auto alg : {dnnl_binary_sub, dnnl_binary_lt, dnnl_binary_max, dnnl_binary_div}) {
        check_blocked(t, eng, strm, alg, {1, 20, 1, 1}, false);
        check_blocked(t, eng, strm, alg, {1, 1, 1, 1}, false);
        if (alg == dnnl_binary_sub) check_blocked(t, eng, strm, alg, {1, 20, 1, 1}, true);
    }
    // Select: src0, src1 and src2 each broadcast.
    std::snprintf(what, sizeof(what),
                  "nthr %d: select src0 {1,5,1,1} src1 {2,1,3,4} src2 {1,1,3,1}", nthr);
    check(t, eng, strm,
          {dnnl_binary_select, {1, 5, 1, 1}, {2, 1, 3, 4}, {1, 1, 3, 1}, full, plain(4)}, what);
    std::snprintf(what, sizeof(what),
                  "nthr %d: select as oneDNN's example: src0 scalar, src2 {1,1,1,W}", nthr);
    const dims_t ex = {1, 12, 32, 32};
    check(t, eng, strm, {dnnl_binary_select, {1, 1, 1, 1}, ex, {1, 1, 1, 32}, ex, plain(4)}, what);
    std::snprintf(what, sizeof(what), "nthr %d: select src0 {2,16,1,17} src2 full + post-ops",
                  nthr);
    check(t, eng, strm,
          {dnnl_binary_select, {2, 16, 1, 17}, big, big, big, chan_last(4), false, true}, what);
}

dnnl_status_t create(dnnl_engine_t eng, dnnl_alg_kind_t alg, const dims_t &d0, const dims_t &d1,
                     const dims_t *d2, const dims_t &dd, bool src0_any = false) {
    dnnl_memory_desc_t m0 = strided_md(d0, plain(d0.size()), dnnl_f32);
    dnnl_memory_desc_t m1 = strided_md(d1, plain(d1.size()), dnnl_f32);
    dnnl_memory_desc_t m2 = d2 ? strided_md(*d2, plain(d2->size()), dnnl_s8) : nullptr;
    dnnl_memory_desc_t md = strided_md(dd, plain(dd.size()), dnnl_f32);
    if (src0_any) {
        dnnl_memory_desc_destroy(m0);
        dnnl_dims_t d = {};
        for (size_t i = 0; i < d0.size(); ++i) d[i] = d0[i];
        KT_OK(dnnl_memory_desc_create_with_tag(&m0, (int)d0.size(), d, dnnl_f32,
                                               dnnl_format_tag_any));
    }
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st =
            dnnl_binary_primitive_desc_create_v2(&pd, eng, alg, m0, m1, m2, md, nullptr);
    dnnl_primitive_desc_destroy(pd);
    for (auto m : {m0, m1, m2, md}) dnnl_memory_desc_destroy(m);
    return st;
}

void check_refusals(kt::tally_t &t, dnnl_engine_t eng) {
    const dims_t full = {2, 5, 3, 4}, c3 = {2, 3, 3, 4};
    t.check(create(eng, dnnl_binary_add, {1, 1, 1, 1}, full, nullptr, full) == dnnl_success,
            "scalar src0 accepted");
    t.check(create(eng, dnnl_binary_add, {1, 3, 1, 1}, full, nullptr, full)
                    == dnnl_invalid_arguments,
            "src0 dim neither 1 nor dst's -> invalid_arguments");
    t.check(create(eng, dnnl_binary_add, {1, 5, 3, 4}, {1, 5, 3, 4}, nullptr, full)
                    == dnnl_invalid_arguments,
            "src0 and src1 both 1 where dst is not -> invalid_arguments");
    t.check(create(eng, dnnl_binary_add, full, full, nullptr, c3) == dnnl_invalid_arguments,
            "dst smaller than the sources -> invalid_arguments");
    t.check(create(eng, dnnl_binary_add, {1, 1, 1}, full, nullptr, full) == dnnl_invalid_arguments,
            "src0 rank differs from dst -> invalid_arguments");
    t.check(create(eng, dnnl_binary_add, {1, 1, 1, 1}, full, nullptr, full, true)
                    == dnnl_invalid_arguments,
            "src0 format any -> invalid_arguments");
    const dims_t bad2 = {1, 2, 1, 1}, ok2 = {1, 1, 3, 1};
    t.check(create(eng, dnnl_binary_select, {1, 1, 1, 1}, full, &bad2, full)
                    == dnnl_invalid_arguments,
            "select src2 dim neither 1 nor dst's -> invalid_arguments");
    t.check(create(eng, dnnl_binary_select, {1, 1, 1, 1}, {1, 5, 3, 4}, &ok2, full)
                    == dnnl_invalid_arguments,
            "select src0 and src1 both 1 where dst is not -> invalid_arguments");
    t.check(create(eng, dnnl_binary_select, {1, 1, 1, 1}, full, &ok2, full) == dnnl_success,
            "select with src0 and src2 broadcast accepted");
}

// src0 broadcast cannot run in place: dst's memory given as src0 is refused
// before anything is written. Same shapes still run in place.
void check_in_place(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm) {
    const dims_t full = {2, 5, 3, 4};
    tensor_t a(full, plain(4), dnnl_f32, eng), b(full, plain(4), dnnl_f32, eng);
    tensor_t s({1, 1, 1, 1}, plain(4), dnnl_f32, eng);
    a.fill(1, false);
    b.fill(2, false);
    const std::vector<float> a_old = a.f;
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, s.md, b.md, a.md, nullptr));
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    dnnl_exec_arg_t args[] = {
            {DNNL_ARG_SRC_0, a.mem}, {DNNL_ARG_SRC_1, b.mem}, {DNNL_ARG_DST, a.mem}};
    t.check(dnnl_primitive_execute(prim, strm, 3, args) == dnnl_invalid_arguments,
            "in place with a broadcast src0 -> invalid_arguments");
    dnnl_stream_wait(strm);
    t.check(a.f == a_old, "refused in-place run wrote nothing");
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);

    KT_OK(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_sub, a.md, b.md, a.md, nullptr));
    KT_OK(dnnl_primitive_create(&prim, pd));
    if (has_vec())
        t.check(kt::impl_name(pd).rfind("vec", 0) == 0,
                "no broadcast src0 keeps the vectorised path");
    KT_OK(dnnl_primitive_execute(prim, strm, 3, args));
    KT_OK(dnnl_stream_wait(strm));
    bool ok = true;
    for (size_t i = 0; i < a.f.size(); ++i) ok = ok && a.f[i] == a_old[i] - b.f[i];
    t.check(ok, "same-shape sub in place");
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    for (int nthr : {1, 2}) kt::with_threads(nthr, [&] { run_problems(t, eng, strm, nthr); });
    check_refusals(t, eng);
    check_in_place(t, eng, strm);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
