// int8 convolution and deconvolution with zero points given per channel
// (mask 1 << 1 on DNNL_ARG_SRC and / or DNNL_ARG_DST), which oneDNN's
// reference implementation takes and so Kestrel's does: each src channel
// has its own zero point subtracted before the product, each dst channel
// its own added after the dst scale. Checked exactly against a naive loop
// written here (integer sums, power-of-two dst scales), with 1 and 2
// threads, plain channels-first and channels-last data, groups, padding
// (a padded position contributes nothing), stride 2, s32 / s8 / u8 zero
// point values and s32 / s8 / u8 / f32 dst. Masks no implementation takes
// give unimplemented; a missing zero-point argument at execution gives
// invalid_arguments and leaves dst alone.
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/kt_test.hpp"

namespace {

struct prb_t {
    int64_t mb, g, icg, ocg, ih, iw, k, s, pad;
    bool deconv;
    bool nhwc;
    dnnl_data_type_t sdt, ddt;
    int src_zp_mask, dst_zp_mask; // -1: none, 0: per tensor, 2: per channel
    dnnl_data_type_t src_zp_dt, dst_zp_dt;
    float dst_scale; // 0: none (a power of two otherwise, so it is exact)
    const char *what;

    int64_t ic() const { return g * icg; }
    int64_t oc() const { return g * ocg; }
    int64_t out(int64_t in) const {
        return deconv ? (in - 1) * s + k - 2 * pad : (in + 2 * pad - k) / s + 1;
    }
    int64_t oh() const { return out(ih); }
    int64_t ow() const { return out(iw); }
};

int64_t rnd(kt::rng_t &r, int64_t lo, int64_t hi) { return lo + (int64_t)(r.next() % (uint64_t)(hi - lo + 1)); }

// Offset of (n, c, h, w) in a dense 4D tensor of the given layout.
int64_t off4(bool nhwc, int64_t C, int64_t H, int64_t W, int64_t n, int64_t c, int64_t h, int64_t w) {
    return nhwc ? ((n * H + h) * W + w) * C + c : ((n * C + c) * H + h) * W + w;
}

void put_int(dnnl_data_type_t dt, void *p, int64_t i, int64_t v) {
    switch (dt) {
        case dnnl_u8: static_cast<uint8_t *>(p)[i] = (uint8_t)v; break;
        case dnnl_s8: static_cast<int8_t *>(p)[i] = (int8_t)v; break;
        default: static_cast<int32_t *>(p)[i] = (int32_t)v; break;
    }
}

size_t dt_size(dnnl_data_type_t dt) { return dt == dnnl_u8 || dt == dnnl_s8 ? 1 : 4; }

double get_dst(dnnl_data_type_t dt, const void *p, int64_t i) {
    switch (dt) {
        case dnnl_u8: return static_cast<const uint8_t *>(p)[i];
        case dnnl_s8: return static_cast<const int8_t *>(p)[i];
        case dnnl_s32: return static_cast<const int32_t *>(p)[i];
        default: return static_cast<const float *>(p)[i];
    }
}

// The stored value of the exact result v: nearest, ties to even, then
// saturated to the integer type; f32 as is.
double stored(dnnl_data_type_t dt, double v) {
    if (dt == dnnl_f32) return v;
    double r = std::nearbyint(v);
    const double lo = dt == dnnl_s8 ? -128 : dt == dnnl_u8 ? 0 : -2147483648.0;
    const double hi = dt == dnnl_s8 ? 127 : dt == dnnl_u8 ? 255 : 2147483647.0;
    return r < lo ? lo : r > hi ? hi : r;
}

struct data_t {
    std::vector<int64_t> src, wei; // [n][c][h][w], [g][ocg][icg][kh][kw]
    std::vector<int64_t> src_zp, dst_zp; // per channel (or one value)
};

// The exact value of dst element (n, c, oh, ow) before it is stored.
double naive(const prb_t &p, const data_t &x, int64_t n, int64_t c, int64_t oh, int64_t ow) {
    const int64_t gr = c / p.ocg, oc = c % p.ocg;
    int64_t acc = 0;
    for (int64_t icg = 0; icg < p.icg; ++icg)
        for (int64_t kh = 0; kh < p.k; ++kh)
            for (int64_t kw = 0; kw < p.k; ++kw) {
                int64_t ih, iw;
                if (!p.deconv) {
                    ih = oh * p.s - p.pad + kh, iw = ow * p.s - p.pad + kw;
                } else {
                    const int64_t th = oh + p.pad - kh, tw = ow + p.pad - kw;
                    if (th < 0 || tw < 0 || th % p.s || tw % p.s) continue;
                    ih = th / p.s, iw = tw / p.s;
                }
                if (ih < 0 || ih >= p.ih || iw < 0 || iw >= p.iw) continue;
                const int64_t ic = gr * p.icg + icg;
                const int64_t sv = x.src[((n * p.ic() + ic) * p.ih + ih) * p.iw + iw];
                const int64_t zp = p.src_zp_mask < 0 ? 0 : x.src_zp[p.src_zp_mask ? ic : 0];
                const int64_t w = x.wei[(((gr * p.ocg + oc) * p.icg + icg) * p.k + kh) * p.k + kw];
                acc += (sv - zp) * w;
            }
    double v = (double)acc;
    if (p.dst_scale != 0.f) v /= p.dst_scale;
    if (p.dst_zp_mask >= 0) v += (double)x.dst_zp[p.dst_zp_mask ? c : 0];
    return v;
}

dnnl_primitive_attr_t make_attr(const prb_t &p) {
    dnnl_primitive_attr_t a;
    KT_OK(dnnl_primitive_attr_create(&a));
    if (p.src_zp_mask >= 0)
        KT_OK(dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_SRC, p.src_zp_mask, 0, nullptr, p.src_zp_dt));
    if (p.dst_zp_mask >= 0)
        KT_OK(dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_DST, p.dst_zp_mask, 0, nullptr, p.dst_zp_dt));
    if (p.dst_scale != 0.f) KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_DST, 0));
    return a;
}

dnnl_status_t make_pd(dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const prb_t &p, const_dnnl_primitive_attr_t a) {
    const dnnl_format_tag_t dtag = p.nhwc ? dnnl_nhwc : dnnl_nchw;
    kt::md_t src(kt::make_md({p.mb, p.ic(), p.ih, p.iw}, p.sdt, dtag));
    kt::md_t dst(kt::make_md({p.mb, p.oc(), p.oh(), p.ow()}, p.ddt, dtag));
    kt::md_t wei(p.g > 1 ? kt::make_md({p.g, p.ocg, p.icg, p.k, p.k}, dnnl_s8, dnnl_goihw)
                         : kt::make_md({p.ocg, p.icg, p.k, p.k}, dnnl_s8, dnnl_oihw));
    const dnnl_dims_t st = {p.s, p.s}, dl = {0, 0}, pad = {p.pad, p.pad};
    if (p.deconv)
        return dnnl_deconvolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference,
                dnnl_deconvolution_direct, src, wei, nullptr, dst, st, dl, pad, pad, a);
    return dnnl_convolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference,
            dnnl_convolution_direct, src, wei, nullptr, dst, st, dl, pad, pad, a);
}

// One execution; false (with a message) on any mismatch.
bool run(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_primitive_desc_t pd, const prb_t &p) {
    kt::rng_t r((uint64_t)(p.mb * 7 + p.icg * 31 + p.ocg * 131 + p.g * 17 + p.ih + (p.deconv ? 1000 : 0)));
    data_t x;
    const int64_t OH = p.oh(), OW = p.ow();
    x.src.resize((size_t)(p.mb * p.ic() * p.ih * p.iw));
    for (auto &v : x.src) v = p.sdt == dnnl_u8 ? rnd(r, 0, 255) : rnd(r, -128, 127);
    x.wei.resize((size_t)(p.oc() * p.icg * p.k * p.k));
    for (auto &v : x.wei) v = rnd(r, -128, 127);
    auto zp_range = [&](dnnl_data_type_t dt, int64_t &lo, int64_t &hi) {
        lo = dt == dnnl_u8 ? 0 : dt == dnnl_s8 ? -128 : -1000;
        hi = dt == dnnl_u8 ? 255 : dt == dnnl_s8 ? 127 : 1000;
    };
    int64_t lo, hi;
    zp_range(p.src_zp_dt, lo, hi);
    x.src_zp.resize((size_t)p.ic());
    for (auto &v : x.src_zp) v = rnd(r, lo, hi);
    zp_range(p.dst_zp_dt, lo, hi);
    x.dst_zp.resize((size_t)p.oc());
    for (auto &v : x.dst_zp) v = rnd(r, lo, hi);

    std::vector<char> sb((size_t)(p.mb * p.ic() * p.ih * p.iw) * dt_size(p.sdt));
    for (int64_t n = 0; n < p.mb; ++n)
        for (int64_t c = 0; c < p.ic(); ++c)
            for (int64_t h = 0; h < p.ih; ++h)
                for (int64_t w = 0; w < p.iw; ++w)
                    put_int(p.sdt, sb.data(), off4(p.nhwc, p.ic(), p.ih, p.iw, n, c, h, w),
                            x.src[((n * p.ic() + c) * p.ih + h) * p.iw + w]);
    std::vector<int8_t> wb(x.wei.size());
    for (size_t i = 0; i < wb.size(); ++i) wb[i] = (int8_t)x.wei[i]; // [g]oihw is the logical order
    const int64_t nd = p.mb * p.oc() * OH * OW;
    std::vector<char> db((size_t)nd * dt_size(p.ddt), (char)0x5a);
    std::vector<char> szb((size_t)p.ic() * dt_size(p.src_zp_dt)), dzb((size_t)p.oc() * dt_size(p.dst_zp_dt));
    for (int64_t c = 0; c < p.ic(); ++c) put_int(p.src_zp_dt, szb.data(), c, x.src_zp[c]);
    for (int64_t c = 0; c < p.oc(); ++c) put_int(p.dst_zp_dt, dzb.data(), c, x.dst_zp[c]);
    float dscale = p.dst_scale;

    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<dnnl_memory_t> mems;
    std::vector<dnnl_exec_arg_t> args;
    auto add = [&](int arg, const_dnnl_memory_desc_t md, void *ptr) {
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, md, eng, ptr));
        mems.push_back(m);
        args.push_back({arg, m});
    };
    add(DNNL_ARG_SRC, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), sb.data());
    add(DNNL_ARG_WEIGHTS, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), wb.data());
    add(DNNL_ARG_DST, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), db.data());
    kt::md_t szmd(kt::make_md({p.src_zp_mask == 2 ? p.ic() : 1}, p.src_zp_dt, dnnl_a));
    kt::md_t dzmd(kt::make_md({p.dst_zp_mask == 2 ? p.oc() : 1}, p.dst_zp_dt, dnnl_a));
    kt::md_t scmd(kt::make_md({1}, dnnl_f32, dnnl_a));
    if (p.src_zp_mask >= 0) add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, szmd, szb.data());
    if (p.dst_zp_mask >= 0) add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, dzmd, dzb.data());
    if (p.dst_scale != 0.f) add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, scmd, &dscale);
    KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));
    for (auto m : mems) dnnl_memory_destroy(m);
    dnnl_primitive_destroy(prim);

    int bad = 0;
    for (int64_t n = 0; n < p.mb; ++n)
        for (int64_t c = 0; c < p.oc(); ++c)
            for (int64_t h = 0; h < OH; ++h)
                for (int64_t w = 0; w < OW; ++w) {
                    const double want = stored(p.ddt, naive(p, x, n, c, h, w));
                    const double got = get_dst(p.ddt, db.data(), off4(p.nhwc, p.oc(), OH, OW, n, c, h, w));
                    if (got != want && bad++ < 3)
                        std::fprintf(stderr, "  %s: n%ld c%ld (%ld,%ld): got %.9g want %.9g\n", p.what, (long)n,
                                (long)c, (long)h, (long)w, got, want);
                }
    return bad == 0;
}

void run_case(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const prb_t &p) {
    dnnl_primitive_attr_t a = make_attr(p);
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = make_pd(&pd, eng, p, a);
    dnnl_primitive_attr_destroy(a);
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s: pd created", p.what);
    t.check(st == dnnl_success, msg);
    if (st != dnnl_success) return;
    const std::string name = kt::impl_name(pd);
    const char *want = p.deconv ? "ref:any:deconv" : "ref:any";
    std::snprintf(msg, sizeof msg, "%s: impl %s, expected %s", p.what, name.c_str(), want);
    t.check(name == want, msg);
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            std::snprintf(msg, sizeof msg, "%s [%d thr]", p.what, nthr);
            t.check(run(eng, strm, pd, p), msg);
        });
    dnnl_primitive_desc_destroy(pd);
}

prb_t base(const char *what) {
    prb_t p {};
    p.mb = 2, p.g = 1, p.icg = 5, p.ocg = 6, p.ih = 7, p.iw = 6, p.k = 3, p.s = 1, p.pad = 1;
    p.sdt = dnnl_u8, p.ddt = dnnl_s32;
    p.src_zp_mask = 2, p.dst_zp_mask = -1;
    p.src_zp_dt = dnnl_s32, p.dst_zp_dt = dnnl_s32;
    p.what = what;
    return p;
}

void bad_input(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm) {
    for (int arg : {DNNL_ARG_SRC, DNNL_ARG_DST}) {
        // Mask 1: one zero point per image, which no implementation takes.
        prb_t p = base("mask 1");
        p.src_zp_mask = -1;
        dnnl_primitive_attr_t a = make_attr(p);
        KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, arg, 1));
        dnnl_primitive_desc_t pd = nullptr;
        t.check(make_pd(&pd, eng, p, a) == dnnl_unimplemented && !pd,
                arg == DNNL_ARG_SRC ? "src zp mask 1: unimplemented" : "dst zp mask 1: unimplemented");
        dnnl_primitive_attr_destroy(a);
    }
    {
        // Per-channel weights zero points: not taken by convolution.
        prb_t p = base("weights zp");
        dnnl_primitive_attr_t a = make_attr(p);
        KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_WEIGHTS, 1));
        dnnl_primitive_desc_t pd = nullptr;
        t.check(make_pd(&pd, eng, p, a) == dnnl_unimplemented && !pd, "weights zp: unimplemented");
        dnnl_primitive_attr_destroy(a);
    }
    {
        // f32 data: zero points are for integers only.
        prb_t p = base("f32 with zp");
        p.sdt = dnnl_f32, p.ddt = dnnl_f32;
        dnnl_primitive_attr_t a = make_attr(p);
        dnnl_primitive_desc_t pd = nullptr;
        kt::md_t src(kt::make_md({p.mb, p.ic(), p.ih, p.iw}, dnnl_f32, dnnl_nchw));
        kt::md_t dst(kt::make_md({p.mb, p.oc(), p.oh(), p.ow()}, dnnl_f32, dnnl_nchw));
        kt::md_t wei(kt::make_md({p.ocg, p.icg, p.k, p.k}, dnnl_f32, dnnl_oihw));
        const dnnl_dims_t st = {1, 1}, dl = {0, 0}, pad = {1, 1};
        t.check(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                        dnnl_convolution_direct, src, wei, nullptr, dst, st, dl, pad, pad, a)
                        == dnnl_unimplemented,
                "f32 with per-channel zp: unimplemented");
        dnnl_primitive_attr_destroy(a);
    }
    {
        // The per-channel src zero points missing at execution.
        prb_t p = base("missing zp");
        dnnl_primitive_attr_t a = make_attr(p);
        dnnl_primitive_desc_t pd = nullptr;
        KT_OK(make_pd(&pd, eng, p, a));
        dnnl_primitive_attr_destroy(a);
        dnnl_primitive_t prim;
        KT_OK(dnnl_primitive_create(&prim, pd));
        std::vector<uint8_t> s((size_t)(p.mb * p.ic() * p.ih * p.iw), 1), w((size_t)(p.oc() * p.icg * 9), 1);
        std::vector<int32_t> d((size_t)(p.mb * p.oc() * p.oh() * p.ow()), 0x5a5a5a5a);
        dnnl_memory_t ms, mw, md;
        KT_OK(dnnl_memory_create(&ms, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), eng, s.data()));
        KT_OK(dnnl_memory_create(&mw, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), eng, w.data()));
        KT_OK(dnnl_memory_create(&md, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), eng, d.data()));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
        t.check(dnnl_primitive_execute(prim, strm, 3, args) == dnnl_invalid_arguments,
                "missing per-channel src zp: invalid_arguments");
        bool untouched = true;
        for (int32_t v : d) untouched = untouched && v == 0x5a5a5a5a;
        t.check(untouched, "failed execution wrote nothing");
        for (auto m : {ms, mw, md}) dnnl_memory_destroy(m);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
    }
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    std::vector<prb_t> cases;
    cases.push_back(base("3x3 pad 1, u8 src, s32 src zp per channel, s32 dst"));
    {
        prb_t p = base("nhwc, s8 src, u8 src zp per channel, dst zp per channel, dst scale, s8 dst");
        p.nhwc = true, p.sdt = dnnl_s8, p.ddt = dnnl_s8, p.src_zp_dt = dnnl_u8;
        p.dst_zp_mask = 2, p.dst_zp_dt = dnnl_s8, p.dst_scale = 16384.f;
        cases.push_back(p);
    }
    {
        prb_t p = base("groups 2, stride 2, src zp per tensor, dst zp per channel (s32), u8 dst");
        p.g = 2, p.icg = 3, p.ocg = 4, p.ih = 9, p.iw = 8, p.s = 2;
        p.src_zp_mask = 0, p.dst_zp_mask = 2, p.ddt = dnnl_u8, p.dst_scale = 4096.f;
        cases.push_back(p);
    }
    {
        prb_t p = base("depthwise (groups 6), s8 src zp per channel, f32 dst with dst zp per channel");
        p.g = 6, p.icg = 1, p.ocg = 1, p.src_zp_dt = dnnl_s8, p.ddt = dnnl_f32;
        p.dst_zp_mask = 2, p.dst_zp_dt = dnnl_u8, p.dst_scale = 0.5f;
        cases.push_back(p);
    }
    {
        prb_t p = base("1x1, no padding, 17 channels, nhwc, s32 dst");
        p.icg = 17, p.ocg = 3, p.k = 1, p.pad = 0, p.nhwc = true, p.mb = 1;
        cases.push_back(p);
    }
    {
        prb_t p = base("deconvolution stride 2, src and dst zp per channel, s8 dst");
        p.deconv = true, p.s = 2, p.ih = 4, p.iw = 5, p.ddt = dnnl_s8, p.dst_zp_mask = 2, p.dst_scale = 8192.f;
        cases.push_back(p);
    }
    {
        prb_t p = base("deconvolution, groups 2, nhwc, u8 src zp per channel, s32 dst");
        p.deconv = true, p.g = 2, p.icg = 3, p.ocg = 2, p.nhwc = true, p.src_zp_dt = dnnl_u8;
        cases.push_back(p);
    }
    for (const prb_t &p : cases) run_case(t, eng, strm, p);
    bad_input(t, eng, strm);

    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
