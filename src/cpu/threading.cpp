// The thread team behind parallel() (threading.hpp).
//
// Why not a plain tbb::parallel_for per call: TBB's workers yield and then
// sleep between calls, and a chunk bound to a worker waits until that
// worker runs again. On a shared machine (a virtual machine's vCPU taken by
// the host, another process on a core) the worker is often not running
// when the next call starts: the calling thread finishes its own chunk and
// then runs the worker's too, and a two-thread call takes the time of one
// thread. Measured on two Zen 4 vCPUs with a busy loop at nice 5 on one of
// them: sgemm 512^3 93-103 GFLOP/s against 197-210 for oneDNN 2.6.3, whose
// OpenMP threads spin between calls; a tbb::parallel_for of two 1 ms
// chunks took 2 ms in 70% of the calls.
//
// So each calling thread owns a team: helpers that TBB runs as tasks
// enqueued in the caller's arena (so tbb::global_control and an enclosing
// task_arena still bound them), which after a call keep polling for the
// next one for a short while (the linger) instead of sleeping, and chunks
// that whoever is running claims one at a time (the caller included), so
// a helper that comes late takes what is left rather than holding up a
// chunk it was given. A helper whose linger passes without a call ends,
// and its TBB worker goes back to TBB; the next call enqueues new ones.
//
// A call publishes its job in the team (function, context, chunk count),
// then opens it (seq odd). A helper that sees an open job it has not
// served registers (users), checks the job is still the one it saw, and
// claims chunks until none is left. The caller claims chunks too, waits
// until every chunk is done, and closes the job (seq even). The job's
// fields are rewritten only when the job is closed and no helper is
// registered, so a helper that registers late sees the job closed (or a
// newer seq) and leaves without reading them.
#include "cpu/threading.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <thread>

#include <pthread.h>
#include <strings.h>
#include <unistd.h>

namespace kestrel {
namespace detail {

namespace {

using clock_t = std::chrono::steady_clock;

struct alignas(64) team_t {
    std::atomic<uint64_t> seq {0}; // odd while a job is open
    std::atomic<int> next {0}; // next chunk to claim
    std::atomic<int> done {0}; // chunks finished
    std::atomic<int> users {0}; // helpers registered with the open job
    std::atomic<int> helpers {0}; // helper tasks enqueued and not ended
    // Owner (1) plus helper tasks not ended: the slot is free at 0.
    std::atomic<int> refs {0};
    std::atomic<uintptr_t> owner {0}; // the owning thread's pthread_self()
    // The job: written by the owner while it is closed and users == 0.
    chunk_fn_t fn = nullptr;
    const void *ctx = nullptr;
    int nthr = 0;
    bool busy = false; // owner only: a job of this team is running
};

// The teams live in static storage, taken by threads as they first call
// and given back when they end (once their helpers have ended too). A
// helper task that TBB never runs (the application dropped the thread
// limit to one while it was queued) thus holds nothing but a slot. With
// every slot taken, calls go to tbb::parallel_for.
constexpr int max_teams = 64;
team_t teams[max_teams];

uintptr_t self_id() { return (uintptr_t)pthread_self(); }

// The calling thread's team: taken on its first call, released when the
// thread ends; a child of fork() keeps its slot, with none of the parent's
// helpers.
struct team_ref_t {
    team_t *t = nullptr;
    pid_t pid = 0;
    team_t *get() {
        const pid_t now = getpid();
        if (t && pid != now) { // the child of a fork(): this thread alone
            t->helpers.store(0), t->users.store(0), t->refs.store(1);
            t->owner.store(self_id()), t->busy = false;
            pid = now;
        }
        if (t) return t;
        for (team_t &c : teams) {
            int zero = 0;
            if (c.refs.load(std::memory_order_relaxed) == 0 && c.refs.compare_exchange_strong(zero, 1)) {
                c.owner.store(self_id());
                t = &c, pid = now;
                break;
            }
        }
        return t;
    }
    ~team_ref_t() {
        if (t && pid == getpid()) {
            t->owner.store(0);
            t->refs.fetch_sub(1, std::memory_order_acq_rel);
        }
    }
};

inline void cpu_relax() { __builtin_ia32_pause(); }

// How long a helper polls for the next call: OMP_WAIT_POLICY=passive (the
// OpenMP knob oneDNN's users know for this) turns the team off, every call
// then being a plain tbb::parallel_for; ACTIVE polls longer.
long linger_us() {
    static const long v = [] {
        const char *w = std::getenv("OMP_WAIT_POLICY");
        if (w && (!strcasecmp(w, "passive"))) return 0L;
        if (w && (!strcasecmp(w, "active"))) return 20000L;
        return 1000L;
    }();
    return v;
}

void run_chunks(team_t &t) {
    for (int i = t.next.fetch_add(1, std::memory_order_relaxed); i < t.nthr;
            i = t.next.fetch_add(1, std::memory_order_relaxed)) {
        t.fn(t.ctx, i, t.nthr);
        t.done.fetch_add(1, std::memory_order_release);
    }
}

bool enqueue_helper(team_t *tp);

// A helper hands over to a fresh task after this long (between calls): a
// thread that picked it up while waiting for its own TBB work (TBB runs
// enqueued tasks there) gets back to that work within it.
constexpr auto helper_turn = std::chrono::milliseconds(20);

void helper(team_t *tp) {
    team_t &t = *tp;
    // On the owner's own thread (TBB may run an enqueued task there while
    // it waits for something else) a helper would only delay the owner.
    if (t.owner.load(std::memory_order_relaxed) != self_id()) {
        const auto linger = std::chrono::microseconds(linger_us());
        uint64_t served = 0;
        const auto born = clock_t::now();
        auto idle_since = born;
        for (;;) {
            const uint64_t s = t.seq.load(std::memory_order_acquire);
            if ((s & 1) && s != served) {
                t.users.fetch_add(1, std::memory_order_seq_cst);
                if (t.seq.load(std::memory_order_seq_cst) == s) run_chunks(t);
                t.users.fetch_sub(1, std::memory_order_seq_cst);
                served = s;
                idle_since = clock_t::now();
                continue;
            }
            const auto now = clock_t::now();
            if (now - idle_since > linger) break;
            if (now - born > helper_turn && enqueue_helper(tp)) { // the successor counts as this helper
                t.refs.fetch_sub(1, std::memory_order_acq_rel);
                return;
            }
            for (int k = 0; k < 8; ++k) cpu_relax();
        }
    }
    t.helpers.fetch_sub(1, std::memory_order_acq_rel);
    t.refs.fetch_sub(1, std::memory_order_acq_rel);
}

// One more helper task (a reference to the team while it is queued).
bool enqueue_helper(team_t *tp) {
    tp->refs.fetch_add(1, std::memory_order_acq_rel);
    try {
        tbb::this_task_arena::enqueue([tp] { helper(tp); });
        return true;
    } catch (...) {
        tp->refs.fetch_sub(1, std::memory_order_acq_rel);
        return false;
    }
}

} // namespace

bool team_run(int nthr, chunk_fn_t fn, const void *ctx) {
    if (linger_us() <= 0) return false;
    thread_local team_ref_t mine;
    team_t *tp = mine.get();
    if (!tp) return false;
    team_t &t = *tp;
    if (t.busy) return false; // a call from inside one of this thread's chunks
    t.busy = true;
    while (t.users.load(std::memory_order_seq_cst) != 0) cpu_relax(); // the last job's late helpers
    t.fn = fn, t.ctx = ctx, t.nthr = nthr;
    t.next.store(0, std::memory_order_relaxed);
    t.done.store(0, std::memory_order_relaxed);
    const uint64_t s = t.seq.load(std::memory_order_relaxed) + 1;
    t.seq.store(s, std::memory_order_seq_cst);
    for (int have = t.helpers.load(std::memory_order_acquire); have < nthr - 1; ++have) {
        t.helpers.fetch_add(1, std::memory_order_acq_rel);
        if (!enqueue_helper(tp)) { // no helper: the chunks run here
            t.helpers.fetch_sub(1, std::memory_order_acq_rel);
            break;
        }
    }
    run_chunks(t);
    for (long spins = 0; t.done.load(std::memory_order_acquire) != nthr; ++spins) {
        if (spins < 20000)
            cpu_relax();
        else
            std::this_thread::yield();
    }
    t.seq.store(s + 1, std::memory_order_seq_cst);
    t.busy = false;
    return true;
}

} // namespace detail
} // namespace kestrel
