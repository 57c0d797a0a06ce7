#pragma once
// Small numeric helpers shared by the JSON writers, the stack fit and the explanations.
#include <cmath>
#include <cstdio>
#include <string>

namespace core::util {

// `v` rounded to `digits` significant digits (0, infinities and NaN unchanged).
inline double roundSignificant(double v, int digits) {
  if (v == 0 || !std::isfinite(v)) return v;
  // Always multiply or divide by an exact power of ten (10^-e is not exact: 999.6e9 once came
  // back as 999,999,999,999.9999, below the 1e12 it rounds to).
  const int e = digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(v))));
  if (e >= 0) {
    const double scale = std::pow(10.0, e);
    return std::round(v * scale) / scale;
  }
  const double scale = std::pow(10.0, -e);
  return std::round(v / scale) * scale;
}

// `v` as a message shows it: up to 6 significant digits, a power of ten when large or small
// ("0.95", "1e+308", "nan"), never a 309-digit number in full as std::to_string writes 1e308.
inline std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A fraction as an explanation shows it: 0.426 -> "43%".
inline std::string percentText(double fraction) {
  return std::to_string(static_cast<int>(std::lround(100.0 * fraction))) + "%";
}

// `v` as an explanation shows it: `digits` significant digits, whole thousands written out
// ("5000", not "5e+03") and a power of ten past them ("1e+20", not 21 digits).
inline std::string explainedNumber(double v, int digits = 3) {
  char buf[64];
  if (std::abs(v) >= 1000 && std::abs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// A whole amount a person reads (dollars, devices, samples): rounded, thousands grouped,
// never a power of ten below 1e15 ("105,220", "-3,000"; "1e+16" past that).
inline std::string groupedWhole(double v) {
  if (!std::isfinite(v) || std::abs(v) >= 1e15) return shortNumber(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", std::abs(std::round(v)));
  std::string digits = buf, out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (std::round(v) < 0 ? "-" : "") + out;
}

// Figures a person reads, one rule for the app and the CLI's text (readable.cpp): three
// significant digits, thousands grouped below a million, M / B / T above it, never a power of
// ten; "–" for NaN and infinities.
//   readableNumber: 0.00123, 1.23, 12.3, 123, 5,930, 16,834, 1.23 M, 4.56 B, 15 T, 15,000 T
//   readableMoney:  $0.0000229, $0.0123, $12.35, $1,234, $1.23 M (negative: -$5.00)
//   readableDuration: 850 ms, 42.0 s, 3.5 min, 2.0 h, 12.3 days, 2,224 days
std::string readableNumber(double v);
std::string readableMoney(double usd);
std::string readableDuration(double seconds);
// An axis tick by the same rule: for ticks `step` apart, the band of the larger of the tick and
// the step with as many decimals as the step needs ("120.5" between "120.0" and "121.0",
// "2.50 M" by 0.25 M, "200,000"); for a progression (step 0: 1, 2, 5 x 10^k on a log axis),
// readableNumber without trailing zeros ("0.05", "1,000", "2 M").
std::string readableTick(double v, double step);

}  // namespace core::util
