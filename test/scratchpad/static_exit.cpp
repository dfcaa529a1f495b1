// A primitive held by an object with static storage duration is destroyed
// after main returns, when other static objects may already be gone. The
// arena must outlive it: this program must exit cleanly (status 0).
#include <cstdio>
#include <cstdlib>

#include "scratch_prim.hpp"

namespace {

struct global_net_t {
    dnnl_engine_t eng = nullptr;
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_primitive_t prim = nullptr;
    ~global_net_t() {
        // Runs during exit: must not crash, and must release the arena.
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_engine_destroy(eng);
    }
} net;

} // namespace

int main() {
    dnnl_stream_t strm;
    if (dnnl_engine_create(&net.eng, dnnl_cpu, 0) != dnnl_success) return 1;
    if (dnnl_stream_create(&strm, net.eng, dnnl_stream_default_flags) != dnnl_success) return 1;
    if (kt_scratch::make_pd(&net.pd, net.eng, 100, 1 << 16, 1 << 10) != dnnl_success) return 1;
    if (dnnl_primitive_create(&net.prim, net.pd) != dnnl_success) return 1;
    float src[100], dst[100];
    for (int i = 0; i < 100; ++i) src[i] = (float)i;
    dnnl_memory_desc_t md;
    dnnl_dims_t d = {100};
    dnnl_memory_desc_create_with_tag(&md, 1, d, dnnl_f32, dnnl_a);
    dnnl_memory_t ms, mdst;
    dnnl_memory_create(&ms, md, net.eng, src);
    dnnl_memory_create(&mdst, md, net.eng, dst);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mdst}};
    int ok = dnnl_primitive_execute(net.prim, strm, 2, args) == dnnl_success;
    for (int i = 0; i < 100; ++i) ok = ok && dst[i] == 2.f * src[i] + 1.f;
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdst);
    dnnl_memory_desc_destroy(md);
    dnnl_stream_destroy(strm);
    // The primitive stays alive until static destruction.
    std::printf("%d passed, %d failed\n", ok, !ok);
    return ok ? 0 : 1;
}
