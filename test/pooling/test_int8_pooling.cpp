// Pooling forward with 8-bit integers against a naive reference written
// here: s8/u8 to themselves (training and inference), and for inference
// s8<->u8, s8/u8 -> f32/f16, f32 -> s8/u8, over 1D/2D/3D shapes with channel
// tails, padding, dilation and odd sizes, four layouts and 1 and 2 threads.
// Max pooling is exact. Average pooling is exact too for integer dst: the
// library sums integers exactly in f32 (sums stay far below 2^24) and
// divides once, and sum/div lies at least 1/(2 div) from any midpoint it
// does not hit exactly, which is far more than the f32 division error
// (|q| * 2^-24 with |q| <= 270 and div <= 27), so rounding to nearest even
// sees the exact quotient. Float dst: one f32 rounding of the quotient
// (2^-24 relative), f16 dst one more (2^-11). s32 -> s32 (training and
// inference) over the whole s32 range: exact, maxima and averages alike (the
// sums of at most 27 values stay below 2^53).
#include "common/int8_ref.hpp"

namespace {

using i8::lay_t;
using i8::tensor_t;

struct shape_t {
    std::vector<int64_t> src; // N, C, spatial...
    std::vector<int64_t> k, s, dil, pl, pr;
};

std::vector<int64_t> out_dims(const shape_t &sh) {
    std::vector<int64_t> o = {sh.src[0], sh.src[1]};
    for (size_t i = 0; i < sh.k.size(); ++i) {
        const int64_t ek = (sh.k[i] - 1) * (sh.dil[i] + 1) + 1;
        o.push_back((sh.src[2 + i] + sh.pl[i] + sh.pr[i] - ek) / sh.s[i] + 1);
    }
    return o;
}

// Reference value (real, before the dst conversion) of output index l.
double ref_at(const shape_t &sh, const tensor_t &src, const std::vector<int64_t> &od, int64_t l,
        dnnl_alg_kind_t alg) {
    const int ns = (int)sh.k.size();
    std::vector<int64_t> o(2 + ns);
    for (int i = 1 + ns; i >= 0; --i) {
        o[i] = l % od[i];
        l /= od[i];
    }
    double mx = -INFINITY, sum = 0;
    int64_t cnt = 0, taps = 1;
    for (int i = 0; i < ns; ++i) taps *= sh.k[i];
    for (int64_t t = 0; t < taps; ++t) {
        int64_t rem = t, idx = o[0] * sh.src[1] + o[1];
        bool in = true;
        std::vector<int64_t> kk(ns);
        for (int i = ns - 1; i >= 0; --i) {
            kk[i] = rem % sh.k[i];
            rem /= sh.k[i];
        }
        for (int i = 0; i < ns; ++i) {
            const int64_t x = o[2 + i] * sh.s[i] - sh.pl[i] + kk[i] * (sh.dil[i] + 1);
            in = in && x >= 0 && x < sh.src[2 + i];
            idx = idx * sh.src[2 + i] + x;
        }
        if (!in) continue;
        const double v = src.get(idx);
        mx = v > mx ? v : mx;
        sum += v;
        ++cnt;
    }
    if (alg == dnnl_pooling_max) {
        if (cnt) return mx;
        return src.dt == dnnl_f32 ? -3.4028234663852886e38 : i8::lo_of(src.dt);
    }
    const int64_t div = alg == dnnl_pooling_avg_exclude_padding ? cnt : taps;
    return div ? sum / (double)div : 0;
}

dnnl_status_t make_pd(i8::env_t &env, dnnl_primitive_desc_t *pd, dnnl_prop_kind_t prop,
        dnnl_alg_kind_t alg, const shape_t &sh, const tensor_t &src, const tensor_t &dst,
        const_dnnl_primitive_attr_t attr = nullptr) {
    dnnl_dims_t k = {}, s = {}, d = {}, pl = {}, pr = {};
    for (size_t i = 0; i < sh.k.size(); ++i) {
        k[i] = sh.k[i], s[i] = sh.s[i], d[i] = sh.dil[i], pl[i] = sh.pl[i], pr[i] = sh.pr[i];
    }
    kt::md_t smd(src.md()), dmd(dst.md());
    return dnnl_pooling_forward_primitive_desc_create(pd, env.eng, prop, alg, smd, dmd, s, k, d, pl, pr, attr);
}

bool run_case(i8::env_t &env, const shape_t &sh, dnnl_data_type_t sdt, dnnl_data_type_t ddt, lay_t lay,
        dnnl_prop_kind_t prop, dnnl_alg_kind_t alg, uint64_t seed) {
    tensor_t src(sh.src, sdt, lay), dst(out_dims(sh), ddt, lay);
    kt::rng_t r(seed);
    for (int64_t l = 0; l < src.nelems(); ++l) {
        if (sdt == dnnl_f32) // quarters over and past both int8 ranges: ties and saturation
            src.set(l, (double)((int)(r.next() % 1641) - 560) / 4.0);
        else if (sdt == dnnl_s32) { // the whole range (far past f32's 2^24), extremes planted
            const uint32_t k = r.next() % 8;
            src.set(l, k == 0 ? -2147483648.0 : k == 1 ? 2147483647.0 : (double)(int32_t)r.next());
        } else
            src.set(l, i8::pick(r, sdt));
    }
    dst.junk();
    dnnl_primitive_desc_t pd = nullptr;
    if (make_pd(env, &pd, prop, alg, sh, src, dst) != dnnl_success) {
        std::fprintf(stderr, "pd creation failed\n");
        return false;
    }
    // s8/u8 src on channel-innermost layouts runs on the int8 implementation.
    const std::string impl = kt::impl_name(pd);
    if ((sdt == dnnl_s8 || sdt == dnnl_u8) && lay != lay_t::plain && impl.rfind("int8:", 0) != 0) {
        std::fprintf(stderr, "  implementation %s\n", impl.c_str());
        dnnl_primitive_desc_destroy(pd);
        return false;
    }
    const bool ws = alg == dnnl_pooling_max && prop == dnnl_forward_training;
    bool ok = i8::run(env, pd, {{DNNL_ARG_SRC, &src}, {DNNL_ARG_DST, &dst}}, {},
            ws ? std::vector<int> {DNNL_ARG_WORKSPACE} : std::vector<int> {});
    dnnl_primitive_desc_destroy(pd);
    const auto od = out_dims(sh);
    const double rel = ddt == dnnl_f16 ? 1.0 / 2048 : 1.0 / 16777216;
    for (int64_t l = 0; ok && l < dst.nelems(); ++l) {
        const double want = ref_at(sh, src, od, l, alg), got = dst.get(l);
        if (!i8::close(got, want, ddt, i8::is_int(ddt) ? 0 : rel)) {
            std::fprintf(stderr, "  at %lld: got %g, reference %g\n", (long long)l, got, want);
            ok = false;
        }
    }
    return ok && dst.padding_zero();
}

} // namespace

int main() {
    i8::env_t env;
    kt::tally_t t;
    const std::vector<shape_t> shapes = {
            {{2, 19, 7, 9}, {3, 2}, {2, 1}, {0, 0}, {1, 0}, {1, 1}}, // 2D, C tail, asymmetric padding
            {{1, 5, 11}, {4}, {3}, {1}, {2}, {3}}, // 1D, dilated, wide padding
            {{1, 17, 3, 5, 4}, {2, 3, 2}, {1, 2, 2}, {0, 0, 0}, {0, 1, 1}, {1, 1, 1}}, // 3D
            {{3, 8, 6, 6}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {0, 0}}, // even, no padding
    };
    struct dts_t {
        dnnl_data_type_t s, d;
        bool train;
    };
    const dts_t dts[] = {{dnnl_s8, dnnl_s8, true}, {dnnl_u8, dnnl_u8, true}, {dnnl_s8, dnnl_u8, false},
            {dnnl_u8, dnnl_s8, false}, {dnnl_s8, dnnl_f32, false}, {dnnl_u8, dnnl_f32, false},
            {dnnl_f32, dnnl_s8, false}, {dnnl_f32, dnnl_u8, false}, {dnnl_s8, dnnl_f16, false},
            {dnnl_u8, dnnl_f16, false}, {dnnl_s32, dnnl_s32, true}};
    const dnnl_alg_kind_t algs[] = {dnnl_pooling_max, dnnl_pooling_avg_include_padding,
            dnnl_pooling_avg_exclude_padding};
    const lay_t lays[] = {lay_t::plain, lay_t::nspc, lay_t::blk8, lay_t::blk16};
    uint64_t seed = 1;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (size_t si = 0; si < shapes.size(); ++si)
                for (const auto &dt : dts)
                    for (auto alg : algs)
                        for (auto lay : lays)
                            for (int tr = 0; tr < (dt.train ? 2 : 1); ++tr) {
                                const auto prop = tr ? dnnl_forward_training : dnnl_forward_inference;
                                char what[160];
                                std::snprintf(what, sizeof(what), "pooling %s->%s alg %d shape %zu %s %s %d thr",
                                        i8::dt_name(dt.s), i8::dt_name(dt.d), (int)alg, si, i8::lay_name(lay),
                                        tr ? "training" : "inference", nthr);
                                t.check(run_case(env, shapes[si], dt.s, dt.d, lay, prop, alg, seed++), what);
                            }
        });

    // What oneDNN does not document is refused at creation.
    const shape_t &sh = shapes[0];
    auto status_of = [&](dnnl_data_type_t s, dnnl_data_type_t d, dnnl_prop_kind_t prop,
                             const_dnnl_primitive_attr_t attr) {
        tensor_t src(sh.src, s, lay_t::nspc), dst(out_dims(sh), d, lay_t::nspc);
        dnnl_primitive_desc_t pd = nullptr;
        dnnl_status_t st = make_pd(env, &pd, prop, dnnl_pooling_max, sh, src, dst, attr);
        dnnl_primitive_desc_destroy(pd);
        return st;
    };
    t.check(status_of(dnnl_s8, dnnl_u8, dnnl_forward_training, nullptr) == dnnl_unimplemented,
            "mixed int8 types refused for training");
    t.check(status_of(dnnl_f32, dnnl_s8, dnnl_forward_training, nullptr) == dnnl_unimplemented,
            "f32->s8 refused for training");
    t.check(status_of(dnnl_s8, dnnl_bf16, dnnl_forward_inference, nullptr) == dnnl_unimplemented,
            "s8->bf16 refused");
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    t.check(status_of(dnnl_s8, dnnl_s8, dnnl_forward_inference, attr) == dnnl_unimplemented,
            "scales refused (pooling takes none)");
    dnnl_primitive_attr_destroy(attr);
    return t.finish();
}
