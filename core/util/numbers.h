#pragma once
// Small numeric helpers shared by the JSON writers and the stack fit.
#include <cmath>
#include <cstdio>
#include <string>

namespace core::util {

// `v` rounded to `digits` significant digits (0, infinities and NaN unchanged).
inline double roundSignificant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(v)))));
  return std::round(v * scale) / scale;
}

// `v` as a message shows it: up to 6 significant digits, a power of ten when large or small
// ("0.95", "1e+308", "nan"), never a 309-digit number in full as std::to_string writes 1e308.
inline std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace core::util
