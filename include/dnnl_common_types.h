/* Kestrel: types shared by every part of the C API (status codes, data
 * types, engines, streams, version). Names and values follow oneDNN v3.9's
 * dnnl_common_types.h so that binaries built against oneDNN run on Kestrel. */

#ifndef ONEAPI_DNNL_DNNL_COMMON_TYPES_H
#define ONEAPI_DNNL_DNNL_COMMON_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "dnnl_config.h"

/* Symbol visibility. dnnl_config.h normally provides these; the fallbacks
 * keep this header usable on its own. */
#ifndef DNNL_API
#if defined(__GNUC__) || defined(__clang__)
#define DNNL_API __attribute__((visibility("default")))
#else
#define DNNL_API
#endif
#endif

#ifndef DNNL_DEPRECATED
#if defined(__GNUC__) || defined(__clang__)
#define DNNL_DEPRECATED __attribute__((deprecated))
#elif defined(_MSC_VER)
#define DNNL_DEPRECATED __declspec(deprecated)
#else
#define DNNL_DEPRECATED
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Result of every API call. */
typedef enum {
    dnnl_success = 0,
    dnnl_out_of_memory = 1,
    dnnl_invalid_arguments = 2,
    dnnl_unimplemented = 3,
    dnnl_last_impl_reached = 4,
    dnnl_runtime_error = 5,
    dnnl_not_required = 6,
    dnnl_invalid_graph = 7,
    dnnl_invalid_graph_op = 8,
    dnnl_invalid_shape = 9,
    dnnl_invalid_data_type = 10,
} dnnl_status_t;

/* Element types. */
typedef enum {
    dnnl_data_type_undef = 0,
    dnnl_f16 = 1,
    dnnl_bf16 = 2,
    dnnl_f32 = 3,
    dnnl_s32 = 4,
    dnnl_s8 = 5,
    dnnl_u8 = 6,
    dnnl_f64 = 7,
    dnnl_boolean = 8,
    dnnl_f8_e5m2 = 9,
    dnnl_f8_e4m3 = 10,
    dnnl_s4 = 11,
    dnnl_u4 = 12,
    dnnl_e8m0 = 13,
    dnnl_f4_e2m1 = 14,
    dnnl_f4_e3m0 = 15,

    /* keeps internal values inside the enum's range */
    dnnl_data_type_max = 0x7fff,
} dnnl_data_type_t;

#define DNNL_MAX_NDIMS 12

typedef int64_t dnnl_dim_t;
typedef dnnl_dim_t dnnl_dims_t[DNNL_MAX_NDIMS];

/* Implicit down-conversions a primitive may use for f32 math. */
typedef enum {
    dnnl_fpmath_mode_strict,
    dnnl_fpmath_mode_bf16,
    dnnl_fpmath_mode_f16,
    dnnl_fpmath_mode_any,
    dnnl_fpmath_mode_tf32,
} dnnl_fpmath_mode_t;

/* Accumulator precision a primitive may use. */
typedef enum {
    dnnl_accumulation_mode_strict,
    dnnl_accumulation_mode_relaxed,
    dnnl_accumulation_mode_any,
    dnnl_accumulation_mode_s32,
    dnnl_accumulation_mode_f32,
    dnnl_accumulation_mode_f16
} dnnl_accumulation_mode_t;

typedef enum {
    dnnl_any_engine,
    dnnl_cpu,
    dnnl_gpu,
} dnnl_engine_kind_t;

struct dnnl_engine;
typedef struct dnnl_engine *dnnl_engine_t;

typedef enum {
    dnnl_stream_in_order = 0x1U,
    dnnl_stream_out_of_order = 0x2U,
    dnnl_stream_default_flags = dnnl_stream_in_order,
#ifdef DNNL_EXPERIMENTAL_PROFILING
    dnnl_stream_profiling = 0x4U,
#endif

    /* keeps internal values inside the enum's range */
    dnnl_stream_flags_max = 0x7fff,
} dnnl_stream_flags_t;

struct dnnl_stream;
typedef struct dnnl_stream *dnnl_stream_t;
typedef const struct dnnl_stream *const_dnnl_stream_t;

/* Returned by dnnl_version(). */
typedef struct {
    int major;
    int minor;
    int patch;
    const char *hash;
    unsigned cpu_runtime;
    unsigned gpu_runtime;
} dnnl_version_t;

/* Special handle values for memory creation: no buffer / library-allocated
 * buffer. */
#define DNNL_MEMORY_NONE (NULL)
#define DNNL_MEMORY_ALLOCATE ((void *)(size_t)-1)

#ifdef __cplusplus
}
#endif

#endif /* ONEAPI_DNNL_DNNL_COMMON_TYPES_H */
