// Inner product forward through the C API: the GEMM-based implementation
// and the reference (next_impl), each against a naive dot-product loop plus
// the naive attribute math of test/common (no library code), for 2D-5D
// sources in plain and channels-last layouts, with bias, scales and
// post-ops; then bad input. Small-integer data and power-of-two scales keep
// every step exact, so results must be identical to the naive ones.
#include <cstring>
#include <string>
#include <vector>

#include "../common/kt_test.hpp"
#include "../common/naive_attr.hpp"
#include "../common/naive_gemm.hpp"

namespace {

kt::tally_t T;
dnnl_engine_t eng;
dnnl_stream_t strm;

// Owns a copy of its md: pd query results die with next_impl.
struct buf_t {
    dnnl_memory_desc_t md = nullptr;
    std::vector<float> v;
    buf_t() = default;
    buf_t(const buf_t &) = delete;
    ~buf_t() { dnnl_memory_desc_destroy(md); }
    void init(const_dnnl_memory_desc_t m, uint64_t seed) {
        KT_OK(dnnl_memory_desc_clone(&md, m));
        v.assign(dnnl_memory_desc_get_size(m) / sizeof(float), 0.f);
        kt::rng_t r(seed);
        for (auto &x : v) x = r.small_int(-3, 3);
    }
};

dnnl_status_t run(const_dnnl_primitive_desc_t pd, std::vector<std::pair<int, buf_t *>> args, float *dst_data) {
    dnnl_primitive_t p;
    dnnl_status_t st = dnnl_primitive_create(&p, pd);
    if (st != dnnl_success) return st;
    std::vector<dnnl_exec_arg_t> ea;
    for (auto &a : args) {
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, a.second->md, eng, a.first == DNNL_ARG_DST ? dst_data : a.second->v.data()));
        ea.push_back({a.first, m});
    }
    st = dnnl_primitive_execute(p, strm, (int)ea.size(), ea.data());
    for (auto &e : ea) dnnl_memory_destroy(e.memory);
    dnnl_primitive_destroy(p);
    return st;
}

void one(int nd, dnnl_dim_t MB, dnnl_dim_t IC, dnnl_dim_t OC, dnnl_dim_t sp, bool cl, int po, bool scales,
        int nthr) {
    dnnl_dims_t sd = {MB, IC, sp, sp + 1, 2}, wd = {OC, IC, sp, sp + 1, 2};
    const dnnl_format_tag_t plain[] = {dnnl_a, dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde};
    const dnnl_format_tag_t chl[] = {dnnl_a, dnnl_a, dnnl_ab, dnnl_acb, dnnl_acdb, dnnl_acdeb};
    dnnl_memory_desc_t smd, wmd, dmd, bmd, wany;
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, nd, sd, dnnl_f32, cl ? chl[nd] : plain[nd]));
    KT_OK(dnnl_memory_desc_create_with_tag(&wany, nd, wd, dnnl_f32, dnnl_format_tag_any));
    dnnl_dims_t dd = {MB, OC}, bd = {OC}, one = {1}, oc = {OC};
    KT_OK(dnnl_memory_desc_create_with_tag(&dmd, 2, dd, dnnl_f32, dnnl_format_tag_any));
    KT_OK(dnnl_memory_desc_create_with_tag(&bmd, 1, bd, dnnl_f32, dnnl_a));
    dnnl_memory_desc_t binmd, s1md, socmd, dab;
    dnnl_dims_t bind = {1, OC};
    KT_OK(dnnl_memory_desc_create_with_tag(&binmd, 2, po == 2 ? bind : dd, dnnl_f32, dnnl_ab));
    KT_OK(dnnl_memory_desc_create_with_tag(&s1md, 1, one, dnnl_f32, dnnl_a));
    KT_OK(dnnl_memory_desc_create_with_tag(&socmd, 1, oc, dnnl_f32, dnnl_a));
    KT_OK(dnnl_memory_desc_create_with_tag(&dab, 2, dd, dnnl_f32, dnnl_ab));
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    dnnl_post_ops_t pops;
    KT_OK(dnnl_post_ops_create(&pops));
    if (po == 1) {
        KT_OK(dnnl_post_ops_append_sum(pops, 2.f, 0, dnnl_data_type_undef));
        KT_OK(dnnl_post_ops_append_eltwise(pops, dnnl_eltwise_relu, 0.5f, 0.f));
    } else if (po >= 2) {
        KT_OK(dnnl_post_ops_append_binary(pops, po == 2 ? dnnl_binary_add : dnnl_binary_max, binmd));
    }
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, pops));
    dnnl_post_ops_destroy(pops);
    if (scales) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 1 << 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    }
    dnnl_primitive_desc_t pd;
    char what[160];
    std::snprintf(what, sizeof(what), "ip nd=%d MB=%ld IC=%ld OC=%ld sp=%ld cl=%d po=%d sc=%d thr=%d", nd,
            (long)MB, (long)IC, (long)OC, (long)sp, cl, po, scales, nthr);
    dnnl_status_t st = dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, smd,
            wany, bmd, dmd, attr);
    dnnl_primitive_attr_destroy(attr);
    bool ok = st == dnnl_success;
    if (ok) {
        buf_t s, w, b, d, bin, ws, ds;
        s.init(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), 1);
        w.init(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), 2);
        b.init(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1), 3);
        d.init(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), 4);
        bin.init(binmd, 5);
        ws.init(socmd, 6);
        for (size_t i = 0; i < ws.v.size(); ++i) ws.v[i] = i % 2 ? 0.5f : 2.f;
        ds.init(s1md, 7);
        ds.v[0] = 4.f;
        ok = dnnl_memory_desc_equal(d.md, dab) == 1;
        std::vector<std::pair<int, buf_t *>> args = {{DNNL_ARG_SRC, &s}, {DNNL_ARG_WEIGHTS, &w},
                {DNNL_ARG_BIAS, &b}, {DNNL_ARG_DST, &d}};
        if (po >= 2) args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, &bin});
        if (scales) {
            args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, &ws});
            args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, &ds});
        }
        // Expected: dst[mb][oc] = sum over ic and spatial of src * wei, read
        // in logical order from whatever plain layouts the pd holds.
        std::vector<float> sv, wv;
        std::vector<int64_t> sdims;
        ok = ok && na::logical(s.md, s.v.data(), sv, &sdims) && na::logical(w.md, w.v.data(), wv);
        if (!ok) std::fprintf(stderr, "%s: src or weights layout is not plain strided\n", what);
        const int64_t K = (int64_t)(sv.size() / (size_t)MB);
        std::vector<float> wt(wv.size()); // (OC, K) -> (K, OC)
        for (int64_t o = 0; o < OC && ok; ++o)
            for (int64_t k = 0; k < K; ++k) wt[(size_t)(k * OC + o)] = wv[(size_t)(o * K + k)];
        std::vector<double> acc;
        na::matmul(sv, {MB, K}, wt, {K, OC}, {MB, OC}, acc);
        na::attr_t na_attr;
        if (scales) {
            na_attr.wei_scale = na::along(2, 1, ws.v);
            na_attr.dst_scale = na::scalar(2, ds.v[0]);
        }
        if (po == 1) na_attr.post_ops = {na::sum_op(2.f), na::eltwise_op(dnnl_eltwise_relu, 0.5f, 0.f)};
        if (po >= 2)
            na_attr.post_ops = {na::binary_op(po == 2 ? dnnl_binary_add : dnnl_binary_max,
                    {po == 2 ? na::dims_t {1, OC} : na::dims_t {MB, OC}, bin.v})};
        std::vector<double> tol;
        const std::vector<float> want = na::apply(na_attr, {MB, OC}, acc, na::along(2, 1, b.v), d.v, dnnl_f32,
                nullptr, &tol);
        std::vector<float> out0 = d.v, out1 = d.v;
        const std::string first = kt::impl_name(pd), w0 = std::string(what) + " [" + first + "]";
        std::string second;
        kt::with_threads(nthr, [&] {
            ok = ok && first.rfind("gemm", 0) == 0 && run(pd, args, out0.data()) == dnnl_success;
            while (ok && kt::impl_name(pd).rfind("ref", 0) != 0) ok = dnnl_primitive_desc_next_impl(pd) == dnnl_success;
            ok = ok && run(pd, args, out1.data()) == dnnl_success;
        });
        second = std::string(what) + " [" + kt::impl_name(pd) + "]";
        ok = ok && na::match(out0, want, tol, w0.c_str()) && na::match(out1, want, tol, second.c_str());
        dnnl_primitive_desc_destroy(pd);
    }
    T.check(ok, what);
    for (auto m : {smd, wmd = wany, dmd, bmd, binmd, s1md, socmd, dab}) dnnl_memory_desc_destroy(m);
}

void bad_input() {
    kt::md_t s(kt::make_md({2, 3, 4, 4}, dnnl_f32, dnnl_abcd)), w(kt::make_md({5, 3, 4, 4}, dnnl_f32, dnnl_abcd)),
            wbad(kt::make_md({5, 2, 4, 4}, dnnl_f32, dnnl_abcd)), d(kt::make_md({2, 5}, dnnl_f32, dnnl_ab)),
            dbad(kt::make_md({3, 5}, dnnl_f32, dnnl_ab)), bbad(kt::make_md({4}, dnnl_f32, dnnl_a)),
            s8(kt::make_md({2, 3, 4, 4}, dnnl_s8, dnnl_abcd));
    dnnl_primitive_desc_t pd;
    T.check(dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, s, wbad, nullptr, d,
                    nullptr) == dnnl_invalid_arguments, "ip: IC mismatch");
    T.check(dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, s, w, nullptr, dbad,
                    nullptr) == dnnl_invalid_arguments, "ip: MB mismatch");
    T.check(dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, s, w, bbad, d,
                    nullptr) == dnnl_invalid_arguments, "ip: bias dims");
    T.check(dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_backward_data, s, w, nullptr, d,
                    nullptr) == dnnl_invalid_arguments, "ip: backward prop kind");
    T.check(dnnl_inner_product_forward_primitive_desc_create(nullptr, eng, dnnl_forward_inference, s, w, nullptr, d,
                    nullptr) == dnnl_invalid_arguments, "ip: NULL pd");
    T.check(dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, s8, w, nullptr, d,
                    nullptr) == dnnl_unimplemented, "ip: s8 src unimplemented");
    KT_OK(dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_training, s, w, nullptr, d, nullptr));
    dnnl_prop_kind_t pk;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &pk));
    T.check(pk == dnnl_forward_training, "ip: prop kind query");
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    int idx = 0;
    for (int nd : {2, 3, 4, 5})
        for (dnnl_dim_t IC : {1, 3, 16, 17})
            for (dnnl_dim_t OC : {1, 15, 33}) {
                ++idx;
                one(nd, idx % 3 == 0 ? 1 : 7, IC, OC, 1 + idx % 3, nd > 2 && idx % 2, idx % 4, idx % 5 == 0 && idx % 4 != 1,
                        1 + idx % 2);
            }
    one(4, 64, 64, 100, 7, true, 1, false, 2); // K = 64*7*8*... crosses the K block
    bad_input();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return T.finish();
}
