/* Kestrel: oneDNN-style include path; the header itself lives one level
 * up (in $includedir when installed). */
#ifndef KESTREL_FWD_ONEAPI_DNNL_COMMON_H
#define KESTREL_FWD_ONEAPI_DNNL_COMMON_H
#include <dnnl_common.h>
#endif
