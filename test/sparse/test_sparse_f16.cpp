// f16 sparse matmul: CSR and COO src with dense weights, dense src with CSR
// and COO weights, every tensor f16 (oneDNN's CPU sparse matmul takes
// all-f32 or all-f16). Against a naive dense matmul of the densified
// operands written here, through the C API (three scratchpad modes) and the
// C++ API, with 1 and 2 threads, over sparsities 0%, 50%, 99%, 100% and odd
// shapes. Mixed f16/f32 tensors stay unimplemented.
//
// Tolerance: none. Entries are integers in [-4, 4] (exact in f16); every
// product and partial sum is an integer below 2^24, exact in the f32
// accumulation in any order, and the reference sums exactly in double; both
// then round the same exact sum to f16 once (round to nearest even), so
// the bits must be equal. K = 200 gives sums above 2048, where f16 spacing
// is 2 and that final rounding is exercised.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/primitive.hpp"
#include "dnnl.hpp"
#include "sparse_util.hpp"

namespace {

dnnl_engine_t eng;
kt::tally_t t;

// f32 -> f16 bits, round to nearest even, for zero and the normal f16
// range (all this test needs); written from the IEEE 754 binary16 format.
uint16_t to_h(float f) {
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    const double a = std::fabs((double)f);
    if (a == 0) return sign;
    int e;
    const double m = std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
    double r = std::nearbyint(m * 2048.0); // 11 significant bits
    int E = e - 1 + 15;
    if (r == 2048.0) {
        r = 1024.0;
        ++E;
    }
    return (uint16_t)(sign | (E << 10) | ((int)r - 1024));
}

std::vector<uint16_t> to_h(const std::vector<float> &v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = to_h(v[i]);
    return h;
}

struct shape_t {
    int64_t M, K, N;
};
const shape_t shapes[] = {{1, 1, 1}, {7, 13, 5}, {16, 37, 17}, {33, 8, 3}, {5, 200, 9}};
const double sparsities[] = {0.0, 0.5, 0.99, 1.0};

dnnl_memory_desc_t plain(int64_t r, int64_t c, dnnl_data_type_t dt = dnnl_f16) {
    dnnl_dims_t d = {r, c};
    dnnl_memory_desc_t md;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, 2, d, dt, dnnl_ab));
    return md;
}

// The sparse operand (f16 values) as a memory descriptor and its buffers.
struct sparse_op_t {
    sp::csr_t csr;
    sp::coo_t coo;
    std::vector<uint16_t> val;
    dnnl_memory_desc_t md = nullptr;
    std::vector<void *> handles;
    sparse_op_t(const std::vector<float> &dense, int64_t rows, int64_t cols, bool coo, bool shuffled,
            uint64_t seed) {
        dnnl_dims_t d = {rows, cols};
        if (coo) {
            this->coo = sp::to_coo(dense, rows, cols, shuffled, seed);
            val = to_h(this->coo.val);
            KT_OK(dnnl_memory_desc_create_with_coo_encoding(
                    &md, 2, d, dnnl_f16, (int64_t)val.size(), dnnl_s32));
            handles = {val.data(), this->coo.row.data(), this->coo.col.data()};
        } else {
            csr = sp::to_csr(dense, rows, cols);
            val = to_h(csr.val);
            KT_OK(dnnl_memory_desc_create_with_csr_encoding(
                    &md, 2, d, dnnl_f16, (int64_t)val.size(), dnnl_s32, dnnl_s32));
            handles = {val.data(), csr.idx.data(), csr.ptr.data()};
        }
    }
    ~sparse_op_t() { dnnl_memory_desc_destroy(md); }
};

std::vector<uint16_t> run_c(const shape_t &s, bool src_sparse, bool coo, bool shuffled, int mode,
        const std::vector<float> &a, const std::vector<float> &b, std::string &impl) {
    const int64_t rows = src_sparse ? s.M : s.K, cols = src_sparse ? s.K : s.N;
    sparse_op_t op(src_sparse ? a : b, rows, cols, coo, shuffled, 11);
    dnnl_memory_desc_t dmd = src_sparse ? plain(s.K, s.N) : plain(s.M, s.K);
    dnnl_memory_desc_t dst_md = plain(s.M, s.N);
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    kestrel::set_library_scratchpad_policy(mode == 1 ? kestrel::scratchpad_policy_t::private_buffer
                                                     : kestrel::scratchpad_policy_t::global_arena);
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(
            attr, mode == 2 ? dnnl_scratchpad_mode_user : dnnl_scratchpad_mode_library));
    dnnl_primitive_desc_t pd;
    KT_OK(dnnl_matmul_primitive_desc_create(
            &pd, eng, src_sparse ? op.md : dmd, src_sparse ? dmd : op.md, nullptr, dst_md, attr));
    impl = kt::impl_name(pd);
    dnnl_primitive_t p;
    KT_OK(dnnl_primitive_create(&p, pd));
    dnnl_memory_t sm, dm, om, spm = nullptr;
    KT_OK(dnnl_memory_create_v2(&sm, op.md, eng, 3, op.handles.data()));
    std::vector<uint16_t> dense = to_h(src_sparse ? b : a);
    std::vector<uint16_t> out((size_t)(s.M * s.N), 0x7e00); // NaN: an unwritten element shows
    KT_OK(dnnl_memory_create(&dm, dmd, eng, dense.data()));
    KT_OK(dnnl_memory_create(&om, dst_md, eng, out.data()));
    const_dnnl_memory_desc_t spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (mode == 2) KT_OK(dnnl_memory_create(&spm, spmd, eng, DNNL_MEMORY_ALLOCATE));
    std::vector<dnnl_exec_arg_t> args = {{src_sparse ? DNNL_ARG_SRC : DNNL_ARG_WEIGHTS, sm},
            {src_sparse ? DNNL_ARG_WEIGHTS : DNNL_ARG_SRC, dm}, {DNNL_ARG_DST, om}};
    if (spm) args.push_back({DNNL_ARG_SCRATCHPAD, spm});
    dnnl_stream_t st;
    KT_OK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
    KT_OK(dnnl_primitive_execute(p, st, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(st));
    dnnl_stream_destroy(st);
    for (auto m : {sm, dm, om, spm}) dnnl_memory_destroy(m);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_memory_desc_destroy(dmd);
    dnnl_memory_desc_destroy(dst_md);
    kestrel::set_library_scratchpad_policy(kestrel::scratchpad_policy_t::global_arena);
    return out;
}

std::vector<uint16_t> run_cpp(const shape_t &s, bool src_sparse, bool coo, const std::vector<float> &a,
        const std::vector<float> &b) {
    using namespace dnnl;
    using dt = memory::data_type;
    engine e(engine::kind::cpu, 0);
    stream strm(e);
    const int64_t rows = src_sparse ? s.M : s.K, cols = src_sparse ? s.K : s.N;
    sparse_op_t op(src_sparse ? a : b, rows, cols, coo, true, 5);
    const memory::dim nnz = (memory::dim)op.val.size();
    memory::desc smd = coo ? memory::desc::coo({rows, cols}, dt::f16, nnz, dt::s32)
                           : memory::desc::csr({rows, cols}, dt::f16, nnz, dt::s32, dt::s32);
    memory sm(smd, e, op.handles);
    memory::desc dmd = src_sparse ? memory::desc({s.K, s.N}, dt::f16, memory::format_tag::ab)
                                  : memory::desc({s.M, s.K}, dt::f16, memory::format_tag::ab);
    std::vector<uint16_t> dense = to_h(src_sparse ? b : a);
    memory dm(dmd, e, dense.data());
    memory::desc omd({s.M, s.N}, dt::f16, memory::format_tag::any);
    matmul::primitive_desc pd(e, src_sparse ? smd : dmd, src_sparse ? dmd : smd, omd);
    memory out(pd.dst_desc(), e);
    matmul(pd).execute(strm, {{src_sparse ? DNNL_ARG_SRC : DNNL_ARG_WEIGHTS, sm},
                                     {src_sparse ? DNNL_ARG_WEIGHTS : DNNL_ARG_SRC, dm}, {DNNL_ARG_DST, out}});
    strm.wait();
    const uint16_t *p = static_cast<const uint16_t *>(out.get_data_handle());
    return std::vector<uint16_t>(p, p + s.M * s.N);
}

void sweep() {
    int seed = 100;
    for (const shape_t &s : shapes)
        for (double zf : sparsities)
            for (int side = 0; side < 2; ++side)
                for (int enc = 0; enc < 3; ++enc) // csr, coo sorted, coo shuffled
                    for (int nthr = 1; nthr <= 2; ++nthr)
                        for (int mode = 0; mode < 3; ++mode) {
                            const bool src_sparse = side == 0;
                            auto a = sp::make_dense(s.M, s.K, src_sparse ? zf : 0.0, (uint64_t)seed++);
                            auto b = sp::make_dense(s.K, s.N, src_sparse ? 0.0 : zf, (uint64_t)seed++);
                            const auto ref = to_h(sp::naive_matmul(a, b, s.M, s.K, s.N));
                            std::string impl;
                            std::vector<uint16_t> got;
                            kt::with_threads(nthr, [&] { got = run_c(s, src_sparse, enc > 0, enc == 2, mode, a, b, impl); });
                            char what[200];
                            std::snprintf(what, sizeof what,
                                    "f16 C API %s %s M%lld K%lld N%lld zero %.2f thr %d mode %d (%s)",
                                    src_sparse ? "src" : "weights",
                                    enc == 0 ? "csr" : enc == 1 ? "coo" : "coo shuffled", (long long)s.M,
                                    (long long)s.K, (long long)s.N, zf, nthr, mode, impl.c_str());
                            t.check(impl == "sparse:f16" && got == ref, what);
                            if (mode == 0 && enc < 2) {
                                std::vector<uint16_t> g2;
                                kt::with_threads(nthr, [&] { g2 = run_cpp(s, src_sparse, enc == 1, a, b); });
                                std::snprintf(what, sizeof what, "f16 C++ API %s %s M%lld K%lld N%lld zero %.2f thr %d",
                                        src_sparse ? "src" : "weights", enc ? "coo" : "csr", (long long)s.M,
                                        (long long)s.K, (long long)s.N, zf, nthr);
                                t.check(g2 == ref, what);
                            }
                        }
}

// Mixed f16 / f32 tensors: unimplemented, as in oneDNN.
void mixed() {
    const auto a = sp::make_dense(4, 6, 0.5, 1);
    sparse_op_t op(a, 4, 6, false, false, 1);
    for (int which = 0; which < 2; ++which) {
        dnnl_memory_desc_t w = plain(6, 3, which == 0 ? dnnl_f32 : dnnl_f16);
        dnnl_memory_desc_t d = plain(4, 3, which == 0 ? dnnl_f16 : dnnl_f32);
        dnnl_primitive_desc_t pd = nullptr;
        t.check(dnnl_matmul_primitive_desc_create(&pd, eng, op.md, w, nullptr, d, nullptr)
                        == dnnl_unimplemented,
                which == 0 ? "f16 src, f32 weights: unimplemented" : "f16 src, f32 dst: unimplemented");
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_desc_destroy(w);
        dnnl_memory_desc_destroy(d);
    }
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    t.check(to_h(1.f) == 0x3c00 && to_h(-2.f) == 0xc000 && to_h(2049.f) == 0x6800 && to_h(2051.f) == 0x6802,
            "test's own f16 encoder");
    sweep();
    mixed();
    dnnl_engine_destroy(eng);
    return t.finish();
}
