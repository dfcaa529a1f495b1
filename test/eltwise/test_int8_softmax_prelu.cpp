// Softmax and PReLU forward with 8-bit (and s32, for PReLU) integers against
// naive references written here in double, over several layouts, axes,
// broadcasts, channel tails and 1 and 2 threads.
#include "common/int8_ref.hpp"

namespace {

using i8::lay_t;
using i8::tensor_t;

const double ulp = 1.0 / 16777216; // 2^-24, f32's relative rounding error

// ---------------------------------------------------------------- softmax

struct sm_case_t {
    std::vector<int64_t> dims;
    int axis;
    lay_t lay;
};

// y = (log)softmax(x) * src_scale / dst_scale, as oneDNN's int8 softmax.
// The library works in f32: exp (<= 1 ulp), a sum of len terms
// (<= len ulp), the division and the two scalings (1 ulp each), so its
// value is within (len + 8) ulp of the real one, relatively; log softmax
// adds an absolute error of the same order times the scales. Integer dst
// then takes exactly one of the neighbours that bound allows.
bool softmax_case(i8::env_t &env, const sm_case_t &c, dnnl_alg_kind_t alg, dnnl_data_type_t sdt,
        dnnl_data_type_t ddt, float ss, float ds, uint64_t seed) {
    tensor_t src(c.dims, sdt, c.lay), dst(c.dims, ddt, c.lay);
    kt::rng_t r(seed);
    for (int64_t l = 0; l < src.nelems(); ++l)
        src.set(l, sdt == dnnl_f32 ? (double)((int)(r.next() % 41) - 20) / 4 : i8::pick(r, sdt));
    dst.junk();
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    i8::raw_t rs {{ss}}, rd {{ds}};
    std::map<int, i8::raw_t *> raws;
    if (ss != 1.f) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        raws[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = &rs;
    }
    if (ds != 1.f) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
        raws[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = &rd;
    }
    kt::md_t smd(src.md()), dmd(dst.md());
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = dnnl_softmax_forward_primitive_desc_create(
            &pd, env.eng, dnnl_forward_inference, alg, smd, dmd, c.axis, attr);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) return false;
    bool ok = i8::run(env, pd, {{DNNL_ARG_SRC, &src}, {DNNL_ARG_DST, &dst}}, raws);
    dnnl_primitive_desc_destroy(pd);
    const int nd = (int)c.dims.size();
    int64_t len = c.dims[c.axis], inner = 1;
    for (int i = c.axis + 1; i < nd; ++i) inner *= c.dims[i];
    const double rel = (len + 8) * ulp;
    // f32 dst: exp of arguments below about -87 is subnormal or 0 in f32
    // (src spans 255, so it happens): an absolute error up to the
    // smallest normal 2^-126, divided by the sum (>= 1) and scaled.
    const double tiny = ddt == dnnl_f32 ? std::ldexp(1.0, -126) * (ss / ds) : 0;
    const double abs_tol = (alg == dnnl_softmax_log ? (len + 8) * ulp * (ss / ds) : 0) + tiny;
    for (int64_t l = 0; ok && l < src.nelems(); ++l) {
        const int64_t base = l - (l / inner % len) * inner; // index 0 on the axis
        double mx = -INFINITY, sum = 0;
        for (int64_t k = 0; k < len; ++k) mx = std::fmax(mx, src.get(base + k * inner));
        for (int64_t k = 0; k < len; ++k) sum += std::exp(src.get(base + k * inner) - mx);
        const double x = src.get(l) - mx;
        const double y = (alg == dnnl_softmax_log ? x - std::log(sum) : std::exp(x) / sum) * ss / ds;
        // Log softmax: the f32 subtraction rounds at the scale of |x|.
        const double extra = alg == dnnl_softmax_log ? std::fabs(x) * ulp * ss / ds : 0;
        if (!i8::close(dst.get(l), y, ddt, rel, abs_tol + extra)) {
            std::fprintf(stderr, "  at %lld: got %g, reference %.9g\n", (long long)l, dst.get(l), y);
            ok = false;
        }
    }
    return ok && dst.padding_zero();
}

// ---------------------------------------------------------------- prelu

// dst = x > 0 ? x : w * x. With int8/small s32 sources and weights that are
// multiples of 1/16 the product is exact in f32 except for s32 sources up
// to 2^22, where the one f32 rounding of the product (2^-24 relative) is
// allowed for.
bool prelu_case(i8::env_t &env, const std::vector<int64_t> &dims, const std::vector<int64_t> &wdims,
        lay_t lay, dnnl_data_type_t sdt, dnnl_data_type_t wdt, dnnl_data_type_t ddt, uint64_t seed) {
    const bool full = wdims == dims;
    tensor_t src(dims, sdt, lay), wei(wdims, wdt, full ? lay : lay_t::plain), dst(dims, ddt, lay);
    kt::rng_t r(seed);
    for (int64_t l = 0; l < src.nelems(); ++l) {
        if (sdt == dnnl_s32)
            src.set(l, (double)((int)(r.next() % (1u << 23)) - (1 << 22)));
        else if (sdt == dnnl_f32)
            src.set(l, (double)((int)(r.next() % 1281) - 640) / 4); // past both int8 ranges
        else
            src.set(l, i8::pick(r, sdt));
    }
    for (int64_t l = 0; l < wei.nelems(); ++l) {
        if (wdt == dnnl_f32)
            wei.set(l, (double)((int)(r.next() % 65) - 32) / 16); // [-2, 2] in steps of 1/16: ties
        else
            wei.set(l, wdt == dnnl_u8 ? r.next() % 4 : (double)((int)(r.next() % 7) - 3));
    }
    dst.junk();
    kt::md_t smd(src.md()), wmd(wei.md()), dmd(dst.md());
    dnnl_primitive_desc_t pd = nullptr;
    if (dnnl_prelu_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_inference, smd, wmd, dmd, nullptr)
            != dnnl_success)
        return false;
    bool ok = i8::run(env, pd, {{DNNL_ARG_SRC, &src}, {DNNL_ARG_WEIGHTS, &wei}, {DNNL_ARG_DST, &dst}});
    dnnl_primitive_desc_destroy(pd);
    const int nd = (int)dims.size();
    for (int64_t l = 0; ok && l < src.nelems(); ++l) {
        int64_t rem = l, wl = 0, wstride = 1;
        for (int i = nd - 1; i >= 0; --i) {
            const int64_t p = rem % dims[i];
            rem /= dims[i];
            wl += (wdims[i] == 1 ? 0 : p) * wstride;
            wstride *= wdims[i];
        }
        const double x = src.get(l), y = x > 0 ? x : wei.get(wl) * x;
        const double rel = sdt == dnnl_s32 || ddt == dnnl_f32 ? ulp : 0;
        if (!i8::close(dst.get(l), y, ddt, rel)) {
            std::fprintf(stderr, "  at %lld: got %g, reference %.9g\n", (long long)l, dst.get(l), y);
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
    const sm_case_t sm_cases[] = {
            {{3, 37}, 1, lay_t::plain}, // rows with a tail
            {{2, 19, 3, 5}, 1, lay_t::plain}, // strided axis
            {{2, 19, 3, 5}, 1, lay_t::nspc},
            {{2, 19, 3, 5}, 1, lay_t::blk16}, // channel tail in the block
            {{2, 19, 3, 5}, 3, lay_t::blk8},
            {{1, 5, 7}, 2, lay_t::nspc},
    };
    struct sc_t {
        float s, d;
    };
    const sc_t scales[] = {{1.f, 1.f}, {1.f, 1.f / 200}, {2.f, 1.f / 100}, {0.5f, 0.25f}};
    const dnnl_data_type_t sm_dts[][2] = {{dnnl_s8, dnnl_s8}, {dnnl_u8, dnnl_u8}, {dnnl_s8, dnnl_u8},
            {dnnl_u8, dnnl_s8}, {dnnl_s8, dnnl_f32}, {dnnl_u8, dnnl_f32}, {dnnl_f32, dnnl_s8},
            {dnnl_f32, dnnl_u8}};
    uint64_t seed = 1;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (size_t ci = 0; ci < sizeof(sm_cases) / sizeof(sm_cases[0]); ++ci)
                for (auto &dt : sm_dts)
                    for (auto alg : {dnnl_softmax_accurate, dnnl_softmax_log})
                        for (auto sc : scales) {
                            std::snprintf(what, sizeof(what), "softmax %s->%s alg %d case %zu scales %g/%g %d thr",
                                    i8::dt_name(dt[0]), i8::dt_name(dt[1]), (int)alg, ci, sc.s, sc.d, nthr);
                            t.check(softmax_case(env, sm_cases[ci], alg, dt[0], dt[1], sc.s, sc.d, seed++), what);
                        }
        });

    // Scales other than one value per tensor, and zero points, are refused.
    {
        tensor_t src({2, 19}, dnnl_s8, lay_t::plain), dst({2, 19}, dnnl_u8, lay_t::plain);
        kt::md_t smd(src.md()), dmd(dst.md());
        auto status_with = [&](int mask, bool zp) {
            dnnl_primitive_attr_t attr = nullptr;
            KT_OK(dnnl_primitive_attr_create(&attr));
            if (zp)
                KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0));
            else
                KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, mask));
            dnnl_primitive_desc_t pd = nullptr;
            const dnnl_status_t st = dnnl_softmax_forward_primitive_desc_create(
                    &pd, env.eng, dnnl_forward_inference, dnnl_softmax_accurate, smd, dmd, 1, attr);
            dnnl_primitive_desc_destroy(pd);
            dnnl_primitive_attr_destroy(attr);
            return st;
        };
        t.check(status_with(2, false) == dnnl_unimplemented, "softmax: per-channel dst scales refused");
        t.check(status_with(0, true) == dnnl_unimplemented, "softmax: zero points refused");
        t.check(status_with(0, false) == dnnl_success, "softmax: one dst scale accepted");
    }

    const std::vector<int64_t> pdims = {2, 19, 3, 5};
    const std::vector<std::vector<int64_t>> wshapes = {{1, 1, 1, 1}, {1, 19, 1, 1}, pdims};
    const dnnl_data_type_t pr_dts[][3] = {{dnnl_s8, dnnl_f32, dnnl_s8}, {dnnl_u8, dnnl_f32, dnnl_u8},
            {dnnl_s8, dnnl_s8, dnnl_s8}, {dnnl_s8, dnnl_f32, dnnl_u8}, {dnnl_s8, dnnl_u8, dnnl_f32},
            {dnnl_f32, dnnl_f32, dnnl_s8}, {dnnl_f32, dnnl_s8, dnnl_u8}, {dnnl_s32, dnnl_f32, dnnl_s32},
            {dnnl_s32, dnnl_f32, dnnl_s8}, {dnnl_s8, dnnl_f32, dnnl_s32}};
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (auto &dt : pr_dts)
                for (size_t wi = 0; wi < wshapes.size(); ++wi)
                    for (auto lay : {lay_t::plain, lay_t::nspc, lay_t::blk8, lay_t::blk16}) {
                        std::snprintf(what, sizeof(what), "prelu %s,%s->%s weights %zu %s %d thr",
                                i8::dt_name(dt[0]), i8::dt_name(dt[1]), i8::dt_name(dt[2]), wi,
                                i8::lay_name(lay), nthr);
                        t.check(prelu_case(env, pdims, wshapes[wi], lay, dt[0], dt[1], dt[2], seed++), what);
                    }
        });
    return t.finish();
}
