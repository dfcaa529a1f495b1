// fp8 (f8_e5m2, f8_e4m3) conversions and reorders against the naive
// formulas of f8_naive.hpp:
//  - every code of each type to f32, bf16, f16 and to the other f8 type;
//  - f32 to f8: every midpoint between neighbouring codes (ties to even)
//    and the f32 values just around it, overflow (e5m2 to inf, e4m3 to
//    NaN, as oneDNN), underflow, f32 denormals, zeros, inf, NaN, and random
//    values; every bf16 and every f16 bit pattern to both f8 types;
//  - layouts: plain <-> blocked (padded) <-> transposed with src scales
//    per channel and a dst scale, same-type f8 relayouts;
//  - refusals: f8 <-> integer types are unimplemented, as in oneDNN.
// Each case runs with 1 and 2 threads.
#include <cmath>
#include <cstring>
#include <vector>

#include <tbb/global_control.h>

#include "dnnl.hpp"
#include "f8_naive.hpp"
#include "kt_test.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

kt::tally_t T;
engine eng(engine::kind::cpu, 0);
stream strm(eng);

const f8n::fmt_t &fmt_of(dt t) {
    return t == dt::f8_e5m2 ? f8n::e5m2 : f8n::e4m3;
}
const char *name_of(dt t) {
    return t == dt::f8_e5m2 ? "e5m2" : "e4m3";
}

// Element i of a 1D buffer of type t as a double.
double value_at(dt t, const void *p, size_t i) {
    switch (t) {
    case dt::f32:
        return ((const float *)p)[i];
    case dt::bf16:
        return f8n::bf16_value(((const uint16_t *)p)[i]);
    case dt::f16:
        return f8n::f16_value(((const uint16_t *)p)[i]);
    default:
        return f8n::decode(fmt_of(t), ((const uint8_t *)p)[i]);
    }
}

// 1D reorder of n elements from type st (bytes in src) to type t.
std::vector<uint8_t> convert(dt st, const void *src, size_t n, dt t) {
    memory::desc smd({(memory::dim)n}, st, tag::a), dmd({(memory::dim)n}, t, tag::a);
    memory s(smd, eng, const_cast<void *>(src));
    std::vector<uint8_t> out(dmd.get_size(), 0x5a);
    memory d(dmd, eng, out.data());
    reorder(s, d).execute(strm, s, d);
    strm.wait();
    return out;
}

// Every code to f32, bf16, f16 and the other f8 type: exact (or NaN of the
// same sign); and back from f32 to the same code (NaNs to a NaN code).
void all_codes(dt t) {
    const f8n::fmt_t &f = fmt_of(t);
    uint8_t codes[256];
    for (int c = 0; c < 256; ++c) codes[c] = (uint8_t)c;
    for (dt to : {dt::f32, dt::bf16, dt::f16, t == dt::f8_e5m2 ? dt::f8_e4m3 : dt::f8_e5m2}) {
        std::vector<uint8_t> out = convert(t, codes, 256, to);
        int bad = 0;
        for (int c = 0; c < 256; ++c) {
            double want = f8n::decode(f, (uint8_t)c);
            if (to == dt::f8_e5m2 || to == dt::f8_e4m3) want = f8n::round_to(fmt_of(to), want);
            const double got = value_at(to, out.data(), c);
            bool ok = f8n::same(got, want);
            if (ok && std::isnan(want) && (to == dt::f32 || to == dt::bf16 || to == dt::f16)) {
                const bool neg = (c & 0x80) != 0; // NaN keeps its sign
                const uint8_t *raw = out.data();
                const size_t sz = to == dt::f32 ? 4 : 2;
                ok = ((raw[c * sz + sz - 1] & 0x80) != 0) == neg;
            }
            if (!ok) {
                if (bad++ < 4)
                    std::fprintf(stderr, "  %s code 0x%02x: got %g want %g\n", name_of(t), c, got,
                                 want);
            }
        }
        char what[96];
        std::snprintf(what, sizeof(what), "all %s codes to dt %d", name_of(t), (int)to);
        T.check(bad == 0, what);
    }
    // Round trip through f32.
    std::vector<uint8_t> f32 = convert(t, codes, 256, dt::f32);
    std::vector<uint8_t> back = convert(dt::f32, f32.data(), 256, t);
    int bad = 0;
    for (int c = 0; c < 256; ++c) {
        const double v = f8n::decode(f, (uint8_t)c);
        const bool ok = std::isnan(v) ? std::isnan(f8n::decode(f, back[c]))
                                                && (back[c] & 0x80) == (c & 0x80)
                                      : back[c] == c;
        if (!ok && bad++ < 4)
            std::fprintf(stderr, "  %s round trip 0x%02x -> 0x%02x\n", name_of(t), c, back[c]);
    }
    char what[64];
    std::snprintf(what, sizeof(what), "%s codes round trip through f32", name_of(t));
    T.check(bad == 0, what);
}

float next_up(float x) {
    return std::nextafter(x, std::numeric_limits<float>::infinity());
}
float next_down(float x) {
    return std::nextafter(x, -std::numeric_limits<float>::infinity());
}

// f32 values to f8 against round_to; exact codes for the specials.
void from_f32(dt t) {
    const f8n::fmt_t &f = fmt_of(t);
    std::vector<float> xs;
    // Midpoints between neighbouring non-negative finite values (exact in
    // f32), one f32 ulp either side, and the values themselves.
    std::vector<double> vals;
    for (int c = 0; c < 128; ++c) {
        const double v = f8n::decode(f, (uint8_t)c);
        if (std::isfinite(v)) vals.push_back(v);
    }
    vals.push_back(2 * f.max - vals[vals.size() - 2]); // the first value past max, had it existed
    for (size_t i = 0; i + 1 < vals.size(); ++i) {
        const float mid = (float)((vals[i] + vals[i + 1]) / 2);
        for (float x : {(float)vals[i], mid, next_up(mid), next_down(mid)}) {
            xs.push_back(x);
            xs.push_back(-x);
        }
    }
    const float inf = std::numeric_limits<float>::infinity();
    for (float x : {0.f,  -0.f, 1e-45f,  -1e-45f, 1e-39f, 1.17549435e-38f, 1e-30f, 1e-6f,
                    1e4f, 6e4f, 65536.f, 1e6f,    1e30f,  3.4e38f,         inf,    -inf,
                    1.f,  -1.f, 0.3f,    -2.7f})
        xs.push_back(x);
    kt::rng_t r(7);
    for (int i = 0; i < 4000; ++i) { // random signs, exponents across the whole range
        const float m = r.uniform(1.f, 2.f);
        const int e = (int)(r.next() % 48) - 26;
        xs.push_back((r.next() & 1 ? -1.f : 1.f) * std::ldexp(m, e));
    }
    std::vector<uint8_t> out = convert(dt::f32, xs.data(), xs.size(), t);
    int bad = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
        const double want = f8n::round_to(f, xs[i]);
        const double got = f8n::decode(f, out[i]);
        const bool ok =
                f8n::same(got, want)
                && (!std::isnan(want) || (out[i] & 0x80) == (std::signbit(xs[i]) ? 0x80 : 0));
        if (!ok && bad++ < 6)
            std::fprintf(stderr, "  %s from f32 %a: got %g (0x%02x) want %g\n", name_of(t), xs[i],
                         got, out[i], want);
    }
    char what[80];
    std::snprintf(what, sizeof(what), "%s from %zu f32 values (midpoints, overflow, underflow)",
                  name_of(t), xs.size());
    T.check(bad == 0, what);

    // The specials, code by code, as oneDNN writes them.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    struct sp_t {
        float x;
        uint8_t e5, e4;
    } sp[] = {{inf, 0x7c, 0x7f},
              {-inf, 0xfc, 0xff},
              {nan, 0x7e, 0x7f},
              {-nan, 0xfe, 0xff},
              {61440.f, 0x7c, 0x7f},
              {next_down(61440.f), 0x7b, 0x7f},
              {464.f, 0x5f, 0x7e},
              {next_up(464.f), 0x5f, 0x7f},
              {-448.f, 0xdf, 0xfe},
              {-0.f, 0x80, 0x80},
              {std::ldexp(1.f, -17), 0x00, 0x00},
              {next_up(std::ldexp(1.f, -17)), 0x01, 0x00},
              {std::ldexp(1.f, -10), 0x14, 0x00},
              {next_up(std::ldexp(1.f, -10)), 0x14, 0x01},
              {std::ldexp(3.f, -10), 0x1a, 0x02}};
    std::vector<float> sx;
    for (const auto &s : sp) sx.push_back(s.x);
    std::vector<uint8_t> so = convert(dt::f32, sx.data(), sx.size(), t);
    bad = 0;
    for (size_t i = 0; i < sx.size(); ++i) {
        const uint8_t want = t == dt::f8_e5m2 ? sp[i].e5 : sp[i].e4;
        if (so[i] != want && bad++ < 6)
            std::fprintf(stderr, "  %s special %a: got 0x%02x want 0x%02x\n", name_of(t), sx[i],
                         so[i], want);
    }
    std::snprintf(what, sizeof(what), "%s special codes (inf, NaN, overflow edges, underflow ties)",
                  name_of(t));
    T.check(bad == 0, what);
}

// Every bf16 and f16 bit pattern to the f8 type: one rounding from the
// exact value.
void from_16bit(dt t) {
    std::vector<uint16_t> all(65536);
    for (int i = 0; i < 65536; ++i) all[i] = (uint16_t)i;
    for (dt st : {dt::bf16, dt::f16}) {
        std::vector<uint8_t> out = convert(st, all.data(), all.size(), t);
        int bad = 0;
        for (int i = 0; i < 65536; ++i) {
            const double x =
                    st == dt::bf16 ? f8n::bf16_value((uint16_t)i) : f8n::f16_value((uint16_t)i);
            const double want = f8n::round_to(fmt_of(t), x), got = f8n::decode(fmt_of(t), out[i]);
            if (!f8n::same(got, want) && bad++ < 4)
                std::fprintf(stderr, "  %s from %s 0x%04x: got %g want %g\n", name_of(t),
                             st == dt::bf16 ? "bf16" : "f16", i, got, want);
        }
        char what[64];
        std::snprintf(what, sizeof(what), "%s from every %s", name_of(t),
                      st == dt::bf16 ? "bf16" : "f16");
        T.check(bad == 0, what);
    }
}

// Offset of (n, c, h, w) in nchw, nhwc and nChw16c (C padded to 16).
size_t off_of(tag tg, const memory::dims &d, memory::dim n, memory::dim c, memory::dim h,
              memory::dim w) {
    const memory::dim C = d[1], H = d[2], W = d[3];
    if (tg == tag::nchw) return (size_t)(((n * C + c) * H + h) * W + w);
    if (tg == tag::nhwc) return (size_t)(((n * H + h) * W + w) * C + c);
    const memory::dim CB = (C + 15) / 16;
    return (size_t)((((n * CB + c / 16) * H + h) * W + w) * 16 + c % 16);
}

// f32 (src_tag) -> f8 (mid_tag) with a per-channel src scale and a dst
// scale, then f8 -> f32 (dst_tag) with a src scale; every element against
// the naive formula, the padding of blocked layouts zero.
void layouts(dt t, tag src_tag, tag mid_tag, tag dst_tag) {
    const memory::dims d = {2, 19, 3, 5};
    const size_t n = 2 * 19 * 3 * 5;
    memory::desc smd(d, dt::f32, src_tag), mmd(d, t, mid_tag), dmd(d, dt::f32, dst_tag);
    std::vector<float> src(smd.get_size() / 4), back(dmd.get_size() / 4, -1.f);
    std::vector<uint8_t> mid(mmd.get_size(), 0x5a);
    kt::rng_t r(11);
    for (auto &x : src) x = r.uniform(-300.f, 300.f);
    std::vector<float> csc(19);
    for (int c = 0; c < 19; ++c) csc[c] = c % 3 == 0 ? 0.25f : (c % 3 == 1 ? 1.5f : 3.f);
    float dsc = 2.f, bsc = 0.5f;

    primitive_attr a1;
    a1.set_scales_mask(DNNL_ARG_SRC, 1 << 1);
    a1.set_scales_mask(DNNL_ARG_DST, 0);
    memory ms(smd, eng, src.data()), mm(mmd, eng, mid.data()), md(dmd, eng, back.data());
    memory scm({{19}, dt::f32, tag::x}, eng, csc.data()), dsm({{1}, dt::f32, tag::x}, eng, &dsc),
            bsm({{1}, dt::f32, tag::x}, eng, &bsc);
    reorder(reorder::primitive_desc(eng, smd, eng, mmd, a1))
            .execute(strm, {{DNNL_ARG_FROM, ms},
                            {DNNL_ARG_TO, mm},
                            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, scm},
                            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, dsm}});
    primitive_attr a2;
    a2.set_scales_mask(DNNL_ARG_SRC, 0);
    reorder(reorder::primitive_desc(eng, mmd, eng, dmd, a2))
            .execute(strm, {{DNNL_ARG_FROM, mm},
                            {DNNL_ARG_TO, md},
                            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, bsm}});
    strm.wait();
    const f8n::fmt_t &f = fmt_of(t);
    int bad = 0;
    size_t seen = 0;
    for (memory::dim in = 0; in < 2; ++in)
        for (memory::dim c = 0; c < 19; ++c)
            for (memory::dim h = 0; h < 3; ++h)
                for (memory::dim w = 0; w < 5; ++w) {
                    const float x = src[off_of(src_tag, d, in, c, h, w)];
                    const double q = f8n::round_to(f, (double)(x * csc[c] / dsc));
                    const double gq = f8n::decode(f, mid[off_of(mid_tag, d, in, c, h, w)]);
                    const double gb = back[off_of(dst_tag, d, in, c, h, w)];
                    const bool ok = f8n::same(gq, q) && f8n::same(gb, (double)(float)(q * 0.5));
                    if (!ok && bad++ < 4)
                        std::fprintf(stderr, "  (%ld,%ld,%ld,%ld): x %g mid %g want %g back %g\n",
                                     (long)in, (long)c, (long)h, (long)w, x, gq, q, gb);
                    ++seen;
                }
    if (mid_tag == tag::nChw16c) { // the padded channels 19..31 must be zero
        for (memory::dim in = 0; in < 2; ++in)
            for (memory::dim c = 19; c < 32; ++c)
                for (memory::dim h = 0; h < 3; ++h)
                    for (memory::dim w = 0; w < 5; ++w)
                        if (mid[off_of(tag::nChw16c, d, in, c, h, w)] != 0) ++bad;
    }
    char what[96];
    std::snprintf(what, sizeof(what), "%s layouts %d -> %d -> %d with scales (%zu of %zu)",
                  name_of(t), (int)src_tag, (int)mid_tag, (int)dst_tag, seen, n);
    T.check(bad == 0 && seen == n, what);

    // Same-type relayout of the f8 data (bytes unchanged, padding zero).
    memory::desc pmd(d, t, tag::nchw);
    std::vector<uint8_t> plain(pmd.get_size(), 0x33);
    memory mp(pmd, eng, plain.data());
    reorder(mm, mp).execute(strm, mm, mp);
    strm.wait();
    bad = 0;
    for (memory::dim in = 0; in < 2; ++in)
        for (memory::dim c = 0; c < 19; ++c)
            for (memory::dim h = 0; h < 3; ++h)
                for (memory::dim w = 0; w < 5; ++w)
                    if (plain[off_of(tag::nchw, d, in, c, h, w)]
                        != mid[off_of(mid_tag, d, in, c, h, w)])
                        ++bad;
    std::snprintf(what, sizeof(what), "%s relayout %d -> nchw", name_of(t), (int)mid_tag);
    T.check(bad == 0, what);
}

// f8 with an integer side: unimplemented, dst untouched (no primitive).
void refusals(dt t) {
    const memory::dims d = {4, 8};
    for (dt other : {dt::s8, dt::u8, dt::s32}) {
        for (int dir = 0; dir < 2; ++dir) {
            memory::desc a(d, dir ? other : t, tag::ab), b(d, dir ? t : other, tag::ab);
            dnnl_primitive_desc_t pd = nullptr;
            const dnnl_status_t st = dnnl_reorder_primitive_desc_create(
                    &pd, a.get(), eng.get(), b.get(), eng.get(), nullptr);
            if (pd) dnnl_primitive_desc_destroy(pd);
            char what[80];
            std::snprintf(what, sizeof(what), "%s %s dt %d: unimplemented", name_of(t),
                          dir ? "from" : "to", (int)other);
            T.check(st == dnnl_unimplemented, what);
        }
    }
}

} // namespace

int main() {
    for (int nthr : {1, 2}) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)nthr);
        for (dt t : {dt::f8_e5m2, dt::f8_e4m3}) {
            all_codes(t);
            from_f32(t);
            from_16bit(t);
            layouts(t, tag::nchw, tag::nChw16c, tag::nhwc);
            layouts(t, tag::nhwc, tag::nchw, tag::nChw16c);
            layouts(t, tag::nchw, tag::nhwc, tag::nchw);
            refusals(t);
        }
    }
    return T.finish();
}
