#include "core/verbose.hpp"

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace kestrel {
namespace verbose {

namespace {

int parse_env() {
    const char *v = std::getenv("ONEDNN_VERBOSE");
    if (!v) v = std::getenv("DNNL_VERBOSE");
    if (!v || !*v) return level_none;
    if (!std::strcmp(v, "all") || !std::strcmp(v, "dispatch")) return level_create;
    if (!std::strcmp(v, "profile_exec") || !std::strcmp(v, "profile")) return level_exec;
    if (!std::strcmp(v, "none")) return level_none;
    char *end = nullptr;
    long l = std::strtol(v, &end, 10);
    if (end == v) return level_none;
    return l < 0 ? 0 : (int)l;
}

std::atomic<int> current {-1};
std::mutex print_mu;

} // namespace

int level() {
    int l = current.load(std::memory_order_relaxed);
    if (l < 0) {
        int parsed = parse_env();
        current.compare_exchange_strong(l, parsed);
        l = current.load(std::memory_order_relaxed);
    }
    return l;
}

void set_level(int l) { current.store(l < 0 ? 0 : l); }

void print(const char *fmt, ...) {
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    std::lock_guard<std::mutex> g(print_mu);
    std::fprintf(stdout, "onednn_verbose,%.3f,%s\n", now_ms(), line);
    std::fflush(stdout);
}

double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

} // namespace verbose
} // namespace kestrel
