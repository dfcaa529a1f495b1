#include "core/verbose.hpp"

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cpu/isa.hpp"
#include "cpu/threading.hpp"
#include "dnnl_debug.h"
#include "dnnl.h"
#include "dnnl_version.h"

namespace kestrel {
namespace verbose {

namespace {

// The version of the line layout, as oneDNN v3.9 prints it after the marker
// so that log converters know which fields follow.
constexpr const char *layout_version = "v1";

// One comma-separated token of ONEDNN_VERBOSE applied to the flags so far.
// Unknown tokens (and filter=..., which Kestrel does not implement) change
// nothing, as in oneDNN.
unsigned apply_token(unsigned f, const char *tok, size_t n) {
    auto is = [&](const char *s) { return std::strlen(s) == n && !std::strncmp(tok, s, n); };
    if (is("0") || is("none")) return flag_none;
    if (is("1")) return f | flag_exec_profile;
    if (is("2")) return f | flag_exec_profile | flag_create_profile;
    if (is("all") || is("-1")) return f | flag_all;
    if (is("error")) return f | flag_error;
    if (is("warn")) return f | flag_warn;
    if (is("check")) return f | flag_create_check | flag_exec_check;
    if (is("dispatch")) return f | flag_dispatch;
    if (is("profile")) return f | flag_create_profile | flag_exec_profile;
    if (is("profile_create")) return f | flag_create_profile;
    if (is("profile_exec")) return f | flag_exec_profile;
    const size_t k = std::strlen("debuginfo=");
    if (n > k && !std::strncmp(tok, "debuginfo=", k)) {
        long l = std::strtol(tok + k, nullptr, 10);
        if (l < 0) l = 0;
        if (l > 255) l = 255;
        return (f & ((1u << debuginfo_shift) - 1)) | ((unsigned)l << debuginfo_shift);
    }
    return f;
}

unsigned from_env() {
    const char *v = std::getenv("ONEDNN_VERBOSE");
    if (!v) v = std::getenv("DNNL_VERBOSE");
    return v ? parse(v) : flag_none;
}

bool timestamp_from_env() {
    const char *v = std::getenv("ONEDNN_VERBOSE_TIMESTAMP");
    if (!v) v = std::getenv("DNNL_VERBOSE_TIMESTAMP");
    return v && std::strtol(v, nullptr, 10) != 0;
}

// Flags plus one: 0 means "not read yet".
std::atomic<unsigned long> current {0};
std::atomic<int> stamp {-1};
std::mutex print_mu;
bool header_done = false; // guarded by print_mu

// oneDNN's wording for the instruction set in the header.
const char *isa_description(dnnl_cpu_isa_t isa) {
    switch (isa) {
        case dnnl_cpu_isa_sse41: return "Intel SSE4.1";
        case dnnl_cpu_isa_avx: return "Intel AVX";
        case dnnl_cpu_isa_avx2: return "Intel AVX2";
        case dnnl_cpu_isa_avx2_vnni: return "Intel AVX2 with Intel DL Boost";
        case dnnl_cpu_isa_avx512_core: return "Intel AVX-512 with AVX512BW, AVX512VL, and AVX512DQ extensions";
        case dnnl_cpu_isa_avx512_core_vnni: return "Intel AVX-512 with Intel DL Boost";
        case dnnl_cpu_isa_avx512_core_bf16: return "Intel AVX-512 with Intel DL Boost and bfloat16 support";
        default: return dnnl_cpu_isa2str(isa);
    }
}

void emit(const char *stamp_col, const char *text) {
    std::fprintf(stdout, "onednn_verbose,%s,%s%s\n", layout_version, stamp_col, text);
}

// The info header, once per process, before the first line of any kind.
void header_locked() {
    if (header_done) return;
    header_done = true;
    const dnnl_version_t *v = dnnl_version();
    char line[512];
    std::snprintf(line, sizeof(line), "info,oneDNN v%d.%d.%d (commit %s)", v->major, v->minor, v->patch,
            v->hash);
    emit("", line);
    std::snprintf(line, sizeof(line), "info,cpu,runtime:%s,nthr:%d", dnnl_runtime2str(v->cpu_runtime),
            max_threads());
    emit("", line);
    std::snprintf(line, sizeof(line), "info,cpu,isa:%s", isa_description(isa::effective_cpu_isa()));
    emit("", line);
    std::snprintf(line, sizeof(line), "info,gpu,runtime:%s", dnnl_runtime2str(v->gpu_runtime));
    emit("", line);
    std::snprintf(line, sizeof(line),
            "primitive,info,template:%soperation,engine,primitive,implementation,prop_kind,"
            "memory_descriptors,attributes,auxiliary,problem_desc,exec_time",
            timestamp() ? "timestamp," : "");
    emit("", line);
}

void vprint_at(double wall, const char *fmt, va_list ap) {
    char line[info_cap + 256];
    vsnprintf(line, sizeof(line), fmt, ap);
    char col[64] = "";
    if (timestamp()) std::snprintf(col, sizeof(col), "%f,", wall);
    std::lock_guard<std::mutex> g(print_mu);
    header_locked();
    emit(col, line);
    std::fflush(stdout);
}

} // namespace

unsigned parse(const char *v) {
    unsigned f = flag_none;
    if (!v) return f;
    for (const char *p = v;;) {
        const char *e = std::strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : std::strlen(p);
        f = apply_token(f, p, n);
        if (!e) break;
        p = e + 1;
    }
    return f;
}

unsigned flags() {
    unsigned long c = current.load(std::memory_order_relaxed);
    if (c == 0) {
        unsigned long parsed = (unsigned long)from_env() + 1;
        current.compare_exchange_strong(c, parsed);
        c = current.load(std::memory_order_relaxed);
    }
    return (unsigned)(c - 1);
}

int debuginfo() { return (int)(flags() >> debuginfo_shift); }

bool timestamp() {
    int s = stamp.load(std::memory_order_relaxed);
    if (s < 0) {
        int parsed = timestamp_from_env() ? 1 : 0;
        stamp.compare_exchange_strong(s, parsed);
        s = stamp.load(std::memory_order_relaxed);
    }
    return s == 1;
}

void set_level(int l) {
    unsigned f = flag_none;
    // The legacy numbers keep error messages on and record the number as
    // the debuginfo level, as oneDNN does.
    if (l >= 1) f = flag_error | flag_exec_profile | ((unsigned)l << debuginfo_shift);
    if (l >= 2) f |= flag_create_profile;
    current.store((unsigned long)f + 1);
}

void print(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprint_at(wall_ms(), fmt, ap);
    va_end(ap);
}

void print_at(double wall, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprint_at(wall, fmt, ap);
    va_end(ap);
}

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

double wall_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(system_clock::now().time_since_epoch()).count();
}

} // namespace verbose
} // namespace kestrel
