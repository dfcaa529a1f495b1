// The one place that talks to TBB. Work is split into nthr chunks that TBB
// runs on whatever threads the application allows (tbb::global_control, an
// enclosing tbb::task_arena).
#ifndef KESTREL_CPU_THREADING_HPP
#define KESTREL_CPU_THREADING_HPP

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "core/common.hpp"

#ifdef KESTREL_TSAN
#include <thread>
#include <vector>
#endif

namespace kestrel {

// Threads the current context may use.
inline int max_threads() {
    int arena = tbb::this_task_arena::max_concurrency();
    int global = (int)tbb::global_control::active_value(
            tbb::global_control::max_allowed_parallelism);
    int n = arena < global ? arena : global;
    return n < 1 ? 1 : n;
}

namespace detail {
using chunk_fn_t = void (*)(const void *ctx, int ithr, int nthr);
// Runs fn(ctx, ithr, nthr) for every ithr in [0, nthr) on this thread and
// its team (threading.cpp); false when the team is off (OMP_WAIT_POLICY=
// passive), already running a job of this thread (a call from inside one
// of its chunks) or not to be had (all 64 slots held by other threads):
// the caller then uses tbb::parallel_for.
bool team_run(int nthr, chunk_fn_t fn, const void *ctx);
} // namespace detail

// Runs f(ithr, nthr) for ithr in [0, nthr), in parallel.
template <typename F>
void parallel(int nthr, const F &f) {
    if (nthr <= 1) {
        f(0, 1);
        return;
    }
#ifdef KESTREL_TSAN
    // ThreadSanitizer builds only. libtbb is not instrumented, and TBB's
    // header code (the partitioner's task tree, built on one thread and
    // folded on another) is inlined into Kestrel's code, where no ignore
    // list reaches it: every parallel_for reports races inside TBB. So the
    // chunks run on plain threads here, whose start and join TSan sees, and
    // every race TSan reports is one between Kestrel's own chunks.
    std::vector<std::thread> workers;
    workers.reserve((size_t)nthr - 1);
    for (int ithr = 1; ithr < nthr; ++ithr)
        workers.emplace_back([&f, ithr, nthr] { f(ithr, nthr); });
    f(0, nthr);
    for (auto &w : workers) w.join();
#else
    const detail::chunk_fn_t call = [](const void *ctx, int ithr, int n) { (*static_cast<const F *>(ctx))(ithr, n); };
    if (detail::team_run(nthr, call, &f)) return;
    // Isolated: while it waits, this thread runs only this loop's chunks,
    // not another team's helper task (which could keep it for a while).
    tbb::this_task_arena::isolate([&] {
        tbb::parallel_for(0, nthr, [&](int ithr) { f(ithr, nthr); }, tbb::static_partitioner());
    });
#endif
}

// Chunk count worth using for `work` independent items of ~`grain` cost.
inline int nthr_for(dim_t work, dim_t min_per_thread = 1) {
    int n = max_threads();
    if (min_per_thread < 1) min_per_thread = 1;
    dim_t useful = work / min_per_thread;
    if (useful < n) n = (int)(useful < 1 ? 1 : useful);
    return n;
}

// Iterates over the box [0,D0) x ... in parallel, calling f(i0, ...).
template <typename F>
void parallel_nd(dim_t D0, const F &f) {
    parallel(nthr_for(D0), [&](int ithr, int nthr) {
        dim_t s, e;
        balance211(D0, nthr, ithr, s, e);
        for (dim_t i = s; i < e; ++i) f(i);
    });
}

template <typename F>
void parallel_nd(dim_t D0, dim_t D1, const F &f) {
    const dim_t work = D0 * D1;
    parallel(nthr_for(work), [&](int ithr, int nthr) {
        dim_t s, e;
        balance211(work, nthr, ithr, s, e);
        for (dim_t w = s; w < e; ++w) f(w / D1, w % D1);
    });
}

template <typename F>
void parallel_nd(dim_t D0, dim_t D1, dim_t D2, const F &f) {
    const dim_t work = D0 * D1 * D2;
    parallel(nthr_for(work), [&](int ithr, int nthr) {
        dim_t s, e;
        balance211(work, nthr, ithr, s, e);
        for (dim_t w = s; w < e; ++w) f(w / (D1 * D2), (w / D2) % D1, w % D2);
    });
}

template <typename F>
void parallel_nd(dim_t D0, dim_t D1, dim_t D2, dim_t D3, const F &f) {
    const dim_t work = D0 * D1 * D2 * D3;
    parallel(nthr_for(work), [&](int ithr, int nthr) {
        dim_t s, e;
        balance211(work, nthr, ithr, s, e);
        for (dim_t w = s; w < e; ++w) {
            dim_t r = w;
            dim_t i3 = r % D3; r /= D3;
            dim_t i2 = r % D2; r /= D2;
            dim_t i1 = r % D1; r /= D1;
            f(r, i1, i2, i3);
        }
    });
}

// Splits a 2D range [0,M) x [0,N) over nthr workers into a grid that keeps
// every worker busy even when one side is 1 (skinny shapes).
inline void split_2d(dim_t M, dim_t N, int nthr, int &nthr_m, int &nthr_n) {
    nthr_m = 1;
    nthr_n = nthr;
    double best = -1;
    for (int m = 1; m <= nthr; ++m) {
        if (nthr % m) continue;
        int n = nthr / m;
        if (m > M || n > N) continue;
        double cost = (double)div_up(M, m) + (double)div_up(N, n);
        if (best < 0 || cost < best) {
            best = cost;
            nthr_m = m;
            nthr_n = n;
        }
    }
}

} // namespace kestrel

#endif
