// Sparse matmul (CSR and COO src with dense weights, dense src with CSR and
// COO weights) against a naive dense matmul of the densified operands,
// through the C API and the C++ API, with 1 and 2 threads, in the three
// scratchpad modes (global arena, private buffer, user), over sparsities
// 0%, 50%, 99% and 100% (nnz = 0), odd shapes and shuffled COO entries.
//
// Tolerance: none. Every entry is a small integer in [-4, 4] and K <= 37,
// so every product and partial sum is an integer below 2^24 in magnitude:
// exact in f32 in any summation order, so results must match bit for bit.
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/primitive.hpp"
#include "dnnl.hpp"
#include "sparse_util.hpp"

namespace {

dnnl_engine_t eng;
kt::tally_t t;

struct shape_t {
    int64_t M, K, N;
};
const shape_t shapes[] = {{1, 1, 1}, {7, 13, 5}, {16, 37, 17}, {33, 8, 3}};
const double sparsities[] = {0.0, 0.5, 0.99, 1.0};

dnnl_memory_desc_t plain(int64_t r, int64_t c) {
    dnnl_dims_t d = {r, c};
    dnnl_memory_desc_t md;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, 2, d, dnnl_f32, dnnl_ab));
    return md;
}

// The sparse operand as a memory descriptor and its buffers.
struct sparse_op_t {
    sp::csr_t csr;
    sp::coo_t coo;
    dnnl_memory_desc_t md = nullptr;
    std::vector<void *> handles;
    sparse_op_t(const std::vector<float> &dense, int64_t rows, int64_t cols, bool coo, bool shuffled,
            uint64_t seed) {
        dnnl_dims_t d = {rows, cols};
        if (coo) {
            this->coo = sp::to_coo(dense, rows, cols, shuffled, seed);
            KT_OK(dnnl_memory_desc_create_with_coo_encoding(
                    &md, 2, d, dnnl_f32, (int64_t)this->coo.val.size(), dnnl_s32));
            handles = {this->coo.val.data(), this->coo.row.data(), this->coo.col.data()};
        } else {
            csr = sp::to_csr(dense, rows, cols);
            KT_OK(dnnl_memory_desc_create_with_csr_encoding(
                    &md, 2, d, dnnl_f32, (int64_t)csr.val.size(), dnnl_s32, dnnl_s32));
            handles = {csr.val.data(), csr.idx.data(), csr.ptr.data()};
        }
    }
    ~sparse_op_t() { dnnl_memory_desc_destroy(md); }
};

// Runs one matmul through the C API; returns dst (NaN-filled first, so an
// unwritten element shows).
std::vector<float> run_c(const shape_t &s, bool src_sparse, bool coo, bool shuffled, double zf, int mode,
        const std::vector<float> &a, const std::vector<float> &b, std::string &impl) {
    const int64_t rows = src_sparse ? s.M : s.K, cols = src_sparse ? s.K : s.N;
    sparse_op_t op(src_sparse ? a : b, rows, cols, coo, shuffled, (uint64_t)(zf * 100) + 7);
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
    std::vector<float> dense = src_sparse ? b : a;
    std::vector<float> out((size_t)(s.M * s.N), NAN);
    KT_OK(dnnl_memory_create(&dm, dmd, eng, dense.data()));
    KT_OK(dnnl_memory_create(&om, dst_md, eng, out.data()));
    const_dnnl_memory_desc_t spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    // A user scratchpad must be aligned: the library allocates it.
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

// The same problem through dnnl.hpp.
std::vector<float> run_cpp(const shape_t &s, bool src_sparse, bool coo, const std::vector<float> &a,
        const std::vector<float> &b) {
    using namespace dnnl;
    using dt = memory::data_type;
    engine e(engine::kind::cpu, 0);
    stream strm(e);
    const int64_t rows = src_sparse ? s.M : s.K, cols = src_sparse ? s.K : s.N;
    const std::vector<float> &sd = src_sparse ? a : b;
    sp::csr_t c = sp::to_csr(sd, rows, cols);
    sp::coo_t o = sp::to_coo(sd, rows, cols, true, 3);
    const memory::dim nnz = (memory::dim)c.val.size();
    memory::desc smd = coo ? memory::desc::coo({rows, cols}, dt::f32, nnz, dt::s32)
                           : memory::desc::csr({rows, cols}, dt::f32, nnz, dt::s32, dt::s32);
    memory sm = coo ? memory(smd, e, {o.val.data(), o.row.data(), o.col.data()})
                    : memory(smd, e, {c.val.data(), c.idx.data(), c.ptr.data()});
    memory::desc dmd = src_sparse ? memory::desc({s.K, s.N}, dt::f32, memory::format_tag::ab)
                                  : memory::desc({s.M, s.K}, dt::f32, memory::format_tag::ab);
    std::vector<float> dense = src_sparse ? b : a;
    memory dm(dmd, e, dense.data());
    // dst `any` resolves to ab.
    memory::desc omd({s.M, s.N}, dt::f32, memory::format_tag::any);
    matmul::primitive_desc pd(e, src_sparse ? smd : dmd, src_sparse ? dmd : smd, omd);
    memory out(pd.dst_desc(), e);
    matmul(pd).execute(strm, {{src_sparse ? DNNL_ARG_SRC : DNNL_ARG_WEIGHTS, sm},
                                     {src_sparse ? DNNL_ARG_WEIGHTS : DNNL_ARG_SRC, dm}, {DNNL_ARG_DST, out}});
    strm.wait();
    const float *p = static_cast<const float *>(out.get_data_handle());
    return std::vector<float>(p, p + s.M * s.N);
}

bool same(const std::vector<float> &x, const std::vector<float> &y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

void sweep() {
    int seed = 1;
    for (const shape_t &s : shapes)
        for (double zf : sparsities)
            for (int side = 0; side < 2; ++side)
                for (int enc = 0; enc < 3; ++enc) // csr, coo sorted, coo shuffled
                    for (int nthr = 1; nthr <= 2; ++nthr)
                        for (int mode = 0; mode < 3; ++mode) {
                            const bool src_sparse = side == 0;
                            auto a = sp::make_dense(s.M, s.K, src_sparse ? zf : 0.0, (uint64_t)seed++);
                            auto b = sp::make_dense(s.K, s.N, src_sparse ? 0.0 : zf, (uint64_t)seed++);
                            auto ref = sp::naive_matmul(a, b, s.M, s.K, s.N);
                            std::string impl;
                            std::vector<float> got;
                            kt::with_threads(nthr, [&] {
                                got = run_c(s, src_sparse, enc > 0, enc == 2, zf, mode, a, b, impl);
                            });
                            char what[200];
                            std::snprintf(what, sizeof what,
                                    "C API %s %s M%lld K%lld N%lld zero %.2f thr %d mode %d (%s)",
                                    src_sparse ? "src" : "weights",
                                    enc == 0 ? "csr" : enc == 1 ? "coo" : "coo shuffled", (long long)s.M,
                                    (long long)s.K, (long long)s.N, zf, nthr, mode, impl.c_str());
                            t.check(impl == "sparse:f32" && same(got, ref), what);
                            if (mode == 0 && enc < 2) {
                                std::vector<float> g2;
                                kt::with_threads(nthr, [&] { g2 = run_cpp(s, src_sparse, enc == 1, a, b); });
                                std::snprintf(what, sizeof what, "C++ API %s %s M%lld K%lld N%lld zero %.2f thr %d",
                                        src_sparse ? "src" : "weights", enc ? "coo" : "csr", (long long)s.M,
                                        (long long)s.K, (long long)s.N, zf, nthr);
                                t.check(same(g2, ref), what);
                            }
                        }
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    sweep();
    dnnl_engine_destroy(eng);
    return t.finish();
}
