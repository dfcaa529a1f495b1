// NUMA placement of the scratchpad arena on simulated machines. libnuma and
// sched_getcpu are replaced at link time (-Wl,--wrap) by the functions
// below: CPU c lies on node c % nodes; every thread gets the next CPU the
// first time it asks, and the test can pin the calling thread to a CPU.
#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

extern "C" {
#include <cmocka.h>
}

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "scratch_prim.hpp"
#include "scratchpad/arena.hpp"
#include "scratchpad/numa.hpp"

using namespace kestrel;

namespace {

int sim_nodes = 2;
bool sim_alloc_fails = false;
std::atomic<int> next_cpu {0};
std::atomic<int> onnode_calls {0};
thread_local int my_cpu = -1;

struct placed_t {
    char *p;
    size_t size;
    int node;
};
std::mutex table_mu;
std::vector<placed_t> table;

// Node of the simulated allocation holding p, -1 for memory not from
// numa_alloc_onnode (the plain fallback).
int node_of(const void *p) {
    std::lock_guard<std::mutex> g(table_mu);
    for (auto &e : table)
        if ((const char *)p >= e.p && (const char *)p < e.p + e.size) return e.node;
    return -1;
}

} // namespace

extern "C" {
int __wrap_numa_available(void) { return sim_nodes > 0 ? 0 : -1; }
int __wrap_numa_num_configured_nodes(void) { return sim_nodes; }
int __wrap_sched_getcpu(void) {
    if (my_cpu < 0) my_cpu = next_cpu.fetch_add(1) % 64;
    return my_cpu;
}
int __wrap_numa_node_of_cpu(int cpu) { return sim_nodes > 0 ? cpu % sim_nodes : -1; }
void *__wrap_numa_alloc_onnode(size_t size, int node) {
    onnode_calls.fetch_add(1);
    if (sim_alloc_fails) return nullptr;
    void *p = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    std::lock_guard<std::mutex> g(table_mu);
    table.push_back({(char *)p, size, node});
    return p;
}
void __wrap_numa_free(void *p, size_t) {
    {
        std::lock_guard<std::mutex> g(table_mu);
        for (size_t i = 0; i < table.size(); ++i)
            if (table[i].p == p) {
                table.erase(table.begin() + (long)i);
                break;
            }
    }
    std::free(p);
}
}

namespace {

struct run_t {
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_primitive_t prim = nullptr;
    std::vector<float> src, dst;
    dnnl_memory_t msrc = nullptr, mdst = nullptr;

    explicit run_t(dim_t n) : src(n), dst(n) {
        for (dim_t i = 0; i < n; ++i) src[i] = (float)(i % 31);
        assert_int_equal(dnnl_engine_create(&eng, dnnl_cpu, 0), dnnl_success);
        assert_int_equal(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags), dnnl_success);
        assert_int_equal(kt_scratch::make_pd(&pd, eng, n, 1 << 14, 1 << 12), dnnl_success);
        assert_int_equal(dnnl_primitive_create(&prim, pd), dnnl_success);
        dnnl_memory_desc_t md;
        dnnl_dims_t d = {n};
        assert_int_equal(dnnl_memory_desc_create_with_tag(&md, 1, d, dnnl_f32, dnnl_a), dnnl_success);
        assert_int_equal(dnnl_memory_create(&msrc, md, eng, src.data()), dnnl_success);
        assert_int_equal(dnnl_memory_create(&mdst, md, eng, dst.data()), dnnl_success);
        dnnl_memory_desc_destroy(md);
    }
    ~run_t() {
        dnnl_memory_destroy(msrc);
        dnnl_memory_destroy(mdst);
        dnnl_primitive_destroy(prim);
        dnnl_primitive_desc_destroy(pd);
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
    int nthr() const { return prim->impl->pd()->scratchpad_registry().nthr(); }
    void execute() {
        for (auto &p : kt_scratch::probe().slab_ptr) p.store(nullptr);
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, msrc}, {DNNL_ARG_DST, mdst}};
        assert_int_equal(dnnl_primitive_execute(prim, strm, 2, args), dnnl_success);
        for (size_t i = 0; i < src.size(); ++i) assert_true(dst[i] == 2.f * src[i] + 1.f);
    }
};

void simulate(int nodes) {
    sim_nodes = nodes;
    sim_alloc_fails = false;
    next_cpu.store(0);
    my_cpu = -1;
    numa::reinit();
    kt_scratch::cpu_of_thread() = __wrap_sched_getcpu;
}

// Every per-thread slab used in the last execution lies on the node of the
// thread that used it.
void check_slabs_follow_threads(int nthr, int expect_node_for_plain) {
    int seen = 0;
    for (int i = 0; i < nthr && i < 64; ++i) {
        const void *slab = kt_scratch::probe().slab_ptr[i].load();
        int cpu = kt_scratch::probe().cpu_seen[i].load();
        if (!slab) continue;
        ++seen;
        int want = expect_node_for_plain >= 0 ? __wrap_numa_node_of_cpu(cpu) : -1;
        assert_int_equal(node_of(slab), want);
    }
    assert_int_equal(seen, nthr);
}

void lease_served_from_callers_node(int nodes) {
    simulate(nodes);
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 4);
    {
        run_t r(4096);
        for (int node = 0; node < nodes; ++node) {
            std::thread t([&] {
                my_cpu = node; // pin this thread to a CPU of `node`
                r.execute();
            });
            t.join();
            auto st = scratchpad::arena_t::global().stats();
            assert_int_equal(st.nodes, nodes);
            assert_true(st.held[node] > 0);
            check_slabs_follow_threads(r.nthr(), 0);
        }
    }
    assert_int_equal(scratchpad::arena_t::global().stats().held_total, 0);
    std::lock_guard<std::mutex> g(table_mu);
    assert_int_equal((int)table.size(), 0);
}

void two_nodes(void **) { lease_served_from_callers_node(2); }
void four_nodes(void **) { lease_served_from_callers_node(4); }

void per_thread_slabs_land_on_thread_nodes(void **) {
    simulate(2);
    // Four threads on a two-core machine (an explicit arena may exceed the
    // core count): workers take CPUs in turn, so they sit on both nodes.
    // Checks run after the arena returns (cmocka failures jump).
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 4);
    tbb::task_arena arena(4);
    run_t *r = nullptr;
    arena.execute([&] { r = new run_t(1 << 16); });
    assert_int_equal(r->nthr(), 4);
    // Which thread runs which chunk is TBB's choice: repeat until slabs were
    // needed on both nodes, checking every placement on the way.
    int nodes_used = 0;
    for (int i = 0; i < 500 && nodes_used != 3; ++i) {
        arena.execute([&] { r->execute(); });
        check_slabs_follow_threads(r->nthr(), 0);
        for (int t = 0; t < 4; ++t)
            nodes_used |= 1 << node_of(kt_scratch::probe().slab_ptr[t].load());
    }
    delete r;
    // Both nodes served slabs at some point.
    assert_int_equal(nodes_used, 3);
}

void failed_numa_allocation_falls_back(void **) {
    simulate(2);
    sim_alloc_fails = true;
    onnode_calls.store(0);
    {
        run_t r(4096);
        r.execute();
        assert_true(onnode_calls.load() > 0);
        check_slabs_follow_threads(r.nthr(), -1);
        assert_true(scratchpad::arena_t::global().stats().held_total > 0);
    }
    assert_int_equal(scratchpad::arena_t::global().stats().held_total, 0);
    sim_alloc_fails = false;
}

void numa_off_by_environment(void **) {
    setenv("ONEDNN_NUMA", "off", 1);
    simulate(4);
    onnode_calls.store(0);
    assert_int_equal(numa::num_nodes(), 1);
    {
        run_t r(4096);
        r.execute();
    }
    assert_int_equal(onnode_calls.load(), 0);
    unsetenv("ONEDNN_NUMA");
}

void no_numa_support(void **) {
    simulate(0); // numa_available() < 0
    onnode_calls.store(0);
    assert_int_equal(numa::num_nodes(), 1);
    {
        run_t r(4096);
        r.execute();
    }
    assert_int_equal(onnode_calls.load(), 0);
}

void one_node(void **) {
    simulate(1);
    onnode_calls.store(0);
    {
        run_t r(4096);
        r.execute();
        auto st = scratchpad::arena_t::global().stats();
        assert_int_equal(st.nodes, 1);
        assert_true(st.held[0] > 0);
    }
    assert_int_equal(onnode_calls.load(), 0);
}

} // namespace

int main(void) {
    const struct CMUnitTest tests[] = {
            cmocka_unit_test(two_nodes),
            cmocka_unit_test(four_nodes),
            cmocka_unit_test(per_thread_slabs_land_on_thread_nodes),
            cmocka_unit_test(failed_numa_allocation_falls_back),
            cmocka_unit_test(numa_off_by_environment),
            cmocka_unit_test(no_numa_support),
            cmocka_unit_test(one_node),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
