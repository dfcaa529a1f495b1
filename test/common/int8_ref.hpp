// Helpers of the int8 conformance tests (test/pooling/test_int8_*.cpp,
// test/eltwise/test_int8_*.cpp). Deliberately independent of src/: the
// layouts, element encodings, rounding and saturation are written here from
// their definitions, so a mistake in the library's helpers cannot hide in
// the reference. Only the public C API is used to run primitives.
#ifndef KESTREL_TEST_INT8_REF_HPP
#define KESTREL_TEST_INT8_REF_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "common/kt_test.hpp"

namespace i8 {

// Round half to even, in double (exact for every value the tests make).
inline double rne(double x) {
    const double f = std::floor(x), d = x - f;
    if (d > 0.5) return f + 1;
    if (d < 0.5) return f;
    return std::fmod(f, 2.0) == 0 ? f : f + 1;
}

inline double lo_of(dnnl_data_type_t dt) {
    return dt == dnnl_s8 ? -128 : dt == dnnl_u8 ? 0 : dt == dnnl_s32 ? -2147483648.0 : -INFINITY;
}
inline double hi_of(dnnl_data_type_t dt) {
    return dt == dnnl_s8 ? 127 : dt == dnnl_u8 ? 255 : dt == dnnl_s32 ? 2147483647.0 : INFINITY;
}
inline bool is_int(dnnl_data_type_t dt) { return dt == dnnl_s8 || dt == dnnl_u8 || dt == dnnl_s32; }

// The integer a real value v becomes in dt: nearest, ties to even, then
// clamped to the type's range.
inline double quantize(double v, dnnl_data_type_t dt) {
    const double r = rne(v);
    return r < lo_of(dt) ? lo_of(dt) : r > hi_of(dt) ? hi_of(dt) : r;
}

// Physical layouts the tests use, for tensors (N, C, spatial...):
// plain row-major, channel-last, channels blocked by 8 or 16.
enum class lay_t { plain, nspc, blk8, blk16 };

inline const char *lay_name(lay_t l) {
    return l == lay_t::plain ? "plain" : l == lay_t::nspc ? "nspc" : l == lay_t::blk8 ? "blk8" : "blk16";
}

inline dnnl_format_tag_t lay_tag(lay_t l, int nd) {
    static const dnnl_format_tag_t plain[] = {dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde};
    static const dnnl_format_tag_t nspc[] = {dnnl_a, dnnl_ab, dnnl_acb, dnnl_acdb, dnnl_acdeb};
    // Blocked layouts only for 3 to 5 dims (the tests use no others).
    static const dnnl_format_tag_t b8[] = {dnnl_format_tag_undef, dnnl_format_tag_undef, dnnl_aBc8b,
            dnnl_aBcd8b, dnnl_aBcde8b};
    static const dnnl_format_tag_t b16[] = {dnnl_format_tag_undef, dnnl_format_tag_undef, dnnl_aBc16b,
            dnnl_aBcd16b, dnnl_aBcde16b};
    switch (l) {
        case lay_t::plain: return plain[nd - 1];
        case lay_t::nspc: return nspc[nd - 1];
        case lay_t::blk8: return b8[nd - 1];
        default: return b16[nd - 1];
    }
}

inline size_t dt_size(dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_s8:
        case dnnl_u8: return 1;
        case dnnl_f16:
        case dnnl_bf16: return 2;
        default: return 4;
    }
}

// f16 bits to double (normal, subnormal, zero; the tests make no inf/NaN).
inline double f16_value(uint16_t h) {
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double mag = e == 0 ? std::ldexp((double)m, -24) : std::ldexp(1.0 + m / 1024.0, e - 15);
    return (h & 0x8000) ? -mag : mag;
}

// A tensor in one of the layouts above with its own buffer; elements are
// addressed by logical (row-major) index.
struct tensor_t {
    std::vector<int64_t> dims;
    dnnl_data_type_t dt;
    lay_t lay;
    int64_t cpad; // channels padded to the block
    std::vector<uint8_t> buf;

    tensor_t(std::vector<int64_t> d, dnnl_data_type_t t, lay_t l) : dims(std::move(d)), dt(t), lay(l) {
        const int64_t b = l == lay_t::blk8 ? 8 : l == lay_t::blk16 ? 16 : 1;
        cpad = dims.size() > 1 ? (dims[1] + b - 1) / b * b : dims[0];
        int64_t n = 1;
        for (size_t i = 0; i < dims.size(); ++i) n *= i == 1 ? cpad : dims[i];
        buf.assign((size_t)n * dt_size(dt) + 1, 0); // padding included
    }
    // Fills every byte (padding too) with junk: a dst the library must
    // overwrite, and whose padding it must leave zero.
    void junk() { std::fill(buf.begin(), buf.end(), (uint8_t)0xA5); }
    int nd() const { return (int)dims.size(); }
    int64_t nelems() const {
        int64_t n = 1;
        for (auto d : dims) n *= d;
        return n;
    }
    size_t bytes() const { return buf.size() - 1; }
    // Physical element index of the logical index l.
    int64_t phys(int64_t l) const {
        const int n = nd();
        int64_t pos[8] = {};
        for (int i = n - 1; i >= 0; --i) {
            pos[i] = l % dims[i];
            l /= dims[i];
        }
        int64_t sp = 1, spi = 0; // spatial size and index
        for (int i = 2; i < n; ++i) {
            sp *= dims[i];
            spi = spi * dims[i] + pos[i];
        }
        const int64_t N = pos[0], C = n > 1 ? pos[1] : 0;
        switch (lay) {
            case lay_t::plain: {
                int64_t o = 0;
                for (int i = 0; i < n; ++i) o = o * dims[i] + pos[i];
                return o;
            }
            case lay_t::nspc: return (N * sp + spi) * cpad + C;
            default: {
                const int64_t b = lay == lay_t::blk8 ? 8 : 16;
                return ((N * (cpad / b) + C / b) * sp + spi) * b + C % b;
            }
        }
    }
    void put_raw(int64_t p, double v) {
        uint8_t *q = buf.data() + p * dt_size(dt);
        switch (dt) {
            case dnnl_s8: *(int8_t *)q = (int8_t)v; break;
            case dnnl_u8: *q = (uint8_t)v; break;
            case dnnl_s32: {
                int32_t x = (int32_t)v;
                std::memcpy(q, &x, 4);
                break;
            }
            default: { // f32 (the tests write f32 values exactly)
                float x = (float)v;
                std::memcpy(q, &x, 4);
                break;
            }
        }
    }
    double get_raw(int64_t p) const {
        const uint8_t *q = buf.data() + p * dt_size(dt);
        switch (dt) {
            case dnnl_s8: return *(const int8_t *)q;
            case dnnl_u8: return *q;
            case dnnl_s32: {
                int32_t x;
                std::memcpy(&x, q, 4);
                return x;
            }
            case dnnl_f16: {
                uint16_t h;
                std::memcpy(&h, q, 2);
                return f16_value(h);
            }
            default: {
                float x;
                std::memcpy(&x, q, 4);
                return x;
            }
        }
    }
    void set(int64_t l, double v) { put_raw(phys(l), v); }
    double get(int64_t l) const { return get_raw(phys(l)); }
    // True when every element outside the logical ones (channel padding) is 0.
    bool padding_zero() const {
        std::vector<bool> used(bytes() / dt_size(dt), false);
        for (int64_t l = 0; l < nelems(); ++l) used[(size_t)phys(l)] = true;
        for (size_t p = 0; p < used.size(); ++p)
            if (!used[p] && get_raw((int64_t)p) != 0) return false;
        return true;
    }
    dnnl_memory_desc_t md() const {
        dnnl_dims_t d = {};
        for (int i = 0; i < nd(); ++i) d[i] = dims[i];
        dnnl_memory_desc_t m = nullptr;
        KT_OK(dnnl_memory_desc_create_with_tag(&m, nd(), d, dt, lay_tag(lay, nd())));
        return m;
    }
};

struct env_t {
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    env_t() {
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    }
    ~env_t() {
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
};

// A raw argument (statistics, scales, weights given as plain f32 arrays).
struct raw_t {
    std::vector<float> v;
};

// Creates the primitive of `pd` and runs it once over the given tensors and
// raw f32 arrays; checks that the library's size of every tensor argument
// equals the test's own. Returns false (with a message) on any failure.
// `lib_args` (a workspace, say) get a buffer of the library's own size.
inline bool run(env_t &env, const_dnnl_primitive_desc_t pd, std::map<int, tensor_t *> ts,
        std::map<int, raw_t *> raws = {}, std::vector<int> lib_args = {}) {
    std::vector<dnnl_exec_arg_t> args;
    std::vector<dnnl_memory_t> mems;
    std::vector<std::vector<uint8_t>> own;
    bool ok = true;
    auto add = [&](int arg, void *ptr, size_t expect) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
        if (!md || (expect && dnnl_memory_desc_get_size(md) != expect)) {
            std::fprintf(stderr, "arg %d: size %zu, test expects %zu\n", arg,
                    md ? dnnl_memory_desc_get_size(md) : 0, expect);
            ok = false;
            return;
        }
        dnnl_memory_t m = nullptr;
        KT_OK(dnnl_memory_create(&m, md, env.eng, ptr));
        mems.push_back(m);
        args.push_back({arg, m});
    };
    for (auto &kv : ts) add(kv.first, kv.second->buf.data(), kv.second->bytes());
    for (int a : lib_args) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a);
        own.emplace_back(md ? dnnl_memory_desc_get_size(md) + 1 : 1, 0);
        add(a, own.back().data(), 0);
    }
    for (auto &kv : raws) {
        // Scales are not queried through exec_arg_md: a 1-element f32 md.
        if (kv.first & DNNL_ARG_ATTR_SCALES) {
            dnnl_memory_desc_t m = nullptr;
            dnnl_dims_t one = {1};
            KT_OK(dnnl_memory_desc_create_with_tag(&m, 1, one, dnnl_f32, dnnl_a));
            dnnl_memory_t mem = nullptr;
            KT_OK(dnnl_memory_create(&mem, m, env.eng, kv.second->v.data()));
            dnnl_memory_desc_destroy(m);
            mems.push_back(mem);
            args.push_back({kv.first, mem});
        } else {
            add(kv.first, kv.second->v.data(), kv.second->v.size() * sizeof(float));
        }
    }
    if (ok) {
        dnnl_primitive_t p = nullptr;
        KT_OK(dnnl_primitive_create(&p, pd));
        KT_OK(dnnl_primitive_execute(p, env.strm, (int)args.size(), args.data()));
        KT_OK(dnnl_stream_wait(env.strm));
        dnnl_primitive_destroy(p);
    }
    for (auto m : mems) dnnl_memory_destroy(m);
    return ok;
}

// Checks one output element against the real-valued reference r (before
// rounding). Integer dst: exact, except that where the library's f32
// arithmetic (relative error at most `rel` of r, derived per test) may land
// on the other side of a rounding midpoint, either neighbour is accepted.
// Float dst: |got - r| within rel * |r| + abs_tol.
inline bool close(double got, double r, dnnl_data_type_t dt, double rel, double abs_tol = 0) {
    if (is_int(dt)) {
        if (got == quantize(r, dt)) return true;
        const double err = rel * std::fabs(r) + abs_tol;
        return got == quantize(r - err, dt) || got == quantize(r + err, dt);
    }
    return std::fabs(got - r) <= rel * std::fabs(r) + abs_tol;
}

inline const char *dt_name(dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_s8: return "s8";
        case dnnl_u8: return "u8";
        case dnnl_s32: return "s32";
        case dnnl_f16: return "f16";
        case dnnl_bf16: return "bf16";
        default: return "f32";
    }
}

// Deterministic values of dt's range, with the extremes planted often.
inline double pick(kt::rng_t &r, dnnl_data_type_t dt) {
    const uint32_t k = r.next() % 16;
    const double lo = dt == dnnl_u8 ? 0 : -128, hi = dt == dnnl_u8 ? 255 : 127;
    if (k == 0) return lo;
    if (k == 1) return hi;
    return lo + r.next() % (uint32_t)(hi - lo + 1);
}

} // namespace i8

#endif
