#pragma once
// Include Eigen through this header. GCC 12's AVX-512 intrinsics declare their "undefined"
// vectors as `__m512 __Y = __Y;`, which trips false -Wmaybe-uninitialized warnings once
// inlined into Eigen's packet math (GCC bug 105593, fixed in GCC 13). The warning is located
// in the intrinsics header, so it is silenced only where that header is first read: here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#include <Eigen/Core>
#pragma GCC diagnostic pop
#else
#include <Eigen/Core>
#endif
