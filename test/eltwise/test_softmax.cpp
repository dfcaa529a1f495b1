// Softmax forward: vectorised rows (axis with unit stride), columns
// (strided axis) and nC..16c along C against the reference for every axis,
// layout, type, alg and thread count; stability for huge inputs; bad input.
#include "elt_test.hpp"

#include "cpu/isa.hpp"

using namespace kestrel;

namespace {

int n_vec = 0, n_blk16 = 0;

void check(kt::tally_t &t, et::env_t &e, dnnl_alg_kind_t alg, const std::vector<dim_t> &dims,
        dnnl_format_tag_t tag, dnnl_data_type_t dt, int axis) {
    kt::md_t sm(et::md(dims, dt, tag)), dm(et::md(dims, dt, dnnl_format_tag_any));
    dnnl_primitive_desc_t pd = nullptr, rpd = nullptr;
    KT_OK(dnnl_softmax_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference, alg, sm,
            dm, axis, nullptr));
    KT_OK(dnnl_primitive_desc_clone(&rpd, pd));
    t.check(et::to_reference(rpd), "softmax reference reachable");
    if (kt::impl_name(pd).rfind("vec", 0) == 0) ++n_vec;
    if (kt::impl_name(pd).find("blk16") != std::string::npos) ++n_blk16;
    const_dnnl_memory_desc_t qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    et::mem_t src(sm, e.eng), dst(qd, e.eng), rdst(qd, e.eng);
    src.fill(dims.size() * 17 + axis, -5.f, 5.f);
    et::run(pd, e.strm, {{DNNL_ARG_SRC, src.m}, {DNNL_ARG_DST, dst.m}});
    et::run(rpd, e.strm, {{DNNL_ARG_SRC, src.m}, {DNNL_ARG_DST, rdst.m}});
    // Sums in a different order differ by at most len ulps (relative); exp
    // adds 2 ulps and the division 1 (the kernels multiply by 1 / sum: two
    // roundings of half an ulp each). Log softmax subtracts log(sum), whose
    // absolute error is that relative error of the sum, and |log(sum)| <
    // log(len) + 10 for inputs in [-5, 5]. bf16 may round 1 ulp apart.
    const dim_t len = dims[axis];
    const double rel_sum = (len + 3) * et::f32_eps;
    double rel = rel_sum, abs = 0;
    if (alg == dnnl_softmax_log) {
        rel = 2 * et::f32_eps;
        abs = (std::log((double)len) + 10) * rel_sum + 16 * et::f32_eps;
    }
    if (dt == dnnl_bf16) rel += et::bf16_eps;
    char what[160];
    std::snprintf(what, sizeof(what), "softmax alg %#x %s tag %d dt %d axis %d C=%ld", (int)alg,
            kt::impl_name(pd).c_str(), (int)tag, (int)dt, axis, (long)(dims.size() > 1 ? dims[1] : dims[0]));
    t.check(et::close(dst.values(), rdst.values(), rel, abs, what), what);
    t.check(dst.padding_zero() && rdst.padding_zero(), "softmax keeps dst padding zero");
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(rpd);
}

// Huge and equal inputs: no overflow, rows still sum to 1.
void check_stability(kt::tally_t &t, et::env_t &e) {
    for (dnnl_format_tag_t tag : {dnnl_ab, dnnl_ba}) {
        kt::md_t m(et::md({4, 37}, dnnl_f32, tag));
        dnnl_primitive_desc_t pd = nullptr;
        KT_OK(dnnl_softmax_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_training,
                dnnl_softmax_accurate, m, m, 1, nullptr));
        et::mem_t src(m, e.eng), dst(m, e.eng);
        for (dim_t l = 0; l < 37; ++l) {
            src.set(l, 1e4f);
            src.set(37 + l, -1e4f);
            src.set(74 + l, l == 5 ? 1e4f : -1e4f);
            src.set(111 + l, 80.f + (float)(l % 3));
        }
        et::run(pd, e.strm, {{DNNL_ARG_SRC, src.m}, {DNNL_ARG_DST, dst.m}});
        bool ok = true;
        for (int r = 0; r < 4; ++r) {
            double s = 0;
            for (dim_t l = 0; l < 37; ++l) {
                float v = dst.get(r * 37 + l);
                ok = ok && std::isfinite(v) && v >= 0;
                s += v;
            }
            ok = ok && std::fabs(s - 1) < 40 * et::f32_eps;
        }
        ok = ok && std::fabs(dst.get(0) - 1.f / 37) < 4 * et::f32_eps && dst.get(74 + 5) == 1.f
                && dst.get(74) == 0.f;
        t.check(ok, tag == dnnl_ab ? "softmax stable for +-1e4 (rows)" : "softmax stable for +-1e4 (columns)");
        dnnl_primitive_desc_destroy(pd);
    }
}

void check_bad(kt::tally_t &t, et::env_t &e) {
    kt::md_t a(et::md({2, 3}, dnnl_f32, dnnl_ab)), b(et::md({2, 4}, dnnl_f32, dnnl_ab));
    dnnl_primitive_desc_t pd = nullptr;
    t.check(dnnl_softmax_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference,
                    dnnl_softmax_accurate, a, a, 2, nullptr) == dnnl_invalid_arguments,
            "softmax axis out of range -> invalid");
    t.check(dnnl_softmax_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference,
                    dnnl_softmax_accurate, a, b, 1, nullptr) == dnnl_invalid_arguments,
            "softmax dims mismatch -> invalid");
    t.check(dnnl_softmax_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference,
                    dnnl_eltwise_relu, a, a, 1, nullptr) == dnnl_invalid_arguments,
            "softmax bad alg -> invalid");
    t.check(dnnl_softmax_forward_primitive_desc_create(nullptr, e.eng, dnnl_forward_inference,
                    dnnl_softmax_accurate, a, a, 1, nullptr) == dnnl_invalid_arguments,
            "softmax NULL pd -> invalid");
    KT_OK(dnnl_softmax_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference,
            dnnl_softmax_log, a, a, 1, nullptr));
    int axis = -1;
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_axis_s32, 0, &axis));
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &alg));
    t.check(axis == 1 && alg == dnnl_softmax_log, "softmax queries");
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    kt::tally_t t;
    et::env_t e;
    const dnnl_format_tag_t tags[] = {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c};
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (auto alg : {dnnl_softmax_accurate, dnnl_softmax_log})
                for (dim_t c : {1, 3, 15, 16, 17, 33})
                    for (auto tag : tags)
                        for (auto dt : {dnnl_f32, dnnl_bf16})
                            for (int axis = 0; axis < 4; ++axis)
                                check(t, e, alg, {2, c, 3, 19}, tag, dt, axis);
            check(t, e, dnnl_softmax_accurate, {64, 1000}, dnnl_ab, dnnl_f32, 1);
            check(t, e, dnnl_softmax_log, {8, 129, 70}, dnnl_abc, dnnl_f32, 1);
            check(t, e, dnnl_softmax_accurate, {77}, dnnl_a, dnnl_bf16, 0);
            // Strided axis with column groups of 1024 and a partial last
            // group (16 x 2 groups keep 2 threads busy at full group size).
            for (auto alg : {dnnl_softmax_accurate, dnnl_softmax_log})
                for (auto dt : {dnnl_f32, dnnl_bf16}) {
                    check(t, e, alg, {16, 3, 1041}, dnnl_abc, dt, 1);
                    // nC..16c along C: several position chunks, 3D and 5D.
                    check(t, e, alg, {2, 40, 600}, dnnl_aBc16b, dt, 1);
                    check(t, e, alg, {1, 17, 2, 3, 5}, dnnl_aBcde16b, dt, 1);
                }
        });
    t.check(!isa::has(isa::avx2) || n_vec > 200, "the optimized softmax served most cases");
    t.check(!isa::has(isa::avx512) || n_blk16 == 2 * 2 * 2 * 6 + 2 * 8,
            "the nC..16c softmax served every blocked case along C");
    check_stability(t, e);
    check_bad(t, e);
    return t.finish();
}
