// Reduction with s8/u8 src (and f32 src to integer dst) against a naive
// reference in double: sum, mean, max, min and mul into f32, s8, u8 and
// s32, over four layouts, several sets of reduced dims and 1 and 2 threads.
// Sums, maxima and minima of integers are exact (oneDNN accumulates them in
// s32), so integer dst is compared exactly; the mean is one f32 division of
// an exact sum by R <= 570 elements: its value lies at least 1/(2R) from
// any midpoint it does not hit (1/(4R) for the f32 src in quarters), far
// more than the division's error
// (|mean| * 2^-24 with |mean| <= 255), so integer dst is exact there too.
// Products of values in [-2, 2] over at most 5 elements are exact in f32.
#include "common/int8_ref.hpp"

namespace {

using i8::lay_t;
using i8::tensor_t;

bool red_case(i8::env_t &env, const std::vector<int64_t> &sdims, const std::vector<int64_t> &ddims, lay_t lay,
        dnnl_alg_kind_t alg, dnnl_data_type_t sdt, dnnl_data_type_t ddt, uint64_t seed) {
    tensor_t src(sdims, sdt, lay), dst(ddims, ddt, lay);
    kt::rng_t r(seed);
    for (int64_t l = 0; l < src.nelems(); ++l) {
        if (alg == dnnl_reduction_mul)
            src.set(l, sdt == dnnl_u8 ? r.next() % 3 : (double)((int)(r.next() % 5) - 2));
        else if (sdt == dnnl_f32)
            src.set(l, (double)((int)(r.next() % 1601) - 800) / 4);
        else
            src.set(l, i8::pick(r, sdt));
    }
    dst.junk();
    kt::md_t smd(src.md()), dmd(dst.md());
    dnnl_primitive_desc_t pd = nullptr;
    if (dnnl_reduction_primitive_desc_create(&pd, env.eng, alg, smd, dmd, 0.f, 0.f, nullptr) != dnnl_success)
        return false;
    bool ok = i8::run(env, pd, {{DNNL_ARG_SRC, &src}, {DNNL_ARG_DST, &dst}});
    dnnl_primitive_desc_destroy(pd);
    const int nd = (int)sdims.size();
    for (int64_t o = 0; ok && o < dst.nelems(); ++o) {
        int64_t opos[8], rem = o;
        for (int i = nd - 1; i >= 0; --i) {
            opos[i] = rem % ddims[i];
            rem /= ddims[i];
        }
        double acc = alg == dnnl_reduction_max ? -INFINITY : alg == dnnl_reduction_min ? INFINITY
                : alg == dnnl_reduction_mul                 ? 1
                                                            : 0;
        int64_t cnt = 0;
        for (int64_t l = 0; l < src.nelems(); ++l) {
            int64_t rr = l;
            bool mine = true;
            for (int i = nd - 1; i >= 0; --i) {
                const int64_t p = rr % sdims[i];
                rr /= sdims[i];
                mine = mine && (ddims[i] == 1 || p == opos[i]);
            }
            if (!mine) continue;
            const double x = src.get(l);
            ++cnt;
            if (alg == dnnl_reduction_max) acc = std::fmax(acc, x);
            else if (alg == dnnl_reduction_min) acc = std::fmin(acc, x);
            else if (alg == dnnl_reduction_mul) acc *= x;
            else acc += x;
        }
        if (alg == dnnl_reduction_mean) acc /= (double)cnt;
        const double rel = ddt == dnnl_f32 && alg == dnnl_reduction_mean ? 1.0 / 16777216 : 0;
        if (!i8::close(dst.get(o), acc, ddt, rel)) {
            std::fprintf(stderr, "  at %lld: got %g, reference %.9g\n", (long long)o, dst.get(o), acc);
            ok = false;
        }
    }
    return ok && dst.padding_zero();
}

} // namespace

int main() {
    i8::env_t env;
    kt::tally_t t;
    char what[200];
    uint64_t seed = 1;
    const std::vector<int64_t> s = {2, 19, 3, 5};
    const std::vector<std::vector<int64_t>> ds = {{2, 19, 1, 1}, {2, 1, 3, 5}, {1, 19, 1, 5}, {1, 1, 1, 1}};
    const dnnl_data_type_t dts[][2] = {{dnnl_s8, dnnl_s8}, {dnnl_u8, dnnl_u8}, {dnnl_s8, dnnl_f32},
            {dnnl_u8, dnnl_f32}, {dnnl_s8, dnnl_s32}, {dnnl_u8, dnnl_s32}, {dnnl_s8, dnnl_u8}, {dnnl_f32, dnnl_s8},
            {dnnl_f32, dnnl_u8}};
    const dnnl_alg_kind_t algs[] = {dnnl_reduction_sum, dnnl_reduction_mean, dnnl_reduction_max,
            dnnl_reduction_min};
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (size_t di = 0; di < ds.size(); ++di)
                for (auto &dt : dts)
                    for (auto alg : algs)
                        for (auto lay : {lay_t::plain, lay_t::nspc, lay_t::blk8, lay_t::blk16}) {
                            std::snprintf(what, sizeof(what), "reduction %s->%s alg %d dst %zu %s %d thr",
                                    i8::dt_name(dt[0]), i8::dt_name(dt[1]), (int)alg, di, i8::lay_name(lay), nthr);
                            t.check(red_case(env, s, ds[di], lay, alg, dt[0], dt[1], seed++), what);
                        }
            // Products over few elements (the last dim).
            for (auto &dt : dts) {
                std::snprintf(what, sizeof(what), "reduction mul %s->%s %d thr", i8::dt_name(dt[0]),
                        i8::dt_name(dt[1]), nthr);
                t.check(red_case(env, s, {2, 19, 3, 1}, lay_t::plain, dnnl_reduction_mul, dt[0], dt[1], seed++),
                        what);
            }
        });
    // A u8 sum past 2^24 is exact in s32 (f32 accumulation would round it).
    {
        tensor_t src({1, 1, 300, 300}, dnnl_u8, lay_t::plain), dst({1, 1, 1, 1}, dnnl_s32, lay_t::plain);
        int64_t want = 0;
        for (int64_t l = 0; l < src.nelems(); ++l) {
            src.set(l, 255 - l % 2);
            want += 255 - l % 2;
        }
        kt::md_t smd(src.md()), dmd(dst.md());
        dnnl_primitive_desc_t pd = nullptr;
        KT_OK(dnnl_reduction_primitive_desc_create(&pd, env.eng, dnnl_reduction_sum, smd, dmd, 0.f, 0.f, nullptr));
        const bool ran = i8::run(env, pd, {{DNNL_ARG_SRC, &src}, {DNNL_ARG_DST, &dst}});
        dnnl_primitive_desc_destroy(pd);
        t.check(ran && dst.get(0) == (double)want, "reduction u8 sum of 90000 elements exact in s32");
    }
    // Lp norms take floating-point src only (as oneDNN).
    {
        tensor_t src(s, dnnl_s8, lay_t::plain), dst(ds[0], dnnl_f32, lay_t::plain);
        kt::md_t smd(src.md()), dmd(dst.md());
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t st = dnnl_reduction_primitive_desc_create(
                &pd, env.eng, dnnl_reduction_norm_lp_sum, smd, dmd, 2.f, 0.f, nullptr);
        dnnl_primitive_desc_destroy(pd);
        t.check(st != dnnl_success, "reduction: Lp norm of s8 refused");
    }
    return t.finish();
}
