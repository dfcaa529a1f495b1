/* Kestrel: common C API (engines, streams, global settings, version),
 * declared to match oneDNN v3.9's dnnl_common.h. */

/** @file
 * Engines, streams, process-wide settings, verbose mode and the version: the part of the C API that does not depend on primitives. */

#ifndef ONEAPI_DNNL_DNNL_COMMON_H
#define ONEAPI_DNNL_DNNL_COMMON_H

#include "dnnl_common_types.h"
#include "dnnl_config.h"
#include "dnnl_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup dnnl_api_engine Engines
 * An engine is the device primitives run on. Kestrel has one: the CPU.
 * @{ */
size_t DNNL_API dnnl_engine_get_count(dnnl_engine_kind_t kind);
/** Creates an engine. Kestrel has one CPU engine (kind dnnl_cpu, index 0).
 * @returns dnnl_success, or dnnl_invalid_arguments for another kind or index.
 */
dnnl_status_t DNNL_API dnnl_engine_create(
        dnnl_engine_t *engine, dnnl_engine_kind_t kind, size_t index);
dnnl_status_t DNNL_API dnnl_engine_get_kind(
        dnnl_engine_t engine, dnnl_engine_kind_t *kind);
/** Destroys an engine. NULL is accepted. */
dnnl_status_t DNNL_API dnnl_engine_destroy(dnnl_engine_t engine);

/** @} */

/** @defgroup dnnl_api_stream Streams
 * A stream orders the execution of primitives on an engine.
 * @{ */
/** Creates a stream on an engine. Execution on a CPU stream is synchronous: it is finished when dnnl_primitive_execute() returns. */
dnnl_status_t DNNL_API dnnl_stream_create(
        dnnl_stream_t *stream, dnnl_engine_t engine, unsigned flags);
dnnl_status_t DNNL_API dnnl_stream_get_engine(
        const_dnnl_stream_t stream, dnnl_engine_t *engine);
/** Waits for the work submitted to a stream; immediate on the CPU. */
dnnl_status_t DNNL_API dnnl_stream_wait(dnnl_stream_t stream);
/** Destroys a stream. NULL is accepted. */
dnnl_status_t DNNL_API dnnl_stream_destroy(dnnl_stream_t stream);

/** @} */

/** @defgroup dnnl_api_fpmath Process-wide default floating-point math mode
 * The floating-point math mode primitives get when their attributes do not set one (ONEDNN_DEFAULT_FPMATH_MODE sets the initial value).
 * @{ */
dnnl_status_t DNNL_API dnnl_get_default_fpmath_mode(dnnl_fpmath_mode_t *mode);
dnnl_status_t DNNL_API dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_t mode);

/** @} */

/** @defgroup dnnl_api_verbose Verbose output and library version
 * Verbose mode and version information.
 * @{ */
/** Sets the verbose level for the whole process, overriding ONEDNN_VERBOSE: 0 prints nothing, 1 prints a line per primitive execution, 2 also a line per primitive creation. Lines go to stdout in oneDNN's format (see dnnl(3)).
 * @returns dnnl_success, or dnnl_invalid_arguments for another level.
 */
dnnl_status_t DNNL_API dnnl_set_verbose(int level);
/** Returns the version of the API the library implements, the commit it was built from and its runtimes. The structure is static. */
const dnnl_version_t DNNL_API *dnnl_version(void);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* ONEAPI_DNNL_DNNL_COMMON_H */
