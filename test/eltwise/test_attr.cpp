// Attributes of the element-wise primitives: post-op chains (eltwise, sum,
// binary) on binary, eltwise and softmax, and softmax's src/dst scales. The
// first implementation (vectorised where it takes the chain) runs against
// the reference on the same inputs, over layouts, types, channel tails and
// thread counts; binary and eltwise also against the naive chain of
// test/common/naive_attr.hpp; then attributes oneDNN rejects, and bad
// post-op input.
#include <memory>

#include "../common/naive_attr.hpp"
#include "elt_test.hpp"

using namespace kestrel;

namespace {

enum class prim_t { binary, eltwise, softmax };

// One post-op chain; src1 dims use c for the channel count.
struct chain_t {
    const char *what;
    bool sum;
    std::function<void(dnnl_post_ops_t, dim_t c, std::vector<kt::md_t *> &)> build;
};

std::vector<chain_t> chains() {
    auto bin = [](dnnl_post_ops_t po, dnnl_alg_kind_t alg, std::vector<dim_t> dims,
                       dnnl_data_type_t dt, std::vector<kt::md_t *> &keep) {
        auto *m = new kt::md_t(et::md(dims, dt, dims.size() == 4 ? dnnl_nchw : dnnl_a));
        keep.push_back(m);
        KT_OK(dnnl_post_ops_append_binary(po, alg, *m));
    };
    return {
            {"relu", false,
                    [](dnnl_post_ops_t po, dim_t, std::vector<kt::md_t *> &) {
                        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.1f, 0.f));
                    }},
            {"sum", true,
                    [](dnnl_post_ops_t po, dim_t, std::vector<kt::md_t *> &) {
                        KT_OK(dnnl_post_ops_append_sum(po, 0.5f, 0, dnnl_data_type_undef));
                    }},
            {"add per channel + linear", false,
                    [bin](dnnl_post_ops_t po, dim_t c, std::vector<kt::md_t *> &keep) {
                        bin(po, dnnl_binary_add, {1, c, 1, 1}, dnnl_f32, keep);
                        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 2.f, 0.5f));
                    }},
            {"sum + mul full bf16 + clip", true,
                    [bin](dnnl_post_ops_t po, dim_t c, std::vector<kt::md_t *> &keep) {
                        KT_OK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
                        bin(po, dnnl_binary_mul, {2, c, 3, 5}, dnnl_bf16, keep);
                        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_clip, -2.f, 3.f));
                    }},
            {"max scalar + max per row", false,
                    [bin](dnnl_post_ops_t po, dim_t, std::vector<kt::md_t *> &keep) {
                        bin(po, dnnl_binary_max, {1, 1, 1, 1}, dnnl_f32, keep);
                        bin(po, dnnl_binary_min, {2, 1, 3, 1}, dnnl_f32, keep);
                    }},
    };
}

int n_vec[3] = {0, 0, 0};

void check(kt::tally_t &t, et::env_t &e, prim_t prim, const chain_t &ch, dim_t c,
        dnnl_format_tag_t tag, dnnl_data_type_t dt, bool scales) {
    const std::vector<dim_t> dims = {2, c, 3, 5};
    kt::md_t sm(et::md(dims, dt, tag)), dm(et::md(dims, dt, dnnl_format_tag_any));
    kt::md_t chan(et::md({1, c, 1, 1}, dt, dnnl_nchw));
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_post_ops_t po = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_post_ops_create(&po));
    std::vector<kt::md_t *> src1s;
    ch.build(po, c, src1s);
    std::vector<int> bin_at; // positions of the binary post-ops
    for (int i = 0; i < dnnl_post_ops_len(po); ++i)
        if (dnnl_post_ops_get_kind(po, i) == dnnl_binary) bin_at.push_back(i);
    // The chain for the naive reference, read back through the public
    // getters (binary src1 values are filled in after the memories exist).
    na::attr_t nattr;
    for (int i = 0; i < dnnl_post_ops_len(po); ++i) {
        const dnnl_primitive_kind_t kind = dnnl_post_ops_get_kind(po, i);
        na::post_op_t o;
        o.kind = kind;
        if (kind == dnnl_eltwise) KT_OK(dnnl_post_ops_get_params_eltwise(po, i, &o.alg, &o.alpha, &o.beta));
        if (kind == dnnl_sum) {
            dnnl_data_type_t sdt;
            KT_OK(dnnl_post_ops_get_params_sum(po, i, &o.scale, &o.zero_point, &sdt));
        }
        if (kind == dnnl_binary) {
            const_dnnl_memory_desc_t m1 = nullptr;
            KT_OK(dnnl_post_ops_get_params_binary(po, i, &o.alg, &m1));
            const dnnl_dims_t *d1 = nullptr;
            int nd1 = 0;
            KT_OK(dnnl_memory_desc_query(m1, dnnl_query_ndims_s32, &nd1));
            KT_OK(dnnl_memory_desc_query(m1, dnnl_query_dims, &d1));
            o.src1.dims.assign(*d1, *d1 + nd1);
        }
        nattr.post_ops.push_back(o);
    }
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_post_ops_destroy(po);
    if (scales) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    }
    dnnl_primitive_desc_t pd = nullptr, rpd = nullptr;
    switch (prim) {
        case prim_t::binary:
            KT_OK(dnnl_binary_primitive_desc_create(&pd, e.eng, dnnl_binary_sub, sm, chan, dm, attr));
            break;
        case prim_t::eltwise:
            KT_OK(dnnl_eltwise_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference,
                    dnnl_eltwise_linear, sm, dm, 1.5f, -0.25f, attr));
            break;
        case prim_t::softmax:
            KT_OK(dnnl_softmax_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference,
                    dnnl_softmax_accurate, sm, dm, 1, attr));
            break;
    }
    dnnl_primitive_attr_destroy(attr);
    KT_OK(dnnl_primitive_desc_clone(&rpd, pd));
    t.check(et::to_reference(rpd), "reference reachable");
    if (kt::impl_name(pd).rfind("vec", 0) == 0) ++n_vec[(int)prim];

    const_dnnl_memory_desc_t qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    et::mem_t src(sm, e.eng), ch1(chan, e.eng), dst(qd, e.eng), rdst(qd, e.eng);
    src.fill(c * 5 + (int)prim, -3.f, 3.f);
    ch1.fill(c * 7, -2.f, 2.f);
    dst.fill(c * 11, -1.f, 1.f); // old values for the sum post-op
    rdst.buf = dst.buf;
    const std::vector<float> old = dst.values();
    kt::md_t smd(et::md({1}, dnnl_f32, dnnl_a));
    et::mem_t ssrc(smd, e.eng), sdst(smd, e.eng);
    ssrc.set(0, 1.5f);
    sdst.set(0, 0.25f);
    std::vector<std::unique_ptr<et::mem_t>> po_src;
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_DST, dst.m}};
    if (prim == prim_t::binary) {
        args.push_back({DNNL_ARG_SRC_0, src.m});
        args.push_back({DNNL_ARG_SRC_1, ch1.m});
    } else {
        args.push_back({DNNL_ARG_SRC, src.m});
    }
    if (scales) {
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, ssrc.m});
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, sdst.m});
    }
    for (size_t b = 0; b < bin_at.size(); ++b) {
        po_src.emplace_back(new et::mem_t(*src1s[b], e.eng));
        po_src.back()->fill(100 + b, -2.f, 2.f);
        args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(bin_at[b]) | DNNL_ARG_SRC_1, po_src.back()->m});
    }
    et::run(pd, e.strm, args);
    args[0].memory = rdst.m;
    et::run(rpd, e.strm, args);

    // binary and eltwise (linear) compute the same f32 operations in the
    // same order in both implementations, post-ops included: exact. The
    // softmax values differ by at most (len + 3) f32 ulps relative (see
    // test_softmax) and are at most 1; the chain multiplies that error by at
    // most 2 (linear) times the scales 1.5 / 0.25, and each later rounding
    // adds an ulp of the result (|result| <= 2*1.5/0.25*3 + 0.5 < 64, so 64
    // f32 ulps at 1 cover 8 roundings). bf16 results may round one ulp apart.
    double rel = 0, abs = 0;
    if (prim == prim_t::softmax) {
        abs = (c + 3) * et::f32_eps * 2 * (scales ? 1.5 / 0.25 : 1) + 64 * 8 * et::f32_eps;
        if (dt == dnnl_bf16) rel = et::bf16_eps;
    }
    char what[200];
    std::snprintf(what, sizeof(what), "%s post-ops [%s]%s %s tag %d dt %d C=%ld vs ref",
            prim == prim_t::binary ? "binary" : prim == prim_t::eltwise ? "eltwise" : "softmax",
            ch.what, scales ? " scales" : "", kt::impl_name(pd).c_str(), (int)tag, (int)dt, (long)c);
    t.check(et::close(dst.values(), rdst.values(), rel, abs, what), what);
    t.check(dst.padding_zero() && rdst.padding_zero(), "post-ops keep dst padding zero");

    // binary and eltwise against the naive chain: the primitive's own
    // operation (src0 - src1 per channel; 1.5 x - 0.25) in f32, then
    // na::apply, then the dst type. Every step is exact f32 arithmetic on the
    // same inputs: results must be identical.
    if (prim != prim_t::softmax) {
        for (size_t b = 0; b < bin_at.size(); ++b) nattr.post_ops[(size_t)bin_at[b]].src1.v = po_src[b]->values();
        const std::vector<float> sv = src.values(), cv = ch1.values();
        std::vector<double> main((size_t)src.nelems());
        for (size_t l = 0; l < main.size(); ++l)
            main[l] = prim == prim_t::binary ? (double)(sv[l] - cv[l / 15 % (size_t)c]) : (double)(1.5f * sv[l] + -0.25f);
        std::vector<double> tol;
        const na::dims_t nd = {2, c, 3, 5};
        const auto want = na::apply(nattr, nd, main, {}, old, dt, nullptr, &tol);
        t.check(na::match(dst.values(), want, tol, what) && na::match(rdst.values(), want, tol, what),
                (std::string("naive: ") + what).c_str());
    }
    for (auto *m : src1s) delete m;
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(rpd);
}

// The binary reference against the formula for one chain, so the oracle
// itself is checked: dst = clip(old + (a - b) * m, -2, 3).
void check_ref_formula(kt::tally_t &t, et::env_t &e) {
    const dim_t c = 5;
    kt::md_t a_md(et::md({2, c, 3, 5}, dnnl_f32, dnnl_nhwc)), b_md(et::md({1, c, 1, 1}, dnnl_f32, dnnl_nchw));
    kt::md_t m_md(et::md({2, c, 3, 5}, dnnl_f32, dnnl_nchw));
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_post_ops_t po = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_post_ops_create(&po));
    KT_OK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
    KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_mul, m_md));
    KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_clip, -2.f, 3.f));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_post_ops_destroy(po);
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_binary_primitive_desc_create(&pd, e.eng, dnnl_binary_sub, a_md, b_md, a_md, attr));
    dnnl_primitive_attr_destroy(attr);
    t.check(et::to_reference(pd), "binary reference reachable");
    et::mem_t a(a_md, e.eng), b(b_md, e.eng), m(m_md, e.eng), dst(a_md, e.eng);
    a.fill(1, -3, 3);
    b.fill(2, -2, 2);
    m.fill(3, -2, 2);
    dst.fill(4, -1, 1);
    const std::vector<float> old = dst.values();
    et::run(pd, e.strm, {{DNNL_ARG_SRC_0, a.m}, {DNNL_ARG_SRC_1, b.m}, {DNNL_ARG_DST, dst.m},
            {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, m.m}});
    bool ok = true;
    for (dim_t l = 0; l < dst.nelems(); ++l) {
        const float v = old[l] + (a.get(l) - b.get(l / 15 % c));
        const float want = std::fmin(3.f, std::fmax(-2.f, v * m.get(l)));
        ok = ok && dst.get(l) == want;
    }
    t.check(ok, "binary reference applies sum, binary and eltwise post-ops in order");
    dnnl_primitive_desc_destroy(pd);
}

// Attributes oneDNN does not take, and malformed post-op input.
void check_bad(kt::tally_t &t, et::env_t &e) {
    kt::md_t a(et::md({2, 3, 4}, dnnl_f32, dnnl_abc)), bad(et::md({2, 2, 4}, dnnl_f32, dnnl_abc));
    struct case_t {
        const char *what;
        std::function<void(dnnl_primitive_attr_t)> set;
        prim_t prim;
        dnnl_status_t want;
    };
    auto po_with = [](std::function<void(dnnl_post_ops_t)> f) {
        return [f](dnnl_primitive_attr_t attr) {
            dnnl_post_ops_t po = nullptr;
            KT_OK(dnnl_post_ops_create(&po));
            f(po);
            KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
            dnnl_post_ops_destroy(po);
        };
    };
    const dnnl_memory_desc_t bad_h = bad.h;
    const case_t cases[] = {
            {"eltwise with scales -> unimplemented",
                    [](dnnl_primitive_attr_t at) { KT_OK(dnnl_primitive_attr_set_scales_mask(at, DNNL_ARG_SRC, 0)); },
                    prim_t::eltwise, dnnl_unimplemented},
            {"softmax per-dim scales -> unimplemented",
                    [](dnnl_primitive_attr_t at) { KT_OK(dnnl_primitive_attr_set_scales_mask(at, DNNL_ARG_DST, 2)); },
                    prim_t::softmax, dnnl_unimplemented},
            {"softmax sum post-op -> unimplemented",
                    po_with([](dnnl_post_ops_t po) { KT_OK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef)); }),
                    prim_t::softmax, dnnl_unimplemented},
            {"binary post-op src1 dims not broadcastable -> invalid",
                    po_with([bad_h](dnnl_post_ops_t po) { KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bad_h)); }),
                    prim_t::binary, dnnl_invalid_arguments},
            {"eltwise post-op src1 dims not broadcastable -> invalid",
                    po_with([bad_h](dnnl_post_ops_t po) { KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bad_h)); }),
                    prim_t::eltwise, dnnl_invalid_arguments},
    };
    for (const auto &cs : cases) {
        dnnl_primitive_attr_t attr = nullptr;
        KT_OK(dnnl_primitive_attr_create(&attr));
        cs.set(attr);
        dnnl_primitive_desc_t pd = nullptr;
        dnnl_status_t st = dnnl_success;
        switch (cs.prim) {
            case prim_t::binary:
                st = dnnl_binary_primitive_desc_create(&pd, e.eng, dnnl_binary_add, a, a, a, attr);
                break;
            case prim_t::eltwise:
                st = dnnl_eltwise_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference,
                        dnnl_eltwise_relu, a, a, 0.f, 0.f, attr);
                break;
            case prim_t::softmax:
                st = dnnl_softmax_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference,
                        dnnl_softmax_accurate, a, a, 1, attr);
                break;
        }
        t.check(st == cs.want, cs.what);
        if (st == dnnl_success) dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(attr);
    }
    // A binary post-op source missing at execution.
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    po_with([&](dnnl_post_ops_t po) { KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, a)); })(attr);
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_eltwise_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference,
            dnnl_eltwise_relu, a, a, 0.f, 0.f, attr));
    dnnl_primitive_attr_destroy(attr);
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd));
    et::mem_t s(a, e.eng), d(a, e.eng);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, s.m}, {DNNL_ARG_DST, d.m}};
    t.check(dnnl_primitive_execute(p, e.strm, 2, args) == dnnl_invalid_arguments,
            "eltwise missing post-op src1 -> invalid_arguments");
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    kt::tally_t t;
    et::env_t e;
    const auto all = chains();
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (auto prim : {prim_t::binary, prim_t::eltwise, prim_t::softmax})
                for (const auto &ch : all) {
                    if (prim == prim_t::softmax && ch.sum) continue; // not in oneDNN
                    for (dim_t c : {3, 16, 17})
                        for (auto tag : {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c})
                            for (auto dt : {dnnl_f32, dnnl_bf16})
                                check(t, e, prim, ch, c, tag, dt,
                                        prim == prim_t::softmax && c != 16);
                }
        });
    // f32 plain problems run vectorised with their chain.
    t.check(n_vec[0] >= 48 && n_vec[1] >= 48 && n_vec[2] >= 24,
            "the vectorised implementations took post-op chains");
    check_ref_formula(t, e);
    check_bad(t, e);
    return t.finish();
}
