// The direct int8 convolution (direct:avx512_vnni:nhwc:s8: channels-last
// u8/s8 src, s8 weights in the VNNI-blocked [g]OI[d][h]w4i16o4i that
// `any` resolves to) against a naive loop written here: exact integer
// accumulation of (src - src_zp) * wei over in-bound taps, then the
// quantization output stage of common/kt_s8.hpp (its own round half to
// even and saturation). Shapes cover input channel tails (3, 5, 17, 35),
// output channel tails, padding 0/1/2, strides 1/2/3, dilation, 1x1
// (flattened and strided), 3x3, 7x7, 1D and 3D, mb 1 and 3, groups,
// several oc groups (run inside rows) at mb 2 and 3; s8
// and u8 src; u8/s8/s32/f32/bf16 dst; common and per-oc scales, src and
// dst zero points, relu, sum, binary. Each case runs with 1 and 2
// threads, then through the reference implementation, and its dst must be
// bit-identical to what gemm:s8 gives for the same data with plain ohwi
// weights. With AVX-VNNI only (or the ISA capped at AVX2_VNNI) the ymm
// variant direct:avx2_vnni:nhwc:s8 serves; below that `any` goes to
// gemm:s8, which is then what the case expects.
#include <algorithm>
#include <cstring>

#include "common/kt_s8.hpp"

namespace {

struct prb_t {
    int64_t mb, g, icg, ocg;
    int nsp; // 1..3 spatial dims (the last nsp of d/h/w)
    int64_t in[3], k[3], s[3], dl[3], pl[3], pr[3];
    dnnl_data_type_t sdt, ddt, bdt; // bdt undef: no bias
    bool plain_wei = false; // ohwi given explicitly instead of `any`
    kt::quant_t q;

    int nd() const { return nsp + 2; }
    int64_t out(int i) const {
        const int64_t ext = (k[i] - 1) * (dl[i] + 1) + 1;
        return (in[i] + pl[i] + pr[i] - ext) / s[i] + 1;
    }
};

// AVX512-VNNI usable: the effective tier has it and the prefer_ymm hint
// (which keeps every family on its 256-bit kernels) is not set.
bool have_vnni() {
    if (dnnl_get_cpu_isa_hints() == dnnl_cpu_isa_prefer_ymm) return false;
    const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    return isa == dnnl_cpu_isa_avx512_core_vnni || isa == dnnl_cpu_isa_avx512_core_bf16
            || isa == dnnl_cpu_isa_avx512_core_fp16 || isa == dnnl_cpu_isa_avx512_core_amx
            || isa == dnnl_cpu_isa_avx512_core_amx_fp16;
}

// AVX-VNNI (ymm) usable and AVX512-VNNI not: the effective tier is
// avx2_vnni (or avx2_vnni_2).
bool have_avx2_vnni() {
    const dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    return !have_vnni() && (isa == dnnl_cpu_isa_avx2_vnni || isa == dnnl_cpu_isa_avx2_vnni_2);
}

// What serves channels-last int8 with `any` weights here (the AVX-VNNI
// variant leaves unit-stride unpadded 1x1 problems to gemm:s8).
const char *direct_impl(bool unit_1x1) {
    if (have_vnni()) return "direct:avx512_vnni:nhwc:s8";
    return have_avx2_vnni() && !unit_1x1 ? "direct:avx2_vnni:nhwc:s8" : "gemm:s8";
}

dnnl_format_tag_t nxc(int nd) { return nd == 3 ? dnnl_acb : nd == 4 ? dnnl_acdb : dnnl_acdeb; }
dnnl_format_tag_t ohwi(int nd, bool groups) {
    if (!groups) return nd == 3 ? dnnl_acb : nd == 4 ? dnnl_acdb : dnnl_acdeb;
    return nd == 3 ? dnnl_abdc : nd == 4 ? dnnl_abdec : dnnl_abdefc;
}
dnnl_format_tag_t vnni_tag(int nd, bool groups) {
    if (groups) return nd == 3 ? dnnl_gOIw4i16o4i : nd == 4 ? dnnl_gOIhw4i16o4i : dnnl_gOIdhw4i16o4i;
    return nd == 3 ? dnnl_OIw4i16o4i : nd == 4 ? dnnl_OIhw4i16o4i : dnnl_OIdhw4i16o4i;
}

struct tensors_t {
    dnnl_memory_desc_t src = nullptr, wei = nullptr, bias = nullptr, dst = nullptr;
    ~tensors_t() {
        for (auto m : {src, wei, bias, dst}) dnnl_memory_desc_destroy(m);
    }
};

void wei_dims(const prb_t &p, dnnl_dims_t wd, int &wn) {
    wn = 0;
    if (p.g > 1) wd[wn++] = p.g;
    wd[wn++] = p.ocg;
    wd[wn++] = p.icg;
    for (int i = 0; i < p.nsp; ++i) wd[wn++] = p.k[3 - p.nsp + i];
}

// src and dst `any` or nxc (alternating by the case's parity), weights
// `any` or ohwi.
void make_mds(const prb_t &p, tensors_t &t, bool plain_wei, bool data_any) {
    const int nd = p.nd(), o = 3 - p.nsp;
    dnnl_dims_t sd = {p.mb, p.g * p.icg}, dd = {p.mb, p.g * p.ocg}, wd;
    for (int i = 0; i < p.nsp; ++i) sd[2 + i] = p.in[o + i], dd[2 + i] = p.out(o + i);
    int wn;
    wei_dims(p, wd, wn);
    const dnnl_format_tag_t dt = data_any ? dnnl_format_tag_any : nxc(nd);
    KT_OK(dnnl_memory_desc_create_with_tag(&t.src, nd, sd, p.sdt, dt));
    KT_OK(dnnl_memory_desc_create_with_tag(&t.dst, nd, dd, p.ddt, dt));
    KT_OK(dnnl_memory_desc_create_with_tag(
            &t.wei, wn, wd, dnnl_s8, plain_wei ? ohwi(nd, p.g > 1) : dnnl_format_tag_any));
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
    return dnnl_convolution_forward_primitive_desc_create(pd, eng, dnnl_forward_inference,
            dnnl_convolution_direct, t.src, t.wei, t.bias, t.dst, s, d, pl, pr, attr);
}

int64_t rnd(kt::rng_t &r, int64_t lo, int64_t hi) { return lo + (int64_t)(r.next() % (uint32_t)(hi - lo + 1)); }

double rnd_of(kt::rng_t &r, dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_u8: return (double)rnd(r, 0, 255);
        case dnnl_s8: return (double)rnd(r, -128, 127);
        case dnnl_s32: return (double)rnd(r, -300, 300);
        default: return (double)rnd(r, -64, 64) / 4; // exact in bf16 and f32
    }
}

// Logical data of one case (widened to 3 spatial dims), deterministic.
struct data_t {
    prb_t w; // the case with missing spatial dims as 1
    std::vector<int32_t> src, wei; // [n][c][d][h][w], [g][oc][ic][kd][kh][kw]
    std::vector<double> bias;
    int64_t dst_elems = 0;
    std::vector<double> dst_old; // nxc order
};

data_t make_data(const prb_t &p) {
    data_t x;
    x.w = p;
    for (int i = 0; i < 3 - p.nsp; ++i) x.w.in[i] = x.w.k[i] = x.w.s[i] = 1, x.w.dl[i] = x.w.pl[i] = x.w.pr[i] = 0;
    const prb_t &w = x.w;
    kt::rng_t r((uint64_t)(p.mb * 131 + p.icg * 17 + p.ocg * 7 + p.k[2] + p.nsp * 1000 + p.sdt * 3 + p.ddt));
    const int64_t IC = p.g * p.icg, OC = p.g * p.ocg;
    x.src.resize((size_t)(p.mb * IC * w.in[0] * w.in[1] * w.in[2]));
    for (auto &v : x.src) v = (int32_t)rnd_of(r, p.sdt);
    x.wei.resize((size_t)(OC * p.icg * w.k[0] * w.k[1] * w.k[2]));
    for (auto &v : x.wei) v = (int32_t)rnd(r, -128, 127);
    x.bias.resize((size_t)OC);
    for (auto &b : x.bias) b = p.bdt == dnnl_data_type_undef ? 0.0 : rnd_of(r, p.bdt);
    x.dst_elems = p.mb * OC * w.out(0) * w.out(1) * w.out(2);
    x.dst_old.resize((size_t)x.dst_elems);
    for (auto &v : x.dst_old) v = rnd_of(r, p.ddt);
    return x;
}

// Naive accumulator of dst element (n, c, od, oh, ow): in-bound taps only.
int64_t naive_acc(const data_t &x, int64_t n, int64_t c, const int64_t *op) {
    const prb_t &p = x.w;
    const int64_t gr = c / p.ocg, oc = c % p.ocg, IC = p.g * p.icg;
    const int64_t zp = p.q.src_zp ? p.q.src_zp_v : 0;
    int64_t acc = 0;
    for (int64_t ic = 0; ic < p.icg; ++ic)
        for (int64_t kd = 0; kd < p.k[0]; ++kd)
            for (int64_t kh = 0; kh < p.k[1]; ++kh)
                for (int64_t kw = 0; kw < p.k[2]; ++kw) {
                    const int64_t kk[3] = {kd, kh, kw};
                    int64_t ii[3];
                    bool in = true;
                    for (int i = 0; i < 3; ++i) {
                        ii[i] = op[i] * p.s[i] - p.pl[i] + kk[i] * (p.dl[i] + 1);
                        if (ii[i] < 0 || ii[i] >= p.in[i]) in = false;
                    }
                    if (!in) continue;
                    const int64_t s
                            = x.src[(((n * IC + gr * p.icg + ic) * p.in[0] + ii[0]) * p.in[1] + ii[1]) * p.in[2] + ii[2]];
                    const int64_t wv
                            = x.wei[((((gr * p.ocg + oc) * p.icg + ic) * p.k[0] + kd) * p.k[1] + kh) * p.k[2] + kw];
                    acc += (s - zp) * wv;
                }
    return acc;
}

// Byte offset of weight (g, oc, ic, kd, kh, kw) in [g]OI[d][h]w4i16o4i,
// written out here from the layout's definition: blocks of 16 oc x 16 ic
// (both padded to 16) per tap, outer order g, oc block, ic block, kd, kh,
// kw; inside a block ic / 4, then oc, then ic % 4.
int64_t vnni_off(const prb_t &w, int64_t gr, int64_t oc, int64_t ic, int64_t kd, int64_t kh, int64_t kw) {
    const int64_t nocb = (w.ocg + 15) / 16, nicb = (w.icg + 15) / 16;
    const int64_t blk = (((((gr * nocb + oc / 16) * nicb + ic / 16) * w.k[0] + kd) * w.k[1] + kh) * w.k[2] + kw);
    return blk * 256 + (ic % 16) / 4 * 64 + (oc % 16) * 4 + ic % 4;
}

// Executes pd on the case's data; dst (nxc bytes) comes back in out.
void run_pd(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_primitive_desc_t pd, const prb_t &p, const data_t &x,
        std::vector<char> &out, bool &blocked_ok) {
    const prb_t &w = x.w;
    const int nd = p.nd();
    const int64_t IC = p.g * p.icg, OC = p.g * p.ocg;
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    // Weights: the VNNI-blocked layout if that is what the pd reports (its
    // md must equal one made from the tag), else plain through strides.
    dnnl_dims_t wd;
    int wn;
    wei_dims(p, wd, wn);
    dnnl_memory_desc_t vmd;
    KT_OK(dnnl_memory_desc_create_with_tag(&vmd, wn, wd, dnnl_s8, vnni_tag(nd, p.g > 1)));
    const bool blocked = dnnl_memory_desc_equal(wmd, vmd) != 0;
    dnnl_memory_desc_destroy(vmd);
    int fk = 0;
    KT_OK(dnnl_memory_desc_query(wmd, dnnl_query_format_kind, &fk));
    blocked_ok = blocked || fk == dnnl_blocked;
    std::vector<char> wb(dnnl_memory_desc_get_size(wmd), 0);
    int64_t pos[8];
    for (int64_t gr = 0; gr < p.g; ++gr)
        for (int64_t oc = 0; oc < p.ocg; ++oc)
            for (int64_t ic = 0; ic < p.icg; ++ic)
                for (int64_t kd = 0; kd < w.k[0]; ++kd)
                    for (int64_t kh = 0; kh < w.k[1]; ++kh)
                        for (int64_t kw = 0; kw < w.k[2]; ++kw) {
                            const int8_t v = (int8_t)x.wei[((((gr * p.ocg + oc) * p.icg + ic) * w.k[0] + kd) * w.k[1]
                                                                   + kh) * w.k[2] + kw];
                            int64_t off;
                            if (blocked) {
                                off = vnni_off(w, gr, oc, ic, kd, kh, kw);
                            } else {
                                int k = 0;
                                if (p.g > 1) pos[k++] = gr;
                                pos[k++] = oc, pos[k++] = ic;
                                if (nd == 5) pos[k++] = kd;
                                if (nd >= 4) pos[k++] = kh;
                                pos[k] = kw;
                                off = kt::plain_layout_t(wmd).off(pos);
                            }
                            ((int8_t *)wb.data())[off] = v;
                        }
    // src and dst in the layouts the pd reports (nxc for the direct path,
    // whatever the reference chose for `any`); dst comes back in nxc order:
    // index (((n * D + d) * H + h) * W + w) * C + c.
    const kt::plain_layout_t sl(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0));
    const kt::plain_layout_t dl(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0));
    auto pos_data = [&](int64_t *ps, int64_t n, int64_t c, int64_t d, int64_t h, int64_t ww) {
        ps[0] = n, ps[1] = c;
        int k = 2;
        if (nd == 5) ps[k++] = d;
        if (nd >= 4) ps[k++] = h;
        ps[k] = ww;
    };
    std::vector<char> sb(sl.span() * kt::dt_bytes(p.sdt));
    for (int64_t n = 0; n < p.mb; ++n)
        for (int64_t c = 0; c < IC; ++c)
            for (int64_t d = 0; d < w.in[0]; ++d)
                for (int64_t h = 0; h < w.in[1]; ++h)
                    for (int64_t ww = 0; ww < w.in[2]; ++ww) {
                        pos_data(pos, n, c, d, h, ww);
                        kt::set_elem(p.sdt, sb.data(), sl.off(pos),
                                x.src[(((n * IC + c) * w.in[0] + d) * w.in[1] + h) * w.in[2] + ww]);
                    }
    std::vector<char> bb(OC * 4);
    for (int64_t c = 0; c < OC; ++c)
        if (p.bdt != dnnl_data_type_undef) kt::set_elem(p.bdt, bb.data(), c, x.bias[c]);
    const int64_t OD = w.out(0), OH = w.out(1), OW = w.out(2);
    std::vector<char> db(dl.span() * kt::dt_bytes(p.ddt));
    auto each_dst = [&](const std::function<void(int64_t, int64_t)> &f) {
        for (int64_t n = 0; n < p.mb; ++n)
            for (int64_t od = 0; od < OD; ++od)
                for (int64_t oh = 0; oh < OH; ++oh)
                    for (int64_t ow = 0; ow < OW; ++ow)
                        for (int64_t c = 0; c < OC; ++c) {
                            pos_data(pos, n, c, od, oh, ow);
                            f(dl.off(pos), (((n * OD + od) * OH + oh) * OW + ow) * OC + c);
                        }
    };
    each_dst([&](int64_t o, int64_t i) { kt::set_elem(p.ddt, db.data(), o, x.dst_old[i]); });
    kt::execute_quant(eng, strm, pd, sb.data(), wb.data(), p.bdt != dnnl_data_type_undef ? bb.data() : nullptr,
            db.data(), p.q, nd, OC);
    const size_t es = kt::dt_bytes(p.ddt);
    out.assign(x.dst_elems * es, 0);
    each_dst([&](int64_t o, int64_t i) { std::memcpy(out.data() + i * es, db.data() + o * es, es); });
}

// dst of one execution against the naive loop.
bool check_dst(const prb_t &p, const data_t &x, const std::vector<char> &db) {
    const prb_t &w = x.w;
    const int64_t OC = p.g * p.ocg, OD = w.out(0), OH = w.out(1), OW = w.out(2);
    int bad = 0;
    for (int64_t n = 0; n < p.mb; ++n)
        for (int64_t od = 0; od < OD; ++od)
            for (int64_t oh = 0; oh < OH; ++oh)
                for (int64_t ow = 0; ow < OW; ++ow)
                    for (int64_t c = 0; c < OC; ++c) {
                        const int64_t op[3] = {od, oh, ow};
                        const int64_t off = (((n * OD + od) * OH + oh) * OW + ow) * OC + c;
                        double tol;
                        const double v = p.q.value(naive_acc(x, n, c, op), c, x.bias[c], x.dst_old[off], tol);
                        const double got = kt::get_elem(p.ddt, db.data(), off);
                        if (!kt::dst_ok(p.ddt, got, v, tol) && bad++ < 3)
                            std::fprintf(stderr, "  n%ld c%ld (%ld,%ld,%ld): got %.9g want %.9g (tol %.3g)\n", (long)n,
                                    (long)c, (long)od, (long)oh, (long)ow, got, v, tol);
                    }
    return bad == 0;
}

void run_case(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const prb_t &p, const char *what, bool data_any) {
    const data_t x = make_data(p);
    bool unit_1x1 = true;
    for (int i = 0; i < 3; ++i)
        unit_1x1 = unit_1x1 && x.w.k[i] == 1 && x.w.s[i] == 1 && x.w.pl[i] == 0 && x.w.pr[i] == 0;
    const char *want = p.plain_wei ? "gemm:s8" : direct_impl(unit_1x1);
    tensors_t ts;
    make_mds(p, ts, p.plain_wei, data_any);
    dnnl_primitive_attr_t attr = p.q.attr(p.nd(), p.g * p.ocg);
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = make_pd(&pd, eng, p, ts, attr);
    std::vector<char> got;
    char msg[256];
    if (st == dnnl_success) {
        // Layouts the pd reports: nxc data, a real weights tag.
        dnnl_memory_desc_t want_s;
        const_dnnl_memory_desc_t smd = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        dnnl_dims_t sd = {p.mb, p.g * p.icg};
        for (int i = 0; i < p.nsp; ++i) sd[2 + i] = p.in[3 - p.nsp + i];
        KT_OK(dnnl_memory_desc_create_with_tag(&want_s, p.nd(), sd, p.sdt, nxc(p.nd())));
        std::snprintf(msg, sizeof msg, "%s: src resolves to nxc", what);
        t.check(dnnl_memory_desc_equal(smd, want_s) != 0, msg);
        dnnl_memory_desc_destroy(want_s);
        bool blocked_ok = false;
        run_pd(eng, strm, pd, p, x, got, blocked_ok);
        std::snprintf(msg, sizeof msg, "%s: weights layout %s", what, want);
        dnnl_dims_t wd;
        int wn;
        wei_dims(p, wd, wn);
        dnnl_memory_desc_t vmd;
        KT_OK(dnnl_memory_desc_create_with_tag(&vmd, wn, wd, dnnl_s8, vnni_tag(p.nd(), p.g > 1)));
        const bool is_vnni = dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), vmd) != 0;
        dnnl_memory_desc_destroy(vmd);
        t.check(is_vnni == (std::strcmp(want, "gemm:s8") != 0) && blocked_ok, msg);
    }
    kt::check_pd(t, st, pd, want, "ref:any", what, [&](const_dnnl_primitive_desc_t x_pd) {
        std::vector<char> out;
        bool b;
        run_pd(eng, strm, x_pd, p, x, out, b);
        return check_dst(p, x, out);
    });

    // Bit-identical to gemm:s8 on the same data (plain weights).
    if (!p.plain_wei && st == dnnl_success) {
        tensors_t tg;
        make_mds(p, tg, true, false);
        dnnl_primitive_desc_t gpd = nullptr;
        KT_OK(make_pd(&gpd, eng, p, tg, attr));
        std::snprintf(msg, sizeof msg, "%s: plain weights go to gemm:s8", what);
        t.check(kt::impl_name(gpd) == "gemm:s8", msg);
        std::vector<char> ref;
        bool b;
        kt::with_threads(2, [&] { run_pd(eng, strm, gpd, p, x, ref, b); });
        std::snprintf(msg, sizeof msg, "%s: bit-identical to gemm:s8", what);
        t.check(ref.size() == got.size() && std::memcmp(ref.data(), got.data(), got.size()) == 0, msg);
        dnnl_primitive_desc_destroy(gpd);
    }
    dnnl_primitive_attr_destroy(attr);
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
    return p;
}

// A 3D problem with 2x3x3 taps at stride 1, padding 1 before along d, h
// and w and 1 after along h and w; u8 src, s32 dst, no bias.
prb_t base3d_2x3x3(int64_t g, int64_t icg, int64_t ocg, int64_t id, int64_t ih, int64_t iw) {
    prb_t p {};
    p.mb = 1, p.g = g, p.icg = icg, p.ocg = ocg, p.nsp = 3;
    p.in[0] = id, p.in[1] = ih, p.in[2] = iw, p.k[0] = 2, p.k[1] = 3, p.k[2] = 3;
    p.s[0] = p.s[1] = p.s[2] = 1, p.pl[0] = 1, p.pl[1] = 1, p.pl[2] = 1, p.pr[1] = 1, p.pr[2] = 1;
    p.sdt = dnnl_u8, p.ddt = dnnl_s32, p.bdt = dnnl_data_type_undef;
    return p;
}

// A NaN scale: every u8 / s8 output is 0 (the stores' rule for NaN), in the
// kernels' output stage as in gemm:s8.
void nan_scale_case(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm) {
    for (dnnl_data_type_t dt : {dnnl_u8, dnnl_s8})
        for (bool plain : {false, true}) {
            prb_t p = base2d(1, 1, 16, 32, 3, 8, 3, 1, 1);
            p.ddt = dt, p.q.src_scale = std::nanf(""), p.plain_wei = plain;
            const data_t x = make_data(p);
            tensors_t ts;
            make_mds(p, ts, plain, false);
            dnnl_primitive_attr_t attr = p.q.attr(p.nd(), p.g * p.ocg);
            dnnl_primitive_desc_t pd = nullptr;
            KT_OK(make_pd(&pd, eng, p, ts, attr));
            std::vector<char> got;
            bool b;
            run_pd(eng, strm, pd, p, x, got, b);
            bool zeros = !got.empty();
            for (char v : got) zeros = zeros && v == 0;
            char msg[160];
            std::snprintf(msg, sizeof msg, "NaN src scale, %s dst, %s: every output 0", dt == dnnl_u8 ? "u8" : "s8",
                    kt::impl_name(pd).c_str());
            t.check(zeros, msg);
            dnnl_primitive_desc_destroy(pd);
            dnnl_primitive_attr_destroy(attr);
        }
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    std::printf("effective ISA 0x%x: expecting %s (1x1: %s)\n", (unsigned)dnnl_get_effective_cpu_isa(),
            direct_impl(false), direct_impl(true));

    std::vector<std::pair<prb_t, const char *>> cases;
    auto add = [&](const prb_t &p, const char *w) { cases.push_back({p, w}); };
    {
        prb_t p = base2d(1, 1, 16, 16, 7, 9, 3, 1, 1);
        p.q.src_scale = 0.5f, p.q.wei_scales = {0.125f}, p.q.dst_scale = 8.f;
        p.q.dst_zp = true, p.q.dst_zp_v = 5, p.q.elt = dnnl_eltwise_relu;
        add(p, "3x3 pad 1, u8->u8, scales, dst zp, relu");
    }
    {
        prb_t p = base2d(1, 1, 3, 5, 9, 7, 3, 2, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s8, p.bdt = dnnl_f32;
        p.pr[1] = 0, p.pr[2] = 2, p.dl[2] = 1;
        p.q.wei_scales = {0.5f, 0.25f, 1.f, 0.125f, 2.f};
        p.q.dst_scale = 16.f, p.q.sum = true, p.q.sum_scale = 0.5f, p.q.sum_zp = 3;
        add(p, "ic 3 oc 5, stride 2, asymmetric pad, w dilation, s8->s8, per-oc scales, sum");
    }
    {
        prb_t p = base2d(3, 1, 17, 33, 6, 20, 3, 1, 2);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = -5;
        add(p, "ic 17 oc 33, pad 2, mb 3, s8 src, src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 35, 20, 13, 15, 7, 2, 2);
        p.ddt = dnnl_f32, p.bdt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = 7, p.q.src_scale = 0.25f;
        add(p, "7x7 stride 2 pad 2, ic 35 oc 20, u8 src zp, s32 bias, f32 dst");
    }
    {
        prb_t p = base2d(3, 1, 5, 64, 5, 7, 1, 1, 0);
        p.ddt = dnnl_s8, p.q.dst_scale = 0.05f; // saturates both ways
        add(p, "1x1 flat, ic 5 oc 64, mb 3, saturating s8 dst");
    }
    // Folded rows (few channels, KW * ICg read as one run) whose first and
    // last tiles reach into the padding: those run the folded kernels on
    // an edge window (pad bytes = the shifted src zero point).
    {
        prb_t p = base2d(2, 1, 3, 64, 30, 40, 7, 2, 3);
        p.q.src_zp = true, p.q.src_zp_v = 9, p.q.wei_scales.resize(64);
        for (int i = 0; i < 64; ++i) p.q.wei_scales[i] = (float)(1 + i % 5) / 1024.f;
        add(p, "folded edges: 7x7 stride 2 pad 3, ic 3 oc 64, mb 2, u8 src zp, per-oc scales, u8 dst");
    }
    {
        prb_t p = base2d(1, 1, 5, 20, 9, 17, 5, 1, 2);
        p.pr[2] = 1, p.dl[1] = 1, p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = -7;
        add(p, "folded edges: 5x5 pad 2/1 along w, h dilation, ic 5 oc 20, s8 src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 3, 16, 5, 4, 3, 1, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32;
        add(p, "folded edges: one tile padded at both ends (iw 4, 3x3 pad 1), ic 3, s8 src, s32 exact");
    }
    {
        prb_t p = base3d_2x3x3(1, 6, 24, 3, 4, 11);
        p.q.src_zp = true, p.q.src_zp_v = 3;
        add(p, "folded edges: 3D 2x3x3 taps, d padding, ic 6 oc 24, u8 src zp, s32 exact");
    }
    // Flattened 1x1 rows shared out in tiles: pieces that start and end
    // inside rows and cross from one image or oc group to the next; the
    // full ic blocks in one loop, then the tail block's quads.
    {
        prb_t p = base2d(3, 1, 70, 80, 7, 9, 1, 1, 0);
        p.sdt = dnnl_s8, p.ddt = dnnl_s8, p.bdt = dnnl_f32, p.q.src_zp = true, p.q.src_zp_v = -5;
        p.q.wei_scales.resize(80), p.q.dst_scale = 0.25f;
        for (int i = 0; i < 80; ++i) p.q.wei_scales[i] = (float)(1 + i % 4) / 512.f;
        add(p, "1x1 flat, ic 70 (tail block 6) oc 80, mb 3 7x9, s8 src zp, bias, per-oc scales, dst scale, s8 dst");
    }
    {
        prb_t p = base2d(2, 1, 3, 20, 11, 13, 1, 1, 0);
        p.q.src_scale = 0.125f, p.q.dst_zp = true, p.q.dst_zp_v = 100;
        add(p, "1x1 flat, ic 3 (no full block) oc 20, mb 2 11x13, dst zp, u8 dst");
    }
    for (dnnl_data_type_t dt : {dnnl_u8, dnnl_s8}) {
        prb_t p = base2d(1, 1, 32, 64, 9, 10, 1, 1, 0);
        p.sdt = dnnl_s8, p.ddt = dt, p.q.src_scale = 68719476736.f;
        add(p, dt == dnnl_u8 ? "1x1 flat, u8 dst, scale 2^36: saturates" : "1x1 flat, s8 dst, scale 2^36: saturates");
    }
    {
        prb_t p = base2d(1, 1, 40, 48, 9, 11, 1, 1, 0);
        p.sdt = dnnl_s8, p.ddt = dnnl_bf16, p.q.wei_scales = {0.5f}, p.q.bin = true;
        p.q.bin_v.resize(48);
        for (int i = 0; i < 48; ++i) p.q.bin_v[i] = (float)(i % 7) - 3.f;
        add(p, "1x1 flat, ic 40 oc 48 (3 blocks), s8 src, bf16 dst, binary add");
    }
    {
        prb_t p = base2d(1, 2, 20, 24, 6, 7, 3, 1, 1);
        p.sdt = dnnl_s8, p.q.wei_scales.resize(48);
        for (int i = 0; i < 48; ++i) p.q.wei_scales[i] = (float)(1 << (i % 4)) / 64.f;
        p.q.wei_mask_per_oc = 3, p.q.dst_zp = true, p.q.dst_zp_v = 100;
        add(p, "groups 2 (icg 20 ocg 24), s8->u8, mask 3 scales, dst zp");
    }
    {
        prb_t p = base2d(1, 4, 16, 16, 5, 6, 3, 1, 1);
        p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = 200;
        add(p, "groups 4 of 16, padded src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 16, 32, 9, 9, 1, 2, 0);
        p.ddt = dnnl_s32, p.sdt = dnnl_s8;
        add(p, "1x1 stride 2 (rows), s8 src, s32 exact");
    }
    {
        prb_t p = base2d(2, 1, 8, 16, 4, 5, 1, 1, 1);
        p.ddt = dnnl_s32, p.sdt = dnnl_s8, p.q.src_zp = true, p.q.src_zp_v = 3;
        add(p, "1x1 pad 1 (rows with no valid tap), s8 src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 12, 16, 10, 12, 3, 1, 2);
        p.dl[1] = 1, p.dl[2] = 1, p.ddt = dnnl_s32, p.sdt = dnnl_s8;
        add(p, "3x3 dilation 1 pad 2, s8 src, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 64, 64, 5, 30, 3, 1, 1);
        p.ddt = dnnl_u8, p.bdt = dnnl_f32, p.q.wei_scales = {0.01f}, p.q.elt = dnnl_eltwise_relu;
        p.q.sum = true, p.q.sum_first = true;
        add(p, "64->64 3x3, wide row (unchecked tiles), bias, sum then relu");
    }
    {
        prb_t p {};
        p.mb = 1, p.g = 1, p.icg = 5, p.ocg = 17, p.nsp = 3;
        p.in[0] = 4, p.in[1] = 5, p.in[2] = 5, p.k[0] = 2, p.k[1] = 3, p.k[2] = 3;
        p.s[0] = 1, p.s[1] = 2, p.s[2] = 1, p.pl[0] = 1, p.pl[1] = 1, p.pl[2] = 1, p.pr[2] = 1;
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.bdt = dnnl_data_type_undef;
        p.q.src_zp = true, p.q.src_zp_v = -100;
        add(p, "3D, s8 src zp, s32 exact");
    }
    {
        prb_t p {};
        p.mb = 3, p.g = 1, p.icg = 6, p.ocg = 7, p.nsp = 1;
        p.in[0] = p.in[1] = 1, p.in[2] = 11, p.k[0] = p.k[1] = 1, p.k[2] = 4;
        p.s[0] = p.s[1] = 1, p.s[2] = 3, p.pl[2] = 2, p.pr[2] = 1;
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.bdt = dnnl_data_type_undef;
        p.q.src_zp = true, p.q.src_zp_v = -3;
        add(p, "1D stride 3, s8 src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 4, 16, 5, 5, 3, 1, 2);
        p.q.src_zp = true, p.q.src_zp_v = 300, p.ddt = dnnl_s32; // no u8 byte holds it
        add(p, "src zp outside u8 with padding (reference fallback)");
    }
    {
        prb_t p = base2d(1, 1, 17, 16, 6, 6, 3, 1, 1);
        p.plain_wei = true, p.sdt = dnnl_s8, p.ddt = dnnl_s32;
        add(p, "plain ohwi weights: left to gemm:s8");
    }
    // Folded (kw, ic) rows: few input channels (ICg % 4 != 0, below 16),
    // no groups, no w dilation. Rows wide enough for unchecked (folded)
    // tiles between the checked ones at both edges, and for the narrower
    // tiles of the middle's tail; each oc block count (tile NOC 1..4).
    {
        prb_t p = base2d(2, 1, 3, 64, 9, 38, 7, 2, 3);
        p.q.wei_scales = {0.0625f};
        add(p, "fold: ic 3 oc 64 7x7 stride 2 pad 3, u8->u8, scale (the first layer)");
    }
    {
        prb_t p = base2d(1, 1, 1, 16, 4, 45, 3, 1, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = -7;
        add(p, "fold: ic 1 oc 16 3x3 pad 1, s8 src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 2, 32, 6, 30, 5, 1, 2);
        p.pr[2] = 0, p.sdt = dnnl_s8, p.ddt = dnnl_s32;
        add(p, "fold: ic 2 oc 32 5x5 pad 2/0, s8 src, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 5, 48, 5, 33, 4, 2, 1);
        p.pr[1] = p.pr[2] = 2, p.ddt = dnnl_f32, p.bdt = dnnl_f32;
        p.q.src_zp = true, p.q.src_zp_v = 9, p.q.wei_scales.resize(48);
        for (int i = 0; i < 48; ++i) p.q.wei_scales[i] = (float)(1 + i % 5) / 32.f;
        add(p, "fold: ic 5 oc 48 4x4 stride 2 pad 1/2, u8 src zp, bias, per-oc scales, f32 dst");
    }
    {
        prb_t p = base2d(2, 1, 6, 20, 7, 31, 3, 3, 0);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32;
        add(p, "fold: ic 6 oc 20 3x3 stride 3 no padding, s8 src, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 7, 16, 3, 25, 2, 1, 0);
        p.pr[2] = 1, p.q.wei_scales = {0.03125f}, p.q.elt = dnnl_eltwise_relu, p.q.sum = true, p.q.sum_scale = 0.5f;
        add(p, "fold: ic 7 oc 16 2x2 pad 0/1, u8->u8, sum and relu (output stage from the buffer)");
    }
    {
        prb_t p = base2d(1, 1, 13, 33, 4, 22, 3, 1, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = 11;
        add(p, "fold: ic 13 oc 33 3x3 pad 1, s8 src zp, s32 exact");
    }
    {
        prb_t p {};
        p.mb = 1, p.g = 1, p.icg = 3, p.ocg = 16, p.nsp = 3;
        p.in[0] = 3, p.in[1] = 4, p.in[2] = 26, p.k[0] = 2, p.k[1] = 3, p.k[2] = 5;
        p.s[0] = p.s[1] = 1, p.s[2] = 2, p.pl[0] = 1, p.pl[1] = 1, p.pl[2] = 2, p.pr[2] = 2;
        p.sdt = dnnl_u8, p.ddt = dnnl_s32, p.bdt = dnnl_data_type_undef;
        p.q.src_zp = true, p.q.src_zp_v = 250;
        add(p, "fold: 3D ic 3 oc 16 2x3x5, u8 src zp, s32 exact");
    }
    {
        prb_t p {};
        p.mb = 2, p.g = 1, p.icg = 3, p.ocg = 32, p.nsp = 1;
        p.in[0] = p.in[1] = 1, p.in[2] = 50, p.k[0] = p.k[1] = 1, p.k[2] = 7;
        p.s[0] = p.s[1] = p.s[2] = 1, p.pl[2] = 3, p.pr[2] = 3;
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.bdt = dnnl_data_type_undef;
        add(p, "fold: 1D ic 3 oc 32 k7 pad 3, s8 src, s32 exact");
    }
    {
        prb_t p = base2d(1, 2, 3, 16, 4, 30, 3, 1, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32;
        add(p, "no fold: groups 2 of ic 3 (src pixels 6 bytes apart), s8 src, s32 exact");
    }
    // Several oc groups whose weights fit L2: the oc groups of a row run
    // one after the other (5 blocks in groups of 2, the last ragged).
    {
        prb_t p = base2d(3, 1, 35, 80, 11, 23, 3, 2, 1);
        p.sdt = dnnl_s8, p.q.src_zp = true, p.q.src_zp_v = -3, p.q.wei_scales.resize(80);
        for (int i = 0; i < 80; ++i) p.q.wei_scales[i] = (float)(1 + i % 5) / 256.f;
        p.q.sum = true, p.q.sum_scale = 0.5f, p.q.sum_zp = 2;
        add(p, "ic 35 oc 80 3x3 stride 2 pad 1, mb 3, 3 oc groups, s8 src zp, per-oc scales, sum");
    }
    {
        prb_t p = base2d(2, 1, 16, 80, 6, 20, 3, 1, 1);
        p.bdt = dnnl_f32, p.q.wei_scales = {0.015625f}, p.q.dst_zp = true, p.q.dst_zp_v = 9;
        add(p, "ic 16 oc 80 3x3 pad 1, mb 2, 3 oc groups, u8->u8, bias, dst zp (output stage in registers)");
    }
    // Short rows (7..12 columns) with 4 or 6 oc blocks: tiles of 2 blocks
    // over the whole row instead of 4 or 3 blocks in two tiles.
    {
        prb_t p = base2d(2, 1, 40, 64, 5, 7, 3, 1, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = 4;
        add(p, "7-column rows, ic 40 oc 64 3x3 pad 1, s8 src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 16, 96, 4, 12, 3, 1, 1);
        p.ddt = dnnl_u8, p.bdt = dnnl_f32, p.q.wei_scales = {0.0078125f};
        add(p, "12-column rows, ic 16 oc 96 3x3 pad 1, u8->u8, bias, scale");
    }
    // u8 src without a zero point pads with 0: row tiles that reach into
    // the padding skip the padded taps column by column (skip kernels)
    // instead of summing pad bytes, and plane tiles are used only where
    // they take at most half the rows' tiles. Both edges in one tile,
    // stride 2 with dilation, pads wider than a column, an ic tail quad,
    // taps with no column inside src (1-column rows).
    {
        prb_t p = base2d(2, 1, 64, 64, 7, 7, 3, 1, 1);
        p.bdt = dnnl_f32, p.q.wei_scales.resize(64), p.q.elt = dnnl_eltwise_relu;
        for (int i = 0; i < 64; ++i) p.q.wei_scales[i] = (float)(1 + i % 3) / 128.f;
        add(p, "skip: 7x7 ic 64 oc 64 3x3 pad 1, u8->u8, bias, per-oc scales, relu (512 7x7 shape)");
    }
    {
        prb_t p = base2d(1, 1, 21, 40, 9, 31, 5, 2, 2);
        p.pr[2] = 3, p.dl[2] = 1, p.ddt = dnnl_s32;
        add(p, "skip: 5x5 stride 2 pad 2/3, w dilation, ic 21 (tail quad), oc 40, u8, s32 exact");
    }
    {
        prb_t p = base2d(2, 1, 24, 32, 5, 1, 3, 1, 1);
        p.ddt = dnnl_s32;
        add(p, "skip: 1-column rows, 3x3 pad 1 (taps with no column in src), u8, s32 exact");
    }
    // A flattened 1x1 row whose image's src is over half of L2 (and the
    // call's over two L2s) fetches the next tile's pixels ahead: the last
    // tile of a segment and of the row.
    {
        prb_t p = base2d(4, 1, 160, 40, 64, 65, 1, 1, 0);
        p.ddt = dnnl_s32;
        add(p, "1x1 flat, ic 160 oc 40, 64x65 (666 KB an image), mb 4, s32 exact (src fetched ahead)");
    }
    // Four oc blocks over 7 columns where that saves tiles over 6: a row
    // of 13 (a 7 and a 6 tile) with an oc tail, a stride-2 row of 28
    // whose 5x5 taps leave two edge columns out (the general column mask),
    // and 17 kw taps (more than the masks found once per tile).
    {
        prb_t p = base2d(2, 1, 19, 60, 9, 13, 3, 1, 1);
        p.pr[1] = 2, p.ddt = dnnl_s32;
        add(p, "skip 4x7: 13 columns (7 + 6), ic 19 oc 60 (oc tail), 3x3 pad 1 (1/2 along h), mb 2, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 33, 128, 6, 56, 5, 2, 2);
        p.ddt = dnnl_f32, p.bdt = dnnl_f32, p.q.wei_scales = {0.25f};
        add(p, "skip 4x7: 28 columns, 5x5 stride 2 pad 2, ic 33 oc 128, f32 dst, bias, scale");
    }
    {
        prb_t p = base2d(1, 1, 8, 64, 3, 14, 17, 1, 8);
        p.k[1] = 1, p.pl[1] = p.pr[1] = 0, p.ddt = dnnl_s32;
        add(p, "skip 4x7: 1x17 taps pad 8 (kw past the mask table), 14 columns, ic 8 oc 64, s32 exact");
    }
    // Plane tiles: rows short enough that the flattened plane takes fewer
    // tiles than the rows; a tile's columns span rows, padding along h is
    // checked per column. 1..11 columns, padding at both edges, stride 2,
    // h dilation, oc tails, zero points, scales, sum and relu. (A src zero
    // point attribute keeps them, whatever its value.)
    {
        prb_t p = base2d(2, 1, 64, 64, 7, 7, 3, 1, 1);
        p.bdt = dnnl_f32, p.q.wei_scales.resize(64), p.q.elt = dnnl_eltwise_relu;
        p.q.src_zp = true, p.q.src_zp_v = 0;
        for (int i = 0; i < 64; ++i) p.q.wei_scales[i] = (float)(1 + i % 3) / 128.f;
        add(p, "plane: 7x7 ic 64 oc 64 3x3 pad 1, u8 src zp 0, u8 dst, bias, per-oc scales, relu");
    }
    {
        prb_t p = base2d(1, 1, 19, 20, 13, 13, 3, 2, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = -9;
        add(p, "plane: 13x13 stride 2 pad 1 (7x7 out), ic 19 oc 20, s8 src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 16, 17, 6, 5, 3, 1, 2);
        p.pr[1] = 1, p.pr[2] = 0, p.dl[1] = 1, p.sdt = dnnl_s8, p.ddt = dnnl_u8;
        p.q.src_zp = true, p.q.src_zp_v = 6, p.q.wei_scales = {0.0625f};
        p.q.sum = true, p.q.sum_scale = 0.5f, p.q.elt = dnnl_eltwise_relu;
        add(p, "plane: 5 columns, h dilation, pad 2/1 and 2/0, oc 17, s8 src zp, sum and relu");
    }
    {
        prb_t p = base2d(2, 1, 8, 16, 10, 1, 3, 1, 1);
        p.q.src_zp = true, p.q.src_zp_v = 13, p.ddt = dnnl_s32;
        add(p, "plane: 1-column rows, pad 1 (h and w), u8 src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 33, 40, 5, 8, 3, 1, 1);
        p.ddt = dnnl_s8, p.q.dst_zp = true, p.q.dst_zp_v = -7, p.q.dst_scale = 4.f, p.q.src_scale = 0.125f;
        p.q.src_zp = true, p.q.src_zp_v = 3;
        add(p, "plane: 8 columns, ic 33 oc 40 (3 blocks), u8 src zp -> s8, scales, dst zp");
    }
    {
        prb_t p = base2d(1, 1, 11, 12, 6, 11, 3, 1, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_f32, p.bdt = dnnl_f32;
        add(p, "11-column rows (rows, not plane: 6 tiles either way), s8 src, f32 dst");
    }
    {
        prb_t p = base3d_2x3x3(2, 16, 24, 3, 4, 3);
        p.sdt = dnnl_s8, p.q.src_zp = true, p.q.src_zp_v = 21;
        add(p, "plane: 3D groups 2, 3 columns, d padding, s8 src zp, s32 exact");
    }
    // Weights over 1 MiB (L2) over small images: an oc group serves every
    // image before the next group runs (images inside oc groups). A 2x2
    // plane of u8 without a zero point (one plane tile against two row
    // tiles), 3x3 maps in 2 groups (the group decoded from the item) with
    // s8 src and a zero point, an oc tail group.
    {
        prb_t p = base2d(3, 1, 384, 384, 2, 2, 3, 1, 1);
        p.bdt = dnnl_f32, p.q.wei_scales.resize(384), p.q.elt = dnnl_eltwise_relu;
        for (int i = 0; i < 384; ++i) p.q.wei_scales[i] = (float)(1 + i % 5) / 2048.f;
        add(p, "images inside oc groups: 2x2 ic 384 oc 384 3x3 pad 1, mb 3, u8 (plane), per-oc scales, relu");
    }
    {
        prb_t p = base2d(3, 2, 384, 400, 3, 3, 3, 1, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = -3;
        add(p, "images inside oc groups: 3x3 groups 2 of 384->400 (oc tail), mb 3, s8 src zp, s32 exact");
    }
    // A tile's weights larger than L1 (over 128 KB here, more than any L1):
    // checked tiles take ic blocks outside the taps, the taps' column
    // pointers in a table; with an ic tail (a partial quad), plane tiles,
    // row tiles with padded edges, 3D taps, and more taps than the table.
    {
        prb_t p = base2d(1, 1, 450, 64, 7, 7, 3, 1, 1);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32, p.q.src_zp = true, p.q.src_zp_v = -5;
        add(p, "tap table: plane 7x7 ic 450 (ic tail 2) oc 64 3x3 pad 1, s8 src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 227, 64, 3, 20, 3, 1, 1);
        p.bdt = dnnl_f32, p.q.wei_scales = {0.001953125f};
        add(p, "tap table: rows of 20, ic 227 oc 64 3x3 pad 1, u8->u8, bias, scale (output stage in registers)");
    }
    {
        prb_t p = base3d_2x3x3(1, 130, 48, 3, 5, 6);
        p.q.src_zp = true, p.q.src_zp_v = 7;
        add(p, "tap table: 3D 2x3x3 taps, ic 130 oc 48, d padding, u8 src zp, s32 exact");
    }
    {
        prb_t p = base2d(1, 1, 70, 32, 11, 11, 9, 1, 4);
        p.sdt = dnnl_s8, p.ddt = dnnl_s32;
        add(p, "81 taps (more than the table), ic 70 oc 32 pad 4, s8 src, s32 exact");
    }
    // The output stage in registers at the ends of the range: a scale of
    // 2^36 takes the sums past +-2^31 (and to +-inf where |acc| is large),
    // which the u8 and s8 narrowing must saturate, not wrap.
    for (dnnl_data_type_t dt : {dnnl_u8, dnnl_s8}) {
        prb_t p = base2d(1, 1, 20, 48, 3, 9, 3, 1, 1);
        p.sdt = dnnl_s8, p.ddt = dt, p.q.src_scale = 68719476736.f;
        add(p, dt == dnnl_u8 ? "u8 dst, scale 2^36 (beyond +-2^31): saturates" : "s8 dst, scale 2^36 (beyond +-2^31): saturates");
    }
    {
        prb_t p = base2d(1, 1, 64, 32, 4, 6, 1, 1, 0);
        p.ddt = dnnl_u8, p.q.src_scale = 1.f / 4096.f, p.q.dst_zp = true, p.q.dst_zp_v = 3;
        add(p, "1x1 flat, u8 dst, small values around the dst zp (rounding ties)");
    }
    // Random small problems (fixed seed): every mix of channel tails,
    // kernel sizes, strides, padding, dilation, groups and src types.
    static char names[24][96];
    kt::rng_t r(2026);
    for (int i = 0; i < 24; ++i) {
        const int64_t k = rnd(r, 1, 5), s = rnd(r, 1, 3), pad = rnd(r, 0, 2), dl = rnd(r, 0, 1);
        const int64_t ext = (k - 1) * (dl + 1) + 1;
        const int64_t ih = rnd(r, std::max<int64_t>(1, ext - 2 * pad), 12);
        const int64_t iw = rnd(r, std::max<int64_t>(1, ext - 2 * pad), 24);
        const int64_t g = rnd(r, 0, 3) == 0 ? 2 : 1;
        prb_t p = base2d(rnd(r, 1, 2), g, rnd(r, 1, 40), rnd(r, 2, 70), ih, iw, k, s, pad);
        p.pr[2] = rnd(r, 0, 2), p.dl[1] = p.dl[2] = dl;
        if (iw + pad + p.pr[2] < ext) p.pr[2] = pad; // keep the problem valid
        p.sdt = rnd(r, 0, 1) ? dnnl_s8 : dnnl_u8;
        p.ddt = dnnl_s32;
        if (rnd(r, 0, 1)) p.q.src_zp = true, p.q.src_zp_v = (int32_t)rnd(r, p.sdt == dnnl_s8 ? -20 : 0, 20);
        std::snprintf(names[i], sizeof names[i], "random %d: g%ld ic%ld oc%ld %ldx%ld k%ld s%ld p%ld d%ld %s", i,
                (long)p.g, (long)p.icg, (long)p.ocg, (long)ih, (long)iw, (long)k, (long)s, (long)pad, (long)dl,
                p.sdt == dnnl_s8 ? "s8" : "u8");
        add(p, names[i]);
    }
    bool any = false;
    for (auto &c : cases) run_case(t, eng, strm, c.first, c.second, any = !any);
    nan_scale_case(t, eng, strm);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
