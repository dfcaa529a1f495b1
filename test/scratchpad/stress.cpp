// Stress: threads x primitives x iterations on the shared arena, with
// primitives created and destroyed while others run (attach/detach races),
// library and user scratchpad modes mixed. Every output is checked. Runs in
// the normal suite and, through tsan_stress.sh, under ThreadSanitizer.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "scratch_prim.hpp"
#include "scratchpad/arena.hpp"

namespace {

std::atomic<int> failures {0};

void expect(bool ok, const char *what) {
    if (!ok && failures.fetch_add(1) < 10) std::fprintf(stderr, "FAIL: %s\n", what);
}

struct prim_t {
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_primitive_t p = nullptr;
    bool user = false;
    prim_t(dnnl_engine_t eng, dnnl_dim_t n, size_t shared, size_t per_thread, bool user_mode) : user(user_mode) {
        dnnl_primitive_attr_t attr = nullptr;
        expect(dnnl_primitive_attr_create(&attr) == dnnl_success, "attr");
        if (user) dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
        expect(kt_scratch::make_pd(&pd, eng, n, shared, per_thread, attr) == dnnl_success, "pd");
        expect(dnnl_primitive_create(&p, pd) == dnnl_success, "primitive");
        dnnl_primitive_attr_destroy(attr);
    }
    ~prim_t() {
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }
};

void run_once(dnnl_engine_t eng, dnnl_stream_t strm, prim_t &pr, dnnl_dim_t n, float seed) {
    std::vector<float> src(n), dst(n, 0.f);
    for (dnnl_dim_t i = 0; i < n; ++i) src[i] = seed + (float)i;
    dnnl_memory_desc_t md;
    dnnl_dims_t d = {n};
    dnnl_memory_desc_create_with_tag(&md, 1, d, dnnl_f32, dnnl_a);
    dnnl_memory_t ms, mdst, msp = nullptr;
    dnnl_memory_create(&ms, md, eng, src.data());
    dnnl_memory_create(&mdst, md, eng, dst.data());
    if (pr.user)
        dnnl_memory_create(&msp, dnnl_primitive_desc_query_md(pr.pd, dnnl_query_scratchpad_md, 0), eng,
                DNNL_MEMORY_ALLOCATE);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mdst}, {DNNL_ARG_SCRATCHPAD, msp}};
    expect(dnnl_primitive_execute(pr.p, strm, pr.user ? 3 : 2, args) == dnnl_success, "execute");
    bool ok = true;
    for (dnnl_dim_t i = 0; i < n; ++i) ok = ok && dst[i] == 2.f * src[i] + 1.f;
    expect(ok, "output");
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdst);
    dnnl_memory_destroy(msp);
    dnnl_memory_desc_destroy(md);
}

} // namespace

int main() {
    dnnl_engine_t eng;
    dnnl_engine_create(&eng, dnnl_cpu, 0);
    const dnnl_dim_t n = 3000;
    std::vector<prim_t *> shared;
    for (int i = 0; i < 6; ++i)
        shared.push_back(new prim_t(eng, n, (size_t)(1 + i) << 12, (size_t)(1 + i % 3) << 10, i % 3 == 2));

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    const int nthreads = 4;
    std::atomic<long> runs {0};
    std::vector<std::thread> ts;
    for (int t = 0; t < nthreads; ++t)
        ts.emplace_back([&, t] {
            dnnl_stream_t strm;
            dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
            for (int it = 0; it < 2000 && std::chrono::steady_clock::now() < deadline; ++it) {
                run_once(eng, strm, *shared[(size_t)(it + t) % shared.size()], n, (float)(t * 1000 + it));
                if (it % 10 == t) { // a short-lived primitive of its own
                    prim_t mine(eng, 500, (size_t)(it % 5 + 1) << 13, 512, it % 20 == t);
                    run_once(eng, strm, mine, 500, (float)it);
                }
                runs.fetch_add(1);
            }
            dnnl_stream_destroy(strm);
        });
    for (auto &t : ts) t.join();
    for (auto *p : shared) delete p;
    auto st = kestrel::scratchpad::arena_t::global().stats();
    expect(st.leases_in_flight == 0, "no lease left in flight");
    expect(st.held_total == 0, "arena released");
    expect(st.users == 0, "no user left");
    dnnl_engine_destroy(eng);
    int f = failures.load();
    std::printf("stress: %ld executions on %d threads, high water %zu bytes\n", runs.load(), nthreads,
            st.high_water);
    std::printf("%d passed, %d failed\n", f ? 0 : 1, f ? 1 : 0);
    return f ? 1 : 0;
}
