/* Kestrel: oneDNN-style include path; the header itself lives one level
 * up (in $includedir when installed). */
#ifndef KESTREL_FWD_ONEAPI_DNNL_H
#define KESTREL_FWD_ONEAPI_DNNL_H
#include <dnnl.h>
#endif
