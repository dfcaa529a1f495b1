/* Kestrel: oneDNN-style include path; the header itself lives one level
 * up (in $includedir when installed). */
#ifndef KESTREL_FWD_ONEAPI_DNNL_COMMON_HPP
#define KESTREL_FWD_ONEAPI_DNNL_COMMON_HPP
#include <dnnl_common.hpp>
#endif
