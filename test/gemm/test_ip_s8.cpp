// int8 inner product forward (gemm:s8 and the reference) against a naive
// loop written here: exact integer accumulation over (ic, spatial), then
// the quantization output stage of common/kt_s8.hpp. Every case runs with
// 1 and 2 threads through the C API; one through the C++ API. Bad input
// must give a clear status and leave dst alone.
// 2D weights in format `any` come back from gemm:s8 in a blocked layout
// (the GEMM's packed panels): the test fills plain `ab` weights and
// reorders them into it, as a user does, and checks the layout's shape
// (blocks of OC and groups of 4 IC, zero padding kept by the reorder, a
// round trip back to `ab`) without reading its bytes by hand.
#include "common/kt_s8.hpp"
#include "dnnl.hpp"

namespace {

struct prb_t {
    int64_t mb, ic, oc;
    int nd; // of src: 2..5
    int64_t sp[3]; // spatial dims of src (first nd - 2 used)
    dnnl_data_type_t sdt, ddt, bdt; // bdt undef: no bias
    dnnl_format_tag_t src_tag, wei_tag;
    kt::quant_t q;
    const char *want_impl;
};

int64_t rnd(kt::rng_t &r, int64_t lo, int64_t hi) { return lo + (int64_t)(r.next() % (uint32_t)(hi - lo + 1)); }

double rnd_of(kt::rng_t &r, dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_u8: return (double)rnd(r, 0, 255);
        case dnnl_s8: return (double)rnd(r, -128, 127);
        case dnnl_s32: return (double)rnd(r, -300, 300);
        default: return (double)rnd(r, -64, 64) / 4; // exact in bf16 and f32
    }
}

int inner_nblks(const_dnnl_memory_desc_t md) {
    int n = 0;
    KT_OK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &n));
    return n;
}

// A reorder between two memories on the CPU engine (exact for s8 to s8).
void reorder(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_memory_desc_t from, void *src,
        const_dnnl_memory_desc_t to, void *dst) {
    dnnl_primitive_desc_t rpd;
    KT_OK(dnnl_reorder_primitive_desc_create(&rpd, from, eng, to, eng, nullptr));
    dnnl_primitive_t r;
    KT_OK(dnnl_primitive_create(&r, rpd));
    dnnl_memory_t ms, md;
    KT_OK(dnnl_memory_create(&ms, from, eng, src));
    KT_OK(dnnl_memory_create(&md, to, eng, dst));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, ms}, {DNNL_ARG_TO, md}};
    KT_OK(dnnl_primitive_execute(r, strm, 2, args));
    KT_OK(dnnl_stream_wait(strm));
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(md);
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
}

// Checks one pd (the one it points at) on fresh data.
bool run_pd(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_primitive_desc_t pd, const prb_t &p) {
    const_dnnl_memory_desc_t smd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC);
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS);
    const_dnnl_memory_desc_t dmd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_DST);
    // Blocked weights (gemm:s8's packed layout, 2D only) are filled in a
    // plain `ab` copy and reordered in.
    const bool blocked_w = inner_nblks(wmd) > 0;
    kt::md_t wab(blocked_w ? kt::make_md({p.oc, p.ic}, dnnl_s8, dnnl_ab) : nullptr);
    const kt::plain_layout_t sl(smd), wl(blocked_w ? (const_dnnl_memory_desc_t)wab : wmd), dl(dmd);
    int64_t inner = 1; // spatial points per channel
    for (int i = 0; i < p.nd - 2; ++i) inner *= p.sp[i];
    const int64_t K = p.ic * inner;
    kt::rng_t r((uint64_t)(p.mb * 31 + p.ic * 7 + p.oc + p.nd * 100 + p.sdt * 5 + p.ddt));
    std::vector<int32_t> S((size_t)(p.mb * K)), W((size_t)(p.oc * K));
    for (auto &v : S) v = (int32_t)rnd_of(r, p.sdt);
    for (auto &v : W) v = (int32_t)rnd(r, -64, 63); // |acc| < 2^24 for K <= 512
    std::vector<char> sb(sl.span() * kt::dt_bytes(p.sdt)), wb(wl.span()), db(dl.span() * kt::dt_bytes(p.ddt));
    std::vector<char> bb(p.oc * 4);
    // Logical position of (row, k) with k = ic * inner + spatial index.
    auto pos_of = [&](int64_t *pos, int64_t row, int64_t k) {
        pos[0] = row;
        pos[1] = k / inner;
        int64_t s = k % inner;
        for (int i = p.nd - 3; i >= 0; --i) {
            pos[2 + i] = s % p.sp[i];
            s /= p.sp[i];
        }
    };
    int64_t pos[8];
    for (int64_t n = 0; n < p.mb; ++n)
        for (int64_t k = 0; k < K; ++k) {
            pos_of(pos, n, k);
            kt::set_elem(p.sdt, sb.data(), sl.off(pos), S[n * K + k]);
        }
    for (int64_t o = 0; o < p.oc; ++o)
        for (int64_t k = 0; k < K; ++k) {
            pos_of(pos, o, k);
            ((int8_t *)wb.data())[wl.off(pos)] = (int8_t)W[o * K + k];
        }
    std::vector<double> bias((size_t)p.oc, 0.0);
    if (p.bdt != dnnl_data_type_undef)
        for (int64_t o = 0; o < p.oc; ++o) {
            bias[o] = rnd_of(r, p.bdt);
            kt::set_elem(p.bdt, bb.data(), o, bias[o]);
        }
    std::vector<double> old((size_t)dl.span());
    for (size_t i = 0; i < old.size(); ++i) {
        old[i] = rnd_of(r, p.ddt);
        kt::set_elem(p.ddt, db.data(), (int64_t)i, old[i]);
    }

    std::vector<char> wpk; // the weights in the pd's blocked layout
    if (blocked_w) {
        // Bytes the reorder must overwrite (padding included) start non-zero.
        wpk.assign(dnnl_memory_desc_get_size(wmd) + 1, (char)0x5a);
        reorder(eng, strm, wab, wb.data(), wmd, wpk.data() + 1); // +1: an odd address
        std::vector<char> back(wb.size(), 0);
        reorder(eng, strm, wmd, wpk.data() + 1, wab, back.data());
        if (back != wb) {
            std::fprintf(stderr, "  weights: ab -> packed -> ab is not the identity\n");
            return false;
        }
    }
    kt::execute_quant(eng, strm, pd, sb.data(), blocked_w ? wpk.data() + 1 : wb.data(),
            p.bdt != dnnl_data_type_undef ? bb.data() : nullptr, db.data(), p.q, 2, p.oc);

    const int32_t zp = p.q.src_zp ? p.q.src_zp_v : 0;
    int bad = 0;
    for (int64_t n = 0; n < p.mb; ++n)
        for (int64_t o = 0; o < p.oc; ++o) {
            int64_t acc = 0;
            for (int64_t k = 0; k < K; ++k) acc += (int64_t)(S[n * K + k] - zp) * W[o * K + k];
            const int64_t dp[2] = {n, o};
            const int64_t off = dl.off(dp);
            double tol;
            const double v = p.q.value(acc, o, bias[o], old[off], tol);
            const double got = kt::get_elem(p.ddt, db.data(), off);
            if (!kt::dst_ok(p.ddt, got, v, tol) && bad++ < 3)
                std::fprintf(stderr, "  mb%ld oc%ld: got %.6g want %.6g (tol %.3g)\n", (long)n, (long)o, got, v, tol);
        }
    return bad == 0;
}

dnnl_memory_desc_t src_md(const prb_t &p, dnnl_data_type_t dt) {
    dnnl_dims_t d = {p.mb, p.ic};
    for (int i = 0; i < p.nd - 2; ++i) d[2 + i] = p.sp[i];
    dnnl_memory_desc_t md;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, p.nd, d, dt, p.src_tag));
    return md;
}
dnnl_memory_desc_t wei_md(const prb_t &p, dnnl_data_type_t dt) {
    dnnl_dims_t d = {p.oc, p.ic};
    for (int i = 0; i < p.nd - 2; ++i) d[2 + i] = p.sp[i];
    dnnl_memory_desc_t md;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, p.nd, d, dt, p.wei_tag));
    return md;
}

dnnl_status_t make_pd(dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const prb_t &p, dnnl_data_type_t wdt,
        int64_t dst_oc, const_dnnl_primitive_attr_t attr) {
    kt::md_t s(src_md(p, p.sdt)), w(wei_md(p, wdt));
    kt::md_t d(kt::make_md({p.mb, dst_oc}, p.ddt, dnnl_format_tag_any));
    kt::md_t b(p.bdt == dnnl_data_type_undef ? nullptr : kt::make_md({p.oc}, p.bdt, dnnl_a));
    return dnnl_inner_product_forward_primitive_desc_create(pd, eng, dnnl_forward_inference, s, w, b, d, attr);
}

void run_case(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const prb_t &p, const char *what) {
    dnnl_primitive_attr_t attr = p.q.attr(2, p.oc);
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = make_pd(&pd, eng, p, dnnl_s8, p.oc, attr);
    dnnl_primitive_attr_destroy(attr);
    kt::check_pd(t, st, pd, p.want_impl, "ref:any", what,
            [&](const_dnnl_primitive_desc_t x) { return run_pd(eng, strm, x, p); });
}

prb_t base(int64_t mb, int64_t ic, int64_t oc, int nd, dnnl_format_tag_t stag, dnnl_format_tag_t wtag) {
    prb_t p {};
    p.mb = mb, p.ic = ic, p.oc = oc, p.nd = nd;
    p.sp[0] = 3, p.sp[1] = 2, p.sp[2] = 2;
    p.sdt = dnnl_u8, p.ddt = dnnl_u8, p.bdt = dnnl_data_type_undef;
    p.src_tag = stag, p.wei_tag = wtag;
    p.want_impl = "gemm:s8";
    return p;
}

void bad_input(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm) {
    prb_t p = base(3, 8, 5, 2, dnnl_ab, dnnl_ab);
    dnnl_primitive_desc_t pd = nullptr;
    t.check(make_pd(&pd, eng, p, dnnl_u8, p.oc, nullptr) == dnnl_unimplemented, "u8 weights: unimplemented");
    t.check(make_pd(&pd, eng, p, dnnl_s8, p.oc + 1, nullptr) == dnnl_invalid_arguments,
            "dst OC differs from weights: invalid_arguments");
    p.q.dst_zp = true, p.q.dst_zp_v = 1;
    dnnl_primitive_attr_t a = p.q.attr(2, p.oc);
    KT_OK(make_pd(&pd, eng, p, dnnl_s8, p.oc, a));
    dnnl_primitive_attr_destroy(a);
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<uint8_t> s(24, 1), w(40, 1), d(15, 0xcd);
    dnnl_memory_t ms, mw, md;
    KT_OK(dnnl_memory_create(&ms, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), eng, s.data()));
    KT_OK(dnnl_memory_create(&mw, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), eng, w.data()));
    KT_OK(dnnl_memory_create(&md, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), eng, d.data()));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    t.check(dnnl_primitive_execute(prim, strm, 3, args) == dnnl_invalid_arguments,
            "missing dst zero point: invalid_arguments");
    bool untouched = true;
    for (uint8_t v : d) untouched = untouched && v == 0xcd;
    t.check(untouched, "failed execution wrote nothing");
    for (auto m : {ms, mw, md}) dnnl_memory_destroy(m);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
}

// What gemm:s8 makes of 2D `any` weights: blocked, dims and data type
// kept, OC padded to its block and IC to 4 (the reorder's output then
// holds zeros there), and the same descriptor passed back in is taken as
// it is by gemm:s8. 4D `any` weights stay plain (the layout's groups of 4
// would cut across the spatial dims).
void packed_layout(kt::tally_t &t, dnnl_engine_t eng) {
    for (int64_t ic : {1, 4, 37}) {
        const prb_t p = base(8, ic, 50, 2, dnnl_ab, dnnl_format_tag_any);
        dnnl_primitive_desc_t pd = nullptr;
        KT_OK(make_pd(&pd, eng, p, dnnl_s8, p.oc, nullptr));
        const_dnnl_memory_desc_t w = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        const kt::md_fields_t f(w);
        const int nd = f.ndims, nblks = f.inner_nblks;
        const dnnl_data_type_t dt = f.dt;
        const dnnl_dims_t *dims = f.dims, *pdims = f.padded_dims, *blks = f.inner_blks, *idxs = f.inner_idxs;
        const int64_t nr = nblks == 2 ? (*blks)[0] : 0;
        char what[96];
        std::snprintf(what, sizeof what, "2D any weights (IC %ld): blocked OC x 4 IC, padded", (long)ic);
        t.check(nd == 2 && dt == dnnl_s8 && (*dims)[0] == p.oc && (*dims)[1] == ic && nblks == 2
                        && (*idxs)[0] == 0 && (*idxs)[1] == 1 && (*blks)[1] == 4 && nr % 16 == 0 && nr > 0
                        && (*pdims)[0] == (p.oc + nr - 1) / nr * nr && (*pdims)[1] == (ic + 3) / 4 * 4
                        && dnnl_memory_desc_get_size(w) == (size_t)((*pdims)[0] * (*pdims)[1]),
                what);
        // The reorder from ab leaves zeros in the padding: every byte of
        // the padded layout comes from a weight or is zero, so the sum of
        // the bytes equals the sum of the weights.
        std::vector<int8_t> wab((size_t)(p.oc * ic)), wpk(dnnl_memory_desc_get_size(w), 9);
        kt::rng_t r((uint64_t)ic);
        int64_t want = 0, got = 0;
        for (auto &v : wab) want += v = (int8_t)(r.next() % 255 - 127);
        dnnl_stream_t strm;
        KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
        kt::md_t ab(kt::make_md({p.oc, ic}, dnnl_s8, dnnl_ab));
        reorder(eng, strm, ab, wab.data(), w, wpk.data());
        for (int8_t v : wpk) got += v;
        std::snprintf(what, sizeof what, "2D any weights (IC %ld): reorder zero-fills the padding", (long)ic);
        t.check(got == want, what);
        // The queried descriptor given back: gemm:s8 again, same layout.
        dnnl_primitive_desc_t pd2 = nullptr;
        kt::md_t s(src_md(p, p.sdt)), d(kt::make_md({p.mb, p.oc}, p.ddt, dnnl_ab));
        const dnnl_status_t st
                = dnnl_inner_product_forward_primitive_desc_create(&pd2, eng, dnnl_forward_inference, s, w, nullptr, d, nullptr);
        const char *impl = "";
        if (st == dnnl_success) dnnl_primitive_desc_query(pd2, dnnl_query_impl_info_str, 0, &impl);
        std::snprintf(what, sizeof what, "2D packed weights passed in (IC %ld): gemm:s8, same layout", (long)ic);
        t.check(st == dnnl_success && std::string(impl) == "gemm:s8"
                        && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd2, dnnl_query_weights_md, 0), w),
                what);
        if (pd2) dnnl_primitive_desc_destroy(pd2);
        dnnl_stream_destroy(strm);
        dnnl_primitive_desc_destroy(pd);
    }
    const prb_t p = base(2, 3, 5, 4, dnnl_abcd, dnnl_format_tag_any);
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(make_pd(&pd, eng, p, dnnl_s8, p.oc, nullptr));
    t.check(inner_nblks(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0)) == 0, "4D any weights: plain");
    dnnl_primitive_desc_destroy(pd);
}

// C++ API: u8 x s8 -> s32 with `any` layouts (exact).
void cpp_api(kt::tally_t &t) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    const memory::dims sd = {4, 6, 3, 3}, wd = {10, 6, 3, 3}, dd = {4, 10};
    inner_product_forward::primitive_desc pd(eng, prop_kind::forward_inference,
            memory::desc(sd, memory::data_type::u8, memory::format_tag::any),
            memory::desc(wd, memory::data_type::s8, memory::format_tag::any),
            memory::desc(dd, memory::data_type::s32, memory::format_tag::any));
    t.check(std::string(pd.impl_info_str()) == "gemm:s8", "C++: gemm:s8 chosen");
    memory src(pd.src_desc(), eng), wei(pd.weights_desc(), eng), dst(pd.dst_desc(), eng);
    const kt::plain_layout_t sl(pd.src_desc().get()), wl(pd.weights_desc().get()), dl(pd.dst_desc().get());
    std::vector<int> S(4 * 54), W(10 * 54);
    kt::rng_t r(3);
    for (auto &v : S) v = (int)(r.next() % 256);
    for (auto &v : W) v = (int)(r.next() % 256) - 128;
    for (int n = 0; n < 4; ++n)
        for (int k = 0; k < 54; ++k) {
            const int64_t pos[4] = {n, k / 9, k / 3 % 3, k % 3};
            ((uint8_t *)src.get_data_handle())[sl.off(pos)] = (uint8_t)S[n * 54 + k];
        }
    for (int o = 0; o < 10; ++o)
        for (int k = 0; k < 54; ++k) {
            const int64_t pos[4] = {o, k / 9, k / 3 % 3, k % 3};
            ((int8_t *)wei.get_data_handle())[wl.off(pos)] = (int8_t)W[o * 54 + k];
        }
    inner_product_forward(pd).execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    s.wait();
    int bad = 0;
    for (int n = 0; n < 4; ++n)
        for (int o = 0; o < 10; ++o) {
            int64_t acc = 0;
            for (int k = 0; k < 54; ++k) acc += (int64_t)S[n * 54 + k] * W[o * 54 + k];
            const int64_t pos[2] = {n, o};
            if (((const int32_t *)dst.get_data_handle())[dl.off(pos)] != acc) ++bad;
        }
    t.check(bad == 0, "C++: u8 x s8 -> s32 exact");
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    std::vector<std::pair<prb_t, const char *>> cases;
    auto add = [&](const prb_t &p, const char *w) { cases.push_back({p, w}); };
    {
        prb_t p = base(7, 37, 19, 2, dnnl_format_tag_any, dnnl_format_tag_any);
        p.q.src_scale = 0.5f, p.q.wei_scales = {0.125f}, p.q.dst_scale = 4.f;
        p.q.dst_zp = true, p.q.dst_zp_v = 7, p.q.elt = dnnl_eltwise_relu;
        add(p, "2D any, u8->u8, scales, dst zp, relu");
    }
    {
        prb_t p = base(5, 6, 9, 4, dnnl_abcd, dnnl_format_tag_any);
        p.sdt = dnnl_s8, p.ddt = dnnl_s8, p.bdt = dnnl_f32;
        p.q.src_scale = 0.25f, p.q.wei_scales = {0.5f}, p.q.dst_scale = 8.f;
        p.q.sum = true, p.q.sum_first = true, p.q.sum_scale = 0.5f;
        add(p, "4D nchw, s8->s8, f32 bias, leading sum (GEMM beta)");
    }
    {
        prb_t p = base(6, 5, 33, 4, dnnl_acdb, dnnl_acdb);
        p.ddt = dnnl_s32, p.bdt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = 77;
        add(p, "4D nhwc, s32 dst exact, src zp, s32 bias");
    }
    {
        prb_t p = base(9, 50, 17, 2, dnnl_ab, dnnl_ba);
        p.ddt = dnnl_f32, p.q.wei_scales.assign(17, 0.f);
        for (int i = 0; i < 17; ++i) p.q.wei_scales[i] = 0.125f * (float)(i % 5 + 1);
        p.q.bin = true;
        for (int i = 0; i < 17; ++i) p.q.bin_v.push_back((float)(i - 8) * 0.5f);
        add(p, "2D weights ba (B not transposed), per-oc scales, binary add, f32 dst");
    }
    {
        prb_t p = base(4, 7, 12, 3, dnnl_abc, dnnl_abc);
        p.ddt = dnnl_bf16, p.bdt = dnnl_u8, p.q.wei_scales = {0.25f};
        add(p, "3D ncw, bf16 dst, u8 bias");
    }
    {
        prb_t p = base(3, 4, 8, 5, dnnl_acdeb, dnnl_acdeb);
        p.sdt = dnnl_s8, p.ddt = dnnl_s8, p.q.src_zp = true, p.q.src_zp_v = -20, p.q.dst_scale = 0.02f;
        add(p, "5D ndhwc, s8 src zp, s8 dst saturating");
    }
    {
        prb_t p = base(3, 9, 6, 2, dnnl_ab, dnnl_ab);
        p.ddt = dnnl_u8, p.q.sum = true, p.q.sum_zp = 4, p.q.wei_scales = {0.5f};
        p.want_impl = "ref:any";
        add(p, "sum with zero point (reference)");
    }
    {
        prb_t p = base(3, 5, 6, 4, dnnl_abcd, dnnl_acdb);
        p.ddt = dnnl_s32, p.want_impl = "ref:any";
        add(p, "src nchw with weights nhwc (reference)");
    }
    {
        // K = 150 (not a multiple of 4), OC = 100 (not of the panel width),
        // enough work for 2 threads: s8 src (column sums from the packed
        // weights), per-OC scales, bias, s8 dst.
        prb_t p = base(40, 150, 100, 2, dnnl_ab, dnnl_format_tag_any);
        p.sdt = dnnl_s8, p.ddt = dnnl_s8, p.bdt = dnnl_f32, p.q.src_scale = 0.5f, p.q.dst_scale = 0.05f;
        for (int i = 0; i < 100; ++i) p.q.wei_scales.push_back(0.0625f * (float)(i % 3 + 1));
        add(p, "2D any (packed weights), s8 src, per-oc scales, f32 bias");
    }
    {
        prb_t p = base(33, 201, 49, 2, dnnl_ab, dnnl_format_tag_any);
        p.ddt = dnnl_s32, p.bdt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = 13;
        add(p, "2D any (packed weights), u8 src zp, s32 dst exact");
    }
    {
        prb_t p = base(1, 3, 1, 2, dnnl_ab, dnnl_format_tag_any);
        p.sdt = dnnl_s8, p.ddt = dnnl_f32, p.q.src_zp = true, p.q.src_zp_v = -5;
        add(p, "2D any (packed weights), 1x3 -> 1, s8 src zp");
    }
    {
        prb_t p = base(17, 64, 96, 2, dnnl_ab, dnnl_format_tag_any);
        p.ddt = dnnl_u8, p.q.wei_scales = {0.03125f}, p.q.elt = dnnl_eltwise_relu;
        p.q.sum = true, p.q.sum_first = true, p.q.sum_scale = 1.f;
        add(p, "2D any (packed weights), no tails, leading sum, relu");
    }
    // No output stage (scales folded into alpha, no bias, post-op or dst
    // scale): the vector store of the int8 epilogue, saturating both ends.
    {
        prb_t p = base(20, 300, 70, 2, dnnl_ab, dnnl_format_tag_any);
        p.ddt = dnnl_s8, p.q.wei_scales = {0.001f};
        add(p, "2D any, u8 -> s8, common scale only (saturates)");
    }
    {
        prb_t p = base(11, 130, 53, 2, dnnl_ab, dnnl_ab);
        p.sdt = dnnl_s8, p.ddt = dnnl_u8, p.q.src_zp = true, p.q.src_zp_v = 9, p.q.src_scale = 0.004f;
        add(p, "2D ab, s8 src zp -> u8, common scale only (saturates)");
    }
    {
        prb_t p = base(5, 77, 29, 2, dnnl_ab, dnnl_format_tag_any);
        p.ddt = dnnl_f32, p.q.src_zp = true, p.q.src_zp_v = 200;
        add(p, "2D any, u8 src zp -> f32, no scales");
    }
    for (auto &c : cases) run_case(t, eng, strm, c.first, c.second);
    packed_layout(t, eng);
    bad_input(t, eng, strm);
    cpp_api(t);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
