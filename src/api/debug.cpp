/* Kestrel: the dnnl_*2str() functions of dnnl_debug.h.
 *
 * The value -> name lookups come from debug_tables.inc, which
 * gen-debug-tables.sh writes from the enums of the public headers at build
 * time; this file only adds the text returned for values an enum does not
 * define (the same "unknown <kind>" strings oneDNN returns). */

#include "dnnl_debug.h"

#include "debug_tables.inc"

namespace {

inline const char *name_or(const char *name, const char *unknown) {
    return name != nullptr ? name : unknown;
}

} // namespace

extern "C" {

const char DNNL_API *dnnl_status2str(dnnl_status_t v) {
    return name_or(kestrel_dbg_dnnl_status_t(v), "unknown status");
}

const char DNNL_API *dnnl_dt2str(dnnl_data_type_t v) {
    return name_or(kestrel_dbg_dnnl_data_type_t(v), "unknown dt");
}

const char DNNL_API *dnnl_fpmath_mode2str(dnnl_fpmath_mode_t v) {
    return name_or(kestrel_dbg_dnnl_fpmath_mode_t(v), "unknown fpmath_mode");
}

const char DNNL_API *dnnl_accumulation_mode2str(dnnl_accumulation_mode_t v) {
    return name_or(kestrel_dbg_dnnl_accumulation_mode_t(v),
            "unknown accumulation_mode");
}

const char DNNL_API *dnnl_engine_kind2str(dnnl_engine_kind_t v) {
    return name_or(kestrel_dbg_dnnl_engine_kind_t(v), "unknown engine_kind");
}

const char DNNL_API *dnnl_sparse_encoding2str(dnnl_sparse_encoding_t v) {
    return name_or(kestrel_dbg_dnnl_sparse_encoding_t(v),
            "unknown sparse_encoding");
}

const char DNNL_API *dnnl_fmt_tag2str(dnnl_format_tag_t v) {
    return name_or(kestrel_dbg_dnnl_format_tag_t(v), "unknown fmt_tag");
}

const char DNNL_API *dnnl_prop_kind2str(dnnl_prop_kind_t v) {
    return name_or(kestrel_dbg_dnnl_prop_kind_t(v), "unknown prop_kind");
}

const char DNNL_API *dnnl_prim_kind2str(dnnl_primitive_kind_t v) {
    return name_or(kestrel_dbg_dnnl_primitive_kind_t(v), "unknown prim_kind");
}

const char DNNL_API *dnnl_alg_kind2str(dnnl_alg_kind_t v) {
    return name_or(kestrel_dbg_dnnl_alg_kind_t(v), "unknown alg_kind");
}

const char DNNL_API *dnnl_rnn_flags2str(dnnl_rnn_flags_t v) {
    return name_or(kestrel_dbg_dnnl_rnn_flags_t(v), "unknown rnn_flags");
}

const char DNNL_API *dnnl_rnn_direction2str(dnnl_rnn_direction_t v) {
    return name_or(
            kestrel_dbg_dnnl_rnn_direction_t(v), "unknown rnn_direction");
}

const char DNNL_API *dnnl_scratchpad_mode2str(dnnl_scratchpad_mode_t v) {
    return name_or(
            kestrel_dbg_dnnl_scratchpad_mode_t(v), "unknown scratchpad_mode");
}

const char DNNL_API *dnnl_rounding_mode2str(dnnl_rounding_mode_t v) {
    return name_or(
            kestrel_dbg_dnnl_rounding_mode_t(v), "unknown rounding_mode");
}

const char DNNL_API *dnnl_cpu_isa2str(dnnl_cpu_isa_t v) {
    return name_or(kestrel_dbg_dnnl_cpu_isa_t(v), "unknown cpu_isa");
}

const char DNNL_API *dnnl_cpu_isa_hints2str(dnnl_cpu_isa_hints_t v) {
    return name_or(
            kestrel_dbg_dnnl_cpu_isa_hints_t(v), "unknown cpu_isa_hints");
}

const char DNNL_API *dnnl_fmt_kind2str(dnnl_format_kind_t v) {
    return name_or(kestrel_dbg_dnnl_format_kind_t(v), "unknown fmt_kind");
}

/* Runtimes are macros, not an enum; the names are the ones oneDNN prints
 * (SYCL only exists in SYCL builds, so it is "unknown" here too). */
const char DNNL_API *dnnl_runtime2str(unsigned v) {
    switch (v) {
        case DNNL_RUNTIME_NONE: return "none";
        case DNNL_RUNTIME_SEQ: return "sequential";
        case DNNL_RUNTIME_OMP: return "OpenMP";
        case DNNL_RUNTIME_TBB: return "TBB";
        case DNNL_RUNTIME_OCL: return "OpenCL";
        case DNNL_RUNTIME_THREADPOOL: return "threadpool";
#ifdef DNNL_WITH_SYCL
        case DNNL_RUNTIME_SYCL: return "DPC++";
#endif
        default: return "unknown";
    }
}

} // extern "C"
