// int8 and bf16 convolution forward on channel-blocked (nCx16c, nCx8c) and
// channels-first data, which the library serves by running its
// channels-last implementation on copies (conv_nxc_wrap): each case is
// checked against a naive loop written here over logical indices, with the
// buffers laid out by this file's own offset functions (padded channels of
// src filled with garbage that must not be read, those of dst with garbage
// that must come back as zero), then the quantization stage of
// common/kt_s8.hpp. The implementation must be the channels-last one of
// the same problem with "+nxc" appended (or, for channels-first data, the
// wrapper only around a direct kernel). Weights go in through a library
// reorder from plain goihw. 1 and 2 threads, and the reference
// implementation must give the same; test_conv_nxc_wrap_isa.sh runs it
// again under ISA caps.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/kt_s8.hpp"

namespace {

using dim = int64_t;

enum lay_t { l_any, l_nxc, l_ncx, l_b16, l_b8 };

struct prb_t {
    dim mb, g, icg, ocg;
    int nsp; // 1..3
    dim in[3], k[3], s[3], pl[3], pr[3]; // d, h, w (the last nsp used)
    dnnl_data_type_t sdt, ddt, bdt; // bdt undef: no bias
    lay_t sl, dl; // src and dst layouts
    kt::quant_t q;
    const char *what;

    int nd() const { return nsp + 2; }
    dim out(int i) const { return (in[i] + pl[i] + pr[i] - k[i]) / s[i] + 1; }
    dim IC() const { return g * icg; }
    dim OC() const { return g * ocg; }
    bool bf16() const { return sdt == dnnl_bf16; }
};

dnnl_format_tag_t tag_of(int nd, lay_t l) {
    switch (l) {
        case l_any: return dnnl_format_tag_any;
        case l_nxc: return nd == 3 ? dnnl_nwc : nd == 4 ? dnnl_nhwc : dnnl_ndhwc;
        case l_ncx: return nd == 3 ? dnnl_ncw : nd == 4 ? dnnl_nchw : dnnl_ncdhw;
        case l_b16: return nd == 3 ? dnnl_nCw16c : nd == 4 ? dnnl_nChw16c : dnnl_nCdhw16c;
        case l_b8: return nd == 3 ? dnnl_nCw8c : nd == 4 ? dnnl_nChw8c : dnnl_nCdhw8c;
    }
    return dnnl_format_tag_undef;
}

// This file's own layout arithmetic for dense data tensors.
struct data_lay_t {
    lay_t l;
    dim N, C, SP, blk, CB;
    data_lay_t(lay_t l_, dim n, dim c, dim sp) : l(l_), N(n), C(c), SP(sp) {
        blk = l == l_b16 ? 16 : l == l_b8 ? 8 : 1;
        CB = (C + blk - 1) / blk;
    }
    dim size() const { return N * CB * blk * SP; }
    dim off(dim n, dim c, dim sp) const {
        if (l == l_nxc) return (n * SP + sp) * C + c;
        if (l == l_ncx) return (n * C + c) * SP + sp;
        return ((n * CB + c / blk) * SP + sp) * blk + c % blk;
    }
};

// Widened dims: missing spatial dims are 1.
prb_t widen(const prb_t &p) {
    prb_t w = p;
    for (int i = 0; i < 3 - p.nsp; ++i) w.in[i] = w.k[i] = w.s[i] = 1, w.pl[i] = w.pr[i] = 0;
    return w;
}

dnnl_memory_desc_t data_md(const prb_t &p, bool src, lay_t l) {
    const prb_t w = widen(p);
    dnnl_dims_t d = {p.mb, src ? p.IC() : p.OC()};
    for (int i = 0; i < p.nsp; ++i) d[2 + i] = src ? w.in[3 - p.nsp + i] : w.out(3 - p.nsp + i);
    dnnl_memory_desc_t m;
    KT_OK(dnnl_memory_desc_create_with_tag(&m, p.nd(), d, src ? p.sdt : p.ddt, tag_of(p.nd(), l)));
    return m;
}

dnnl_memory_desc_t wei_md(const prb_t &p, dnnl_format_tag_t tag) {
    const prb_t w = widen(p);
    dnnl_dims_t d;
    int n = 0;
    if (p.g > 1) d[n++] = p.g;
    d[n++] = p.ocg;
    d[n++] = p.icg;
    for (int i = 0; i < p.nsp; ++i) d[n++] = w.k[3 - p.nsp + i];
    dnnl_memory_desc_t m;
    KT_OK(dnnl_memory_desc_create_with_tag(&m, n, d, p.bf16() ? dnnl_bf16 : dnnl_s8, tag));
    return m;
}

dnnl_status_t make_pd(dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const prb_t &p, lay_t sl, lay_t dl) {
    dnnl_memory_desc_t s = data_md(p, true, sl), d = data_md(p, false, dl);
    dnnl_memory_desc_t w = wei_md(p, dnnl_format_tag_any), b = nullptr;
    if (p.bdt != dnnl_data_type_undef) {
        dnnl_dims_t bd = {p.OC()};
        KT_OK(dnnl_memory_desc_create_with_tag(&b, 1, bd, p.bdt, dnnl_a));
    }
    const int o = 3 - p.nsp;
    dnnl_dims_t st, dil, pl, pr;
    for (int i = 0; i < p.nsp; ++i) st[i] = p.s[o + i], dil[i] = 0, pl[i] = p.pl[o + i], pr[i] = p.pr[o + i];
    dnnl_primitive_attr_t a = p.q.attr(p.nd(), p.OC());
    const dnnl_status_t r = dnnl_convolution_forward_primitive_desc_create(
            pd, eng, dnnl_forward_inference, dnnl_convolution_direct, s, w, b, d, st, dil, pl, pr, a);
    dnnl_primitive_attr_destroy(a);
    for (auto m : {s, d, w, b}) dnnl_memory_desc_destroy(m);
    return r;
}

double rnd_of(kt::rng_t &r, dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_u8: return (double)(r.next() % 256);
        case dnnl_s8: return (double)(int)(r.next() % 256) - 128;
        case dnnl_s32: return (double)(int)(r.next() % 601) - 300;
        default: return (double)((int)(r.next() % 129) - 64) / 4; // exact in bf16
    }
}

// Which of this file's layouts the pd chose for src or dst (`any` resolved
// by the implementation).
lay_t lay_of(const_dnnl_primitive_desc_t pd, const prb_t &p, bool src) {
    const_dnnl_memory_desc_t q = dnnl_primitive_desc_query_md(pd, src ? dnnl_query_src_md : dnnl_query_dst_md, 0);
    for (lay_t l : {l_nxc, l_ncx, l_b16, l_b8}) {
        dnnl_memory_desc_t m = data_md(p, src, l);
        const bool eq = dnnl_memory_desc_equal(m, q) != 0;
        dnnl_memory_desc_destroy(m);
        if (eq) return l;
    }
    return l_any;
}

// The reference or the wrapper on one pd: fills, executes, compares.
bool run_pd(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_primitive_desc_t pd, const prb_t &p) {
    const lay_t sl = lay_of(pd, p, true), dl = lay_of(pd, p, false);
    if (sl == l_any || dl == l_any) {
        std::fprintf(stderr, "  unexpected data layout\n");
        return false;
    }
    const prb_t w = widen(p);
    const dim ISP = w.in[0] * w.in[1] * w.in[2], OSP = w.out(0) * w.out(1) * w.out(2);
    const dim KSP = w.k[0] * w.k[1] * w.k[2];
    const data_lay_t S(sl, p.mb, p.IC(), ISP), D(dl, p.mb, p.OC(), OSP);
    kt::rng_t r((uint64_t)(p.mb * 131 + p.icg * 17 + p.ocg * 7 + p.nsp * 1000 + sl * 5 + dl));
    const size_t ses = kt::dt_bytes(p.sdt), des = kt::dt_bytes(p.ddt);
    // Garbage everywhere first: padded channels keep it.
    std::vector<char> sb((size_t)S.size() * ses, (char)0x7b), db((size_t)D.size() * des, (char)0x5d);
    std::vector<double> src((size_t)(p.mb * p.IC() * ISP)), old((size_t)(p.mb * p.OC() * OSP));
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.IC(); ++c)
            for (dim x = 0; x < ISP; ++x) {
                const double v = rnd_of(r, p.sdt);
                src[(size_t)((n * p.IC() + c) * ISP + x)] = v;
                kt::set_elem(p.sdt, sb.data(), S.off(n, c, x), v);
            }
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.OC(); ++c)
            for (dim x = 0; x < OSP; ++x) {
                const double v = rnd_of(r, p.ddt);
                old[(size_t)((n * p.OC() + c) * OSP + x)] = v;
                kt::set_elem(p.ddt, db.data(), D.off(n, c, x), v);
            }
    // Weights: plain goi<k> values, reordered by the library into the pd's
    // layout. Small so |acc| stays below 2^24 (f32-exact for bf16).
    const dnnl_data_type_t wdt = p.bf16() ? dnnl_bf16 : dnnl_s8;
    std::vector<double> wv((size_t)(p.OC() * p.icg * KSP));
    std::vector<char> wplain(wv.size() * kt::dt_bytes(wdt));
    for (size_t i = 0; i < wv.size(); ++i) {
        wv[i] = p.bf16() ? (double)((int)(r.next() % 17) - 8) / 2 : (double)((int)(r.next() % 128) - 64);
        kt::set_elem(wdt, wplain.data(), (int64_t)i, wv[i]);
    }
    const int wn = p.nd() + (p.g > 1 ? 1 : 0);
    const dnnl_format_tag_t ptag = wn == 3 ? dnnl_abc : wn == 4 ? dnnl_abcd : wn == 5 ? dnnl_abcde : dnnl_abcdef;
    dnnl_memory_desc_t pmd = wei_md(p, ptag);
    const_dnnl_memory_desc_t wq = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    std::vector<char> wb(dnnl_memory_desc_get_size(wq));
    {
        dnnl_memory_t mp, mw;
        KT_OK(dnnl_memory_create(&mp, pmd, eng, wplain.data()));
        KT_OK(dnnl_memory_create(&mw, wq, eng, wb.data()));
        dnnl_primitive_desc_t rpd;
        KT_OK(dnnl_reorder_primitive_desc_create(&rpd, pmd, eng, wq, eng, nullptr));
        dnnl_primitive_t rp;
        KT_OK(dnnl_primitive_create(&rp, rpd));
        dnnl_exec_arg_t a[] = {{DNNL_ARG_FROM, mp}, {DNNL_ARG_TO, mw}};
        KT_OK(dnnl_primitive_execute(rp, strm, 2, a));
        KT_OK(dnnl_stream_wait(strm));
        dnnl_primitive_destroy(rp);
        dnnl_primitive_desc_destroy(rpd);
        dnnl_memory_destroy(mp);
        dnnl_memory_destroy(mw);
    }
    dnnl_memory_desc_destroy(pmd);
    std::vector<double> bias((size_t)p.OC(), 0.0);
    std::vector<char> bb((size_t)p.OC() * 4);
    if (p.bdt != dnnl_data_type_undef)
        for (dim c = 0; c < p.OC(); ++c) {
            bias[(size_t)c] = rnd_of(r, p.bdt == dnnl_s32 ? dnnl_s32 : dnnl_f32);
            kt::set_elem(p.bdt, bb.data(), c, bias[(size_t)c]);
        }

    kt::execute_quant(eng, strm, pd, sb.data(), wb.data(), p.bdt != dnnl_data_type_undef ? bb.data() : nullptr,
            db.data(), p.q, p.nd(), p.OC());

    int bad = 0;
    const int32_t zp = p.q.src_zp ? p.q.src_zp_v : 0;
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = 0; c < p.OC(); ++c) {
            const dim gr = c / p.ocg, oc = c % p.ocg;
            for (dim od = 0; od < w.out(0); ++od)
                for (dim oh = 0; oh < w.out(1); ++oh)
                    for (dim ow = 0; ow < w.out(2); ++ow) {
                        double acc = 0;
                        for (dim ic = 0; ic < p.icg; ++ic)
                            for (dim kd = 0; kd < w.k[0]; ++kd)
                                for (dim kh = 0; kh < w.k[1]; ++kh)
                                    for (dim kw = 0; kw < w.k[2]; ++kw) {
                                        const dim id = od * w.s[0] - w.pl[0] + kd, ih = oh * w.s[1] - w.pl[1] + kh,
                                                  iw = ow * w.s[2] - w.pl[2] + kw;
                                        if (id < 0 || id >= w.in[0] || ih < 0 || ih >= w.in[1] || iw < 0
                                                || iw >= w.in[2])
                                            continue;
                                        const double sv = src[(size_t)(((n * p.IC() + gr * p.icg + ic) * w.in[0] + id)
                                                                                * w.in[1] * w.in[2]
                                                + ih * w.in[2] + iw)];
                                        const double wvv = wv[(size_t)((((gr * p.ocg + oc) * p.icg + ic) * w.k[0] + kd)
                                                                                * w.k[1] * w.k[2]
                                                + kh * w.k[2] + kw)];
                                        acc += (sv - zp) * wvv;
                                    }
                        const dim x = (od * w.out(1) + oh) * w.out(2) + ow;
                        const double o = old[(size_t)((n * p.OC() + c) * OSP + x)];
                        double tol = 0, v;
                        if (p.bf16()) // multiples of 1/8 below 2^20: every f32 step exact
                            v = acc + bias[(size_t)c] + (p.q.sum ? p.q.sum_scale * o : 0.0);
                        else
                            v = p.q.value((int64_t)acc, c, bias[(size_t)c], o, tol);
                        const double got = kt::get_elem(p.ddt, db.data(), D.off(n, c, x));
                        if (!kt::dst_ok(p.ddt, got, v, tol) && bad++ < 3)
                            std::fprintf(stderr, "  n%ld c%ld x%ld: got %.6g want %.6g (tol %.3g)\n", (long)n,
                                    (long)c, (long)x, got, v, tol);
                    }
        }
    // Padded channels of a blocked dst: zero.
    for (dim n = 0; n < p.mb; ++n)
        for (dim c = p.OC(); c < D.CB * D.blk; ++c)
            for (dim x = 0; x < OSP; ++x) {
                const double got = kt::get_elem(p.ddt, db.data(), D.off(n, c, x));
                if (got != 0.0 && bad++ < 3)
                    std::fprintf(stderr, "  padded channel %ld of dst: %.6g, not 0\n", (long)c, got);
            }
    return bad == 0;
}

void run_case(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const prb_t &p) {
    // The channels-last implementation of the same problem, as wanted.
    dnnl_primitive_desc_t npd = nullptr;
    const dnnl_status_t nst = make_pd(&npd, eng, p, l_nxc, l_nxc);
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s: channels-last pd", p.what);
    t.check(nst == dnnl_success, msg);
    if (nst != dnnl_success) return;
    const std::string inner = kt::impl_name(npd);
    dnnl_primitive_desc_destroy(npd);
    const bool plain = (p.sl == l_ncx || p.sl == l_any) && (p.dl == l_ncx || p.dl == l_any);
    std::string want = inner + "+nxc";
    if (plain && inner.compare(0, 7, "direct:") != 0) want = ""; // another route serves ncx
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = make_pd(&pd, eng, p, p.sl, p.dl);
    if (want.empty()) {
        std::snprintf(msg, sizeof msg, "%s: not wrapped (inner %s)", p.what, inner.c_str());
        t.check(st == dnnl_success && pd && kt::impl_name(pd).find("+nxc") == std::string::npos, msg);
        if (pd) dnnl_primitive_desc_destroy(pd);
        return;
    }
    kt::check_pd(t, st, pd, want.c_str(), "ref:any", p.what,
            [&](const_dnnl_primitive_desc_t x) { return run_pd(eng, strm, x, p); });
    // `any` follows the other tensor's layout in the wrapper.
    if (p.sl == l_any || p.dl == l_any) {
        dnnl_primitive_desc_t q = nullptr;
        if (make_pd(&q, eng, p, p.sl, p.dl) == dnnl_success) {
            std::snprintf(msg, sizeof msg, "%s: any resolved to the other tensor's layout", p.what);
            t.check(lay_of(q, p, true) == (p.sl == l_any ? p.dl : p.sl)
                            && lay_of(q, p, false) == (p.dl == l_any ? p.sl : p.dl),
                    msg);
            dnnl_primitive_desc_destroy(q);
        }
    }
}

prb_t base(dim mb, dim g, dim icg, dim ocg, dim ih, dim iw, dim k, dim s, dim pad, lay_t l, const char *what) {
    prb_t p {};
    p.mb = mb, p.g = g, p.icg = icg, p.ocg = ocg, p.nsp = 2;
    p.in[0] = 1, p.in[1] = ih, p.in[2] = iw;
    p.k[0] = 1, p.k[1] = p.k[2] = k;
    p.s[0] = 1, p.s[1] = p.s[2] = s;
    p.pl[1] = p.pl[2] = p.pr[1] = p.pr[2] = pad;
    p.sdt = dnnl_u8, p.ddt = dnnl_u8, p.bdt = dnnl_data_type_undef;
    p.sl = p.dl = l;
    p.what = what;
    return p;
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    std::vector<prb_t> cases;
    {
        prb_t p = base(2, 1, 20, 35, 7, 9, 3, 1, 1, l_b16, "u8 nChw16c 3x3, channel tails, u8 dst, scales");
        p.q.wei_scales.assign(35, 0.f);
        for (int c = 0; c < 35; ++c) p.q.wei_scales[c] = 0.0078125f * (1 + c % 3);
        p.q.dst_scale = 4.f;
        cases.push_back(p);
    }
    {
        prb_t p = base(1, 1, 13, 24, 6, 5, 3, 2, 1, l_b8, "s8 nChw8c 3x3 s2, src zp, s32 dst, bias");
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.bdt = dnnl_s32;
        p.q.src_zp = true, p.q.src_zp_v = -5;
        cases.push_back(p);
    }
    {
        prb_t p = base(2, 1, 16, 19, 5, 5, 1, 1, 0, l_b16, "u8 nChw16c 1x1, sum reads dst, relu, s8 dst, dst zp");
        p.ddt = dnnl_s8;
        p.q.elt = dnnl_eltwise_relu;
        p.q.sum = true, p.q.sum_scale = 1.f;
        p.q.src_scale = 0.5f, p.q.dst_scale = 64.f;
        p.q.dst_zp = true, p.q.dst_zp_v = 3;
        cases.push_back(p);
    }
    {
        prb_t p = base(1, 2, 16, 24, 6, 6, 3, 1, 1, l_b16, "u8 nChw16c groups 2, f32 dst, bias");
        p.ddt = dnnl_f32, p.bdt = dnnl_f32;
        cases.push_back(p);
    }
    {
        prb_t p = base(2, 1, 9, 17, 6, 7, 3, 1, 1, l_ncx, "u8 nchw 3x3, u8 dst");
        p.q.dst_scale = 128.f;
        cases.push_back(p);
    }
    {
        prb_t p = base(1, 1, 16, 16, 4, 4, 3, 1, 1, l_b16, "src any, dst nChw16c");
        p.sl = l_any;
        p.q.dst_scale = 64.f;
        cases.push_back(p);
    }
    {
        prb_t p = base(1, 1, 16, 20, 4, 5, 3, 1, 0, l_nxc, "src nhwc, dst nChw8c");
        p.dl = l_b8, p.ddt = dnnl_s32;
        cases.push_back(p);
    }
    {
        prb_t p = base(2, 1, 5, 21, 1, 11, 3, 1, 1, l_b16, "1D nCw16c, s8 dst");
        p.nsp = 1, p.in[1] = 1, p.k[1] = 1, p.pl[1] = p.pr[1] = 0;
        p.ddt = dnnl_s8, p.q.dst_scale = 32.f;
        cases.push_back(p);
    }
    {
        prb_t p = base(1, 1, 18, 18, 4, 4, 3, 1, 1, l_b16, "3D nCdhw16c, s32 dst");
        p.nsp = 3, p.in[0] = 3, p.k[0] = 3, p.pl[0] = p.pr[0] = 1;
        p.ddt = dnnl_s32;
        cases.push_back(p);
    }
    {
        prb_t p = base(2, 1, 20, 35, 6, 7, 3, 1, 1, l_b16, "bf16 nChw16c 3x3, bf16 dst, bias");
        p.sdt = dnnl_bf16, p.ddt = dnnl_bf16, p.bdt = dnnl_f32;
        cases.push_back(p);
    }
    {
        prb_t p = base(1, 1, 24, 13, 5, 6, 1, 1, 0, l_b8, "bf16 nChw8c 1x1, f32 dst, sum");
        p.sdt = dnnl_bf16, p.ddt = dnnl_f32;
        p.q.sum = true, p.q.sum_scale = 1.f;
        cases.push_back(p);
    }
    {
        prb_t p = base(2, 1, 7, 9, 5, 5, 3, 2, 1, l_ncx, "bf16 nchw 3x3 s2, bf16 dst");
        p.sdt = dnnl_bf16, p.ddt = dnnl_bf16;
        cases.push_back(p);
    }
    for (const prb_t &p : cases) run_case(t, eng, strm, p);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
