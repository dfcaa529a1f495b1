// Helpers of the backward tests of the element-wise family. They share no
// code with the library: layouts (plain, channels-last, 16-channel blocks)
// are computed here by hand, bf16 rounding too, and the library is reached
// only through the public C API.
#ifndef KESTREL_TEST_ELTWISE_BWD_TEST_HPP
#define KESTREL_TEST_ELTWISE_BWD_TEST_HPP

#include <initializer_list>
#include <map>
#include <vector>

#include "../common/kt_test.hpp"

namespace bt {

using dims_t = std::vector<dnnl_dim_t>;
enum layout_t { plain, chan_last, blk16 };
inline const char *layout_name(layout_t l) { return l == plain ? "plain" : l == chan_last ? "nhwc" : "blk16"; }

constexpr double f32_eps = 1.0 / (1 << 23);
constexpr double bf16_eps = 1.0 / (1 << 7);

inline float bf16_round(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
    std::memcpy(&v, &u, 4);
    return v;
}

inline dnnl_format_tag_t tag_of(layout_t l, size_t nd) {
    static const dnnl_format_tag_t p[] = {dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde};
    static const dnnl_format_tag_t c[] = {dnnl_a, dnnl_ab, dnnl_acb, dnnl_acdb, dnnl_acdeb};
    static const dnnl_format_tag_t b[] = {dnnl_a, dnnl_ab, dnnl_aBc16b, dnnl_aBcd16b, dnnl_aBcde16b};
    return (l == plain ? p : l == chan_last ? c : b)[nd - 1];
}

// A tensor in memory the test owns: logical element l (row-major) lives at
// off(l); every other element of the buffer is padding.
struct tensor_t {
    dims_t dims;
    layout_t lay;
    dnnl_data_type_t dt;
    std::vector<char> buf;
    dnnl_memory_desc_t md = nullptr;
    dnnl_memory_t mem = nullptr;

    tensor_t(const dims_t &d, layout_t l, dnnl_data_type_t t, dnnl_engine_t eng) : dims(d), lay(l), dt(t) {
        buf.assign(nphys() * esz(), 0);
        dnnl_dims_t dd = {};
        for (size_t i = 0; i < dims.size(); ++i) dd[i] = dims[i];
        KT_OK(dnnl_memory_desc_create_with_tag(&md, (int)dims.size(), dd, dt, tag_of(lay, dims.size())));
        KT_EXPECT(dnnl_memory_desc_get_size(md) == buf.size()); // the layouts agree
        KT_OK(dnnl_memory_create(&mem, md, eng, buf.data()));
    }
    tensor_t(const tensor_t &) = delete;
    ~tensor_t() {
        dnnl_memory_destroy(mem);
        dnnl_memory_desc_destroy(md);
    }
    size_t esz() const { return dt == dnnl_f32 ? 4 : 2; }
    int nd() const { return (int)dims.size(); }
    dnnl_dim_t dim(int i) const { return dims[(size_t)i]; }
    dnnl_dim_t nelems() const {
        dnnl_dim_t n = 1;
        for (auto v : dims) n *= v;
        return n;
    }
    dnnl_dim_t cpad() const { return nd() > 1 && lay == blk16 ? (dim(1) + 15) / 16 * 16 : nd() > 1 ? dim(1) : 1; }
    size_t nphys() const {
        if (nd() == 1) return (size_t)dim(0); // 1D is only used plain
        return (size_t)(nelems() / dim(1) * cpad());
    }
    // Physical index of the logical position pos[].
    size_t off_pos(const dnnl_dim_t *pos) const {
        const int n = nd();
        if (n == 1) return (size_t)pos[0];
        dnnl_dim_t sp = 1, s = 0;
        for (int i = 2; i < n; ++i) {
            sp *= dim(i);
            s = s * dim(i) + pos[i];
        }
        const dnnl_dim_t c = pos[1], C = dim(1);
        if (lay == plain) return (size_t)((pos[0] * C + c) * sp + s);
        if (lay == chan_last) return (size_t)((pos[0] * sp + s) * C + c);
        const dnnl_dim_t cb = cpad() / 16;
        return (size_t)(((pos[0] * cb + c / 16) * sp + s) * 16 + c % 16);
    }
    void pos_of(dnnl_dim_t l, dnnl_dim_t *pos) const {
        for (int i = nd() - 1; i >= 0; --i) {
            pos[i] = l % dim(i);
            l /= dim(i);
        }
    }
    size_t off(dnnl_dim_t l) const {
        dnnl_dim_t pos[8];
        pos_of(l, pos);
        return off_pos(pos);
    }
    float raw(size_t p) const {
        if (dt == dnnl_f32) {
            float v;
            std::memcpy(&v, buf.data() + 4 * p, 4);
            return v;
        }
        uint32_t u = 0;
        std::memcpy(reinterpret_cast<char *>(&u) + 2, buf.data() + 2 * p, 2);
        float v;
        std::memcpy(&v, &u, 4);
        return v;
    }
    float get(dnnl_dim_t l) const { return raw(off(l)); }
    void set(dnnl_dim_t l, float v) {
        const size_t p = off(l);
        if (dt == dnnl_f32) {
            std::memcpy(buf.data() + 4 * p, &v, 4);
        } else {
            v = bf16_round(v);
            std::memcpy(buf.data() + 2 * p, reinterpret_cast<char *>(&v) + 2, 2);
        }
    }
    void fill(uint64_t seed, float lo, float hi) {
        kt::rng_t r(seed);
        for (dnnl_dim_t l = 0; l < nelems(); ++l) set(l, r.uniform(lo, hi));
    }
    std::vector<float> values() const {
        std::vector<float> v((size_t)nelems());
        for (dnnl_dim_t l = 0; l < nelems(); ++l) v[(size_t)l] = get(l);
        return v;
    }
    void set_values(const std::vector<float> &v) {
        for (dnnl_dim_t l = 0; l < nelems(); ++l) set(l, v[(size_t)l]);
    }
    // Fills the padding with a byte pattern (so a kernel must zero it).
    void dirty_padding() {
        std::vector<char> used(nphys(), 0);
        for (dnnl_dim_t l = 0; l < nelems(); ++l) used[off(l)] = 1;
        for (size_t p = 0; p < used.size(); ++p)
            if (!used[p]) std::memset(buf.data() + p * esz(), 0x5a, esz());
    }
    bool padding_zero() const {
        std::vector<char> used(nphys(), 0);
        for (dnnl_dim_t l = 0; l < nelems(); ++l) used[off(l)] = 1;
        for (size_t p = 0; p < used.size(); ++p)
            if (!used[p] && raw(p) != 0.f) return false;
        return true;
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

// Creates a primitive from pd, runs it once with `args`, destroys it.
inline dnnl_status_t run(const_dnnl_primitive_desc_t pd, dnnl_stream_t s,
        std::initializer_list<std::pair<int, dnnl_memory_t>> args) {
    dnnl_primitive_t p = nullptr;
    dnnl_status_t st = dnnl_primitive_create(&p, pd);
    if (st != dnnl_success) return st;
    std::vector<dnnl_exec_arg_t> a;
    for (auto &x : args) a.push_back({x.first, x.second});
    st = dnnl_primitive_execute(p, s, (int)a.size(), a.data());
    if (st == dnnl_success) st = dnnl_stream_wait(s);
    dnnl_primitive_destroy(p);
    return st;
}

// |got - want| <= abs + rel * |want| for every element; reports the first miss.
inline bool close(const std::vector<float> &got, const std::vector<double> &want, double rel, double abs,
        const char *what) {
    for (size_t i = 0; i < got.size(); ++i) {
        const double tol = abs + rel * std::fabs(want[i]);
        if (!(std::fabs(got[i] - want[i]) <= tol)) {
            std::fprintf(stderr, "%s: element %zu got %.9g want %.9g (tol %.3g)\n", what, i, got[i],
                    want[i], tol);
            return false;
        }
    }
    return true;
}

} // namespace bt

#endif
