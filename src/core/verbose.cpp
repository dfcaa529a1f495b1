#include "core/verbose.hpp"

// GCC 12 reports -Wmaybe-uninitialized inside libstdc++'s own <regex>
// automaton (std::function moved in _State) when built with the sanitizers;
// the warning is about the library header, not this file, so it is
// silenced for this translation unit, which is the only one using <regex>.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <regex>
#include <string>

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
// Unknown tokens (and filter=..., read apart) change nothing, as in oneDNN.
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

using mask_t = unsigned long long;
constexpr mask_t all_components = ~0ull;

// The components filter= can name (see verbose.hpp).
struct component_name_t {
    int id;
    const char *name;
};
const component_name_t extra_components[] = {{component_primitive, "primitive"},
        {component_gemm_api, "gemm_api"}, {component_memory, "memory"}, {component_scratchpad, "scratchpad"}};

} // namespace

const char *component_name(int c) {
    if (c > component_primitive && c < component_gemm_api) return dnnl_prim_kind2str((dnnl_primitive_kind_t)c);
    for (const auto &e : extra_components)
        if (e.id == c) return e.name;
    return "unknown";
}

namespace {

bool is_kind(int c) {
    return c > component_primitive && c < component_gemm_api
            && std::strncmp(dnnl_prim_kind2str((dnnl_primitive_kind_t)c), "unknown", 7) != 0;
}

// What the environment asked for, read once (a function-local static, so
// the regex is compiled once and thread-safely).
struct env_t {
    unsigned flags = flag_none;
    mask_t components = all_components;
    // A line for the header about the filter, empty without one.
    std::string filter_note;
};

// filter=REGEX: every component whose name the regex finds (regex_search,
// so "conv" selects convolution and deconvolution). A primitive kind's
// lines pass when the regex selects the kind or "primitive". A regex that
// does not compile filters nothing; one that selects nothing silences all,
// as in oneDNN; the header says which happened.
void apply_filter(env_t &e, const std::string &re_text) {
    mask_t m = 0;
    std::string hit;
    auto take = [&](int c, const std::regex &re) {
        if (!std::regex_search(component_name(c), re)) return;
        m |= 1ull << c;
        hit += hit.empty() ? "" : ",";
        hit += component_name(c);
    };
    try {
        const std::regex re(re_text);
        take(component_primitive, re);
        for (int k = component_primitive + 1; k < component_gemm_api; ++k)
            if (is_kind(k)) take(k, re);
        for (const auto &x : extra_components)
            if (x.id != component_primitive) take(x.id, re);
    } catch (const std::regex_error &err) {
        e.components = all_components;
        e.filter_note = "common,error,filter '" + re_text + "' is not a valid regular expression and is ignored ("
                + err.what() + ")";
        return;
    }
    e.components = m;
    e.filter_note = hit.empty() ? "common,error,filter '" + re_text + "' selects no component: nothing is printed"
                                : "common,info,filter selects components:" + hit;
}

env_t read_env() {
    env_t e;
    const char *v = std::getenv("ONEDNN_VERBOSE");
    if (!v) v = std::getenv("DNNL_VERBOSE");
    if (!v) return e; // silent by default (DESIGN), unlike oneDNN
    // As in oneDNN, a value that is set starts from the error messages;
    // none (or 0) clears them.
    e.flags = parse(v);
    // The last filter= wins.
    std::string last;
    for (const char *p = v; p && *p;) {
        const char *end = std::strchr(p, ',');
        const size_t n = end ? (size_t)(end - p) : std::strlen(p);
        if (n > 7 && !std::strncmp(p, "filter=", 7)) last.assign(p + 7, n - 7);
        p = end ? end + 1 : nullptr;
    }
    try {
        if (!last.empty()) apply_filter(e, last);
    } catch (...) {
        // Out of memory building the note: keep the filter off rather
        // than fail the call that first reads the flags.
        e.components = all_components;
        e.filter_note.clear();
    }
    return e;
}

const env_t &env() {
    static const env_t e = read_env();
    return e;
}

unsigned from_env() { return env().flags; }

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
    if (!env().filter_note.empty()) emit("", env().filter_note.c_str());
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
    unsigned f = flag_error;
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

bool enabled(unsigned any_of, int component) {
    if (!enabled(any_of)) return false;
    const mask_t m = env().components;
    if (m == all_components) return true;
    const bool kind = component > component_primitive && component < component_gemm_api;
    return ((m >> component) & 1) || (kind && (m & 1));
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

namespace {

// A line "<head>,<the caller's text>[,<tail>]" (tail omitted when null).
void print_reason(const char *head, const char *tail, const char *fmt, va_list ap) {
    char text[512];
    vsnprintf(text, sizeof(text), fmt, ap);
    if (tail)
        print("%s,%s,%s", head, text, tail);
    else
        print("%s,%s", head, text);
}

} // namespace

void check_failed(int component, const char *file, int line, const char *fmt, ...) {
    if (!enabled(flag_create_check, component)) return;
    char head[128], place[256];
    std::snprintf(head, sizeof(head), "%s,create:check,%s", component == component_memory ? "common" : "primitive",
            component_name(component));
    // The path from src/ on, as oneDNN prints it, whatever the build dir.
    const char *f = file;
    for (const char *p = std::strstr(file, "src/"); p; p = std::strstr(p + 1, "src/")) f = p;
    std::snprintf(place, sizeof(place), "%s:%d", f, line);
    va_list ap;
    va_start(ap, fmt);
    print_reason(head, place, fmt, ap);
    va_end(ap);
}

void error(const char *api, const char *stage, int component, const char *fmt, ...) {
    if (!enabled(flag_error, component)) return;
    char head[128];
    std::snprintf(head, sizeof(head), "%s,error,%s,%s", api, stage, component_name(component));
    va_list ap;
    va_start(ap, fmt);
    print_reason(head, nullptr, fmt, ap);
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
