// Helpers of the int8 convolution and inner product tests: the quantization
// attributes of one case, built through the C API, and the naive output
// stage they are checked against (written here, sharing nothing with the
// library): for an exact integer accumulator acc of (src - src_zp) * wei,
//   v = src_scale * wei_scale[oc] * acc + bias[oc]
//   v = post-ops(v): eltwise, sum (sum_scale * (old dst - sum_zp)), binary
//   dst = saturate(round_half_even(v / dst_scale + dst_zp))
// as oneDNN documents its quantization model.
#ifndef KESTREL_TEST_KT_S8_HPP
#define KESTREL_TEST_KT_S8_HPP

#include <functional>

#include "common/kt_test.hpp"

namespace kt {

// Raw element access by data type (test's own conversions).
inline double get_elem(dnnl_data_type_t dt, const void *p, int64_t i) {
    switch (dt) {
        case dnnl_f32: return ((const float *)p)[i];
        case dnnl_s32: return ((const int32_t *)p)[i];
        case dnnl_s8: return ((const int8_t *)p)[i];
        case dnnl_u8: return ((const uint8_t *)p)[i];
        case dnnl_bf16: {
            uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
            float f;
            std::memcpy(&f, &u, 4);
            return f;
        }
        default: return NAN;
    }
}
// Stores a value the type holds exactly (test data are chosen so).
inline void set_elem(dnnl_data_type_t dt, void *p, int64_t i, double v) {
    switch (dt) {
        case dnnl_f32: ((float *)p)[i] = (float)v; break;
        case dnnl_s32: ((int32_t *)p)[i] = (int32_t)v; break;
        case dnnl_s8: ((int8_t *)p)[i] = (int8_t)v; break;
        case dnnl_u8: ((uint8_t *)p)[i] = (uint8_t)v; break;
        case dnnl_bf16: {
            float f = (float)v;
            uint32_t u;
            std::memcpy(&u, &f, 4);
            ((uint16_t *)p)[i] = (uint16_t)(u >> 16); // data are bf16-exact
            break;
        }
        default: break;
    }
}
inline size_t dt_bytes(dnnl_data_type_t dt) {
    return dt == dnnl_f32 || dt == dnnl_s32 ? 4 : dt == dnnl_bf16 ? 2 : 1;
}

// Offset of a logical position in a plain md, from its queried strides.
struct plain_layout_t {
    int nd = 0;
    dnnl_dims_t dims = {}, strides = {};
    explicit plain_layout_t(const_dnnl_memory_desc_t md) {
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd));
        const dnnl_dims_t *d = nullptr, *s = nullptr;
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_dims, &d));
        KT_OK(dnnl_memory_desc_query(md, dnnl_query_strides, &s));
        for (int i = 0; i < nd; ++i) dims[i] = (*d)[i], strides[i] = (*s)[i];
    }
    int64_t off(const int64_t *pos) const {
        int64_t o = 0;
        for (int i = 0; i < nd; ++i) o += pos[i] * strides[i];
        return o;
    }
    int64_t span() const { // elements the layout covers
        int64_t o = 1;
        for (int i = 0; i < nd; ++i) o += (dims[i] - 1) * strides[i];
        return o;
    }
};

// The quantization part of a case.
struct quant_t {
    float src_scale = 0.f; // 0: not set
    std::vector<float> wei_scales; // empty: not set; 1: common; else per OC
    float dst_scale = 0.f;
    bool src_zp = false, dst_zp = false;
    int32_t src_zp_v = 0, dst_zp_v = 0;
    dnnl_alg_kind_t elt = dnnl_alg_kind_undef; // eltwise post-op (relu/linear)
    float elt_alpha = 0.f, elt_beta = 0.f;
    bool sum = false; // sum post-op (after the eltwise, or first)
    bool sum_first = false;
    float sum_scale = 1.f;
    int32_t sum_zp = 0;
    bool bin = false; // binary add of a per-channel f32 src1 (last)
    std::vector<float> bin_v;
    int wei_mask_per_oc = 1; // mask of the per-OC weights scale

    // true when every step is exact in f32 on integers below 2^24.
    bool exact() const {
        return src_scale == 0.f && wei_scales.empty() && dst_scale == 0.f && elt == dnnl_alg_kind_undef
                && (!sum || sum_scale == 1.f) && !bin;
    }

    // Builds the attr; dst_md gives the binary src1 rank (dims 1 except C).
    dnnl_primitive_attr_t attr(int dst_nd, int64_t OC) const {
        dnnl_primitive_attr_t a;
        KT_OK(dnnl_primitive_attr_create(&a));
        if (src_scale != 0.f) KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_SRC, 0));
        if (!wei_scales.empty())
            KT_OK(dnnl_primitive_attr_set_scales_mask(
                    a, DNNL_ARG_WEIGHTS, wei_scales.size() == 1 ? 0 : wei_mask_per_oc));
        if (dst_scale != 0.f) KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_DST, 0));
        if (src_zp) KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_SRC, 0));
        if (dst_zp) KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_DST, 0));
        dnnl_post_ops_t po;
        KT_OK(dnnl_post_ops_create(&po));
        if (sum && sum_first) KT_OK(dnnl_post_ops_append_sum(po, sum_scale, sum_zp, dnnl_data_type_undef));
        if (elt != dnnl_alg_kind_undef) KT_OK(dnnl_post_ops_append_eltwise(po, elt, elt_alpha, elt_beta));
        if (sum && !sum_first) KT_OK(dnnl_post_ops_append_sum(po, sum_scale, sum_zp, dnnl_data_type_undef));
        if (bin) {
            dnnl_dims_t d;
            for (int i = 0; i < dst_nd; ++i) d[i] = 1;
            d[1] = OC;
            dnnl_memory_desc_t md;
            KT_OK(dnnl_memory_desc_create_with_tag(&md, dst_nd, d, dnnl_f32,
                    dst_nd == 2 ? dnnl_ab : dst_nd == 3 ? dnnl_abc : dst_nd == 4 ? dnnl_abcd : dnnl_abcde));
            KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, md));
            dnnl_memory_desc_destroy(md);
        }
        KT_OK(dnnl_primitive_attr_set_post_ops(a, po));
        dnnl_post_ops_destroy(po);
        return a;
    }

    // Memory objects of the attribute arguments, added to args.
    struct holder_t {
        std::vector<dnnl_memory_t> mems;
        std::vector<std::vector<char>> bufs;
        ~holder_t() {
            for (auto m : mems) dnnl_memory_destroy(m);
        }
    };
    void add_args(dnnl_engine_t eng, int dst_nd, int64_t OC, std::vector<dnnl_exec_arg_t> &args,
            holder_t &h) const {
        auto add = [&](int arg, const void *data, int64_t n, dnnl_data_type_t dt, int nd = 1) {
            h.bufs.emplace_back((const char *)data, (const char *)data + n * dt_bytes(dt));
            dnnl_dims_t d;
            for (int i = 0; i < nd; ++i) d[i] = 1;
            d[nd == 1 ? 0 : 1] = n;
            dnnl_memory_desc_t md;
            KT_OK(dnnl_memory_desc_create_with_tag(&md, nd, d, dt,
                    nd == 1 ? dnnl_a : nd == 2 ? dnnl_ab : nd == 3 ? dnnl_abc : nd == 4 ? dnnl_abcd : dnnl_abcde));
            dnnl_memory_t m;
            KT_OK(dnnl_memory_create(&m, md, eng, h.bufs.back().data()));
            dnnl_memory_desc_destroy(md);
            h.mems.push_back(m);
            args.push_back({arg, m});
        };
        if (src_scale != 0.f) add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, &src_scale, 1, dnnl_f32);
        if (!wei_scales.empty())
            add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, wei_scales.data(), (int64_t)wei_scales.size(), dnnl_f32);
        if (dst_scale != 0.f) add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, &dst_scale, 1, dnnl_f32);
        if (src_zp) add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, &src_zp_v, 1, dnnl_s32);
        if (dst_zp) add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, &dst_zp_v, 1, dnnl_s32);
        if (bin) {
            const int idx = (elt != dnnl_alg_kind_undef) + sum;
            add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1, bin_v.data(), OC, dnnl_f32, dst_nd);
        }
    }

    // The value before rounding, in double, and a bound on how far the
    // library's f32 evaluation may be from it: each f32 operation rounds
    // with relative error 2^-24; the chain has at most ~8 of them (two
    // scale products, bias, eltwise, sum product and add, binary, the dst
    // scale), each on a value no larger than the sum of the magnitudes
    // involved, so 16 * 2^-24 * that sum bounds the difference.
    double value(int64_t acc, int64_t oc, double bias, double old, double &tol) const {
        double s = (src_scale != 0.f ? src_scale : 1.0)
                * (wei_scales.empty() ? 1.0 : wei_scales[wei_scales.size() == 1 ? 0 : oc]);
        double v = s * (double)acc + bias;
        double mag = std::fabs(v) + std::fabs(bias);
        auto add_sum = [&] {
            const double t = sum_scale * (old - sum_zp);
            v += t;
            mag += std::fabs(t);
        };
        if (sum && sum_first) add_sum();
        if (elt == dnnl_eltwise_relu) v = v > 0 ? v : elt_alpha * v;
        if (elt == dnnl_eltwise_linear) v = elt_alpha * v + elt_beta, mag = mag * std::fabs(elt_alpha) + std::fabs(elt_beta);
        if (sum && !sum_first) add_sum();
        if (bin) {
            v += bin_v[oc];
            mag += std::fabs(bin_v[oc]);
        }
        if (dst_scale != 0.f) v /= dst_scale, mag /= dst_scale;
        if (dst_zp) v += dst_zp_v, mag += std::fabs((double)dst_zp_v);
        tol = exact() ? 0.0 : 16.0 * std::ldexp(1.0, -24) * (mag + 1.0);
        return v;
    }
};

// Executes pd on the given buffers (bias may be nullptr) with the
// attribute arguments of q, descriptors from the pd, and waits.
inline void execute_quant(dnnl_engine_t eng, dnnl_stream_t strm, const_dnnl_primitive_desc_t pd, void *src,
        void *wei, void *bias, void *dst, const quant_t &q, int dst_nd, int64_t OC) {
    std::vector<dnnl_exec_arg_t> args;
    quant_t::holder_t hold;
    const int which[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST};
    void *bufs[] = {src, wei, bias, dst};
    for (int i = 0; i < 4; ++i) {
        if (!bufs[i]) continue;
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, which[i]), eng, bufs[i]));
        hold.mems.push_back(m);
        args.push_back({which[i], m});
    }
    q.add_args(eng, dst_nd, OC, args, hold);
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(prim);
}

// The checks of one case's pd (created with status st): it exists, is the
// implementation expected, run(pd) passes with 1 and 2 threads; then the
// walk on to the reference implementation `ref` (when pd is not already
// it), which must pass too. Destroys pd.
inline void check_pd(tally_t &t, dnnl_status_t st, dnnl_primitive_desc_t pd, const char *want,
        const char *ref, const char *what, const std::function<bool(const_dnnl_primitive_desc_t)> &run) {
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s: pd created", what);
    t.check(st == dnnl_success, msg);
    if (st != dnnl_success) return;
    const std::string name = impl_name(pd);
    std::snprintf(msg, sizeof msg, "%s: impl %s, expected %s", what, name.c_str(), want);
    t.check(name == want, msg);
    for (int nthr : {1, 2})
        with_threads(nthr, [&] {
            std::snprintf(msg, sizeof msg, "%s [%s, %d thr]", what, name.c_str(), nthr);
            t.check(run(pd), msg);
        });
    if (ref && name != ref) {
        bool found = false;
        while (!found && dnnl_primitive_desc_next_impl(pd) == dnnl_success) found = impl_name(pd) == ref;
        std::snprintf(msg, sizeof msg, "%s: reference reachable", what);
        t.check(found, msg);
        if (found) {
            std::snprintf(msg, sizeof msg, "%s [%s, 2 thr]", what, ref);
            with_threads(2, [&] { t.check(run(pd), msg); });
        }
    }
    dnnl_primitive_desc_destroy(pd);
}

// dst's conversion: round half to even, saturate (NaN never arises here).
inline double to_dst(dnnl_data_type_t dt, double v) {
    if (dt == dnnl_f32 || dt == dnnl_bf16) return v;
    double r = std::nearbyint(v); // default mode: nearest even
    const double lo = dt == dnnl_s8 ? -128 : dt == dnnl_u8 ? 0 : -2147483648.0;
    const double hi = dt == dnnl_s8 ? 127 : dt == dnnl_u8 ? 255 : 2147483647.0;
    return r < lo ? lo : r > hi ? hi : r;
}

// Is `got` what dst of type dt may hold for the exact value v, computed
// in f32 within tol? Integer dst: a rounding of some value in
// [v - tol, v + tol]. bf16 adds its own rounding (2^-8 relative).
inline bool dst_ok(dnnl_data_type_t dt, double got, double v, double tol) {
    if (dt == dnnl_f32) return std::fabs(got - v) <= tol;
    if (dt == dnnl_bf16) return std::fabs(got - v) <= tol + std::fabs(v) * std::ldexp(1.0, -8);
    return got >= to_dst(dt, v - tol) && got <= to_dst(dt, v + tol);
}

} // namespace kt

#endif
