#include "widgets/llm_format.h"
#include "core/util/units.h"

#include <cmath>

namespace widgets::llm_format {

QString count(double v) {
  if (!std::isfinite(v)) return QStringLiteral("–");
  const double a = std::abs(v);
  if (a >= 1e9) return QString::number(v / 1e9, 'g', 3) + " B";
  if (a >= 1e6) return QString::number(v / 1e6, 'g', 3) + " M";
  if (a >= 1e4) return QString::number(v / 1e3, 'g', 3) + " k";
  return QString::number(v, 'g', 3);
}

QString duration(double s) {
  if (!std::isfinite(s) || s <= 0) return QStringLiteral("–");
  if (s < 120) return QString::number(s, 'g', 3) + " s";
  if (s < 7200) return QString::number(s / 60, 'f', 1) + " min";
  if (s < 172800) return QString::number(s / 3600, 'f', 1) + " h";
  return QString::number(s / 86400, 'f', 1) + " days";
}

QString gib(double bytes) { return QString::number(bytes / core::util::kBytesPerGib, 'f', 1); }

}  // namespace widgets::llm_format
