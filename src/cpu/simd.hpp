// The one include of the x86 intrinsics headers. GCC 12 warns about
// uninitialized values inside its own avx512fintrin.h when some reductions
// are inlined (GCC bug 105593, fixed in GCC 13); the warning points into the
// system header, so it is silenced for that header alone. The build
// force-includes this file first so that no unit includes immintrin.h
// without the guard.
#ifndef KESTREL_CPU_SIMD_HPP
#define KESTREL_CPU_SIMD_HPP

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif
