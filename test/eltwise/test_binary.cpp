// Binary: the vectorised paths (same shape, scalar and per-channel
// broadcast) against the reference for every algorithm, layout, type and
// thread count, with and without scales; general broadcasts, select and
// bad input. Both compute s0*a op s1*b in f32 with the same operations, so
// results must match bit for bit.
#include "elt_test.hpp"

using namespace kestrel;

namespace {

const dnnl_alg_kind_t algs[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max,
        dnnl_binary_min, dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt,
        dnnl_binary_le, dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne};

int n_vec = 0; // how many cases the optimized implementation served

void check(kt::tally_t &t, et::env_t &e, dnnl_alg_kind_t alg, const std::vector<dim_t> &d0,
        const std::vector<dim_t> &d1, dnnl_format_tag_t tag, dnnl_format_tag_t tag1,
        dnnl_data_type_t dt, bool scales) {
    kt::md_t m0(et::md(d0, dt, tag)), m1(et::md(d1, dt, tag1)), md(et::md(d0, dt, dnnl_format_tag_any));
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    if (scales) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_0, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_1, 0));
    }
    dnnl_primitive_desc_t pd = nullptr, rpd = nullptr;
    KT_OK(dnnl_binary_primitive_desc_create(&pd, e.eng, alg, m0, m1, md, attr));
    dnnl_primitive_attr_destroy(attr);
    KT_OK(dnnl_primitive_desc_clone(&rpd, pd));
    t.check(et::to_reference(rpd), "binary reference reachable");
    if (kt::impl_name(pd).rfind("vec", 0) == 0) ++n_vec;
    const_dnnl_memory_desc_t qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    et::mem_t a(m0, e.eng), b(m1, e.eng), dst(qd, e.eng), rdst(qd, e.eng);
    // Small integers make the comparisons hit equality often.
    kt::rng_t r(d0.size() * 7 + (size_t)alg);
    for (dim_t l = 0; l < a.nelems(); ++l) a.set(l, r.small_int(-3, 3));
    for (dim_t l = 0; l < b.nelems(); ++l) b.set(l, r.small_int(-3, 3) + (alg == dnnl_binary_div ? 0.5f : 0.f));
    kt::md_t smd(et::md({1}, dnnl_f32, dnnl_a));
    et::mem_t s0(smd, e.eng), s1(smd, e.eng);
    s0.set(0, 0.5f);
    s1.set(0, -2.f);
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC_0, a.m}, {DNNL_ARG_SRC_1, b.m}, {DNNL_ARG_DST, dst.m}};
    if (scales) {
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_0, s0.m});
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_1, s1.m});
    }
    et::run(pd, e.strm, args);
    args[2].memory = rdst.m;
    et::run(rpd, e.strm, args);
    // The reference itself against the formula.
    bool ref_ok = true;
    {
        std::vector<dim_t> pos(d0.size());
        for (dim_t l = 0; l < a.nelems() && ref_ok; ++l) {
            dim_t rem = l, l1 = 0, m = 1;
            for (int i = (int)d0.size() - 1; i >= 0; --i) {
                pos[i] = rem % d0[i];
                rem /= d0[i];
            }
            for (int i = (int)d0.size() - 1; i >= 0; --i) {
                l1 += (d1[i] == 1 ? 0 : pos[i]) * m;
                m *= d1[i];
            }
            float x = a.get(l) * (scales ? 0.5f : 1.f), y = b.get(l1) * (scales ? -2.f : 1.f);
            float want;
            switch (alg) {
                case dnnl_binary_add: want = x + y; break;
                case dnnl_binary_mul: want = x * y; break;
                case dnnl_binary_max: want = x > y ? x : y; break;
                case dnnl_binary_min: want = x < y ? x : y; break;
                case dnnl_binary_div: want = x / y; break;
                case dnnl_binary_sub: want = x - y; break;
                case dnnl_binary_ge: want = x >= y; break;
                case dnnl_binary_gt: want = x > y; break;
                case dnnl_binary_le: want = x <= y; break;
                case dnnl_binary_lt: want = x < y; break;
                case dnnl_binary_eq: want = x == y; break;
                default: want = x != y; break;
            }
            if (dt == dnnl_bf16) want = bf16_to_f32(f32_to_bf16(want));
            ref_ok = rdst.get(l) == want;
        }
    }
    char what[160];
    std::snprintf(what, sizeof(what), "binary alg %#x %s tag %d dt %d C=%ld src1 C=%ld%s",
            (int)alg, kt::impl_name(pd).c_str(), (int)tag, (int)dt, (long)d0[1], (long)d1[1],
            scales ? " scales" : "");
    t.check(ref_ok, what);
    t.check(et::close(dst.values(), rdst.values(), 0, 0, what), what);
    std::snprintf(what + std::strlen(what), 16, " padding");
    t.check(dst.padding_zero() && rdst.padding_zero(), what);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(rpd);
}

void check_select_and_bad(kt::tally_t &t, et::env_t &e) {
    kt::md_t a(et::md({2, 3, 4}, dnnl_f32, dnnl_abc)), c(et::md({2, 1, 4}, dnnl_s8, dnnl_abc));
    kt::md_t bad(et::md({2, 2, 4}, dnnl_f32, dnnl_abc)), r1(et::md({2, 3}, dnnl_f32, dnnl_ab));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_binary_primitive_desc_create_v2(&pd, e.eng, dnnl_binary_select, a, a, c, a, nullptr));
    et::mem_t x(a, e.eng), y(a, e.eng), cond(c, e.eng), dst(a, e.eng);
    x.fill(1, -1, 1);
    y.fill(2, -1, 1);
    for (dim_t l = 0; l < cond.nelems(); ++l) cond.set(l, (float)(l % 3 == 0));
    et::run(pd, e.strm, {{DNNL_ARG_SRC_0, x.m}, {DNNL_ARG_SRC_1, y.m}, {DNNL_ARG_SRC_2, cond.m},
            {DNNL_ARG_DST, dst.m}});
    bool ok = true;
    for (dim_t l = 0; l < dst.nelems(); ++l) {
        dim_t n = l / 12, w = l % 4;
        ok = ok && dst.get(l) == (cond.get(n * 4 + w) != 0 ? x.get(l) : y.get(l));
    }
    t.check(ok, "binary select picks src0 where src2 != 0");
    dnnl_primitive_desc_destroy(pd);

    t.check(dnnl_binary_primitive_desc_create(nullptr, e.eng, dnnl_binary_add, a, a, a, nullptr)
                    == dnnl_invalid_arguments, "binary NULL pd -> invalid_arguments");
    t.check(dnnl_binary_primitive_desc_create(&pd, e.eng, dnnl_binary_add, a, nullptr, a, nullptr)
                    == dnnl_invalid_arguments, "binary NULL src1 -> invalid_arguments");
    t.check(dnnl_binary_primitive_desc_create(&pd, e.eng, dnnl_binary_add, a, bad, a, nullptr)
                    == dnnl_invalid_arguments, "binary src1 dims not broadcastable -> invalid");
    t.check(dnnl_binary_primitive_desc_create(&pd, e.eng, dnnl_binary_add, a, r1, a, nullptr)
                    == dnnl_invalid_arguments, "binary rank mismatch -> invalid");
    t.check(dnnl_binary_primitive_desc_create(&pd, e.eng, dnnl_binary_add, a, a, bad, nullptr)
                    == dnnl_invalid_arguments, "binary dst dims -> invalid");
    t.check(dnnl_binary_primitive_desc_create(&pd, e.eng, dnnl_eltwise_relu, a, a, a, nullptr)
                    == dnnl_invalid_arguments, "binary bad alg -> invalid");
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC_0, 2));
    t.check(dnnl_binary_primitive_desc_create(&pd, e.eng, dnnl_binary_add, a, a, a, attr)
                    == dnnl_unimplemented, "binary per-channel scales -> unimplemented");
    dnnl_primitive_attr_destroy(attr);
}

} // namespace

int main() {
    kt::tally_t t;
    et::env_t e;
    const dnnl_format_tag_t tags[] = {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c, dnnl_nChw8c};
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (auto alg : algs)
                for (dim_t c : {1, 3, 16, 17, 33})
                    for (auto tag : tags)
                        for (auto dt : {dnnl_f32, dnnl_bf16}) {
                            const dim_t n = c == 3 ? 1 : 2;
                            const std::vector<dim_t> d0 = {n, c, 3, 5};
                            const bool sc = c == 17;
                            check(t, e, alg, d0, d0, tag, tag, dt, sc);
                            check(t, e, alg, d0, {1, 1, 1, 1}, tag, dnnl_nchw, dt, sc);
                            check(t, e, alg, d0, {1, c, 1, 1}, tag, dnnl_nchw, dt, sc);
                            check(t, e, alg, d0, {n, 1, 3, 1}, tag, dnnl_nchw, dt, false);
                            if (tag == dnnl_nchw) check(t, e, alg, d0, d0, tag, dnnl_nhwc, dt, false);
                        }
            check(t, e, dnnl_binary_add, {3, 64, 33, 17}, {3, 64, 33, 17}, dnnl_nchw, dnnl_nchw, dnnl_f32, true);
            check(t, e, dnnl_binary_mul, {2, 48, 17, 9}, {1, 48, 1, 1}, dnnl_nChw16c, dnnl_nchw, dnnl_f32, false);
            check(t, e, dnnl_binary_max, {2, 3, 4, 5, 6}, {2, 1, 4, 1, 6}, dnnl_abcde, dnnl_abcde, dnnl_bf16, false);
        });
    t.check(n_vec > 1000, "the optimized binary implementation served most cases");
    check_select_and_bad(t, e);
    return t.finish();
}
