// fp8 matmul (f8_e5m2 / f8_e4m3 src and weights, f32 accumulation) against
// a naive double loop, with every implementation that accepts the problem
// (gemm:cvt and the reference): tails (M = 1, odd N, K over one K chunk),
// transposed weights, batches, bias (f32, bf16, f8), src / per-N weights /
// dst scales, a ReLU post-op, dst f32, bf16 and both f8 types, 1 and 2
// threads. Refused combinations (as in oneDNN) must be unimplemented.
//
// Tolerance from the arithmetic: the f32 sum of K products differs from the
// exact one by at most K * 2^-24 * sum|products| (plus a little for the
// scale and bias operations); the dst value must then lie between the dst
// type's roundings of the two ends of that interval.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "dnnl.hpp"
#include "dnnl_debug.h"
#include "f8_naive.hpp"
#include "kt_test.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

kt::tally_t T;
engine eng(engine::kind::cpu, 0);
stream strm(eng);

const char *dt_name(dt t) {
    return dnnl_dt2str((dnnl_data_type_t)t);
}

const f8n::fmt_t &fmt_of(dt t) {
    switch (t) {
    case dt::f8_e5m2:
        return f8n::e5m2;
    case dt::f8_e4m3:
        return f8n::e4m3;
    case dt::bf16:
        return f8n::bf16;
    default:
        return f8n::f16;
    }
}

// Bits of a value exactly representable in t (f32, bf16, f16, f8).
void put(dt t, void *p, size_t i, double v) {
    switch (t) {
    case dt::f32:
        ((float *)p)[i] = (float)v;
        return;
    case dt::bf16: {
        const float f = (float)v;
        uint32_t b;
        std::memcpy(&b, &f, 4);
        ((uint16_t *)p)[i] = (uint16_t)(b >> 16);
        return;
    }
    case dt::f16: { // normal values and zero only (the test's data)
        uint16_t h = v < 0 ? 0x8000 : 0;
        if (v != 0) {
            int e;
            const double m = std::frexp(std::fabs(v), &e); // [0.5, 1)
            h |= (uint16_t)(((e - 1 + 15) << 10) | (int)((2 * m - 1) * 1024));
        }
        ((uint16_t *)p)[i] = h;
        return;
    }
    default:
        ((uint8_t *)p)[i] = f8n::encode_exact(fmt_of(t), v);
        return;
    }
}

double get(dt t, const void *p, size_t i) {
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

double round_dt(dt t, double v) {
    return t == dt::f32 ? (double)(float)v : f8n::round_to(fmt_of(t), v);
}

// A random value in [-4, 4] exactly representable in t (and in every type
// of the test's pairs when `narrow`, i.e. e5m2's precision).
double draw(kt::rng_t &r, dt t) {
    const double x = r.uniform(-4.f, 4.f);
    double v = f8n::round_to(f8n::e5m2, x); // 3 significant bits: exact in every type
    if (t == dt::f8_e4m3) v = f8n::round_to(f8n::e4m3, x);
    if (std::fabs(v) < 0.0625) v = 0; // keep f16 normal
    return v;
}

struct case_t {
    dt sdt, wdt, ddt, bdt;  // bdt undef: no bias
    memory::dim B, M, N, K; // B = 0: 2D
    bool tw, scales, relu;
};

void run(const case_t &c, int nthr) {
    const bool b3 = c.B > 0;
    const memory::dim B = b3 ? c.B : 1;
    memory::dims sd = {c.M, c.K}, wd = {c.K, c.N}, dd = {c.M, c.N}, bd = {1, c.N};
    tag plain = tag::ab, wtag = c.tw ? tag::ba : tag::ab;
    if (b3) {
        sd.insert(sd.begin(), B);
        wd.insert(wd.begin(), B);
        dd.insert(dd.begin(), B);
        bd.insert(bd.begin(), 1);
        plain = tag::abc;
        wtag = c.tw ? tag::acb : tag::abc;
    }
    memory::desc smd(sd, c.sdt, plain), wmd(wd, c.wdt, wtag), dmd(dd, c.ddt, plain);
    const bool bias = c.bdt != dt::undef;
    memory::desc bmd = bias ? memory::desc(bd, c.bdt, plain) : memory::desc();

    kt::rng_t r(c.M * 131 + c.N * 17 + c.K + (int)c.sdt * 7 + (int)c.ddt);
    std::vector<double> S(B * c.M * c.K), W(B * c.K * c.N), Bv(c.N, 0.0), ws(c.N);
    std::vector<uint8_t> sbuf(smd.get_size()), wbuf(wmd.get_size()),
            bbuf(bias ? bmd.get_size() : 1);
    for (memory::dim b = 0; b < B; ++b)
        for (memory::dim m = 0; m < c.M; ++m)
            for (memory::dim k = 0; k < c.K; ++k) {
                const size_t i = (b * c.M + m) * c.K + k;
                S[i] = draw(r, c.sdt);
                put(c.sdt, sbuf.data(), i, S[i]);
            }
    for (memory::dim b = 0; b < B; ++b)
        for (memory::dim k = 0; k < c.K; ++k)
            for (memory::dim n = 0; n < c.N; ++n) {
                const size_t i = (b * c.K + k) * c.N + n;
                W[i] = draw(r, c.wdt);
                const size_t off = c.tw ? (b * c.N + n) * c.K + k : i;
                put(c.wdt, wbuf.data(), off, W[i]);
            }
    for (memory::dim n = 0; n < c.N; ++n) {
        if (bias) {
            Bv[n] = draw(r, c.bdt == dt::f32 || c.bdt == dt::bf16 ? dt::f8_e5m2 : c.bdt);
            put(c.bdt, bbuf.data(), n, Bv[n]);
        }
        ws[n] = n % 3 == 0 ? 0.5 : (n % 3 == 1 ? 1.0 : 2.0);
    }
    const float ssc = 2.f, dsc = 4.f;
    std::vector<float> wsf(ws.begin(), ws.end());

    primitive_attr attr;
    if (c.scales) {
        attr.set_scales_mask(DNNL_ARG_SRC, 0);
        attr.set_scales_mask(DNNL_ARG_WEIGHTS, 1 << (b3 ? 2 : 1));
        attr.set_scales_mask(DNNL_ARG_DST, 0);
    }
    if (c.relu) {
        post_ops po;
        po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
        attr.set_post_ops(po);
    }
    char what[256];
    std::snprintf(what, sizeof(what),
                  "%s:%s:%s bias=%s B=%ld M=%ld N=%ld K=%ld tw=%d sc=%d relu=%d thr=%d",
                  dt_name(c.sdt), dt_name(c.wdt), dt_name(c.ddt), bias ? dt_name(c.bdt) : "-",
                  (long)c.B, (long)c.M, (long)c.N, (long)c.K, c.tw, c.scales, c.relu, nthr);
    matmul::primitive_desc pd;
    try {
        pd = matmul::primitive_desc(eng, smd, wmd, bmd, dmd, attr);
    } catch (const dnnl::error &e) {
        std::fprintf(stderr, "  %s: status %d\n", what, (int)e.status);
        T.check(false, what);
        return;
    }
    int impls = 0;
    do {
        std::vector<uint8_t> dbuf(dmd.get_size(), 0x5a);
        memory ms(smd, eng, sbuf.data()), mw(wmd, eng, wbuf.data()), md(dmd, eng, dbuf.data());
        memory mb = bias ? memory(bmd, eng, bbuf.data()) : memory();
        float ssv = ssc, dsv = dsc;
        memory mss({{1}, dt::f32, tag::x}, eng, &ssv), mds({{1}, dt::f32, tag::x}, eng, &dsv),
                mws({{c.N}, dt::f32, tag::x}, eng, wsf.data());
        std::unordered_map<int, memory> args = {
                {DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
        if (bias) args[DNNL_ARG_BIAS] = mb;
        if (c.scales) {
            args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = mss;
            args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS] = mws;
            args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = mds;
        }
        matmul(pd).execute(strm, args);
        strm.wait();
        int bad = 0;
        for (memory::dim b = 0; b < B; ++b)
            for (memory::dim m = 0; m < c.M; ++m)
                for (memory::dim n = 0; n < c.N; ++n) {
                    double acc = 0, mag = 0;
                    for (memory::dim k = 0; k < c.K; ++k) {
                        const double p = S[(b * c.M + m) * c.K + k] * W[(b * c.K + k) * c.N + n];
                        acc += p;
                        mag += std::fabs(p);
                    }
                    const double sc = c.scales ? ssc * ws[n] : 1.0;
                    const double v = acc * sc + Bv[n];
                    const double tol =
                            (c.K + 8) * std::ldexp(mag * sc + std::fabs(Bv[n]) + std::fabs(v), -24);
                    double lo = v - tol, hi = v + tol;
                    if (c.relu) {
                        lo = lo < 0 ? 0 : lo;
                        hi = hi < 0 ? 0 : hi;
                    }
                    if (c.scales) {
                        lo /= dsc;
                        hi /= dsc;
                    }
                    const double rlo = round_dt(c.ddt, lo), rhi = round_dt(c.ddt, hi);
                    const double got = get(c.ddt, dbuf.data(), (b * c.M + m) * c.N + n);
                    const bool ok = (got >= rlo && got <= rhi)
                                    || (std::isnan(got) && (std::isnan(rlo) || std::isnan(rhi)));
                    if (!ok && bad++ < 3)
                        std::fprintf(stderr,
                                     "  %s [%s] (%ld,%ld,%ld): got %.9g want [%.9g, %.9g]\n", what,
                                     pd.impl_info_str(), (long)b, (long)m, (long)n, got, rlo, rhi);
                }
        std::string w = std::string(what) + " impl " + pd.impl_info_str();
        T.check(bad == 0, w.c_str());
        ++impls;
    } while (pd.next_impl());
    std::snprintf(what + std::strlen(what), sizeof(what) - std::strlen(what),
                  ": gemm and ref both ran");
    T.check(impls >= 2, what);
}

// oneDNN's reference refuses these: expect unimplemented.
void refusals() {
    struct r_t {
        dt s, w, d;
    } rs[] = {{dt::f32, dt::f8_e4m3, dt::f32},     {dt::bf16, dt::f8_e5m2, dt::f32},
              {dt::f8_e5m2, dt::f8_e4m3, dt::f32}, {dt::f8_e4m3, dt::f8_e5m2, dt::f32},
              {dt::f16, dt::f16, dt::f8_e4m3},     {dt::f8_e4m3, dt::f32, dt::f32}};
    for (const auto &x : rs) {
        memory::desc s({4, 8}, x.s, tag::ab), w({8, 5}, x.w, tag::ab), d({4, 5}, x.d, tag::ab);
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng.get(), s.get(), w.get(),
                                                                   nullptr, d.get(), nullptr);
        if (pd) dnnl_primitive_desc_destroy(pd);
        char what[96];
        std::snprintf(what, sizeof(what), "matmul %s:%s:%s unimplemented", dt_name(x.s),
                      dt_name(x.w), dt_name(x.d));
        T.check(st == dnnl_unimplemented, what);
    }
}

} // namespace

int main() {
    const dt e5 = dt::f8_e5m2, e4 = dt::f8_e4m3, u = dt::undef;
    const case_t cases[] = {
            {e4, e4, dt::f32, u, 0, 1, 17, 5, false, false, false},
            {e5, e5, dt::f32, dt::f32, 0, 7, 33, 300, false, true, false},
            {e4, e4, e4, dt::f32, 0, 9, 21, 40, true, true, true},
            {e5, e5, e5, e5, 0, 16, 16, 16, false, true, false},
            {e4, e4, dt::bf16, e4, 0, 3, 19, 260, true, false, true},
            {e4, e4, e5, dt::bf16, 2, 5, 9, 20, false, true, false},
            {e5, e5, dt::f16, u, 3, 4, 7, 11, true, false, false},
            {e4, dt::bf16, dt::f32, dt::f32, 0, 6, 13, 70, false, true, false},
            {e5, dt::f16, e4, u, 0, 5, 31, 33, true, true, true},
            {dt::f32, dt::f32, e4, dt::f32, 0, 8, 23, 12, false, true, false},
            {dt::bf16, dt::bf16, e5, u, 0, 1, 40, 9, true, false, true},
    };
    for (int nthr : {1, 2}) {
        tbb::global_control gc(tbb::global_control::max_allowed_parallelism, (size_t)nthr);
        for (const auto &c : cases) run(c, nthr);
    }
    refusals();
    return T.finish();
}
