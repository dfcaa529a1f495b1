// The primitive cache: hits and misses (through the internal statistics
// hook), sharing of the implementation between handles, capacity 0, LRU
// eviction order, shrinking, the environment variable, concurrent creation
// of one descriptor from several threads, and identical results with and
// without the cache (data movement only, so compared bit for bit).
#include <atomic>
#include <string>
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/primitive.hpp"
#include "core/primitive_cache.hpp"
#include "dnnl.hpp"
#include "kt_test.hpp"

namespace {

kt::tally_t tally;
dnnl_engine_t eng = nullptr;
dnnl_stream_t strm = nullptr;

// A reorder pd from abcd to aBcd16b; `c` varies the problem.
dnnl_primitive_desc_t reorder_pd(int64_t c, const_dnnl_primitive_attr_t attr = nullptr) {
    kt::md_t s(kt::make_md({2, c, 3, 5}, dnnl_f32, dnnl_abcd));
    kt::md_t d(kt::make_md({2, c, 3, 5}, dnnl_f32, dnnl_aBcd16b));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_reorder_primitive_desc_create(&pd, s, eng, d, eng, attr));
    return pd;
}

dnnl_primitive_t make_prim(const_dnnl_primitive_desc_t pd) {
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd));
    return p;
}

kestrel::primitive_cache_stats_t stats() { return kestrel::primitive_cache_stats(); }

void set_capacity(int c) { KT_OK(dnnl_set_primitive_cache_capacity(c)); }

void hit_and_miss() {
    set_capacity(16);
    kestrel::primitive_cache_clear();
    dnnl_primitive_desc_t pd = reorder_pd(17);
    dnnl_primitive_t a = make_prim(pd), b = make_prim(pd);
    auto s = stats();
    tally.check(s.misses == 1 && s.hits == 1 && s.size == 1, "second creation is a hit");
    tally.check(a->impl.get() == b->impl.get(), "handles share the implementation");
    tally.check(&a->pd != &b->pd, "each handle keeps its own descriptor");

    // An equal descriptor made separately hits too.
    dnnl_primitive_desc_t pd2 = reorder_pd(17);
    dnnl_primitive_t c = make_prim(pd2);
    tally.check(stats().hits == 2 && c->impl.get() == a->impl.get(), "equal descriptor hits");

    // Different dims, a different implementation (next_impl) and different
    // attributes all miss.
    dnnl_primitive_desc_t pd3 = reorder_pd(18);
    dnnl_primitive_t d = make_prim(pd3);
    tally.check(stats().misses == 2 && d->impl.get() != a->impl.get(), "other dims miss");
    KT_OK(dnnl_primitive_desc_next_impl(pd2));
    dnnl_primitive_t e = make_prim(pd2);
    tally.check(stats().misses == 3 && e->impl.get() != a->impl.get(), "next implementation misses");
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    dnnl_primitive_desc_t pd4 = reorder_pd(17, attr);
    dnnl_primitive_t f = make_prim(pd4);
    tally.check(stats().misses == 4 && f->impl.get() != a->impl.get(), "other attributes miss");
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 2));
    dnnl_primitive_desc_t pd5 = reorder_pd(17, attr);
    dnnl_primitive_t g = make_prim(pd5);
    tally.check(stats().misses == 5 && g->impl.get() != f->impl.get(), "other scale mask misses");

    // The shared implementation outlives the first handle.
    long use = a->impl.use_count();
    dnnl_primitive_destroy(a);
    tally.check(b->impl.use_count() == use - 1, "destroying a handle drops one reference");
    for (auto p : {b, c, d, e, f, g}) dnnl_primitive_destroy(p);
    for (auto p : {pd, pd2, pd3, pd4, pd5}) dnnl_primitive_desc_destroy(p);
    dnnl_primitive_attr_destroy(attr);
}

void capacity_zero() {
    set_capacity(0);
    int cap = -1;
    KT_OK(dnnl_get_primitive_cache_capacity(&cap));
    tally.check(cap == 0, "capacity reads back 0");
    tally.check(stats().size == 0, "capacity 0 empties the cache");
    auto before = stats();
    dnnl_primitive_desc_t pd = reorder_pd(17);
    dnnl_primitive_t a = make_prim(pd), b = make_prim(pd);
    auto after = stats();
    tally.check(a->impl.get() != b->impl.get(), "capacity 0: no sharing");
    tally.check(after.hits == before.hits && after.misses == before.misses && after.size == 0,
            "capacity 0: cache untouched");
    dnnl_primitive_destroy(a);
    dnnl_primitive_destroy(b);
    dnnl_primitive_desc_destroy(pd);
    tally.check(dnnl_set_primitive_cache_capacity(-1) == dnnl_invalid_arguments, "negative capacity");
    tally.check(dnnl_get_primitive_cache_capacity(nullptr) == dnnl_invalid_arguments, "NULL capacity");
}

// Creates (and drops) a primitive for problem c; true on a cache hit.
bool touch(int64_t c) {
    const uint64_t hits = stats().hits;
    dnnl_primitive_desc_t pd = reorder_pd(c);
    dnnl_primitive_t p = make_prim(pd);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    return stats().hits == hits + 1;
}

void eviction_order() {
    set_capacity(2);
    kestrel::primitive_cache_clear();
    bool ok = !touch(1) && !touch(2) && touch(1); // order now: 1, 2
    ok = ok && !touch(3); // evicts 2, the least recently used
    ok = ok && stats().size == 2;
    ok = ok && touch(1) && touch(3) && !touch(2); // 2 evicts 1
    ok = ok && !touch(1);
    tally.check(ok, "LRU eviction order");

    set_capacity(8);
    kestrel::primitive_cache_clear();
    ok = !touch(1) && !touch(2) && !touch(3) && stats().size == 3;
    set_capacity(1); // shrinking keeps the most recent entry only
    ok = ok && stats().size == 1 && touch(3) && !touch(2) && !touch(3);
    tally.check(ok, "shrinking evicts least recently used first");
}

void concurrent() {
    set_capacity(16);
    kestrel::primitive_cache_clear();
    dnnl_primitive_desc_t pd = reorder_pd(33);
    const int nthr = 8;
    std::vector<dnnl_primitive_t> prims(nthr, nullptr);
    std::vector<dnnl_status_t> sts(nthr, dnnl_runtime_error);
    std::atomic<int> ready {0};
    std::vector<std::thread> ts;
    for (int i = 0; i < nthr; ++i)
        ts.emplace_back([&, i] {
            ready.fetch_add(1);
            while (ready.load() < nthr) std::this_thread::yield();
            sts[i] = dnnl_primitive_create(&prims[i], pd);
        });
    for (auto &t : ts) t.join();
    bool ok = true, same = true;
    for (int i = 0; i < nthr; ++i) {
        ok = ok && sts[i] == dnnl_success;
        same = same && prims[i] && prims[i]->impl.get() == prims[0]->impl.get();
    }
    auto s = stats();
    tally.check(ok, "concurrent creation succeeds");
    tally.check(same, "concurrent creation shares one implementation");
    tally.check(s.misses == 1 && s.hits == (uint64_t)nthr - 1, "concurrent creation builds once");
    for (auto p : prims) dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
}

// Runs a reorder (cached handle or not) and returns the dst bytes.
std::vector<float> run_reorder(dnnl_primitive_t p, const_dnnl_primitive_desc_t pd,
        const std::vector<float> &src) {
    const_dnnl_memory_desc_t smd = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const_dnnl_memory_desc_t dmd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    std::vector<float> dst(dnnl_memory_desc_get_size(dmd) / sizeof(float), -7.f);
    dnnl_memory_t ms = nullptr, md = nullptr;
    KT_OK(dnnl_memory_create(&ms, smd, eng, (void *)src.data()));
    KT_OK(dnnl_memory_create(&md, dmd, eng, dst.data()));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, ms}, {DNNL_ARG_TO, md}};
    KT_OK(dnnl_primitive_execute(p, strm, 2, args));
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(md);
    return dst;
}

// dst = s0 * x0 + s1 * x1 through sum: two descriptors that differ only in
// the scales must not share an implementation.
std::vector<float> run_sum(float s0, float s1, const std::vector<float> &x) {
    kt::md_t md(kt::make_md({(int64_t)x.size()}, dnnl_f32, dnnl_a));
    const_dnnl_memory_desc_t srcs[] = {md, md};
    const float sc[] = {s0, s1};
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_sum_primitive_desc_create(&pd, eng, nullptr, 2, sc, srcs, nullptr));
    dnnl_primitive_t p = make_prim(pd);
    std::vector<float> dst(x.size());
    dnnl_memory_t ms = nullptr, mdst = nullptr;
    KT_OK(dnnl_memory_create(&ms, md, eng, (void *)x.data()));
    KT_OK(dnnl_memory_create(&mdst, md, eng, dst.data()));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_MULTIPLE_SRC, ms}, {DNNL_ARG_MULTIPLE_SRC + 1, ms}, {DNNL_ARG_DST, mdst}};
    KT_OK(dnnl_primitive_execute(p, strm, 3, args));
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdst);
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    return dst;
}

void same_results() {
    std::vector<float> src(2 * 33 * 15);
    kt::fill(src, 5);
    set_capacity(0);
    dnnl_primitive_desc_t pd = reorder_pd(33);
    dnnl_primitive_t p0 = make_prim(pd);
    const std::vector<float> want = run_reorder(p0, pd, src);
    set_capacity(16);
    kestrel::primitive_cache_clear();
    bool ok = true;
    do {
        dnnl_primitive_t a = make_prim(pd), b = make_prim(pd);
        ok = ok && run_reorder(a, pd, src) == want && run_reorder(b, pd, src) == want;
        dnnl_primitive_destroy(a);
        dnnl_primitive_destroy(b);
    } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
    tally.check(ok, "cached reorders give the uncached result");
    dnnl_primitive_destroy(p0);
    dnnl_primitive_desc_destroy(pd);

    std::vector<float> x = {1.f, 2.f, -3.f, 4.5f};
    const std::vector<float> a = run_sum(1.f, 1.f, x), b = run_sum(2.f, 1.f, x), c = run_sum(1.f, 1.f, x);
    tally.check(a == std::vector<float>({2.f, 4.f, -6.f, 9.f}) && b == std::vector<float>({3.f, 6.f, -9.f, 13.5f})
                    && c == a,
            "sum scales are part of the key");

    // Concat: the axis and per-source scales are part of the key.
    kt::md_t m(kt::make_md({2, 2}, dnnl_f32, dnnl_ab));
    const_dnnl_memory_desc_t srcs[] = {m, m};
    dnnl_primitive_desc_t c0 = nullptr, c1 = nullptr;
    KT_OK(dnnl_concat_primitive_desc_create(&c0, eng, nullptr, 2, 0, srcs, nullptr));
    KT_OK(dnnl_concat_primitive_desc_create(&c1, eng, nullptr, 2, 1, srcs, nullptr));
    dnnl_primitive_t q0 = make_prim(c0), q1 = make_prim(c1);
    tally.check(q0->impl.get() != q1->impl.get(), "concat axis is part of the key");
    dnnl_primitive_destroy(q0);
    dnnl_primitive_destroy(q1);
    dnnl_primitive_desc_destroy(c0);
    dnnl_primitive_desc_destroy(c1);
}

// A forward convolution pd (nhwc activations, weights `any`); `oc` varies
// the problem.
dnnl_primitive_desc_t conv_pd(dnnl_engine_t e, int64_t oc, dnnl_prop_kind_t prop = dnnl_forward_inference) {
    kt::md_t s(kt::make_md({1, 16, 9, 9}, dnnl_f32, dnnl_nhwc));
    kt::md_t w(kt::make_md({oc, 16, 3, 3}, dnnl_f32, dnnl_format_tag_any));
    kt::md_t d(kt::make_md({1, oc, 9, 9}, dnnl_f32, dnnl_nhwc));
    const dnnl_dims_t one = {1, 1};
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, e, prop, dnnl_convolution_direct, s, w, nullptr, d,
            one, nullptr, one, one, nullptr));
    return pd;
}

const char *impl_of(const_dnnl_primitive_desc_t pd) {
    const char *name = nullptr;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name));
    return name;
}

// Two pds answer every descriptor query, the implementation name, the
// memory consumption and the engine alike.
bool same_pd(const_dnnl_primitive_desc_t a, const_dnnl_primitive_desc_t b) {
    if (std::string(impl_of(a)) != impl_of(b)) return false;
    for (dnnl_query_t q : {dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md, dnnl_query_scratchpad_md,
                 dnnl_query_workspace_md})
        for (int i = 0; i < 2; ++i)
            if (!dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(a, q, i), dnnl_primitive_desc_query_md(b, q, i)))
                return false;
    int64_t ma = -1, mb = -2;
    dnnl_engine_t ea = nullptr, eb = nullptr;
    KT_OK(dnnl_primitive_desc_query(a, dnnl_query_memory_consumption_s64, 0, &ma));
    KT_OK(dnnl_primitive_desc_query(b, dnnl_query_memory_consumption_s64, 0, &mb));
    KT_OK(dnnl_primitive_desc_query(a, dnnl_query_engine, 0, &ea));
    KT_OK(dnnl_primitive_desc_query(b, dnnl_query_engine, 0, &eb));
    return ma == mb && ea == eb;
}

// The pd cache: a problem created again gets a copy of the pd the
// implementation walk chose, equal in every query; what changes the walk's
// outcome (the problem, the thread count, the engine) misses; backward pds
// with a hint and capacity 0 bypass it; next_impl continues from a cached
// pd as from a walked one.
void pd_cache() {
    set_capacity(16);
    kestrel::primitive_cache_clear();
    dnnl_primitive_desc_t a = conv_pd(eng, 32);
    auto s0 = stats();
    dnnl_primitive_desc_t b = conv_pd(eng, 32);
    auto s1 = stats();
    tally.check(s0.pd_misses == 1 && s0.pd_size == 1 && s1.pd_hits == 1 && s1.pd_size == 1,
            "pd cache: the second creation of a problem hits");
    tally.check(same_pd(a, b), "pd cache: the cached pd answers every query like the walked one");
    tally.check(a->pd() != b->pd(), "pd cache: each handle owns its pd");

    const std::string first_impl = impl_of(a);
    // next_impl from the cached pd and from the walked one.
    bool same_next = true;
    for (int step = 0; step < 8 && same_next; ++step) {
        const dnnl_status_t sa = dnnl_primitive_desc_next_impl(a), sb = dnnl_primitive_desc_next_impl(b);
        same_next = sa == sb && (sa != dnnl_success || same_pd(a, b));
        if (sa != dnnl_success) break;
    }
    tally.check(same_next, "pd cache: next_impl walks on alike from a cached pd");

    // Another problem, another thread count, another engine: misses.
    const uint64_t m = stats().pd_misses;
    dnnl_primitive_desc_t c = conv_pd(eng, 48);
    tally.check(stats().pd_misses == m + 1 && std::string(impl_of(c)).size() > 0, "pd cache: other problem misses");
    dnnl_primitive_desc_t d = nullptr;
    kt::with_threads(1, [&] { d = conv_pd(eng, 32); });
    const bool one_thread_missed = stats().pd_misses == m + 2;
    dnnl_primitive_desc_t d2 = nullptr;
    kt::with_threads(1, [&] { d2 = conv_pd(eng, 32); });
    tally.check(one_thread_missed && stats().pd_misses == m + 2 && same_pd(d, d2),
            "pd cache: the thread count is part of the key");
    dnnl_engine_t eng2 = nullptr;
    KT_OK(dnnl_engine_create(&eng2, dnnl_cpu, 0));
    dnnl_primitive_desc_t e = conv_pd(eng2, 32);
    dnnl_engine_t qe = nullptr;
    KT_OK(dnnl_primitive_desc_query(e, dnnl_query_engine, 0, &qe));
    tally.check(stats().pd_misses == m + 3 && qe == eng2, "pd cache: another engine misses and is the pd's engine");

    // Backward data with a forward hint: never cached.
    kt::md_t ds(kt::make_md({1, 16, 9, 9}, dnnl_f32, dnnl_nhwc));
    kt::md_t w(kt::make_md({32, 16, 3, 3}, dnnl_f32, dnnl_format_tag_any));
    kt::md_t dd(kt::make_md({1, 32, 9, 9}, dnnl_f32, dnnl_nhwc));
    dnnl_primitive_desc_t fwd = conv_pd(eng, 32, dnnl_forward_training);
    const auto before_bwd = stats();
    const dnnl_dims_t one = {1, 1};
    for (int i = 0; i < 2; ++i) {
        dnnl_primitive_desc_t bwd = nullptr;
        KT_OK(dnnl_convolution_backward_data_primitive_desc_create(&bwd, eng, dnnl_convolution_direct, ds, w, dd, one,
                nullptr, one, one, fwd, nullptr));
        dnnl_primitive_desc_destroy(bwd);
    }
    const auto after_bwd = stats();
    tally.check(after_bwd.pd_size == before_bwd.pd_size && after_bwd.pd_hits == before_bwd.pd_hits
                    && after_bwd.pd_misses == before_bwd.pd_misses,
            "pd cache: backward pds with a hint bypass it");

    // Shrinking and capacity 0 reach the pd cache too.
    set_capacity(1);
    tally.check(stats().pd_size == 1, "pd cache: shrinks with the primitive cache");
    set_capacity(0);
    dnnl_primitive_desc_t f = conv_pd(eng, 32);
    auto s2 = stats();
    tally.check(s2.pd_size == 0 && first_impl == impl_of(f),
            "pd cache: capacity 0 empties it and creation still works");
    set_capacity(16);
    for (auto p : {a, b, c, d, d2, e, f, fwd}) dnnl_primitive_desc_destroy(p);
    dnnl_engine_destroy(eng2);
}

// Threads creating the same few problems at once all get right pds.
void pd_cache_concurrent() {
    set_capacity(16);
    kestrel::primitive_cache_clear();
    std::vector<std::string> expect;
    set_capacity(0);
    for (int64_t oc : {16, 24, 40}) {
        dnnl_primitive_desc_t pd = conv_pd(eng, oc);
        expect.push_back(impl_of(pd));
        dnnl_primitive_desc_destroy(pd);
    }
    set_capacity(16);
    const int nthr = 4;
    std::atomic<int> bad {0};
    std::vector<std::thread> ts;
    for (int t = 0; t < nthr; ++t)
        ts.emplace_back([&, t] {
            for (int i = 0; i < 30; ++i) {
                const int which = (i + t) % 3;
                dnnl_primitive_desc_t pd = conv_pd(eng, which == 0 ? 16 : which == 1 ? 24 : 40);
                if (expect[which] != impl_of(pd)) ++bad;
                dnnl_primitive_desc_destroy(pd);
            }
        });
    for (auto &th : ts) th.join();
    auto s = stats();
    tally.check(bad.load() == 0 && s.pd_size == 3 && s.pd_hits + s.pd_misses == 120,
            "pd cache: concurrent creations of three problems");
}

void cpp_api() {
    dnnl::set_primitive_cache_capacity(5);
    tally.check(dnnl::get_primitive_cache_capacity() == 5, "dnnl::set/get_primitive_cache_capacity");
    bool threw = false;
    try {
        dnnl::set_primitive_cache_capacity(-2);
    } catch (const dnnl::error &e) {
        threw = e.status == dnnl_invalid_arguments;
    }
    tally.check(threw, "dnnl::set_primitive_cache_capacity(-2) throws invalid_arguments");
}

} // namespace

int main() {
    // Read once, at the first use of the capacity.
    setenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "7", 1);
    int cap = -1;
    KT_OK(dnnl_get_primitive_cache_capacity(&cap));
    tally.check(cap == 7, "ONEDNN_PRIMITIVE_CACHE_CAPACITY sets the capacity");

    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    kt::with_threads(1, [] { hit_and_miss(); capacity_zero(); eviction_order(); });
    kt::with_threads(2, [] { hit_and_miss(); capacity_zero(); eviction_order(); same_results(); });
    concurrent();
    pd_cache();
    pd_cache_concurrent();
    cpp_api();
    kestrel::primitive_cache_clear();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
