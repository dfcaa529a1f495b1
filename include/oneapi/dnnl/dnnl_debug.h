/* Kestrel: oneDNN-style include path; the header itself lives one level
 * up (in $includedir when installed). */
#ifndef KESTREL_FWD_ONEAPI_DNNL_DEBUG_H
#define KESTREL_FWD_ONEAPI_DNNL_DEBUG_H
#include <dnnl_debug.h>
#endif
