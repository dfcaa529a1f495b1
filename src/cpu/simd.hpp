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

// The register-tile kernels (direct convolution in f32, int8 and bf16) are
// templates instantiated hundreds of times, with their inner steps inlined
// and their loops unrolled. Under a sanitizer that code volume took the
// compilers minutes per file (the int8 AVX-512 tiles: 7.7 min with GCC's
// ASan+UBSan, over 10 with clang's fuzzing build), so builds configured
// with a sanitizer (KESTREL_SANITIZE, set by configure) keep the steps as
// calls and the loops rolled: the same source, checked as the sanitizer
// sees it, in a fraction of the time. Production builds are unaffected.
#define KESTREL_PRAGMA(x) _Pragma(#x)
#if defined(KESTREL_SANITIZE)
#define KESTREL_UNROLL(n)
#define KESTREL_TILE_STEP __attribute__((noinline))
#else
#define KESTREL_UNROLL(n) KESTREL_PRAGMA(GCC unroll n)
#define KESTREL_TILE_STEP __attribute__((always_inline)) inline
#endif

#endif
