// parallel() and its thread team (src/cpu/threading.cpp): every chunk runs
// exactly once with the right chunk count, back to back (helpers still
// polling from the last call, and handing over to fresh ones), from several
// calling threads at once, from inside a chunk (nested calls), from the
// application's own TBB tasks, within a task_arena's thread limit, and in a
// child of fork() (which has none of the parent's helpers). Run as is and
// with OMP_WAIT_POLICY=passive (test_team_passive.sh: no team, every call a
// tbb::parallel_for).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "cpu/threading.hpp"

namespace {

int checks = 0, failures = 0;

void check(bool ok, const char *what) {
    ++checks;
    if (!ok) {
        ++failures;
        std::fprintf(stderr, "FAIL: %s\n", what);
    }
}

// One call of nthr chunks: each chunk adds its bit, and sees nthr.
bool one_call(int nthr) {
    std::vector<std::atomic<int>> hits(nthr);
    for (auto &h : hits) h.store(0);
    std::atomic<int> wrong_n {0};
    kestrel::parallel(nthr, [&](int ithr, int n) {
        if (n != nthr || ithr < 0 || ithr >= nthr) {
            wrong_n.fetch_add(1);
            return;
        }
        hits[ithr].fetch_add(1);
    });
    bool ok = wrong_n.load() == 0;
    for (auto &h : hits) ok = ok && h.load() == 1;
    return ok;
}

void back_to_back() {
    bool ok = true;
    for (int it = 0; it < 20000 && ok; ++it) ok = one_call(2 + it % 7);
    check(ok, "20000 calls back to back, 2 to 8 chunks: each chunk once");
    // With more than one thread allowed, other threads take part.
    if (kestrel::max_threads() > 1) {
        const auto me = std::this_thread::get_id();
        std::atomic<int> elsewhere {0};
        // Chunks of ~20 us, for up to 10 s (a loaded machine, valgrind).
        const auto t0 = std::chrono::steady_clock::now();
        while (elsewhere.load() == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10))
            kestrel::parallel(2, [&](int, int) {
                volatile double x = 0;
                for (int k = 0; k < 20000; ++k) x = x + k;
                if (std::this_thread::get_id() != me) elsewhere.fetch_add(1);
            });
        check(elsewhere.load() > 0, "chunks run on other threads too");
    }
    // After a pause longer than the linger (helpers gone), and right away.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    check(one_call(4) && one_call(4), "calls after the helpers ended: each chunk once");
}

void concurrent_callers() {
    std::atomic<int> bad {0};
    std::vector<std::thread> th;
    for (int t = 0; t < 4; ++t)
        th.emplace_back([&bad, t] {
            for (int it = 0; it < 3000; ++it)
                if (!one_call(2 + (it + t) % 5)) bad.fetch_add(1);
        });
    for (auto &x : th) x.join();
    check(bad.load() == 0, "4 threads x 3000 calls at once: each chunk once");
}

void nested() {
    // Each outer chunk runs an inner call; the outer caller's own chunk
    // nests into its busy team (TBB runs it), helpers into theirs.
    std::atomic<int> inner_ok {0}, outer {0};
    for (int it = 0; it < 500; ++it)
        kestrel::parallel(3, [&](int, int) {
            outer.fetch_add(1);
            if (one_call(3)) inner_ok.fetch_add(1);
        });
    check(outer.load() == 1500 && inner_ok.load() == 1500, "500 calls of 3 chunks each running a call of 3");
}

void inside_user_tasks() {
    // Calls made from the application's own TBB tasks (each task's thread
    // a caller with a team of its own).
    std::atomic<int> bad {0};
    tbb::parallel_for(0, 16, [&](int t) {
        for (int it = 0; it < 300; ++it)
            if (!one_call(2 + (it + t) % 3)) bad.fetch_add(1);
    });
    check(bad.load() == 0, "16 application TBB tasks x 300 calls: each chunk once");
}

void arena_limit() {
    // In an arena of one thread the call runs on the caller alone; in an
    // arena of two, at most two threads run the chunks.
    tbb::task_arena one(1), two(2);
    bool ok1 = true;
    one.execute([&] {
        ok1 = kestrel::max_threads() == 1;
        const auto me = std::this_thread::get_id();
        for (int it = 0; it < 100; ++it)
            kestrel::parallel(kestrel::max_threads(), [&](int, int) { ok1 = ok1 && std::this_thread::get_id() == me; });
    });
    check(ok1, "task_arena(1): one chunk, on the calling thread");
    std::mutex m;
    std::set<std::thread::id> ids;
    bool ok2 = true;
    two.execute([&] {
        ok2 = kestrel::max_threads() <= 2;
        for (int it = 0; it < 2000; ++it)
            kestrel::parallel(kestrel::max_threads(), [&](int, int) {
                volatile double x = 0;
                for (int k = 0; k < 2000; ++k) x = x + k;
                std::lock_guard<std::mutex> g(m);
                ids.insert(std::this_thread::get_id());
            });
    });
    // Helpers of the earlier tests may still be polling outside the arena;
    // they serve only their own callers' teams.
    check(ok2 && ids.size() <= 2 && !ids.empty(), "task_arena(2): chunks on at most two threads");
}

void forked_child() {
    for (int it = 0; it < 100; ++it) one_call(2); // helpers polling now
    const pid_t pid = fork();
    if (pid == 0) {
        bool ok = true;
        for (int it = 0; it < 2000 && ok; ++it) ok = one_call(2 + it % 3);
        _exit(ok ? 0 : 3);
    }
    int status = -1;
    bool exited = false;
    for (int w = 0; w < 600 && pid > 0; ++w) { // up to a minute
        if (waitpid(pid, &status, WNOHANG) == pid) {
            exited = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (pid > 0 && !exited) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    check(pid > 0 && exited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "a child of fork() runs 2000 calls, each chunk once, and exits");
}

} // namespace

int main() {
    back_to_back();
    concurrent_callers();
    nested();
    inside_user_tasks();
    arena_limit();
    forked_child();
    // Helpers queued behind the one TBB worker when the application drops
    // the thread limit to one never run: the calls still complete, and
    // nothing they hold is lost at exit (the ASan build checks leaks).
    for (int it = 0; it < 50; ++it) one_call(8);
    tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    check(one_call(8) && one_call(3), "calls after the thread limit drops to one: each chunk once");
    std::printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
