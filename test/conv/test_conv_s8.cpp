// int8 convolution forward (gemm:s8 and the reference, and int8
// deconvolution through the reference) against a naive loop written here:
// exact integer accumulation, then the quantization output stage of
// common/kt_s8.hpp. Every case runs with 1 and 2 threads, through the C
// API; one through the C++ API. Bad input must give a clear status and
// leave dst alone.
#include "common/kt_s8.hpp"
#include "dnnl.hpp"

namespace {

struct prb_t {
    int64_t mb, g, icg, ocg;
    int nsp; // 1..3 spatial dims
    int64_t in[3], k[3], s[3], dl[3], pl[3], pr[3]; // d/h/w of the last nsp used
    dnnl_data_type_t sdt, ddt, bdt; // bdt undef: no bias
    int data_tag; // 0 any, 1 channels-last, 2 channels-first
    int wei_tag; // 0 any, 1 [g]oi.. , 2 [g]o..i, 3 ..io (no groups: K rows of OC)
    kt::quant_t q;
    bool deconv = false;
    const char *want_impl; // expected implementation of the first pd
    bool with_ref = true; // also check the reference implementation

    int nd() const { return nsp + 2; }
    int64_t out(int i) const {
        const int64_t ext = (k[i] - 1) * (dl[i] + 1) + 1;
        if (deconv) return (in[i] - 1) * s[i] + ext - pl[i] - pr[i];
        return (in[i] + pl[i] + pr[i] - ext) / s[i] + 1;
    }
};

dnnl_format_tag_t data_tag(int nd, int t) {
    if (t == 0) return dnnl_format_tag_any;
    if (t == 1) return nd == 3 ? dnnl_acb : nd == 4 ? dnnl_acdb : dnnl_acdeb;
    return nd == 3 ? dnnl_abc : nd == 4 ? dnnl_abcd : dnnl_abcde;
}
dnnl_format_tag_t wei_tag(int nd, bool groups, int t) {
    if (t == 0) return dnnl_format_tag_any;
    if (t == 3) return nd == 3 ? dnnl_cba : nd == 4 ? dnnl_cdba : dnnl_cdeba;
    const int wn = nd + (groups ? 1 : 0);
    if (t == 1) return wn == 3 ? dnnl_abc : wn == 4 ? dnnl_abcd : wn == 5 ? dnnl_abcde : dnnl_abcdef;
    if (!groups) return nd == 3 ? dnnl_acb : nd == 4 ? dnnl_acdb : dnnl_acdeb;
    return nd == 3 ? dnnl_abdc : nd == 4 ? dnnl_abdec : dnnl_abdefc;
}

struct tensors_t {
    dnnl_memory_desc_t src, wei, bias = nullptr, dst;
    ~tensors_t() {
        dnnl_memory_desc_destroy(src);
        dnnl_memory_desc_destroy(wei);
        dnnl_memory_desc_destroy(bias);
        dnnl_memory_desc_destroy(dst);
    }
};

void make_mds(const prb_t &p, tensors_t &t, dnnl_data_type_t wdt = dnnl_s8) {
    const int nd = p.nd(), o = 3 - p.nsp;
    dnnl_dims_t sd = {p.mb, p.g * p.icg}, dd = {p.mb, p.g * p.ocg}, wd;
    int wn = 0;
    const bool groups = p.g > 1;
    if (groups) wd[wn++] = p.g;
    wd[wn++] = p.ocg;
    wd[wn++] = p.icg;
    for (int i = 0; i < p.nsp; ++i) {
        sd[2 + i] = p.in[o + i];
        dd[2 + i] = p.out(o + i);
        wd[wn++] = p.k[o + i];
    }
    KT_OK(dnnl_memory_desc_create_with_tag(&t.src, nd, sd, p.sdt, data_tag(nd, p.data_tag)));
    KT_OK(dnnl_memory_desc_create_with_tag(&t.dst, nd, dd, p.ddt, data_tag(nd, p.data_tag)));
    // `any` weights with channels-last (or `any`) data: ohwi given
    // explicitly, the layout gemm:s8 resolves `any` to. With AVX512-VNNI
    // `any` goes to the direct int8 kernel and its blocked weights (tested
    // in test_conv_s8_direct); this suite stays on gemm:s8.
    const int wt = p.wei_tag == 0 && p.data_tag != 2 && !p.deconv ? 2 : p.wei_tag;
    KT_OK(dnnl_memory_desc_create_with_tag(&t.wei, wn, wd, wdt, wei_tag(nd, groups, wt)));
    if (p.bdt != dnnl_data_type_undef) {
        dnnl_dims_t bd = {p.g * p.ocg};
        KT_OK(dnnl_memory_desc_create_with_tag(&t.bias, 1, bd, p.bdt, dnnl_a));
    }
}

dnnl_status_t make_pd(dnnl_primitive_desc_t *pd, dnnl_engine_t eng, const prb_t &p, const tensors_t &t,
        const_dnnl_primitive_attr_t attr) {
    const int o = 3 - p.nsp;
    dnnl_dims_t s, d, pl, pr;
    for (int i = 0; i < p.nsp; ++i)
        s[i] = p.s[o + i], d[i] = p.dl[o + i], pl[i] = p.pl[o + i], pr[i] = p.pr[o + i];
    if (p.deconv)
        return dnnl_deconvolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference,
                dnnl_deconvolution_direct, t.src, t.wei, t.bias, t.dst, s, d, pl, pr, attr);
    return dnnl_convolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference,
            dnnl_convolution_direct, t.src, t.wei, t.bias, t.dst, s, d, pl, pr, attr);
}

// Logical data of one case, deterministic.
struct data_t {
    std::vector<int32_t> src, wei; // [n][c][d][h][w], [g][oc][ic][kd][kh][kw]
    std::vector<double> bias, dst_old;
};

int64_t rnd(kt::rng_t &r, int64_t lo, int64_t hi) { return lo + (int64_t)(r.next() % (uint32_t)(hi - lo + 1)); }

double rnd_of(kt::rng_t &r, dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_u8: return (double)rnd(r, 0, 255);
        case dnnl_s8: return (double)rnd(r, -128, 127);
        case dnnl_s32: return (double)rnd(r, -300, 300);
        default: return (double)rnd(r, -64, 64) / 4; // exact in bf16 and f32
    }
}

// Naive output of element (n, c, od, oh, ow) into the stage (see kt_s8.hpp).
int64_t naive_acc(const prb_t &p, const data_t &x, int64_t n, int64_t c, const int64_t *op) {
    const int64_t gr = c / p.ocg, oc = c % p.ocg, IC = p.g * p.icg;
    int64_t O[3], I[3] = {p.in[0], p.in[1], p.in[2]};
    for (int i = 0; i < 3; ++i) O[i] = op[i];
    const int32_t zp = p.q.src_zp ? p.q.src_zp_v : 0;
    int64_t acc = 0;
    for (int64_t ic = 0; ic < p.icg; ++ic)
        for (int64_t kd = 0; kd < p.k[0]; ++kd)
            for (int64_t kh = 0; kh < p.k[1]; ++kh)
                for (int64_t kw = 0; kw < p.k[2]; ++kw) {
                    const int64_t kk[3] = {kd, kh, kw};
                    int64_t ii[3];
                    bool in = true;
                    for (int i = 0; i < 3; ++i) {
                        const int64_t t = kk[i] * (p.dl[i] + 1);
                        if (!p.deconv) {
                            ii[i] = O[i] * p.s[i] - p.pl[i] + t;
                        } else {
                            const int64_t u = O[i] + p.pl[i] - t;
                            if (u < 0 || u % p.s[i]) {
                                in = false;
                                break;
                            }
                            ii[i] = u / p.s[i];
                        }
                        if (ii[i] < 0 || ii[i] >= I[i]) in = false;
                    }
                    if (!in) continue;
                    const int64_t s = x.src[(((n * IC + gr * p.icg + ic) * I[0] + ii[0]) * I[1] + ii[1]) * I[2] + ii[2]];
                    const int64_t w = x.wei[((((gr * p.ocg + oc) * p.icg + ic) * p.k[0] + kd) * p.k[1] + kh) * p.k[2] + kw];
                    acc += (s - zp) * w;
                }
    return acc;
}

// One execution of a pd; returns false (with a message) on any mismatch.
bool run_pd(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_primitive_desc_t pd, const prb_t &p) {
    const int nd = p.nd();
    const_dnnl_memory_desc_t smd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC);
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS);
    const_dnnl_memory_desc_t dmd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_DST);
    const kt::plain_layout_t sl(smd), wl(wmd), dl(dmd);
    const int64_t OD = nd == 5 ? p.out(0) : 1, OH = nd >= 4 ? p.out(1) : 1, OW = p.out(2);
    const int64_t IC = p.g * p.icg, OC = p.g * p.ocg;
    // Widened problem dims (missing spatial dims are 1).
    prb_t w = p;
    for (int i = 0; i < 3 - p.nsp; ++i) w.in[i] = w.k[i] = w.s[i] = 1, w.dl[i] = w.pl[i] = w.pr[i] = 0;

    kt::rng_t r((uint64_t)(p.mb * 131 + p.icg * 17 + p.ocg * 7 + p.k[2] + p.nsp * 1000 + p.sdt * 3 + p.ddt));
    data_t x;
    const int64_t isp = w.in[0] * w.in[1] * w.in[2], ksp = w.k[0] * w.k[1] * w.k[2];
    x.src.resize((size_t)(p.mb * IC * isp));
    for (auto &v : x.src) v = (int32_t)rnd_of(r, p.sdt);
    x.wei.resize((size_t)(OC * p.icg * ksp));
    for (auto &v : x.wei) v = (int32_t)rnd(r, -64, 63); // |acc| < 2^24 for K <= 512
    std::vector<char> sb(sl.span() * kt::dt_bytes(p.sdt)), wb(wl.span()), db(dl.span() * kt::dt_bytes(p.ddt));
    std::vector<char> bb(OC * 4);
    auto pos_data = [&](int64_t *pos, int64_t n, int64_t c, int64_t d, int64_t h, int64_t ww) {
        pos[0] = n, pos[1] = c;
        int k = 2;
        if (nd == 5) pos[k++] = d;
        if (nd >= 4) pos[k++] = h;
        pos[k] = ww;
    };
    int64_t pos[8];
    for (int64_t n = 0; n < p.mb; ++n)
        for (int64_t c = 0; c < IC; ++c)
            for (int64_t d = 0; d < w.in[0]; ++d)
                for (int64_t h = 0; h < w.in[1]; ++h)
                    for (int64_t ww = 0; ww < w.in[2]; ++ww) {
                        pos_data(pos, n, c, d, h, ww);
                        kt::set_elem(p.sdt, sb.data(), sl.off(pos),
                                x.src[(((n * IC + c) * w.in[0] + d) * w.in[1] + h) * w.in[2] + ww]);
                    }
    for (int64_t gr = 0; gr < p.g; ++gr)
        for (int64_t oc = 0; oc < p.ocg; ++oc)
            for (int64_t ic = 0; ic < p.icg; ++ic)
                for (int64_t kd = 0; kd < w.k[0]; ++kd)
                    for (int64_t kh = 0; kh < w.k[1]; ++kh)
                        for (int64_t kw = 0; kw < w.k[2]; ++kw) {
                            int k = 0;
                            if (p.g > 1) pos[k++] = gr;
                            pos[k++] = oc, pos[k++] = ic;
                            if (nd == 5) pos[k++] = kd;
                            if (nd >= 4) pos[k++] = kh;
                            pos[k] = kw;
                            ((int8_t *)wb.data())[wl.off(pos)] = (int8_t)
                                    x.wei[((((gr * p.ocg + oc) * p.icg + ic) * w.k[0] + kd) * w.k[1] + kh) * w.k[2] + kw];
                        }
    x.bias.resize((size_t)OC);
    for (int64_t c = 0; c < OC; ++c) {
        x.bias[c] = p.bdt == dnnl_data_type_undef ? 0.0 : rnd_of(r, p.bdt);
        if (p.bdt != dnnl_data_type_undef) kt::set_elem(p.bdt, bb.data(), c, x.bias[c]);
    }
    // Old dst values (read by sum), everywhere in the buffer.
    const int64_t ne = dl.span();
    x.dst_old.resize((size_t)ne);
    for (int64_t i = 0; i < ne; ++i) {
        x.dst_old[i] = rnd_of(r, p.ddt);
        kt::set_elem(p.ddt, db.data(), i, x.dst_old[i]);
    }

    kt::execute_quant(eng, strm, pd, sb.data(), wb.data(), p.bdt != dnnl_data_type_undef ? bb.data() : nullptr,
            db.data(), p.q, nd, OC);

    int bad = 0;
    for (int64_t n = 0; n < p.mb; ++n)
        for (int64_t c = 0; c < OC; ++c)
            for (int64_t od = 0; od < OD; ++od)
                for (int64_t oh = 0; oh < OH; ++oh)
                    for (int64_t ow = 0; ow < OW; ++ow) {
                        const int64_t op[3] = {od, oh, ow};
                        pos_data(pos, n, c, od, oh, ow);
                        const int64_t off = dl.off(pos);
                        double tol;
                        const double v = p.q.value(naive_acc(w, x, n, c, op), c, x.bias[c], x.dst_old[off], tol);
                        const double got = kt::get_elem(p.ddt, db.data(), off);
                        if (!kt::dst_ok(p.ddt, got, v, tol) && bad++ < 3)
                            std::fprintf(stderr, "  n%ld c%ld (%ld,%ld,%ld): got %.6g want %.6g (tol %.3g)\n",
                                    (long)n, (long)c, (long)od, (long)oh, (long)ow, got, v, tol);
                    }
    return bad == 0;
}

void run_case(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const prb_t &p, const char *what) {
    tensors_t ts;
    make_mds(p, ts);
    dnnl_primitive_attr_t attr = p.q.attr(p.nd(), p.g * p.ocg);
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = make_pd(&pd, eng, p, ts, attr);
    dnnl_primitive_attr_destroy(attr);
    kt::check_pd(t, st, pd, p.want_impl, p.with_ref && !p.deconv ? "ref:any" : nullptr, what,
            [&](const_dnnl_primitive_desc_t x) { return run_pd(eng, strm, x, p); });
}

prb_t base2d(int64_t mb, int64_t g, int64_t icg, int64_t ocg, int64_t ih, int64_t iw, int64_t k, int64_t s,
        int64_t pad) {
    prb_t p {};
    p.mb = mb, p.g = g, p.icg = icg, p.ocg = ocg, p.nsp = 2;
    p.in[0] = 1, p.in[1] = ih, p.in[2] = iw;
    p.k[0] = 1, p.k[1] = p.k[2] = k;
    p.s[0] = 1, p.s[1] = p.s[2] = s;
    p.pl[1] = p.pl[2] = p.pr[1] = p.pr[2] = pad;
    p.sdt = dnnl_u8, p.ddt = dnnl_u8, p.bdt = dnnl_data_type_undef;
    p.data_tag = 0, p.wei_tag = 0;
    p.want_impl = "gemm:s8";
    p.with_ref = true;
    return p;
}

// Bad input: clear statuses, and a failed execution writes nothing.
void bad_input(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm) {
    prb_t p = base2d(1, 1, 4, 4, 5, 5, 3, 1, 1);
    {
        tensors_t ts;
        make_mds(p, ts, dnnl_u8);
        dnnl_primitive_desc_t pd = nullptr;
        t.check(make_pd(&pd, eng, p, ts, nullptr) == dnnl_unimplemented, "u8 weights: unimplemented");
        t.check(pd == nullptr, "u8 weights: no pd");
    }
    {
        prb_t b = p;
        tensors_t ts;
        make_mds(b, ts);
        dnnl_memory_desc_destroy(ts.dst);
        dnnl_dims_t dd = {1, 5, 5, 5}; // 5 channels for 4 output channels
        KT_OK(dnnl_memory_desc_create_with_tag(&ts.dst, 4, dd, dnnl_u8, dnnl_acdb));
        dnnl_primitive_desc_t pd = nullptr;
        t.check(make_pd(&pd, eng, b, ts, nullptr) == dnnl_invalid_arguments, "mismatched dims: invalid_arguments");
    }
    {
        // Per-channel src zero points: only the reference takes them (as in
        // oneDNN; checked for values in test_conv_zp_channel).
        tensors_t ts;
        make_mds(p, ts);
        dnnl_primitive_attr_t a;
        KT_OK(dnnl_primitive_attr_create(&a));
        KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_SRC, 1 << 1));
        dnnl_primitive_desc_t pd = nullptr;
        t.check(make_pd(&pd, eng, p, ts, a) == dnnl_success && kt::impl_name(pd) == "ref:any",
                "per-channel src zp: ref:any");
        dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(a);
    }
    {
        // A missing zero point argument or a dst of the wrong type at
        // execution: invalid_arguments, dst untouched.
        p.q.src_zp = true, p.q.src_zp_v = 3;
        tensors_t ts;
        make_mds(p, ts);
        dnnl_primitive_attr_t a = p.q.attr(4, 4);
        dnnl_primitive_desc_t pd = nullptr;
        KT_OK(make_pd(&pd, eng, p, ts, a));
        dnnl_primitive_attr_destroy(a);
        dnnl_primitive_t prim;
        KT_OK(dnnl_primitive_create(&prim, pd));
        std::vector<uint8_t> s(100, 1), w(144, 1), d(100, 0xab);
        dnnl_memory_t ms, mw, md, mz, mbad;
        KT_OK(dnnl_memory_create(&ms, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), eng, s.data()));
        KT_OK(dnnl_memory_create(&mw, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), eng, w.data()));
        KT_OK(dnnl_memory_create(&md, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), eng, d.data()));
        int32_t zp = 3;
        dnnl_memory_desc_t zmd = kt::make_md({1}, dnnl_s32, dnnl_a);
        KT_OK(dnnl_memory_create(&mz, zmd, eng, &zp));
        dnnl_memory_desc_t bad = kt::make_md({1, 4, 5, 5}, dnnl_s8, dnnl_acdb);
        KT_OK(dnnl_memory_create(&mbad, bad, eng, d.data()));
        dnnl_exec_arg_t a1[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
        t.check(dnnl_primitive_execute(prim, strm, 3, a1) == dnnl_invalid_arguments, "missing src zp: invalid_arguments");
        dnnl_exec_arg_t a2[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, mbad},
                {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mz}};
        t.check(dnnl_primitive_execute(prim, strm, 4, a2) == dnnl_invalid_arguments, "s8 dst memory: invalid_arguments");
        bool untouched = true;
        for (uint8_t v : d) untouched = untouched && v == 0xab;
        t.check(untouched, "failed executions wrote nothing");
        dnnl_exec_arg_t a3[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md},
                {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, mz}};
        t.check(dnnl_primitive_execute(prim, strm, 4, a3) == dnnl_success, "complete arguments: success");
        // 1s minus 3 times 1s: every value is negative or 0: u8 saturates to 0.
        bool zero = true;
        for (uint8_t v : d) zero = zero && v == 0;
        t.check(zero, "u8 dst saturates at 0");
        for (auto m : {ms, mw, md, mz, mbad}) dnnl_memory_destroy(m);
        dnnl_memory_desc_destroy(zmd);
        dnnl_memory_desc_destroy(bad);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
    }
}

// The C++ API: a u8 -> s8 convolution with scales, checked element-wise.
void cpp_api(kt::tally_t &t) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    const memory::dims src_d = {2, 8, 6, 6}, wei_d = {8, 8, 3, 3}, dst_d = {2, 8, 6, 6};
    memory::desc src_md(src_d, memory::data_type::u8, memory::format_tag::any);
    // ohwi, as gemm:s8 resolves `any` (which the direct int8 kernel would
    // take on AVX512-VNNI, with its blocked weights).
    memory::desc wei_md(wei_d, memory::data_type::s8, memory::format_tag::ohwi);
    memory::desc dst_md(dst_d, memory::data_type::s8, memory::format_tag::any);
    primitive_attr attr;
    attr.set_scales_mask(DNNL_ARG_SRC, 0);
    attr.set_scales_mask(DNNL_ARG_WEIGHTS, 0);
    attr.set_scales_mask(DNNL_ARG_DST, 0);
    convolution_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::convolution_direct,
            src_md, wei_md, dst_md, {1, 1}, {1, 1}, {1, 1}, attr);
    t.check(pd.src_desc().get_format_kind() == memory::format_kind::blocked, "C++: any resolved");
    t.check(pd.src_desc() == memory::desc(src_d, memory::data_type::u8, memory::format_tag::nhwc),
            "C++: any chooses nhwc for int8 activations");
    t.check(std::string(pd.impl_info_str()) == "gemm:s8", "C++: gemm:s8 chosen");
    memory src(memory::desc(src_d, memory::data_type::u8, memory::format_tag::nhwc), eng);
    memory wei(pd.weights_desc(), eng), dst(pd.dst_desc(), eng);
    const kt::plain_layout_t wl(pd.weights_desc().get());
    uint8_t *sp = (uint8_t *)src.get_data_handle();
    int8_t *wp = (int8_t *)wei.get_data_handle();
    std::vector<int> S(2 * 8 * 36), W(8 * 8 * 9);
    kt::rng_t r(7);
    for (size_t i = 0; i < S.size(); ++i) S[i] = (int)(r.next() % 256);
    for (size_t i = 0; i < W.size(); ++i) W[i] = (int)(r.next() % 256) - 128;
    for (int n = 0; n < 2; ++n)
        for (int c = 0; c < 8; ++c)
            for (int h = 0; h < 6; ++h)
                for (int w = 0; w < 6; ++w) sp[((n * 6 + h) * 6 + w) * 8 + c] = (uint8_t)S[((n * 8 + c) * 6 + h) * 6 + w];
    for (int o = 0; o < 8; ++o)
        for (int i = 0; i < 8; ++i)
            for (int h = 0; h < 3; ++h)
                for (int w = 0; w < 3; ++w) {
                    const int64_t pos[4] = {o, i, h, w};
                    wp[wl.off(pos)] = (int8_t)W[((o * 8 + i) * 3 + h) * 3 + w];
                }
    float ss = 0.5f, ws = 0.25f, ds = 64.f;
    memory m_ss({{1}, memory::data_type::f32, memory::format_tag::a}, eng, &ss);
    memory m_ws({{1}, memory::data_type::f32, memory::format_tag::a}, eng, &ws);
    memory m_ds({{1}, memory::data_type::f32, memory::format_tag::a}, eng, &ds);
    convolution_forward(pd).execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst},
            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, m_ss}, {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, m_ws},
            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, m_ds}});
    s.wait();
    const int8_t *dp = (const int8_t *)dst.get_data_handle();
    int bad = 0;
    for (int n = 0; n < 2; ++n)
        for (int o = 0; o < 8; ++o)
            for (int h = 0; h < 6; ++h)
                for (int w = 0; w < 6; ++w) {
                    int64_t acc = 0;
                    for (int i = 0; i < 8; ++i)
                        for (int kh = 0; kh < 3; ++kh)
                            for (int kw = 0; kw < 3; ++kw) {
                                const int ih = h - 1 + kh, iw = w - 1 + kw;
                                if (ih < 0 || ih >= 6 || iw < 0 || iw >= 6) continue;
                                acc += (int64_t)S[((n * 8 + i) * 6 + ih) * 6 + iw] * W[((o * 8 + i) * 3 + kh) * 3 + kw];
                            }
                    // Scales are powers of two: every step is exact.
                    const double v = kt::to_dst(dnnl_s8, (double)acc * 0.5 * 0.25 / 64.0);
                    if (dp[((n * 6 + h) * 6 + w) * 8 + o] != (int8_t)v) ++bad;
                }
    t.check(bad == 0, "C++: u8 -> s8 with scales");
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));

    std::vector<std::pair<prb_t, const char *>> cases;
    auto add = [&](const prb_t &p, const char *w) { cases.push_back({p, w}); };
    {
        prb_t p = base2d(2, 1, 16, 16, 7, 7, 3, 1, 1);
        p.q.src_scale = 0.5f, p.q.wei_scales = {0.125f}, p.q.dst_scale = 8.f;
        p.q.dst_zp = true, p.q.dst_zp_v = 5, p.q.elt = dnnl_eltwise_relu;
        add(p, "3x3 pad 1, any -> nxc, u8->u8, scales, dst zp, relu");
    }
    {
        prb_t p = base2d(1, 1, 3, 5, 9, 7, 3, 2, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s8, p.bdt = dnnl_f32;
        p.pr[1] = 0, p.pr[2] = 2, p.dl[2] = 1;
        p.q.wei_scales = {0.5f, 0.25f, 1.f, 0.125f, 2.f};
        p.q.dst_scale = 16.f, p.q.sum = true, p.q.sum_scale = 0.5f, p.q.sum_zp = 3;
        add(p, "odd channels, stride 2, asymmetric pad, dilation, s8->s8, per-oc scales, sum");
    }
    {
        prb_t p = base2d(2, 2, 3, 4, 6, 5, 3, 1, 1);
        p.bdt = dnnl_s32, p.q.wei_scales = {1, 2, 0.5f, 0.25f, 4, 1, 2, 0.5f};
        p.q.wei_mask_per_oc = 3, p.q.src_scale = 0.25f, p.q.bin = true;
        p.q.bin_v = {1, -2, 3, 0.5f, -1, 2, 0, 7};
        p.ddt = dnnl_f32;
        add(p, "groups, mask 3 scales, s32 bias, binary add, f32 dst");
    }
    {
        prb_t p = base2d(2, 8, 1, 1, 6, 6, 3, 1, 1);
        p.bdt = dnnl_u8, p.ddt = dnnl_bf16, p.q.wei_scales = {0.5f};
        add(p, "depthwise, u8 bias, bf16 dst");
    }
    {
        prb_t p = base2d(2, 1, 24, 40, 5, 6, 1, 1, 0);
        p.data_tag = 1, p.ddt = dnnl_s32, p.bdt = dnnl_s32;
        p.q.src_zp = true, p.q.src_zp_v = 100, p.q.sum = true;
        add(p, "1x1 nxc direct, s32 dst exact, src zp, sum");
    }
    {
        prb_t p = base2d(2, 1, 24, 9, 5, 6, 1, 1, 0);
        // Plain oihw weights (what gemm:s8 resolves `any` to here): with
        // `any`, AVX512-VNNI would take the direct kernel on channels-last
        // copies (test_conv_nxc_wrap) and its blocked weights.
        p.data_tag = 2, p.wei_tag = 1, p.ddt = dnnl_s32, p.sdt = dnnl_s8, p.q.src_zp = true, p.q.src_zp_v = -7;
        add(p, "1x1 ncx direct (A transposed), s8 src, zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 8, 8, 7, 7, 1, 2, 0);
        p.ddt = dnnl_s8, p.q.dst_scale = 0.01f; // saturates both ways
        p.sdt = dnnl_s8;
        add(p, "1x1 strided (im2col), saturation");
    }
    {
        prb_t p = base2d(2, 1, 5, 6, 6, 7, 3, 1, 1);
        p.data_tag = 2, p.wei_tag = 1, p.ddt = dnnl_s32;
        p.q.src_zp = true, p.q.src_zp_v = 9;
        add(p, "ncx data, oihw weights (transposed col), padded zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 5, 6, 6, 7, 3, 1, 1);
        p.data_tag = 1, p.wei_tag = 1, p.ddt = dnnl_f32, p.q.src_scale = 0.75f;
        add(p, "nxc data, oihw weights (ic-outer im2col)");
    }
    {
        prb_t p = base2d(1, 1, 5, 6, 6, 7, 3, 1, 1);
        p.data_tag = 2, p.wei_tag = 2, p.ddt = dnnl_s32;
        add(p, "ncx data, ohwi weights");
    }
    {
        prb_t p = base2d(2, 1, 5, 7, 6, 5, 3, 1, 1);
        p.data_tag = 1, p.wei_tag = 3, p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = 4;
        add(p, "nxc data, hwio weights (B not transposed)");
    }
    {
        prb_t p = base2d(1, 2, 4, 4, 5, 5, 3, 1, 2);
        p.q.src_zp = true, p.q.src_zp_v = 300, p.ddt = dnnl_s32; // no u8 byte holds it
        add(p, "src zp outside u8 with padding (reference fallback)");
    }
    {
        prb_t p = base2d(1, 1, 64, 16, 32, 32, 3, 1, 1);
        p.ddt = dnnl_s32, p.with_ref = false;
        add(p, "several chunks with a tail (K 576, 1024 points)");
    }
    {
        prb_t p {};
        p.mb = 1, p.g = 1, p.icg = 3, p.ocg = 4, p.nsp = 3;
        p.in[0] = 4, p.in[1] = 5, p.in[2] = 5, p.k[0] = 2, p.k[1] = 3, p.k[2] = 3;
        p.s[0] = 1, p.s[1] = 2, p.s[2] = 1, p.pl[0] = 1, p.pl[1] = 1, p.pl[2] = 1, p.pr[2] = 1;
        p.sdt = dnnl_u8, p.ddt = dnnl_u8, p.bdt = dnnl_f32, p.q.dst_scale = 32.f;
        p.want_impl = "gemm:s8", p.with_ref = true;
        add(p, "3D");
    }
    {
        prb_t p {};
        p.mb = 3, p.g = 1, p.icg = 6, p.ocg = 7, p.nsp = 1;
        p.in[0] = p.in[1] = 1, p.in[2] = 11, p.k[0] = p.k[1] = 1, p.k[2] = 4;
        p.s[0] = p.s[1] = 1, p.s[2] = 3, p.pl[2] = 2, p.pr[2] = 1;
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.bdt = dnnl_data_type_undef;
        p.want_impl = "gemm:s8", p.with_ref = true;
        add(p, "1D stride 3");
    }
    {
        prb_t p = base2d(2, 1, 3, 4, 4, 5, 3, 2, 1);
        p.deconv = true, p.ddt = dnnl_s32, p.sdt = dnnl_s8, p.want_impl = "ref:any:deconv";
        p.q.src_zp = true, p.q.src_zp_v = 2;
        add(p, "deconvolution (reference), s8 -> s32 exact");
    }
    {
        prb_t p = base2d(1, 2, 3, 2, 4, 5, 3, 2, 1);
        p.deconv = true, p.ddt = dnnl_u8, p.bdt = dnnl_f32, p.want_impl = "ref:any:deconv";
        p.q.wei_scales = {0.25f}, p.q.dst_zp = true, p.q.dst_zp_v = 10;
        add(p, "grouped deconvolution (reference), u8 dst, scales, dst zp");
    }
    for (auto &c : cases) run_case(t, eng, strm, c.first, c.second);
    bad_input(t, eng, strm);
    cpp_api(t);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
