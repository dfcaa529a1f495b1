// Verbose mode: the only code in the library allowed to print. The switches
// follow oneDNN v3.9: ONEDNN_VERBOSE (or DNNL_VERBOSE) is a comma-separated
// list of none, error, warn, check, profile_create, profile_exec, profile,
// dispatch, all, debuginfo=N and the legacy numbers 0, 1, 2;
// ONEDNN_VERBOSE_TIMESTAMP=1 adds the start time of each call as a column.
// Unlike oneDNN, nothing is printed by default (DESIGN: the library is
// silent unless verbose mode is on).
#ifndef KESTREL_CORE_VERBOSE_HPP
#define KESTREL_CORE_VERBOSE_HPP

#include <cstddef>
#include <cstdio>

namespace kestrel {
struct pd_t;

namespace verbose {

// One bit per kind of message; debuginfo's level sits in the top byte.
enum flag_t : unsigned {
    flag_none = 0,
    flag_error = 1u << 0,
    flag_warn = 1u << 1,
    flag_create_check = 1u << 2,
    flag_exec_check = 1u << 3,
    flag_create_profile = 1u << 4,
    flag_exec_profile = 1u << 5,
    flag_dispatch = 1u << 6,
    flag_all = (1u << 7) - 1,
};
constexpr int debuginfo_shift = 24;

// The names older call sites use.
constexpr unsigned level_exec = flag_exec_profile; // exec lines, arena reports
constexpr unsigned level_create = flag_create_profile; // create lines

// The flags in force: from the environment on first use, or as
// dnnl_set_verbose last set them.
unsigned flags();
inline bool enabled(unsigned any_of) { return (flags() & any_of) != 0; }
int debuginfo();
bool timestamp();

// Parses a value of ONEDNN_VERBOSE into flags (exposed for tests).
unsigned parse(const char *value);
// dnnl_set_verbose: 0 silences, 1 profiles execution, 2 also creation.
void set_level(int level);

// One line to stdout: "onednn_verbose,v1,[timestamp,]" then the text;
// thread-safe. The first line printed is preceded by the info header.
void print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// The same with the timestamp column set to a given wall-clock time.
void print_at(double wall_ms, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Milliseconds from a monotonic clock, and since the Unix epoch.
double now_ms();
double wall_ms();

// The fields oneDNN prints after the operation for a primitive descriptor:
// engine,primitive,implementation,prop_kind,memory_descriptors,attributes,
// auxiliary,problem_desc. Writes into `buf` (truncating) and returns it;
// allocates nothing.
const char *pd_info(const pd_t *pd, char *buf, size_t cap);
constexpr size_t info_cap = 4096;

} // namespace verbose
} // namespace kestrel

#endif
