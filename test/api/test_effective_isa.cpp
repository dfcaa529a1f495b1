// dnnl_get_effective_cpu_isa under every cap, set through
// dnnl_set_max_cpu_isa and through ONEDNN_MAX_CPU_ISA, against what
// /proc/cpuinfo says this CPU has. Each cap runs in a forked child because
// the cap freezes once the library has dispatched.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "common/kt_test.hpp"
#include "dnnl.h"

namespace {

std::set<std::string> cpu_flags() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, 5, "flags") != 0) continue;
        std::istringstream words(line.substr(line.find(':') + 1));
        std::set<std::string> f;
        for (std::string w; words >> w;)
            f.insert(w);
        return f;
    }
    return {};
}

// The tiers Kestrel reports, from the kernel's flag names, highest first.
struct tier_t {
    dnnl_cpu_isa_t isa;
    const char *env;
    bool present;
};

} // namespace

int main() {
    kt::tally_t tally;
    const std::set<std::string> f = cpu_flags();
    tally.check(!f.empty(), "/proc/cpuinfo lists the CPU flags");
    auto has = [&](const char *x) { return f.count(x) != 0; };
    const bool avx2 = has("avx2") && has("fma");
    const bool avx512 = avx2 && has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq");
    const tier_t tiers[] = {
            {dnnl_cpu_isa_avx512_core_bf16, "AVX512_CORE_BF16", avx512 && has("avx512_vnni") && has("avx512_bf16")},
            {dnnl_cpu_isa_avx512_core_vnni, "AVX512_CORE_VNNI", avx512 && has("avx512_vnni")},
            {dnnl_cpu_isa_avx512_core, "AVX512_CORE", avx512},
            {dnnl_cpu_isa_avx2_vnni, "AVX2_VNNI", avx2 && has("avx_vnni")},
            {dnnl_cpu_isa_avx2, "AVX2", avx2},
            {dnnl_cpu_isa_avx, "AVX", has("avx")},
            {dnnl_cpu_isa_sse41, "SSE41", true},
    };
    // The expected answer under a cap: the highest tier present whose bits
    // all lie within the cap.
    auto expect = [&](unsigned cap) {
        for (const tier_t &t : tiers)
            if (t.present && (cap & (unsigned)t.isa) == (unsigned)t.isa) return t.isa;
        return dnnl_cpu_isa_sse41;
    };
    for (int via_env = 0; via_env < 2; ++via_env) {
        for (const tier_t &t : tiers) {
            std::fflush(nullptr);
            pid_t pid = fork();
            if (pid == 0) {
                if (via_env) {
                    setenv("ONEDNN_MAX_CPU_ISA", t.env, 1);
                } else if (dnnl_set_max_cpu_isa(t.isa) != dnnl_success) {
                    _exit(3);
                }
                _exit(dnnl_get_effective_cpu_isa() == expect((unsigned)t.isa) ? 0 : 2);
            }
            int st = -1;
            waitpid(pid, &st, 0);
            std::string what = std::string(via_env ? "ONEDNN_MAX_CPU_ISA=" : "dnnl_set_max_cpu_isa ") + t.env
                    + ": effective ISA is the highest tier the CPU has within the cap";
            tally.check(WIFEXITED(st) && WEXITSTATUS(st) == 0, what.c_str());
        }
    }
    // No cap: the highest tier the CPU has.
    tally.check(dnnl_get_effective_cpu_isa() == expect(~0u), "no cap: the highest tier present");
    tally.check(dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2) == dnnl_invalid_arguments,
            "the cap is frozen once the effective ISA has been read");
    return tally.finish();
}
