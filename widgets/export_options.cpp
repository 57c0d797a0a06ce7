#include "widgets/export_options.h"

#include <QObject>
#include <cmath>

namespace widgets {
namespace {

constexpr double kCmPerInch = 2.54;
constexpr double kLayoutDpi = 96.0;

// Inches of a length in the options' unit (px at the options' dpi).
double inches(double value, ExportOptions::Unit unit, int dpi) {
  switch (unit) {
    case ExportOptions::Unit::Cm: return value / kCmPerInch;
    case ExportOptions::Unit::In: return value;
    case ExportOptions::Unit::Px: break;
  }
  return value / dpi;
}

int rounded(double v) { return static_cast<int>(std::lround(v)); }

}  // namespace

ExportOptions ExportOptions::screen() { return {}; }

QSize ExportOptions::layoutSize() const {
  return {rounded(inches(width, unit, dpi) * kLayoutDpi), rounded(inches(height, unit, dpi) * kLayoutDpi)};
}

QSize ExportOptions::imageSize() const {
  if (unit == Unit::Px) return {rounded(width), rounded(height)};
  return {rounded(inches(width, unit, dpi) * dpi), rounded(inches(height, unit, dpi) * dpi)};
}

QSizeF ExportOptions::pagePoints() const {
  return {inches(width, unit, dpi) * 72.0, inches(height, unit, dpi) * 72.0};
}

QString ExportOptions::validate() const {
  if (!std::isfinite(width) || !std::isfinite(height) || width <= 0 || height <= 0)
    return QObject::tr("width and height must be positive (got %1 × %2 %3)").arg(width).arg(height).arg(unitName(unit));
  if (dpi < kMinDpi || dpi > kMaxDpi)
    return QObject::tr("dpi %1 is out of range [%2, %3]").arg(dpi).arg(kMinDpi).arg(kMaxDpi);
  if (!std::isfinite(fontScale) || fontScale < kMinFontScale || fontScale > kMaxFontScale)
    return QObject::tr("font scale %1 is out of range [%2, %3]").arg(fontScale).arg(kMinFontScale).arg(kMaxFontScale);
  const QSize layout = layoutSize();
  if (layout.width() < kMinLayoutPx || layout.height() < kMinLayoutPx * 3 / 4)
    return QObject::tr("%1 × %2 %3 at %4 dpi is too small for a chart (at least %5 × %6 cm)")
        .arg(width).arg(height).arg(unitName(unit)).arg(dpi)
        .arg(kMinLayoutPx / kLayoutDpi * kCmPerInch, 0, 'f', 1)
        .arg(kMinLayoutPx * 3 / 4 / kLayoutDpi * kCmPerInch, 0, 'f', 1);
  const QSize image = imageSize();
  if (image.width() > kMaxImagePx || image.height() > kMaxImagePx)
    return QObject::tr("the image would be %1 × %2 px; at most %3 px a side (lower the dpi or the size)")
        .arg(image.width()).arg(image.height()).arg(kMaxImagePx);
  return {};
}

QString ExportOptions::summary() const {
  const QSize image = imageSize();
  const QString size = unit == Unit::Px
      ? QStringLiteral("%1 × %2 px").arg(image.width()).arg(image.height())
      : QStringLiteral("%1 × %2 %3").arg(width, 0, 'g', 4).arg(height, 0, 'g', 4).arg(unitName(unit));
  return QObject::tr("%1 at %2 dpi, fonts ×%3 (%4 pt)")
      .arg(size).arg(dpi).arg(fontScale, 0, 'f', 2).arg(9.0 * fontScale, 0, 'g', 3);
}

QString unitName(ExportOptions::Unit unit) {
  switch (unit) {
    case ExportOptions::Unit::Cm: return QStringLiteral("cm");
    case ExportOptions::Unit::In: return QStringLiteral("in");
    case ExportOptions::Unit::Px: break;
  }
  return QStringLiteral("px");
}

bool unitFromName(const QString& name, ExportOptions::Unit& unit) {
  for (ExportOptions::Unit u : {ExportOptions::Unit::Px, ExportOptions::Unit::Cm, ExportOptions::Unit::In}) {
    if (unitName(u) == name) {
      unit = u;
      return true;
    }
  }
  return false;
}

const QList<ExportPreset>& exportPresets() {
  using U = ExportOptions::Unit;
  // Paper widths: a journal's single column is 8.3–8.9 cm (IEEE 8.89, Elsevier 9.0,
  // Springer 8.4), a full-width figure 17–18 cm; 600 dpi is the usual line-art minimum.
  static const QList<ExportPreset> presets = {
      {QStringLiteral("screen"), QObject::tr("Screen (2000 × 1240 px, 2×)"), ExportOptions::screen()},
      {QStringLiteral("slide"), QObject::tr("Slide 16:9 (1920 × 1080 px, large fonts)"), {1920, 1080, U::Px, 144, 1.6}},
      {QStringLiteral("one-column"), QObject::tr("One-column paper (8.5 cm wide, 9 pt)"), {8.5, 6.5, U::Cm, 600, 1.0}},
      {QStringLiteral("two-column"), QObject::tr("Two-column paper (17.8 cm wide, 9 pt)"), {17.8, 8.0, U::Cm, 600, 1.0}},
  };
  return presets;
}

const ExportPreset* matchingExportPreset(const ExportOptions& options) {
  for (const ExportPreset& p : exportPresets())
    if (p.options == options) return &p;
  return nullptr;
}

}  // namespace widgets
