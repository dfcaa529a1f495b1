// A 1x1 convolution with a fused depthwise 3x3 (dnnl_post_ops_append_dw),
// against a plain reference written here: the 1x1 convolution, its bias
// and the post-ops before the depthwise entry, then the depthwise 3x3
// (padding 1, stride 1 or 2, dst ceil(H / s) x ceil(W / s)), its bias and
// the post-ops after the entry. nchw / nhwc / nChw16c / `any` data,
// channels that are not a multiple of 16, odd sizes, bias on and off,
// 1 and 2 threads, library and user scratchpad (the size exact: a buffer
// one byte short is refused; the private scratchpad of a
// --enable-concurrent-exec build takes the library path), one primitive
// run from two threads at once, C and C++ API, the descriptors the pd
// reports, and the problems it must refuse.
#include <cmath>
#include <thread>
#include <vector>

#include "common/kt_test.hpp"
#include "dnnl.hpp"

namespace {

using dim = dnnl_dim_t;
kt::tally_t t;
dnnl_engine_t eng = nullptr;
dnnl_stream_t strm = nullptr;

enum lay_t { L_NCHW, L_NHWC, L_16C, L_ANY };
const char *lay_name[] = {"nchw", "nhwc", "nChw16c", "any"};

dnnl_format_tag_t tag_of(lay_t l) {
    return l == L_NCHW ? dnnl_nchw : l == L_16C ? dnnl_nChw16c : l == L_NHWC ? dnnl_nhwc : dnnl_format_tag_any;
}

// Offset of logical (n, c, h, w) in the stored tensor, and its size.
struct layout_t {
    lay_t l;
    dim N, C, H, W;
    dim cp() const { return l == L_16C ? (C + 15) / 16 * 16 : C; }
    dim size() const { return N * cp() * H * W; }
    dim off(dim n, dim c, dim h, dim w) const {
        switch (l) {
            case L_NCHW: return ((n * C + c) * H + h) * W + w;
            case L_16C: return (((n * (cp() / 16) + c / 16) * H + h) * W + w) * 16 + c % 16;
            default: return ((n * H + h) * W + w) * C + c;
        }
    }
};

struct prb_t {
    dim mb, ic, oc, h, w, s;
    lay_t lay;
    bool bias, dw_bias;
    bool pre_elt; // leaky relu (slope 0.2) before the depthwise entry
    bool post; // linear (0.75 x - 0.25) then sum (scale 0.5) after it
    dim oh() const { return (h + s - 1) / s; }
    dim ow() const { return (w + s - 1) / s; }
};

// The reference in double, with a bound on the f32 result's error per dst
// element. Every value is a sum of at most IC + 1 (1x1) then 10 (taps and
// bias) terms; f32 summation in any order errs by at most (terms) * u
// times the sum of the terms' magnitudes, u = 2^-24, and each product or
// eltwise adds one rounding. Leaky relu and 0.75 x - 0.25 do not enlarge an
// error; the sum post-op adds the old value's magnitude. So the bound is
// (IC + 16) * u * M, where M sums |w_dw| * (sum |src * w| + |b|) over the
// taps plus |b_dw| and |old|, doubled for the two stages' roundings.
struct ref_t {
    std::vector<double> dst, bound;
};

double leaky(double v) { return v > 0 ? v : 0.2 * v; }

ref_t reference(const prb_t &p, const std::vector<float> &src, const std::vector<float> &w1,
        const std::vector<float> &b1, const std::vector<float> &wdw, const std::vector<float> &bdw,
        const std::vector<float> &old) {
    const dim H = p.h, W = p.w;
    std::vector<double> mid((size_t)(p.mb * p.oc * H * W)), mag(mid.size());
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.oc; ++c)
            for (dim h = 0; h < H; ++h)
                for (dim x = 0; x < W; ++x) {
                    double v = p.bias ? b1[c] : 0, m = p.bias ? std::fabs(b1[c]) : 0;
                    for (dim i = 0; i < p.ic; ++i) {
                        const double term = (double)src[((n * p.ic + i) * H + h) * W + x] * w1[c * p.ic + i];
                        v += term;
                        m += std::fabs(term);
                    }
                    if (p.pre_elt) v = leaky(v);
                    const size_t k = (size_t)(((n * p.oc + c) * H + h) * W + x);
                    mid[k] = v;
                    mag[k] = m;
                }
    const double u = std::ldexp(1.0, -24);
    ref_t r;
    const size_t nd = (size_t)(p.mb * p.oc * p.oh() * p.ow());
    r.dst.assign(nd, 0);
    r.bound.assign(nd, 0);
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.oc; ++c)
            for (dim oh = 0; oh < p.oh(); ++oh)
                for (dim ow = 0; ow < p.ow(); ++ow) {
                    double v = p.dw_bias ? bdw[c] : 0, m = p.dw_bias ? std::fabs(bdw[c]) : 0;
                    for (dim kh = 0; kh < 3; ++kh)
                        for (dim kw = 0; kw < 3; ++kw) {
                            const dim ih = oh * p.s - 1 + kh, iw = ow * p.s - 1 + kw;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            const size_t k = (size_t)(((n * p.oc + c) * H + ih) * W + iw);
                            const double wv = wdw[c * 9 + kh * 3 + kw];
                            v += wv * mid[k];
                            m += std::fabs(wv) * (std::fabs(mid[k]) + mag[k]);
                        }
                    const size_t k = (size_t)(((n * p.oc + c) * p.oh() + oh) * p.ow() + ow);
                    if (p.post) {
                        v = 0.75 * v - 0.25 + 0.5 * old[k];
                        m += 1 + std::fabs(old[k]);
                    }
                    r.dst[k] = v;
                    r.bound[k] = 2 * (double)(p.ic + 16) * u * m;
                }
    return r;
}

dnnl_primitive_attr_t make_attr(const prb_t &p, bool user_sp) {
    dnnl_post_ops_t po;
    KT_OK(dnnl_post_ops_create(&po));
    if (p.pre_elt) KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.2f, 0.f));
    KT_OK(dnnl_post_ops_append_dw(po, dnnl_f32, p.dw_bias ? dnnl_f32 : dnnl_data_type_undef, dnnl_f32, 3, p.s, 1));
    if (p.post) {
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 0.75f, -0.25f));
        KT_OK(dnnl_post_ops_append_sum(po, 0.5f, 0, dnnl_data_type_undef));
    }
    dnnl_primitive_attr_t a;
    KT_OK(dnnl_primitive_attr_create(&a));
    KT_OK(dnnl_primitive_attr_set_post_ops(a, po));
    if (user_sp) KT_OK(dnnl_primitive_attr_set_scratchpad_mode(a, dnnl_scratchpad_mode_user));
    dnnl_post_ops_destroy(po);
    return a;
}

dnnl_status_t create_pd(const prb_t &p, dnnl_primitive_attr_t a, dnnl_primitive_desc_t *pd) {
    kt::md_t s(kt::make_md({p.mb, p.ic, p.h, p.w}, dnnl_f32, tag_of(p.lay)));
    kt::md_t w(kt::make_md({p.oc, p.ic, 1, 1}, dnnl_f32, p.lay == L_ANY ? dnnl_format_tag_any : dnnl_oihw));
    kt::md_t b(kt::make_md({p.oc}, dnnl_f32, dnnl_a));
    kt::md_t d(kt::make_md({p.mb, p.oc, p.h, p.w}, dnnl_f32, tag_of(p.lay)));
    const dnnl_dims_t one = {1, 1}, zero = {0, 0};
    return dnnl_convolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference, dnnl_convolution_direct,
            s, w, p.bias ? (const_dnnl_memory_desc_t)b : nullptr, d, one, nullptr, zero, zero, a);
}

bool md_is(const_dnnl_memory_desc_t md, std::initializer_list<dim> dims, dnnl_format_tag_t tag) {
    kt::md_t want(kt::make_md(dims, dnnl_f32, tag));
    return dnnl_memory_desc_equal(md, want) == 1;
}

const_dnnl_memory_desc_t query(const_dnnl_primitive_desc_t pd, dnnl_query_t what, int idx = 0) {
    const_dnnl_memory_desc_t md = nullptr;
    KT_OK(dnnl_primitive_desc_query(pd, what, idx, &md));
    return md;
}

struct data_t {
    std::vector<float> src, w1, b1, wdw, bdw, old; // logical
};

data_t make_data(const prb_t &p, uint64_t seed) {
    data_t d;
    d.src.resize((size_t)(p.mb * p.ic * p.h * p.w));
    d.w1.resize((size_t)(p.oc * p.ic));
    d.b1.resize((size_t)p.oc);
    d.wdw.resize((size_t)(p.oc * 9));
    d.bdw.resize((size_t)p.oc);
    d.old.resize((size_t)(p.mb * p.oc * p.oh() * p.ow()));
    kt::fill(d.src, seed + 1);
    kt::fill(d.w1, seed + 2);
    kt::fill(d.b1, seed + 3);
    kt::fill(d.wdw, seed + 4);
    kt::fill(d.bdw, seed + 5);
    kt::fill(d.old, seed + 6);
    return d;
}

// Stored buffers of one execution.
struct bufs_t {
    layout_t ls, ld;
    std::vector<float> src, w1, b1, wdw, bdw, dst;
    bufs_t(const prb_t &p, const data_t &d, lay_t l)
        : ls {l, p.mb, p.ic, p.h, p.w}, ld {l, p.mb, p.oc, p.oh(), p.ow()} {
        src.assign((size_t)ls.size(), 0.f);
        dst.assign((size_t)ld.size(), 0.f);
        for (dim n = 0; n < p.mb; ++n)
            for (dim c = 0; c < p.ic; ++c)
                for (dim h = 0; h < p.h; ++h)
                    for (dim w = 0; w < p.w; ++w) src[ls.off(n, c, h, w)] = d.src[((n * p.ic + c) * p.h + h) * p.w + w];
        for (dim n = 0; n < p.mb; ++n)
            for (dim c = 0; c < p.oc; ++c)
                for (dim h = 0; h < p.oh(); ++h)
                    for (dim w = 0; w < p.ow(); ++w)
                        dst[ld.off(n, c, h, w)] = d.old[((n * p.oc + c) * p.oh() + h) * p.ow() + w];
        w1 = d.w1, b1 = d.b1, wdw = d.wdw, bdw = d.bdw; // oihw, a, goihw, a
    }
    bool matches(const prb_t &p, const ref_t &r) const {
        for (dim n = 0; n < p.mb; ++n)
            for (dim c = 0; c < p.oc; ++c)
                for (dim h = 0; h < p.oh(); ++h)
                    for (dim w = 0; w < p.ow(); ++w) {
                        const size_t k = (size_t)(((n * p.oc + c) * p.oh() + h) * p.ow() + w);
                        const double got = dst[ld.off(n, c, h, w)];
                        if (!(std::fabs(got - r.dst[k]) <= r.bound[k])) {
                            std::fprintf(stderr, "  n%ld c%ld h%ld w%ld: got %.9g want %.9g (bound %.3g)\n", (long)n,
                                    (long)c, (long)h, (long)w, got, r.dst[k], r.bound[k]);
                            return false;
                        }
                    }
        return true;
    }
};

struct args_t {
    std::vector<dnnl_exec_arg_t> a;
    std::vector<dnnl_memory_t> m;
    void add(int arg, const_dnnl_memory_desc_t md, void *ptr) {
        dnnl_memory_t x;
        KT_OK(dnnl_memory_create(&x, md, eng, ptr));
        m.push_back(x);
        a.push_back({arg, x});
    }
    void drop(int arg) {
        for (size_t i = 0; i < a.size(); ++i)
            if (a[i].arg == arg) {
                a.erase(a.begin() + (long)i);
                return;
            }
    }
    dnnl_status_t exec(dnnl_primitive_t prim) {
        dnnl_status_t st = dnnl_primitive_execute(prim, strm, (int)a.size(), a.data());
        if (st == dnnl_success) st = dnnl_stream_wait(strm);
        return st;
    }
    ~args_t() {
        for (auto x : m) dnnl_memory_destroy(x);
    }
};

void add_inputs(args_t &ar, const prb_t &p, const_dnnl_primitive_desc_t pd, bufs_t &b) {
    ar.add(DNNL_ARG_SRC, query(pd, dnnl_query_src_md), b.src.data());
    ar.add(DNNL_ARG_WEIGHTS, query(pd, dnnl_query_weights_md), b.w1.data());
    if (p.bias) ar.add(DNNL_ARG_BIAS, query(pd, dnnl_query_weights_md, 1), b.b1.data());
    ar.add(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS,
            query(pd, dnnl_query_exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS), b.wdw.data());
    if (p.dw_bias)
        ar.add(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS,
                query(pd, dnnl_query_exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS), b.bdw.data());
    ar.add(DNNL_ARG_DST, query(pd, dnnl_query_dst_md), b.dst.data());
}

// One problem through the C API in library and user scratchpad modes.
void run_case(const prb_t &p, uint64_t seed, const char *what) {
    const data_t d = make_data(p, seed);
    const ref_t r = reference(p, d.src, d.w1, d.b1, d.wdw, d.bdw, d.old);
    const lay_t stored = p.lay == L_ANY ? L_NHWC : p.lay; // `any` resolves to nhwc
    char msg[256];
    for (int user = 0; user < 2; ++user) {
        dnnl_primitive_attr_t a = make_attr(p, user);
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t st = create_pd(p, a, &pd);
        dnnl_primitive_attr_destroy(a);
        std::snprintf(msg, sizeof msg, "%s [%s, %s scratchpad]: created by gemm:1x1+dw", what, lay_name[p.lay],
                user ? "user" : "library");
        t.check(st == dnnl_success && kt::impl_name(pd) == "gemm:1x1+dw", msg);
        if (st != dnnl_success) return;
        const dnnl_format_tag_t tg = tag_of(stored);
        std::snprintf(msg, sizeof msg, "%s [%s]: dst, weights and depthwise descriptors", what, lay_name[p.lay]);
        const_dnnl_memory_desc_t dwb = query(pd, dnnl_query_exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS);
        int dwb_nd = -1;
        KT_OK(dnnl_memory_desc_query(dwb, dnnl_query_ndims_s32, &dwb_nd));
        t.check(md_is(query(pd, dnnl_query_dst_md), {p.mb, p.oc, p.oh(), p.ow()}, tg)
                        && md_is(query(pd, dnnl_query_src_md), {p.mb, p.ic, p.h, p.w}, tg)
                        && md_is(query(pd, dnnl_query_exec_arg_md, DNNL_ARG_DST), {p.mb, p.oc, p.oh(), p.ow()}, tg)
                        && md_is(query(pd, dnnl_query_weights_md), {p.oc, p.ic, 1, 1}, dnnl_oihw)
                        && md_is(query(pd, dnnl_query_exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS),
                                {p.oc, 1, 1, 3, 3}, dnnl_goihw)
                        && (p.dw_bias ? md_is(dwb, {p.oc}, dnnl_a) : dwb_nd == 0),
                msg);
        dnnl_primitive_t prim;
        KT_OK(dnnl_primitive_create(&prim, pd));
        bufs_t b(p, d, stored);
        args_t ar;
        add_inputs(ar, p, pd, b);
        const_dnnl_memory_desc_t spmd = query(pd, dnnl_query_scratchpad_md);
        const size_t sp_size = dnnl_memory_desc_get_size(spmd);
        std::vector<char> sp(sp_size + 64);
        void *sp_al = (void *)(((uintptr_t)sp.data() + 63) & ~(uintptr_t)63);
        if (user) {
            // Exactly the reported size works; one byte fewer is refused
            // before anything is written.
            dim dims1[1] = {(dim)sp_size - 1};
            if (sp_size > 0) {
                dnnl_memory_desc_t small;
                KT_OK(dnnl_memory_desc_create_with_tag(&small, 1, dims1, dnnl_u8, dnnl_a));
                ar.add(DNNL_ARG_SCRATCHPAD, small, sp_al);
                dnnl_memory_desc_destroy(small);
                const std::vector<float> before = b.dst;
                std::snprintf(msg, sizeof msg, "%s [%s]: a scratchpad one byte short: invalid_arguments, dst untouched",
                        what, lay_name[p.lay]);
                t.check(ar.exec(prim) == dnnl_invalid_arguments && b.dst == before, msg);
                ar.drop(DNNL_ARG_SCRATCHPAD);
            }
            ar.add(DNNL_ARG_SCRATCHPAD, spmd, sp_al);
            dim lib_size = -1;
            dnnl_primitive_attr_t la = make_attr(p, false);
            dnnl_primitive_desc_t lpd;
            KT_OK(create_pd(p, la, &lpd));
            KT_OK(dnnl_primitive_desc_query(lpd, dnnl_query_memory_consumption_s64, 0, &lib_size));
            dnnl_primitive_desc_destroy(lpd);
            dnnl_primitive_attr_destroy(la);
            dim user_cons = -1;
            KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &user_cons));
            std::snprintf(msg, sizeof msg,
                    "%s [%s]: user scratchpad size equals library mode's consumption, user mode consumes 0", what,
                    lay_name[p.lay]);
            t.check(sp_size > 0 && (dim)sp_size == lib_size && user_cons == 0, msg);
        }
        std::snprintf(msg, sizeof msg, "%s [%s, %s scratchpad]: matches the reference", what, lay_name[p.lay],
                user ? "user" : "library");
        t.check(ar.exec(prim) == dnnl_success && b.matches(p, r), msg);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
    }
}

void test_cases() {
    int k = 0;
    for (dim s : {1, 2})
        for (lay_t l : {L_NCHW, L_NHWC, L_16C, L_ANY})
            for (int v = 0; v < 4; ++v) {
                // Odd sizes, OC not a multiple of 16 (19) or above one
                // block (35 with nChw16c), IC a tail too.
                prb_t p {2, v == 3 ? 17 : 5, v == 3 ? 35 : 19, 7 + v % 2 * 2, 9 - v % 2 * 4, s, l, v != 1, v != 2,
                        v % 2 == 0, v >= 2};
                char what[128];
                std::snprintf(what, sizeof what, "mb%ld ic%ld oc%ld %ldx%ld s%ld bias%d dwbias%d pre%d post%d",
                        (long)p.mb, (long)p.ic, (long)p.oc, (long)p.h, (long)p.w, (long)s, p.bias, p.dw_bias,
                        p.pre_elt, p.post);
                run_case(p, (uint64_t)++k, what);
            }
    // One image split in several bands (the 1x1 rows buffer holds about 30
    // rows of 64 x 64), odd height: band edges and halos.
    for (dim s : {1, 2})
        for (lay_t l : {L_NHWC, L_16C, L_NCHW}) {
            prb_t p {1, 8, 64, 67, 64, s, l, true, true, true, true};
            char what[128];
            std::snprintf(what, sizeof what, "several bands: 67x64 oc64 s%ld", (long)s);
            run_case(p, (uint64_t)++k, what);
        }
    // Small images: a single row, a single column.
    for (dim s : {1, 2}) {
        prb_t p {3, 4, 6, 1, 5, s, L_NHWC, true, true, true, false};
        run_case(p, (uint64_t)++k, "one row");
        prb_t q {1, 4, 17, 6, 1, s, L_16C, false, true, false, true};
        run_case(q, (uint64_t)++k, "one column");
    }
}

// C++ API: post_ops::append_dw, pd queries, execution.
void test_cpp() {
    using namespace dnnl;
    using dt = memory::data_type;
    using tag = memory::format_tag;
    engine e(engine::kind::cpu, 0);
    stream s(e);
    const prb_t p {1, 6, 21, 8, 7, 2, L_16C, true, true, true, false};
    const data_t d = make_data(p, 99);
    const ref_t r = reference(p, d.src, d.w1, d.b1, d.wdw, d.bdw, d.old);
    post_ops po;
    po.append_eltwise(algorithm::eltwise_relu, 0.2f, 0.f);
    po.append_dw(dt::f32, dt::f32, dt::f32, 3, 2, 1);
    primitive_attr a;
    a.set_post_ops(po);
    memory::desc sm({p.mb, p.ic, p.h, p.w}, dt::f32, tag::nChw16c), wm({p.oc, p.ic, 1, 1}, dt::f32, tag::any),
            bm({p.oc}, dt::f32, tag::a), dm({p.mb, p.oc, p.h, p.w}, dt::f32, tag::nChw16c);
    convolution_forward::primitive_desc pd(e, prop_kind::forward_inference, algorithm::convolution_direct, sm, wm,
            bm, dm, {1, 1}, {0, 0}, {0, 0}, a);
    t.check(pd.dst_desc() == memory::desc({p.mb, p.oc, p.oh(), p.ow()}, dt::f32, tag::nChw16c),
            "C++: dst_desc() is the depthwise output");
    const memory::desc dwm = pd.query_md(query::exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS);
    const memory::desc dbm = pd.query_md(query::exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS);
    t.check(dwm == memory::desc({p.oc, 1, 1, 3, 3}, dt::f32, tag::goihw) && dbm == memory::desc({p.oc}, dt::f32, tag::a),
            "C++: exec_arg_md of the depthwise weights and bias");
    bufs_t b(p, d, L_16C);
    memory ms(pd.src_desc(), e, b.src.data()), mw(pd.weights_desc(), e, b.w1.data()), mb(pd.bias_desc(), e, b.b1.data()),
            mdw(dwm, e, b.wdw.data()), mdb(dbm, e, b.bdw.data()), md(pd.dst_desc(), e, b.dst.data());
    convolution_forward(pd).execute(s, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_BIAS, mb},
                                               {DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS, mdw},
                                               {DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS, mdb}, {DNNL_ARG_DST, md}});
    s.wait();
    t.check(b.matches(p, r), "C++: fused result matches the reference");
}

// Problems the fused implementation must refuse, and executions with
// missing or wrong depthwise arguments.
void test_bad() {
    const dnnl_dims_t one = {1, 1}, two = {2, 2}, zero = {0, 0};
    auto attr_dw = [](dnnl_data_type_t wdt, dim k, dim s, dim pad) {
        dnnl_post_ops_t po;
        KT_OK(dnnl_post_ops_create(&po));
        KT_OK(dnnl_post_ops_append_dw(po, wdt, dnnl_f32, dnnl_f32, k, s, pad));
        dnnl_primitive_attr_t a;
        KT_OK(dnnl_primitive_attr_create(&a));
        KT_OK(dnnl_primitive_attr_set_post_ops(a, po));
        dnnl_post_ops_destroy(po);
        return a;
    };
    kt::md_t s(kt::make_md({1, 4, 6, 6}, dnnl_f32, dnnl_nhwc)), w(kt::make_md({8, 4, 1, 1}, dnnl_f32, dnnl_oihw)),
            d(kt::make_md({1, 8, 6, 6}, dnnl_f32, dnnl_nhwc));
    struct {
        dnnl_data_type_t wdt;
        dim k, st, pad;
        const char *what;
    } bad_dw[] = {{dnnl_f32, 5, 1, 1, "depthwise kernel 5"}, {dnnl_f32, 3, 3, 1, "depthwise stride 3"},
            {dnnl_f32, 3, 1, 0, "depthwise padding 0"}, {dnnl_f32, 3, 1, 2, "depthwise padding 2"},
            {dnnl_s8, 3, 1, 1, "s8 depthwise weights with f32 data (int8 fusion not implemented)"}};
    for (const auto &x : bad_dw) {
        dnnl_primitive_attr_t a = attr_dw(x.wdt, x.k, x.st, x.pad);
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t st = dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                dnnl_convolution_direct, s, w, nullptr, d, one, nullptr, zero, zero, a);
        t.check(st == dnnl_unimplemented && pd == nullptr, x.what);
        dnnl_primitive_attr_destroy(a);
    }
    dnnl_primitive_attr_t a = attr_dw(dnnl_f32, 3, 2, 1);
    {
        dnnl_primitive_desc_t pd = nullptr;
        kt::md_t w3(kt::make_md({8, 4, 3, 3}, dnnl_f32, dnnl_oihw));
        t.check(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                        dnnl_convolution_direct, s, w3, nullptr, d, one, nullptr, one, one, a)
                                == dnnl_unimplemented,
                "base convolution 3x3: unimplemented");
        kt::md_t d2(kt::make_md({1, 8, 3, 3}, dnnl_f32, dnnl_nhwc));
        t.check(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                        dnnl_convolution_direct, s, w, nullptr, d2, two, nullptr, zero, zero, a)
                                == dnnl_unimplemented,
                "base convolution with stride 2: unimplemented");
        kt::md_t wg(kt::make_md({2, 4, 2, 1, 1}, dnnl_f32, dnnl_goihw));
        t.check(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                        dnnl_convolution_direct, s, wg, nullptr, d, one, nullptr, zero, zero, a)
                                == dnnl_unimplemented,
                "grouped base convolution: unimplemented");
        const dnnl_dims_t one3 = {1, 1, 1}, zero3 = {0, 0, 0};
        kt::md_t s3(kt::make_md({1, 4, 2, 6, 6}, dnnl_f32, dnnl_ndhwc)),
                w3d(kt::make_md({8, 4, 1, 1, 1}, dnnl_f32, dnnl_oidhw)),
                d3(kt::make_md({1, 8, 2, 6, 6}, dnnl_f32, dnnl_ndhwc));
        t.check(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                        dnnl_convolution_direct, s3, w3d, nullptr, d3, one3, nullptr, zero3, zero3, a)
                                == dnnl_unimplemented,
                "3D base convolution: unimplemented");
        t.check(dnnl_convolution_backward_data_primitive_desc_create(&pd, eng, dnnl_convolution_direct, s, w, d,
                        one, nullptr, zero, zero, nullptr, a)
                                != dnnl_success,
                "backward data with a depthwise post-op: refused");
        // A binary post-op after the depthwise entry is not fused.
        dnnl_post_ops_t po;
        KT_OK(dnnl_post_ops_create(&po));
        KT_OK(dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, 1));
        kt::md_t b1(kt::make_md({1, 8, 1, 1}, dnnl_f32, dnnl_nchw));
        KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, b1));
        dnnl_primitive_attr_t ab;
        KT_OK(dnnl_primitive_attr_create(&ab));
        KT_OK(dnnl_primitive_attr_set_post_ops(ab, po));
        t.check(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                        dnnl_convolution_direct, s, w, nullptr, d, one, nullptr, zero, zero, ab)
                                == dnnl_unimplemented,
                "binary post-op after the depthwise entry: unimplemented");
        dnnl_primitive_attr_destroy(ab);
        dnnl_post_ops_destroy(po);
    }

    // Executions: dst starts as a sentinel and must stay so.
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dnnl_convolution_direct, s,
            w, nullptr, d, one, nullptr, zero, zero, a));
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<float> src(4 * 36, 0.5f), wei(32, 0.25f), dww(8 * 9, 1.f), dwb(8, 1.f);
    std::vector<float> dst(8 * 9, -77.f);
    const std::vector<float> sentinel = dst;
    auto exec = [&](int drop, const_dnnl_memory_desc_t wdw_md, const_dnnl_memory_desc_t dst_md) {
        args_t ar;
        ar.add(DNNL_ARG_SRC, s, src.data());
        ar.add(DNNL_ARG_WEIGHTS, w, wei.data());
        ar.add(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS, wdw_md, dww.data());
        ar.add(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS, query(pd, dnnl_query_exec_arg_md,
                                                                  DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS),
                dwb.data());
        ar.add(DNNL_ARG_DST, dst_md, dst.data());
        if (drop) ar.drop(drop);
        return ar.exec(prim);
    };
    const_dnnl_memory_desc_t good_w = query(pd, dnnl_query_exec_arg_md, DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS);
    const_dnnl_memory_desc_t good_d = query(pd, dnnl_query_dst_md);
    t.check(exec(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS, good_w, good_d) == dnnl_invalid_arguments
                    && dst == sentinel,
            "missing depthwise weights: invalid_arguments, dst untouched");
    t.check(exec(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS, good_w, good_d) == dnnl_invalid_arguments
                    && dst == sentinel,
            "missing depthwise bias: invalid_arguments, dst untouched");
    kt::md_t wrong_w(kt::make_md({8, 1, 3, 3}, dnnl_f32, dnnl_oihw));
    t.check(exec(0, wrong_w, good_d) == dnnl_invalid_arguments && dst == sentinel,
            "depthwise weights of the wrong descriptor: invalid_arguments, dst untouched");
    t.check(exec(0, good_w, d) == dnnl_invalid_arguments && dst == sentinel,
            "dst of the 1x1 output's shape: invalid_arguments, untouched");
    // And with everything right: src 0.5 * w 0.25 * 4 = 0.5 per 1x1 point;
    // dst (0, 0) of a 6x6 image at stride 2 sees the 2x2 corner taps.
    t.check(exec(0, good_w, good_d) == dnnl_success && dst[0] == 1.f + 4 * 0.5f && dst[8 * 4] == 1.f + 9 * 0.5f,
            "well-formed execution succeeds (corner and interior values)");
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(a);
}

// Library scratchpad: one primitive executed from two threads at once,
// each with its own dst; each result matches the reference.
void test_concurrent() {
    const prb_t p {1, 8, 32, 41, 40, 1, L_NHWC, true, true, true, true};
    const data_t d = make_data(p, 77);
    const ref_t r = reference(p, d.src, d.w1, d.b1, d.wdw, d.bdw, d.old);
    dnnl_primitive_attr_t a = make_attr(p, false);
    dnnl_primitive_desc_t pd;
    KT_OK(create_pd(p, a, &pd));
    dnnl_primitive_attr_destroy(a);
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    bufs_t b0(p, d, L_NHWC), b1(p, d, L_NHWC);
    dnnl_status_t st[2] = {dnnl_runtime_error, dnnl_runtime_error};
    auto run = [&](int i, bufs_t *b) {
        dnnl_stream_t s;
        if (dnnl_stream_create(&s, eng, dnnl_stream_default_flags) != dnnl_success) return;
        args_t ar;
        add_inputs(ar, p, pd, *b);
        st[i] = dnnl_primitive_execute(prim, s, (int)ar.a.size(), ar.a.data());
        if (st[i] == dnnl_success) st[i] = dnnl_stream_wait(s);
        dnnl_stream_destroy(s);
    };
    std::thread t0(run, 0, &b0), t1(run, 1, &b1);
    t0.join();
    t1.join();
    t.check(st[0] == dnnl_success && st[1] == dnnl_success && b0.matches(p, r) && b1.matches(p, r),
            "one primitive run from two threads at once (library scratchpad): both match the reference");
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    for (int nthr : {1, 2}) kt::with_threads(nthr, test_cases);
    kt::with_threads(2, test_cpp);
    kt::with_threads(2, test_concurrent);
    test_bad();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
