// Verbose mode: the only code in the library allowed to print. The switches
// follow oneDNN v3.9: ONEDNN_VERBOSE (or DNNL_VERBOSE) is a comma-separated
// list of none, error, warn, check, profile_create, profile_exec, profile,
// dispatch, all, debuginfo=N and the legacy numbers 0, 1, 2;
// ONEDNN_VERBOSE_TIMESTAMP=1 adds the start time of each call as a column;
// filter=REGEX keeps the lines of the components the regex finds in their
// names. Unlike oneDNN, nothing is printed by default, not even errors
// (DESIGN: the library is silent unless verbose mode is on).
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

// Components a filter= regex selects lines by: "primitive" (every
// primitive kind), each primitive kind under its oneDNN name
// (dnnl_prim_kind2str), and Kestrel's "memory" and "scratchpad". A
// primitive kind is passed as its dnnl_primitive_kind_t value.
constexpr int component_primitive = 0;
constexpr int component_gemm_api = 60;
constexpr int component_memory = 61;
constexpr int component_scratchpad = 62;

// True when the flags in force include any of `any_of` and the filter lets
// the component's lines through. Costs the same single load as enabled()
// when verbose mode is off.
bool enabled(unsigned any_of, int component);

// Parses a value of ONEDNN_VERBOSE into flags (exposed for tests).
unsigned parse(const char *value);
// dnnl_set_verbose: 0 silences, 1 profiles execution, 2 also creation.
void set_level(int level);

// One line to stdout: "onednn_verbose,v1,[timestamp,]" then the text;
// thread-safe. The first line printed is preceded by the info header.
void print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// The same with the timestamp column set to a given wall-clock time.
void print_at(double wall_ms, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Reports a refused creation in check mode (see KESTREL_VCHECK):
// "primitive,create:check,<kind>,<reason>,<file>:<line>", or "common,..."
// with "memory" for a memory descriptor.
void check_failed(int component, const char *file, int line, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

// Reports a failed call at the error level:
// "<api>,error,<stage>,<component>,<text>" (api "primitive" or "common",
// stage "create" or "exec"). Call only on a failure path.
void error(const char *api, const char *stage, int component, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

// oneDNN's name of a component ("convolution", "memory", ...).
const char *component_name(int component);

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

// Argument check of a C entry point: when `cond` fails, says why in check
// mode (formatting only then) and returns `status`. `component` is the
// primitive kind, or verbose::component_memory.
#define KESTREL_VCHECK(cond, status, component, ...) \
    do { \
        if (!(cond)) { \
            if (::kestrel::verbose::enabled(::kestrel::verbose::flag_create_check)) \
                ::kestrel::verbose::check_failed((component), __FILE__, __LINE__, __VA_ARGS__); \
            return (status); \
        } \
    } while (0)

#endif
