// Verbose mode: the only code in the library allowed to print. Levels and
// the environment variable follow oneDNN (ONEDNN_VERBOSE, DNNL_VERBOSE).
#ifndef KESTREL_CORE_VERBOSE_HPP
#define KESTREL_CORE_VERBOSE_HPP

#include <cstdio>

namespace kestrel {
namespace verbose {

constexpr int level_none = 0;
constexpr int level_exec = 1; // execution lines, arena reports
constexpr int level_create = 2; // also creation and dispatch decisions

int level();
void set_level(int level);
inline bool enabled(int at) { return level() >= at; }

// One line to stdout prefixed with "onednn_verbose,"; thread-safe.
void print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// Milliseconds from a monotonic clock.
double now_ms();

} // namespace verbose
} // namespace kestrel

#endif
