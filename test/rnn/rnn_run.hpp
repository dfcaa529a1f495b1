// Running the library's recurrent primitives from the RNN tests through
// the C API: the descriptors of one problem, the twelve create calls, and
// an argument list that owns its memory objects. Test code only.
#ifndef KESTREL_TEST_RNN_RNN_RUN_HPP
#define KESTREL_TEST_RNN_RNN_RUN_HPP

#include <vector>

#include "common/kt_test.hpp"
#include "rnn/rnn_ref.hpp"

namespace rnn_ref {

// One problem's descriptors (absent ones stay null).
struct mds_t {
    kt::md_t src, si, sic, att, wl, wi, peep, proj, bias, dst, di, dic;
};

inline dnnl_status_t fwd_pd(dnnl_engine_t eng, dnnl_primitive_desc_t *pd, const prob_t &p, const mds_t &m,
        dnnl_prop_kind_t pk, const_dnnl_primitive_attr_t attr) {
    switch (p.cell) {
        case c_rnn:
            return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, eng, pk, p.act, p.dir, m.src, m.si, m.wl,
                    m.wi, m.bias, m.dst, m.di, 0, p.alpha, 0.f, attr);
        case c_lstm:
            return dnnl_lstm_forward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.sic, m.wl, m.wi,
                    m.peep, m.proj, m.bias, m.dst, m.di, m.dic, 0, attr);
        case c_gru:
            return dnnl_gru_forward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.wl, m.wi, m.bias,
                    m.dst, m.di, 0, attr);
        case c_lbr_gru:
            return dnnl_lbr_gru_forward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.wl, m.wi, m.bias,
                    m.dst, m.di, 0, attr);
        case c_augru:
            return dnnl_augru_forward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.att, m.wl, m.wi,
                    m.bias, m.dst, m.di, 0, attr);
        case c_lbr_augru:
            return dnnl_lbr_augru_forward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.att, m.wl,
                    m.wi, m.bias, m.dst, m.di, 0, attr);
    }
    return dnnl_invalid_arguments;
}

// m: the data descriptors, g: the gradients'.
inline dnnl_status_t bwd_pd(dnnl_engine_t eng, dnnl_primitive_desc_t *pd, const prob_t &p, const mds_t &m,
        const mds_t &g, unsigned flags, const_dnnl_primitive_desc_t hint, const_dnnl_primitive_attr_t attr,
        dnnl_prop_kind_t pk = dnnl_backward) {
    switch (p.cell) {
        case c_rnn:
            return dnnl_vanilla_rnn_backward_primitive_desc_create(pd, eng, pk, p.act, p.dir, m.src, m.si, m.wl,
                    m.wi, m.bias, m.dst, m.di, g.src, g.si, g.wl, g.wi, g.bias, g.dst, g.di, flags, p.alpha, 0.f,
                    hint, attr);
        case c_lstm:
            return dnnl_lstm_backward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.sic, m.wl, m.wi,
                    m.peep, m.proj, m.bias, m.dst, m.di, m.dic, g.src, g.si, g.sic, g.wl, g.wi, g.peep, g.proj,
                    g.bias, g.dst, g.di, g.dic, flags, hint, attr);
        case c_gru:
            return dnnl_gru_backward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.wl, m.wi, m.bias,
                    m.dst, m.di, g.src, g.si, g.wl, g.wi, g.bias, g.dst, g.di, flags, hint, attr);
        case c_lbr_gru:
            return dnnl_lbr_gru_backward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.wl, m.wi,
                    m.bias, m.dst, m.di, g.src, g.si, g.wl, g.wi, g.bias, g.dst, g.di, flags, hint, attr);
        case c_augru:
            return dnnl_augru_backward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.att, m.wl, m.wi,
                    m.bias, m.dst, m.di, g.src, g.si, g.att, g.wl, g.wi, g.bias, g.dst, g.di, flags, hint, attr);
        case c_lbr_augru:
            return dnnl_lbr_augru_backward_primitive_desc_create(pd, eng, pk, p.dir, m.src, m.si, m.att, m.wl,
                    m.wi, m.bias, m.dst, m.di, g.src, g.si, g.att, g.wl, g.wi, g.bias, g.dst, g.di, flags, hint,
                    attr);
    }
    return dnnl_invalid_arguments;
}

struct mem_t {
    dnnl_memory_t h = nullptr;
    mem_t() = default;
    mem_t(const mem_t &) = delete;
    ~mem_t() { dnnl_memory_destroy(h); }
};

// Execution arguments over user buffers; absent descriptors are skipped.
struct args_t {
    explicit args_t(dnnl_engine_t e) : eng(e) {}
    dnnl_engine_t eng;
    std::vector<dnnl_exec_arg_t> v;
    std::vector<mem_t> mems = std::vector<mem_t>(40);
    int k = 0;
    void add(int arg, const_dnnl_memory_desc_t md, void *data) {
        if (!md) return;
        KT_OK(dnnl_memory_create(&mems[k].h, md, eng, data));
        v.push_back({arg, mems[k].h});
        ++k;
    }
    void drop(int arg) {
        for (size_t i = 0; i < v.size(); ++i)
            if (v[i].arg == arg) v.erase(v.begin() + (long)i--);
    }
};

// Creates the primitive, runs it once, waits and destroys it.
inline dnnl_status_t exec(dnnl_stream_t strm, const_dnnl_primitive_desc_t pd, const args_t &a) {
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    dnnl_status_t st = dnnl_primitive_execute(prim, strm, (int)a.v.size(), a.v.data());
    if (st == dnnl_success) st = dnnl_stream_wait(strm);
    dnnl_primitive_destroy(prim);
    return st;
}

} // namespace rnn_ref

#endif
