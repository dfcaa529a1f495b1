// The machine's measured f32 FMA peak (issue 11), the reference for the
// "% of peak" columns of bench/compare.sh: a loop of independent FMA chains
// (16 accumulators: more than an FMA's latency times the FMA ports, so the
// ports never wait on a result) in the widest vector ISA the CPU has
// (AVX-512, else AVX2+FMA, else scalar multiply-add), on 1 thread and on
// every CPU the process may run on (its affinity mask, so `taskset -c 0`
// gives one). The best of a few timed runs of ~0.1 s each is kept.
// BENCH_CPU_TIME=1 counts CPU time (per thread for one thread, per CPU for
// all). No Kestrel code runs here.
//   bench_peak [--machine]   --machine: "PEAK f32 <isa> <threads> <GFLOP/s>"
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <thread>
#include <vector>

#include <immintrin.h>

#include "anchor_timing.hpp"

namespace {

constexpr int acc = 16;
volatile float sink;

__attribute__((target("avx512f"))) double fma_avx512(long iters) {
    __m512 a[acc];
    for (int j = 0; j < acc; ++j) a[j] = _mm512_set1_ps(1.f + 0.001f * (float)j);
    const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
    for (long i = 0; i < iters; ++i)
#pragma GCC unroll 16
        for (int j = 0; j < acc; ++j) a[j] = _mm512_fmadd_ps(a[j], m, c);
    __m512 s = a[0];
    for (int j = 1; j < acc; ++j) s = _mm512_add_ps(s, a[j]);
    sink = _mm512_reduce_add_ps(s);
    return 2.0 * 16 * acc * (double)iters;
}

__attribute__((target("avx2,fma"))) double fma_avx2(long iters) {
    __m256 a[acc];
    for (int j = 0; j < acc; ++j) a[j] = _mm256_set1_ps(1.f + 0.001f * (float)j);
    const __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
    for (long i = 0; i < iters; ++i)
#pragma GCC unroll 16
        for (int j = 0; j < acc; ++j) a[j] = _mm256_fmadd_ps(a[j], m, c);
    float out[8];
    __m256 s = a[0];
    for (int j = 1; j < acc; ++j) s = _mm256_add_ps(s, a[j]);
    _mm256_storeu_ps(out, s);
    sink = out[0];
    return 2.0 * 8 * acc * (double)iters;
}

double fma_scalar(long iters) {
    float a[acc];
    for (int j = 0; j < acc; ++j) a[j] = 1.f + 0.001f * (float)j;
    for (long i = 0; i < iters; ++i)
#pragma GCC unroll 16
        for (int j = 0; j < acc; ++j) a[j] = a[j] * 0.9999999f + 1e-7f;
    float s = 0;
    for (int j = 0; j < acc; ++j) s += a[j];
    sink = s;
    return 2.0 * acc * (double)iters;
}

// GFLOP/s of `threads` threads each running f(iters), best of `runs`.
template <typename F>
double rate(F f, int threads, long iters, int runs) {
    double best = 0;
    for (int r = 0; r < runs; ++r) {
        std::vector<double> flop(threads, 0.0);
        const double t0 = bench::now_seconds();
        if (threads == 1) {
            flop[0] = f(iters);
        } else {
            std::vector<std::thread> pool;
            for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { flop[t] = f(iters); });
            for (auto &th : pool) th.join();
        }
        double sec = bench::now_seconds() - t0;
        // CPU time of the process sums the threads': per CPU it is /threads.
        static const bool cpu = std::getenv("BENCH_CPU_TIME") && *std::getenv("BENCH_CPU_TIME") == '1';
        if (cpu) sec /= threads;
        double total = 0;
        for (double x : flop) total += x;
        if (sec > 0) best = std::max(best, total / sec * 1e-9);
    }
    return best;
}

template <typename F>
void measure(F f, const char *isa, bool machine) {
    // Size the run to ~0.1 s on one thread.
    long iters = 1 << 16;
    for (;;) {
        const double t0 = bench::now_seconds();
        f(iters);
        const double s = bench::now_seconds() - t0;
        if (s > 0.05 || iters > (1L << 40)) {
            iters = (long)((double)iters * 0.1 / std::max(s, 1e-6)) + 1;
            break;
        }
        iters *= 4;
    }
    cpu_set_t set;
    int ncpu = 1;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) ncpu = std::max(1, CPU_COUNT(&set));
    for (int threads : {1, ncpu}) {
        const double g = rate(f, threads, iters, 5);
        if (machine)
            std::printf("PEAK f32 %s %d %.1f\n", isa, threads, g);
        else
            std::printf("f32 FMA peak, %s, %d thread%s: %.1f GFLOP/s\n", isa, threads, threads > 1 ? "s" : "", g);
        if (ncpu == 1) break;
    }
}

} // namespace

int main(int argc, char **argv) {
    const bool machine = bench::machine_mode(argc, argv);
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        measure(fma_avx512, "avx512", machine);
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        measure(fma_avx2, "avx2", machine);
    else
        measure(fma_scalar, "scalar", machine);
    return 0;
}
