// Batch normalization (s8, inference with given statistics, as oneDNN
// documents) and layer normalization (s8/u8 src and/or dst, with src/dst
// scales) forward against naive references in double, over layouts with
// channel tails, odd sizes and 1 and 2 threads. What oneDNN does not
// document for int8 is refused at creation.
//
// Error bounds: the library computes in f32, each operation rounding by at
// most 2^-24 relatively (ulp below). Every bound below counts the roundings
// of the library's formula, taking cancellation into account (x - mean can
// be much smaller than mean), with a little margin; integer dst then takes
// exactly one of the neighbours the bound allows (i8::close).
#include "common/int8_ref.hpp"

namespace {

using i8::lay_t;
using i8::tensor_t;

const double ulp = 1.0 / 16777216;

// ------------------------------------------------------------ batch norm

bool bnorm_case(i8::env_t &env, const std::vector<int64_t> &dims, lay_t lay, unsigned flags, uint64_t seed) {
    tensor_t src(dims, dnnl_s8, lay), dst(dims, dnnl_s8, lay);
    const int64_t C = dims[1];
    kt::rng_t r(seed);
    for (int64_t l = 0; l < src.nelems(); ++l) src.set(l, i8::pick(r, dnnl_s8));
    i8::raw_t mean, var, sc, sh;
    for (int64_t c = 0; c < C; ++c) {
        mean.v.push_back((float)((int)(r.next() % 321) - 160) / 8);
        var.v.push_back((float)(1 + r.next() % 64) / 16);
        sc.v.push_back((float)((int)(r.next() % 33) - 16) / 8);
        sh.v.push_back((float)((int)(r.next() % 401) - 200) / 4);
    }
    dst.junk();
    const float eps = 1.f / 64;
    kt::md_t smd(src.md()), dmd(dst.md());
    dnnl_primitive_desc_t pd = nullptr;
    if (dnnl_batch_normalization_forward_primitive_desc_create(
                &pd, env.eng, dnnl_forward_inference, smd, dmd, eps, flags, nullptr)
            != dnnl_success)
        return false;
    std::map<int, i8::raw_t *> raws = {{DNNL_ARG_MEAN, &mean}, {DNNL_ARG_VARIANCE, &var}};
    if (flags & dnnl_use_scale) raws[DNNL_ARG_SCALE] = &sc;
    if (flags & dnnl_use_shift) raws[DNNL_ARG_SHIFT] = &sh;
    bool ok = i8::run(env, pd, {{DNNL_ARG_SRC, &src}, {DNNL_ARG_DST, &dst}}, raws);
    dnnl_primitive_desc_destroy(pd);
    int64_t sp = 1;
    for (size_t i = 2; i < dims.size(); ++i) sp *= dims[i];
    for (int64_t l = 0; ok && l < src.nelems(); ++l) {
        const int64_t c = l / sp % C;
        const double g = flags & dnnl_use_scale ? sc.v[c] : 1.0, b = flags & dnnl_use_shift ? sh.v[c] : 0.0;
        const double a = g / std::sqrt((double)var.v[c] + eps);
        const double tv = (src.get(l) - mean.v[c]) * a;
        double y = tv + b;
        // a: sqrt, division (2 roundings, 1 more for var + eps); x - mean,
        // times a: 2 more on t; + b: 1 on y.
        const double err = 6 * ulp * std::fabs(tv) + ulp * (std::fabs(y) + std::fabs(b));
        if ((flags & dnnl_fuse_norm_relu) && y < 0) y = 0;
        if (!i8::close(dst.get(l), y, dnnl_s8, 0, err)) {
            std::fprintf(stderr, "  at %lld: got %g, reference %.9g\n", (long long)l, dst.get(l), y);
            ok = false;
        }
    }
    return ok && dst.padding_zero();
}

// ------------------------------------------------------------ layer norm

bool lnorm_case(i8::env_t &env, const std::vector<int64_t> &dims, lay_t lay, dnnl_data_type_t sdt,
        dnnl_data_type_t ddt, dnnl_prop_kind_t prop, unsigned flags, float ss, float ds, uint64_t seed) {
    tensor_t src(dims, sdt, lay), dst(dims, ddt, lay);
    const int nd = (int)dims.size();
    const int64_t C = dims[nd - 1], rows = src.nelems() / C;
    kt::rng_t r(seed);
    for (int64_t l = 0; l < src.nelems(); ++l)
        src.set(l, sdt == dnnl_f32 ? (double)((int)(r.next() % 801) - 400) / 8 : i8::pick(r, sdt));
    const bool gs = flags & dnnl_use_global_stats;
    i8::raw_t mean, var, sc, sh, rs {{ss}}, rd {{ds}};
    mean.v.assign(rows, 0.f);
    var.v.assign(rows, 0.f);
    if (gs)
        for (int64_t i = 0; i < rows; ++i) {
            mean.v[i] = (float)((int)(r.next() % 161) - 80) / 4;
            var.v[i] = (float)(1 + r.next() % 400) / 4;
        }
    for (int64_t c = 0; c < C; ++c) {
        sc.v.push_back((float)((int)(r.next() % 33) - 16) / 8);
        sh.v.push_back((float)((int)(r.next() % 81) - 40) / 8);
    }
    dst.junk();
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    std::map<int, i8::raw_t *> raws;
    if (ss != 1.f) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        raws[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = &rs;
    }
    if (ds != 1.f) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
        raws[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = &rd;
    }
    dnnl_dims_t sd = {};
    for (int i = 0; i + 1 < nd; ++i) sd[i] = dims[i];
    dnnl_memory_desc_t stat = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&stat, nd - 1, sd, dnnl_f32, nd == 2 ? dnnl_a : dnnl_ab));
    kt::md_t smd(src.md()), dmd(dst.md()), stmd(stat);
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = dnnl_layer_normalization_forward_primitive_desc_create(
            &pd, env.eng, prop, smd, dmd, stmd, 1.f / 128, flags, attr);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) return false;
    const bool stats_io = gs || prop == dnnl_forward_training;
    if (stats_io) {
        raws[DNNL_ARG_MEAN] = &mean;
        raws[DNNL_ARG_VARIANCE] = &var;
    }
    if (flags & dnnl_use_scale) raws[DNNL_ARG_SCALE] = &sc;
    if (flags & dnnl_use_shift) raws[DNNL_ARG_SHIFT] = &sh;
    bool ok = i8::run(env, pd, {{DNNL_ARG_SRC, &src}, {DNNL_ARG_DST, &dst}}, raws);
    dnnl_primitive_desc_destroy(pd);
    for (int64_t i = 0; ok && i < rows; ++i) {
        double m = mean.v[i], v = var.v[i];
        if (!gs) {
            double s = 0, q = 0;
            for (int64_t c = 0; c < C; ++c) s += src.get(i * C + c);
            m = s / C;
            for (int64_t c = 0; c < C; ++c) q += (src.get(i * C + c) - m) * (src.get(i * C + c) - m);
            v = q / C;
            // mean: exact integer sum (f32 src: quarters, also exact), one
            // division; variance: C squared deviations summed.
            if (stats_io && (std::fabs(mean.v[i] - m) > ulp * std::fabs(m)
                                    || std::fabs(var.v[i] - v) > (C + 6) * ulp * v + 1e-30)) {
                std::fprintf(stderr, "  row %lld stats %g %g, reference %.9g %.9g\n", (long long)i, mean.v[i],
                        var.v[i], m, v);
                ok = false;
            }
        }
        const double rstd = 1 / std::sqrt(v + 1.0 / 128);
        for (int64_t c = 0; ok && c < C; ++c) {
            const double g = flags & dnnl_use_scale ? sc.v[c] : 1.0, b = flags & dnnl_use_shift ? sh.v[c] : 0.0;
            const double x = src.get(i * C + c), tv = (x - m) * g * rstd, y = (tv + b) * ss / ds;
            // rstd: (C + 6) ulp relative from the variance, sqrt, division;
            // x - mean: ulp * |mean| absolute; g * rstd, the product, + b,
            // the two scalings: 1 ulp each.
            const double err = (std::fabs(g) * rstd * 2 * ulp * (std::fabs(m) + std::fabs(x - m))
                                       + std::fabs(tv) * (C + 12) * ulp + ulp * std::fabs(b))
                            * ss / ds
                    + 3 * ulp * std::fabs(y);
            if (!i8::close(dst.get(i * C + c), y, ddt, 0, err)) {
                std::fprintf(stderr, "  at %lld: got %g, reference %.9g\n", (long long)(i * C + c),
                        dst.get(i * C + c), y);
                ok = false;
            }
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
    const std::vector<std::vector<int64_t>> bshapes = {{2, 19, 3, 5}, {3, 8, 7}, {1, 17, 2, 3, 3}, {5, 23}};
    const unsigned bflags[] = {dnnl_use_global_stats, dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift,
            dnnl_use_global_stats | dnnl_use_shift | dnnl_fuse_norm_relu};
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (size_t si = 0; si < bshapes.size(); ++si)
                for (unsigned f : bflags)
                    for (auto lay : {lay_t::plain, lay_t::nspc, lay_t::blk8, lay_t::blk16}) {
                        if (bshapes[si].size() < 3 && (lay == lay_t::blk8 || lay == lay_t::blk16)) continue;
                        std::snprintf(what, sizeof(what), "bnorm s8 shape %zu flags %u %s %d thr", si, f,
                                i8::lay_name(lay), nthr);
                        t.check(bnorm_case(env, bshapes[si], lay, f, seed++), what);
                    }
        });
    // Refused: u8, s8 to f32, s8 without given statistics, s8 training.
    auto bstatus = [&](dnnl_data_type_t s, dnnl_data_type_t d, dnnl_prop_kind_t prop, unsigned flags) {
        tensor_t src({2, 19, 3, 5}, s, lay_t::nspc), dst({2, 19, 3, 5}, d, lay_t::nspc);
        kt::md_t smd(src.md()), dmd(dst.md());
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t st = dnnl_batch_normalization_forward_primitive_desc_create(
                &pd, env.eng, prop, smd, dmd, 1e-3f, flags, nullptr);
        dnnl_primitive_desc_destroy(pd);
        return st;
    };
    t.check(bstatus(dnnl_u8, dnnl_u8, dnnl_forward_inference, dnnl_use_global_stats) == dnnl_unimplemented,
            "bnorm u8 refused");
    t.check(bstatus(dnnl_s8, dnnl_f32, dnnl_forward_inference, dnnl_use_global_stats) == dnnl_unimplemented,
            "bnorm s8->f32 refused");
    t.check(bstatus(dnnl_s8, dnnl_s8, dnnl_forward_inference, 0) == dnnl_unimplemented,
            "bnorm s8 without given statistics refused");
    t.check(bstatus(dnnl_s8, dnnl_s8, dnnl_forward_training, dnnl_use_global_stats) == dnnl_unimplemented,
            "bnorm s8 training refused");

    struct lcase_t {
        std::vector<int64_t> dims;
        lay_t lay;
    };
    const lcase_t lcases[] = {{{3, 2, 37}, lay_t::plain}, {{4, 3, 5}, lay_t::nspc}, {{7, 64}, lay_t::plain}};
    const dnnl_data_type_t ldts[][2] = {{dnnl_s8, dnnl_s8}, {dnnl_u8, dnnl_u8}, {dnnl_s8, dnnl_u8},
            {dnnl_u8, dnnl_f32}, {dnnl_f32, dnnl_s8}, {dnnl_f32, dnnl_u8}};
    struct lmode_t {
        dnnl_prop_kind_t prop;
        unsigned flags;
    };
    const lmode_t lmodes[] = {{dnnl_forward_inference, 0},
            {dnnl_forward_training, dnnl_use_scale | dnnl_use_shift},
            {dnnl_forward_inference, dnnl_use_global_stats | dnnl_use_scale}};
    const float lscales[][2] = {{1.f, 1.f}, {1.f, 1.f / 40}, {0.5f, 1.f / 64}, {4.f, 2.f}};
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (size_t ci = 0; ci < sizeof(lcases) / sizeof(lcases[0]); ++ci)
                for (auto &dt : ldts)
                    for (auto &m : lmodes)
                        for (auto &sc : lscales) {
                            std::snprintf(what, sizeof(what), "lnorm %s->%s case %zu prop %d flags %u scales %g/%g %d thr",
                                    i8::dt_name(dt[0]), i8::dt_name(dt[1]), ci, (int)m.prop, m.flags, sc[0], sc[1], nthr);
                            t.check(lnorm_case(env, lcases[ci].dims, lcases[ci].lay, dt[0], dt[1], m.prop, m.flags,
                                            sc[0], sc[1], seed++),
                                    what);
                        }
        });
    // Scales are for int8 only, one value per tensor.
    auto lstatus = [&](dnnl_data_type_t s, dnnl_data_type_t d, int arg, int mask) {
        tensor_t src({3, 2, 37}, s, lay_t::plain), dst({3, 2, 37}, d, lay_t::plain);
        kt::md_t smd(src.md()), dmd(dst.md());
        dnnl_primitive_attr_t attr = nullptr;
        KT_OK(dnnl_primitive_attr_create(&attr));
        dnnl_primitive_desc_t pd = nullptr;
        dnnl_status_t st = dnnl_primitive_attr_set_scales_mask(attr, arg, mask);
        if (st == dnnl_success)
            st = dnnl_layer_normalization_forward_primitive_desc_create(
                    &pd, env.eng, dnnl_forward_inference, smd, dmd, nullptr, 1e-3f, 0, attr);
        dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(attr);
        return st;
    };
    t.check(lstatus(dnnl_f32, dnnl_f32, DNNL_ARG_DST, 0) == dnnl_unimplemented, "lnorm f32 scales refused");
    t.check(lstatus(dnnl_s8, dnnl_s8, DNNL_ARG_DST, 4) == dnnl_unimplemented, "lnorm per-channel scales refused");
    t.check(lstatus(dnnl_s8, dnnl_s8, DNNL_ARG_SCALE, 0) != dnnl_success, "lnorm SCALE-arg scales refused");
    t.check(lstatus(dnnl_s8, dnnl_u8, DNNL_ARG_SRC, 0) == dnnl_success, "lnorm int8 src scale accepted");
    return t.finish();
}
