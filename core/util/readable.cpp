#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/util/numbers.h"

namespace core::util {

namespace {

constexpr const char* kNoValue = "\u2013";   // an en dash

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// |v| below 1000 with three significant digits, in fixed notation ("0.0000229", "12.3").
std::string threeDigits(double a) {
  if (a == 0) return "0";
  if (a >= 100) return fixed(a, 0);
  if (a >= 10) return fixed(a, 1);
  if (a >= 1) return fixed(a, 2);
  // Below 1, as %g would: no trailing zeros ("0.08", not "0.0800").
  const int decimals = std::min(15, 2 - static_cast<int>(std::floor(std::log10(a))));
  std::string text = fixed(a, decimals);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// The bands past a million, largest first.
struct Band {
  double scale;
  const char* unit;
};
constexpr Band kBands[] = {{1e12, " T"}, {1e9, " B"}, {1e6, " M"}};

// |v| with its magnitude: grouped below a million, M / B / T past it. The band is chosen after
// rounding (999,999.6 is "1.00 M", 999.96 is "1,000").
std::string magnitude(double a) {
  a = a < 1000 ? roundSignificant(a, 3) : std::round(a);
  if (a >= 1e6) a = roundSignificant(a, 3);
  if (a < 1000) return threeDigits(a);
  if (a < 1e6) return groupedWhole(a);
  for (const Band& u : kBands) {
    if (a < u.scale) continue;
    const double x = a / u.scale;
    return (x >= 1000 ? groupedWhole(x) : threeDigits(x)) + u.unit;
  }
  return groupedWhole(a);
}

// a >= 0 in fixed notation with its whole part grouped ("12,345.5"); the whole part is read
// back from the rounded text, so a carry (9,999.96 at one decimal) is grouped as written.
std::string groupedFixed(double a, int decimals) {
  const std::string text = fixed(a, decimals);
  const auto point = text.find('.');
  const std::string whole = groupedWhole(std::strtod(text.substr(0, point).c_str(), nullptr));
  return point == std::string::npos ? whole : whole + text.substr(point);
}

// A minus sign only on what is not written as zero ("-0" is noise from a subtraction).
std::string signed_(double v, const std::string& text) {
  return v < 0 && text.find_first_of("123456789") != std::string::npos ? "-" + text : text;
}

}  // namespace

std::string readableNumber(double v) {
  if (!std::isfinite(v)) return kNoValue;
  return signed_(v, magnitude(std::abs(v)));
}

std::string readableTick(double v, double step) {
  if (!std::isfinite(v)) return kNoValue;
  if (!(step > 0)) {   // a progression (1, 2, 5 x 10^k): the number as read, no trailing zeros
    std::string text = readableNumber(v);
    const auto end = std::min(text.find(' '), text.size());
    std::string number = text.substr(0, end);
    if (number.find('.') != std::string::npos) {
      while (number.back() == '0') number.pop_back();
      if (number.back() == '.') number.pop_back();
    }
    return number + text.substr(end);
  }
  const double a = std::abs(v) < 1e-9 * step ? 0.0 : std::abs(v);
  const double top = std::max(a, step);
  double scale = 1;
  std::string unit;
  for (const Band& b : kBands)
    if (top >= b.scale) {
      scale = b.scale;
      unit = b.unit;
      break;
    }
  // As many decimals as the step has (0.25 M: two), so that neighbours never read the same.
  const double s = step / scale;
  int decimals = 0;
  while (decimals < 12 && std::abs(std::round(s * std::pow(10.0, decimals)) - s * std::pow(10.0, decimals)) > 1e-6)
    ++decimals;
  return signed_(a == 0 ? 0.0 : v, groupedFixed(a / scale, decimals) + unit);
}

std::string readableMoney(double usd) {
  if (!std::isfinite(usd)) return kNoValue;
  const double a = std::abs(usd);
  const double cents = std::round(a * 100) / 100;   // $99.996 is $100, whole dollars
  std::string text;
  if (cents >= 1e6) text = magnitude(a);
  else if (cents >= 100) text = groupedWhole(a);
  else if (cents >= 1) text = fixed(a, 2);   // cents
  else {
    text = threeDigits(roundSignificant(a, 3));   // cents at least: $0.70, not $0.7
    const auto point = text.find('.');
    if (point != std::string::npos && text.size() < point + 3) text.append(point + 3 - text.size(), '0');
  }
  return signed_(usd, "$" + text);
}

std::string readableDuration(double s) {
  if (!std::isfinite(s)) return kNoValue;
  if (s < 0) return signed_(s, readableDuration(-s));
  const double r = roundSignificant(s, 3);   // the unit is chosen after rounding: 0.9996 s is "1.00 s"
  if (r < 1) return readableNumber(s * 1000) + " ms";
  if (r < 120) return (r < 10 ? fixed(s, 2) : fixed(s, 1)) + " s";
  if (r < 7200) return fixed(s / 60, 1) + " min";
  if (r < 172800) return fixed(s / 3600, 1) + " h";
  const double days = s / 86400;
  return (days < 999.95 ? fixed(days, 1) : readableNumber(days)) + " days";
}

}  // namespace core::util
