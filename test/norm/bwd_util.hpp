// Helpers of the backward tests: tensors in a few layouts whose physical
// offsets are computed here, independently of the library (no library
// layout helper is used), with bf16 rounding of their own, and execution
// through the C API.
#ifndef KESTREL_TEST_NORM_BWD_UTIL_HPP
#define KESTREL_TEST_NORM_BWD_UTIL_HPP

#include <map>
#include <vector>

#include "common/kt_test.hpp"

namespace bt {

// ncsp: row-major (abc...); nspc: channels last (acb, acdb, acdeb);
// blk16 / blk8: channels in blocks of 16 / 8, zero-padded (aBcd16b ...).
enum layout_t { ncsp, nspc, blk16, blk8 };

inline dnnl_format_tag_t tag_for(int nd, layout_t l) {
    static const dnnl_format_tag_t t[4][4] = {{dnnl_ab, dnnl_ab, dnnl_format_tag_undef, dnnl_format_tag_undef},
            {dnnl_abc, dnnl_acb, dnnl_aBc16b, dnnl_aBc8b}, {dnnl_abcd, dnnl_acdb, dnnl_aBcd16b, dnnl_aBcd8b},
            {dnnl_abcde, dnnl_acdeb, dnnl_aBcde16b, dnnl_aBcde8b}};
    return t[nd - 2][l];
}

inline float bf16_round(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1); // round to nearest even (finite inputs)
    u &= 0xffff0000u;
    std::memcpy(&f, &u, 4);
    return f;
}

struct tensor_t {
    layout_t l = ncsp;
    int nd = 0;
    dnnl_dim_t dims[5] = {};
    dnnl_data_type_t dt = dnnl_f32;
    std::vector<char> buf;
    dnnl_memory_desc_t md = nullptr;
    dnnl_memory_t mem = nullptr;

    tensor_t(dnnl_engine_t eng, std::initializer_list<dnnl_dim_t> d, dnnl_data_type_t t, layout_t lay) : l(lay), dt(t) {
        for (auto v : d) dims[nd++] = v;
        init(eng);
    }
    tensor_t(dnnl_engine_t eng, int n, const dnnl_dim_t *d, dnnl_data_type_t t, layout_t lay) : l(lay), dt(t) {
        for (nd = 0; nd < n; ++nd) dims[nd] = d[nd];
        init(eng);
    }
    void init(dnnl_engine_t eng) {
        KT_OK(dnnl_memory_desc_create_with_tag(&md, nd, dims, dt, tag_for(nd, l)));
        buf.assign(phys_size() * esz() + 64, 0);
        KT_OK(dnnl_memory_create(&mem, md, eng, buf.data()));
    }
    tensor_t(const tensor_t &) = delete;
    ~tensor_t() {
        dnnl_memory_destroy(mem);
        dnnl_memory_desc_destroy(md);
    }
    size_t esz() const { return dt == dnnl_bf16 ? 2 : 4; }
    dnnl_dim_t B() const { return l == blk16 ? 16 : (l == blk8 ? 8 : 1); }
    dnnl_dim_t Cp() const { return nd < 2 ? 1 : (dims[1] + B() - 1) / B() * B(); }
    size_t nelems() const {
        size_t n = 1;
        for (int i = 0; i < nd; ++i) n *= (size_t)dims[i];
        return n;
    }
    size_t phys_size() const { return nd < 2 ? nelems() : nelems() / (dims[1] ? dims[1] : 1) * (size_t)Cp(); }
    // Physical element offset of logical row-major index i.
    size_t off(size_t i) const {
        dnnl_dim_t pos[5];
        for (int d = nd - 1; d >= 0; --d) {
            pos[d] = (dnnl_dim_t)(i % (size_t)dims[d]);
            i /= (size_t)dims[d];
        }
        if (l == ncsp || nd < 3) {
            size_t o = 0;
            for (int d = 0; d < nd; ++d) o = o * dims[d] + pos[d];
            return o;
        }
        size_t o = pos[0];
        if (l == nspc) {
            for (int d = 2; d < nd; ++d) o = o * dims[d] + pos[d];
            return o * dims[1] + pos[1];
        }
        o = o * (Cp() / B()) + pos[1] / B();
        for (int d = 2; d < nd; ++d) o = o * dims[d] + pos[d];
        return o * B() + pos[1] % B();
    }
    float at(size_t i) const {
        const size_t o = off(i);
        if (dt == dnnl_f32) {
            float f;
            std::memcpy(&f, buf.data() + o * 4, 4);
            return f;
        }
        uint32_t u = 0;
        std::memcpy(&u, buf.data() + o * 2, 2);
        u <<= 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    void set(size_t i, float v) {
        const size_t o = off(i);
        if (dt == dnnl_f32) {
            std::memcpy(buf.data() + o * 4, &v, 4);
            return;
        }
        v = bf16_round(v);
        uint32_t u;
        std::memcpy(&u, &v, 4);
        u >>= 16;
        std::memcpy(buf.data() + o * 2, &u, 2);
    }
    std::vector<float> get() const {
        std::vector<float> v(nelems());
        for (size_t i = 0; i < v.size(); ++i) v[i] = at(i);
        return v;
    }
    void put(const std::vector<float> &v) {
        for (size_t i = 0; i < v.size(); ++i) set(i, v[i]);
    }
};

// Creates a primitive from pd, executes it once with args and waits.
inline dnnl_status_t exec(const_dnnl_primitive_desc_t pd, dnnl_stream_t strm, const std::map<int, dnnl_memory_t> &args) {
    std::vector<dnnl_exec_arg_t> a;
    for (auto &kv : args) a.push_back({kv.first, kv.second});
    dnnl_primitive_t p = nullptr;
    dnnl_status_t st = dnnl_primitive_create(&p, pd);
    if (st != dnnl_success) return st;
    st = dnnl_primitive_execute(p, strm, (int)a.size(), a.data());
    if (st == dnnl_success) st = dnnl_stream_wait(strm);
    dnnl_primitive_destroy(p);
    return st;
}

// A memory with the descriptor a primitive descriptor reports for arg.
struct pd_mem_t {
    std::vector<char> buf;
    dnnl_memory_t mem = nullptr;
    pd_mem_t(const_dnnl_primitive_desc_t pd, dnnl_engine_t eng, int arg) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
        buf.assign(dnnl_memory_desc_get_size(md) + 64, 0);
        KT_OK(dnnl_memory_create(&mem, md, eng, buf.data()));
    }
    pd_mem_t(const pd_mem_t &) = delete;
    ~pd_mem_t() { dnnl_memory_destroy(mem); }
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

} // namespace bt

#endif
