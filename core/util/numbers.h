#pragma once
// Small numeric helpers shared by the JSON writers and the stack fit.
#include <cmath>

namespace core::util {

// `v` rounded to `digits` significant digits (0, infinities and NaN unchanged).
inline double roundSignificant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(v)))));
  return std::round(v * scale) / scale;
}

}  // namespace core::util
