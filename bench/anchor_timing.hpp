// Timing shared by Kestrel's benchmarks and the anchor program, so both
// sides measure the same way: one warm-up call, then calls until at least
// `min_reps` ran and `min_seconds` passed (or, for slow problems, three
// calls took a second); the median call time is kept.
// Header-only and free of any library header: the anchor includes it
// beside oneDNN 2.x's headers, Kestrel's benchmarks beside Kestrel's.
#ifndef KESTREL_BENCH_ANCHOR_TIMING_HPP
#define KESTREL_BENCH_ANCHOR_TIMING_HPP

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

namespace bench {

// BENCH_CPU_TIME=1 in the environment times calls by the CPU time of the
// process instead of the wall clock: on a heavily shared machine, with the
// program pinned to one core (taskset), that counts the work done and not
// the time spent waiting for the core.
inline double now_seconds() {
    static const bool cpu = std::getenv("BENCH_CPU_TIME") && *std::getenv("BENCH_CPU_TIME") == '1';
    if (cpu) {
        timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F>
double median_seconds(F f, int min_reps = 5, double min_seconds = 0.15) {
    f();
    std::vector<double> t;
    double total = 0;
    // A slow problem (a second or more per call) stops after three calls.
    while (((int)t.size() < min_reps || (total < min_seconds && t.size() < 10000))
            && !(t.size() >= 3 && total >= 1.0)) {
        const double t0 = now_seconds();
        f();
        const double s = now_seconds() - t0;
        t.push_back(s);
        total += s;
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// `--machine` on the command line: print only "BENCH <lib> <shape> <GFLOP/s>"
// lines, which bench/compare.sh collects.
inline bool machine_mode(int argc, char **argv) {
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--machine")) return true;
    return false;
}

// BENCH_ONLY=sub1,sub2 in the environment runs only the shapes whose id
// contains one of the substrings (quick before/after measurements of a few
// cases); unset or empty runs everything.
inline bool selected(const char *id) {
    const char *only = std::getenv("BENCH_ONLY");
    if (!only || !*only) return true;
    const char *p = only;
    while (*p) {
        const char *e = std::strchr(p, ',');
        const size_t n = e ? (size_t)(e - p) : std::strlen(p);
        if (n > 0 && n < 96) {
            char sub[96];
            std::memcpy(sub, p, n);
            sub[n] = 0;
            if (std::strstr(id, sub)) return true;
        }
        if (!e) break;
        p = e + 1;
    }
    return false;
}

inline void machine_line(const char *lib, const char *shape, double gflops) {
    std::printf("BENCH %s %s %.3f\n", lib, shape, gflops);
    std::fflush(stdout);
}

// A problem one side declines (or fails to run): "REFUSED <lib> <shape>
// <why>" in --machine output, which bench/compare.sh lists under its tables
// (the table shows "-" for that side).
inline void refusal_line(const char *lib, const char *shape, const char *why) {
    std::printf("REFUSED %s %s %s\n", lib, shape, why);
    std::fflush(stdout);
}

} // namespace bench

#endif
