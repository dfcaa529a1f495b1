// The ternary binary post-op (dnnl_post_ops_append_binary_v2 with
// dnnl_binary_select): v = src2 ? v : src1, src1 and src2 broadcast onto
// dst, src2 an s8 condition passed as DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) |
// DNNL_ARG_SRC_2. Checked against a naive reference written here on
// eltwise (plain and channels-last dst, where the vectorised kernels permute
// the sources), binary, matmul and convolution, alone and in chains, with
// 1 and 2 threads; and the API around it: the getters, the argument
// descriptor query, the statuses of malformed sources and of an execution
// without the condition (which writes nothing).
//
// Exactness: every input is a small integer (|x| <= 4) and every reduction
// has at most 27 terms, so each value is an exact f32 integer whatever the
// order of the sums; the reference and the library must agree exactly.
#include <cstring>
#include <functional>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"
#include "common/kt_test.hpp"

namespace {

using namespace dnnl;
using dt = memory::data_type;
using tag = memory::format_tag;
using dims = memory::dims;

kt::tally_t t;
engine eng(engine::kind::cpu, 0);
stream strm(eng);

int64_t count(const dims &d) {
    int64_t n = 1;
    for (auto x : d) n *= x;
    return n;
}

// Row-major index of position pos in a tensor of dims d, with dims of size
// 1 broadcast (index 0).
int64_t bidx(const dims &d, const dims &pos) {
    int64_t off = 0;
    for (size_t i = 0; i < d.size(); ++i) off = off * d[i] + (d[i] == 1 ? 0 : pos[i]);
    return off;
}

dims unflat(const dims &d, int64_t i) {
    dims p(d.size());
    for (int k = (int)d.size() - 1; k >= 0; --k) {
        p[k] = i % d[k];
        i /= d[k];
    }
    return p;
}

tag plain_tag(const dims &d) {
    const tag tags[] = {tag::undef, tag::a, tag::ab, tag::abc, tag::abcd};
    return d.size() <= 4 ? tags[d.size()] : tag::undef;
}

// A memory of logical row-major values `v` in layout `md` (reordered from
// a plain f32 / s8 copy).
memory make_mem(const memory::desc &md, const std::vector<float> &v) {
    memory m(md, eng);
    const dims d = md.get_dims();
    memory::desc plain(d, md.get_data_type(), plain_tag(d));
    memory p(plain, eng);
    if (md.get_data_type() == dt::s8) {
        auto *q = static_cast<int8_t *>(p.get_data_handle());
        for (size_t i = 0; i < v.size(); ++i) q[i] = (int8_t)v[i];
    } else {
        std::memcpy(p.get_data_handle(), v.data(), v.size() * sizeof(float));
    }
    reorder(p, m).execute(strm, p, m);
    strm.wait();
    return m;
}

std::vector<float> read_mem(memory m) {
    const dims d = m.get_desc().get_dims();
    memory::desc plain(d, dt::f32, plain_tag(d));
    memory p(plain, eng);
    reorder(m, p).execute(strm, m, p);
    strm.wait();
    const float *q = static_cast<const float *>(p.get_data_handle());
    return std::vector<float>(q, q + count(d));
}

std::vector<float> ints(int64_t n, uint64_t seed, int lo = -4, int hi = 4) {
    kt::rng_t r(seed);
    std::vector<float> v((size_t)n);
    for (auto &x : v) x = r.small_int(lo, hi);
    return v;
}

// One select post-op (optionally after a linear eltwise): its sources and
// the reference of the chain for a dst element.
struct sel_t {
    dims dst, s1, s2;
    tag s1_tag, s2_tag;
    bool linear_first;
    std::vector<float> v1, v2;
    sel_t(const dims &d, const dims &a, const dims &b, tag ta, tag tb, bool lin)
        : dst(d), s1(a), s2(b), s1_tag(ta), s2_tag(tb), linear_first(lin) {
        v1 = ints(count(a), 11);
        v2 = ints(count(b), 12, -1, 1); // about a third zero
    }
    primitive_attr attr() const {
        post_ops po;
        if (linear_first) po.append_eltwise(algorithm::eltwise_linear, 2.f, -1.f);
        po.append_binary(algorithm::binary_select, memory::desc(s1, dt::f32, s1_tag), memory::desc(s2, dt::s8, s2_tag));
        primitive_attr a;
        a.set_post_ops(po);
        return a;
    }
    int index() const { return linear_first ? 1 : 0; }
    void add_args(std::unordered_map<int, memory> &args) const {
        args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(index()) | DNNL_ARG_SRC_1] = make_mem(memory::desc(s1, dt::f32, s1_tag), v1);
        args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(index()) | DNNL_ARG_SRC_2] = make_mem(memory::desc(s2, dt::s8, s2_tag), v2);
    }
    float ref(float v, int64_t i) const {
        const dims p = unflat(dst, i);
        if (linear_first) v = 2.f * v - 1.f;
        return v2[bidx(s2, p)] != 0.f ? v : v1[bidx(s1, p)];
    }
};

std::string name(const char *what, const sel_t &s) {
    std::string n = what;
    n += s.linear_first ? " (linear, select)" : " (select)";
    n += " src1 ";
    for (auto x : s.s1) n += std::to_string(x) + ",";
    n += " src2 ";
    for (auto x : s.s2) n += std::to_string(x) + ",";
    return n;
}

void check_eq(const std::vector<float> &got, const std::vector<float> &want, const std::string &what) {
    t.check(got.size() == want.size() && kt::max_rel_diff(got.data(), want.data(), got.size()) == 0.0, what.c_str());
}

// Eltwise relu on a dst of layout `dtag` (nhwc: the vectorised kernel
// permutes the sources to physical order).
void test_eltwise(const sel_t &s, tag dtag) {
    memory::desc md(s.dst, dt::f32, dtag);
    eltwise_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::eltwise_relu, md, md, 0.f, 0.f,
            s.attr());
    const std::vector<float> x = ints(count(s.dst), 3);
    std::unordered_map<int, memory> args {{DNNL_ARG_SRC, make_mem(md, x)}, {DNNL_ARG_DST, memory(md, eng)}};
    s.add_args(args);
    eltwise_forward(pd).execute(strm, args);
    strm.wait();
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = s.ref(x[i] > 0 ? x[i] : 0.f, (int64_t)i);
    check_eq(read_mem(args[DNNL_ARG_DST]), want, name(dtag == tag::nhwc ? "eltwise nhwc" : "eltwise nchw", s));
}

void test_binary(const sel_t &s) {
    memory::desc md(s.dst, dt::f32, tag::abcd);
    binary::primitive_desc pd(eng, algorithm::binary_sub, md, md, md, s.attr());
    const std::vector<float> a = ints(count(s.dst), 4), b = ints(count(s.dst), 5);
    std::unordered_map<int, memory> args {
            {DNNL_ARG_SRC_0, make_mem(md, a)}, {DNNL_ARG_SRC_1, make_mem(md, b)}, {DNNL_ARG_DST, memory(md, eng)}};
    s.add_args(args);
    binary(pd).execute(strm, args);
    strm.wait();
    std::vector<float> want(a.size());
    for (size_t i = 0; i < a.size(); ++i) want[i] = s.ref(a[i] - b[i], (int64_t)i);
    check_eq(read_mem(args[DNNL_ARG_DST]), want, name("binary sub", s));
}

// Matmul M x K by K x N with bias; s over dst dims {M, N}.
void test_matmul(const sel_t &s, int64_t K) {
    const int64_t M = s.dst[0], N = s.dst[1];
    memory::desc a_md({M, K}, dt::f32, tag::ab), b_md({K, N}, dt::f32, tag::ab), c_md({1, N}, dt::f32, tag::ab),
            d_md({M, N}, dt::f32, tag::ab);
    matmul::primitive_desc pd(eng, a_md, b_md, c_md, d_md, s.attr());
    const std::vector<float> a = ints(M * K, 6), b = ints(K * N, 7), c = ints(N, 8);
    std::unordered_map<int, memory> args {{DNNL_ARG_SRC, make_mem(a_md, a)}, {DNNL_ARG_WEIGHTS, make_mem(b_md, b)},
            {DNNL_ARG_BIAS, make_mem(c_md, c)}, {DNNL_ARG_DST, memory(d_md, eng)}};
    s.add_args(args);
    matmul(pd).execute(strm, args);
    strm.wait();
    std::vector<float> want((size_t)(M * N));
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            double acc = c[n];
            for (int64_t k = 0; k < K; ++k) acc += (double)a[m * K + k] * b[k * N + n];
            want[m * N + n] = s.ref((float)acc, m * N + n);
        }
    check_eq(read_mem(args[DNNL_ARG_DST]), want, name("matmul", s));
}

// 3x3 convolution, padding 1, stride 1, bias; dst layout `any` (the
// implementation picks; blocked layouts take the sources through the
// layout helper).
void test_conv(const sel_t &s, tag dtag) {
    const int64_t N = s.dst[0], OC = s.dst[1], H = s.dst[2], W = s.dst[3], IC = 3;
    memory::desc s_md({N, IC, H, W}, dt::f32, tag::nchw), w_md({OC, IC, 3, 3}, dt::f32, tag::oihw),
            b_md({OC}, dt::f32, tag::a), d_md({N, OC, H, W}, dt::f32, dtag);
    convolution_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::convolution_direct, s_md, w_md,
            b_md, d_md, {1, 1}, {1, 1}, {1, 1}, s.attr());
    const std::vector<float> x = ints(N * IC * H * W, 9), w = ints(OC * IC * 9, 10, -1, 1), b = ints(OC, 13);
    std::unordered_map<int, memory> args {{DNNL_ARG_SRC, make_mem(s_md, x)}, {DNNL_ARG_WEIGHTS, make_mem(w_md, w)},
            {DNNL_ARG_BIAS, make_mem(b_md, b)}, {DNNL_ARG_DST, memory(pd.dst_desc(), eng)}};
    s.add_args(args);
    convolution_forward(pd).execute(strm, args);
    strm.wait();
    std::vector<float> want((size_t)count(s.dst));
    for (int64_t n = 0; n < N; ++n)
        for (int64_t oc = 0; oc < OC; ++oc)
            for (int64_t oh = 0; oh < H; ++oh)
                for (int64_t ow = 0; ow < W; ++ow) {
                    double acc = b[oc];
                    for (int64_t ic = 0; ic < IC; ++ic)
                        for (int64_t kh = 0; kh < 3; ++kh)
                            for (int64_t kw = 0; kw < 3; ++kw) {
                                const int64_t ih = oh - 1 + kh, iw = ow - 1 + kw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                acc += (double)x[((n * IC + ic) * H + ih) * W + iw] * w[((oc * IC + ic) * 3 + kh) * 3 + kw];
                            }
                    const int64_t i = ((n * OC + oc) * H + oh) * W + ow;
                    want[(size_t)i] = s.ref((float)acc, i);
                }
    check_eq(read_mem(args[DNNL_ARG_DST]), want,
            name(dtag == tag::any ? "convolution (dst any)" : "convolution nchw", s) + " impl " + pd.impl_info_str());
}

void test_api() {
    const dnnl_dims_t d2 = {3, 5}, d2b = {1, 5}, d3 = {3, 5, 1};
    kt::md_t s1(kt::make_md({3, 5}, dnnl_f32, dnnl_ab)), s2(kt::make_md({1, 5}, dnnl_s8, dnnl_ab)),
            s2f(kt::make_md({3, 5}, dnnl_f32, dnnl_ab)), s2r(kt::make_md({3, 5, 1}, dnnl_s8, dnnl_abc));
    (void)d2, (void)d2b, (void)d3;
    dnnl_post_ops_t po = nullptr;
    KT_OK(dnnl_post_ops_create(&po));
    t.check(dnnl_post_ops_append_binary_v2(po, dnnl_binary_select, s1, nullptr) == dnnl_invalid_arguments,
            "select without src2: invalid_arguments");
    t.check(dnnl_post_ops_append_binary(po, dnnl_binary_select, s1) == dnnl_invalid_arguments,
            "select through append_binary (no src2): invalid_arguments");
    t.check(dnnl_post_ops_len(po) == 0, "nothing appended on failure");
    KT_OK(dnnl_post_ops_append_binary_v2(po, dnnl_binary_add, s1, s2));
    KT_OK(dnnl_post_ops_append_binary_v2(po, dnnl_binary_select, s1, s2));
    dnnl_alg_kind_t alg;
    const_dnnl_memory_desc_t m1 = nullptr, m2 = nullptr;
    KT_OK(dnnl_post_ops_get_params_binary_v2(po, 0, &alg, &m1, &m2));
    int nd = -1;
    KT_OK(dnnl_memory_desc_query(m2, dnnl_query_ndims_s32, &nd));
    t.check(alg == dnnl_binary_add && dnnl_memory_desc_equal(m1, s1) && nd == 0,
            "a two-input algorithm ignores src2 (a zero descriptor back)");
    KT_OK(dnnl_post_ops_get_params_binary_v2(po, 1, &alg, &m1, &m2));
    t.check(alg == dnnl_binary_select && dnnl_memory_desc_equal(m1, s1) && dnnl_memory_desc_equal(m2, s2),
            "get_params_binary_v2 gives select's src1 and src2");
    KT_OK(dnnl_post_ops_get_params_binary(po, 1, &alg, &m1));
    t.check(alg == dnnl_binary_select && dnnl_memory_desc_equal(m1, s1), "get_params_binary on select");

    // On a primitive: the argument descriptor and the execution check.
    dnnl_engine_t e = eng.get();
    auto make = [&](const_dnnl_memory_desc_t src2, dnnl_primitive_desc_t *pd) {
        dnnl_post_ops_t p = nullptr;
        KT_OK(dnnl_post_ops_create(&p));
        KT_OK(dnnl_post_ops_append_binary_v2(p, dnnl_binary_select, s1, src2));
        dnnl_primitive_attr_t a = nullptr;
        KT_OK(dnnl_primitive_attr_create(&a));
        KT_OK(dnnl_primitive_attr_set_post_ops(a, p));
        const dnnl_status_t st = dnnl_eltwise_forward_primitive_desc_create(pd, e, dnnl_forward_inference,
                dnnl_eltwise_relu, s1, s1, 0.f, 0.f, a);
        dnnl_primitive_attr_destroy(a);
        dnnl_post_ops_destroy(p);
        return st;
    };
    dnnl_primitive_desc_t pd = nullptr;
    t.check(make(s2r, &pd) == dnnl_invalid_arguments && !pd, "src2 of another rank: invalid_arguments");
    t.check(make(s2f, &pd) == dnnl_unimplemented && !pd, "an f32 condition: unimplemented");
    KT_OK(make(s2, &pd));
    const int arg2 = DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_2;
    t.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg2), s2),
            "exec_arg_md answers the condition's descriptor");
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd));
    std::vector<float> x(15, 1.f), y(15, 7.f), one(15, 2.f);
    std::vector<int8_t> c(5, 1);
    dnnl_memory_t mx, my, m1v, m2v;
    KT_OK(dnnl_memory_create(&mx, s1, e, x.data()));
    KT_OK(dnnl_memory_create(&my, s1, e, y.data()));
    KT_OK(dnnl_memory_create(&m1v, s1, e, one.data()));
    KT_OK(dnnl_memory_create(&m2v, s2, e, c.data()));
    dnnl_stream_t st = strm.get();
    dnnl_exec_arg_t no_src2[] = {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DST, my},
            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, m1v}};
    t.check(dnnl_primitive_execute(p, st, 3, no_src2) == dnnl_invalid_arguments, "no condition: invalid_arguments");
    bool untouched = true;
    for (float v : y) untouched = untouched && v == 7.f;
    t.check(untouched, "no condition: dst untouched");
    dnnl_memory_t wrong;
    KT_OK(dnnl_memory_create(&wrong, s2r, e, DNNL_MEMORY_ALLOCATE));
    dnnl_exec_arg_t bad_src2[] = {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DST, my},
            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, m1v}, {arg2, wrong}};
    t.check(dnnl_primitive_execute(p, st, 4, bad_src2) == dnnl_invalid_arguments, "a condition of another descriptor: invalid_arguments");
    dnnl_exec_arg_t all[] = {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DST, my},
            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, m1v}, {arg2, m2v}};
    KT_OK(dnnl_primitive_execute(p, st, 4, all));
    bool ok = true;
    for (float v : y) ok = ok && v == 1.f;
    t.check(ok, "a condition of all ones keeps the value");
    c[2] = 0;
    KT_OK(dnnl_primitive_execute(p, st, 4, all));
    ok = true;
    for (int i = 0; i < 15; ++i) ok = ok && y[i] == (i % 5 == 2 ? 2.f : 1.f);
    t.check(ok, "a zero in the broadcast condition takes src1 down its column");
    for (auto m : {mx, my, m1v, m2v, wrong}) dnnl_memory_destroy(m);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    dnnl_post_ops_destroy(po);

    // C++: the ternary append and getter.
    post_ops cpo;
    memory::desc c1({2, 3}, dt::f32, tag::ab), c2({2, 1}, dt::s8, tag::ab);
    cpo.append_binary(algorithm::binary_select, c1, c2);
    algorithm a;
    memory::desc g1, g2;
    cpo.get_params_binary(0, a, g1, g2);
    t.check(a == algorithm::binary_select && g1 == c1 && g2 == c2, "C++ append_binary / get_params_binary with src2");
}

} // namespace

int main() {
    test_api();
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            const dims d4 = {2, 5, 3, 7};
            // Sources full, per channel, per spatial position, scalar.
            const std::vector<std::pair<dims, dims>> shapes = {{d4, d4}, {{1, 5, 1, 1}, d4}, {d4, {1, 1, 3, 7}},
                    {{1, 1, 1, 1}, {2, 1, 1, 7}}};
            for (const auto &sh : shapes)
                for (bool lin : {false, true}) {
                    sel_t s(d4, sh.first, sh.second, tag::abcd, tag::abcd, lin);
                    test_eltwise(s, tag::nchw);
                    test_eltwise(s, tag::nhwc);
                    test_binary(s);
                    test_conv(s, tag::nchw);
                    test_conv(s, tag::any);
                }
            // Sources in channels-last layouts.
            sel_t sl(d4, d4, d4, tag::acdb, tag::acdb, false);
            test_eltwise(sl, tag::nchw);
            test_eltwise(sl, tag::nhwc);
            test_conv(sl, tag::any);
            // Matmul: row, column and full broadcasts, a tail over 16.
            for (const auto &sh : std::vector<std::pair<dims, dims>> {
                         {{19, 23}, {19, 23}}, {{1, 23}, {19, 1}}, {{19, 1}, {1, 23}}})
                for (bool lin : {false, true}) test_matmul(sel_t({19, 23}, sh.first, sh.second, tag::ab, tag::ab, lin), 27);
        });
    }
    return t.finish();
}
