#pragma once
// How a chart is exported: its size in pixels, centimetres or inches, the resolution, and a
// font-size scale; plus named presets (the screen default, a slide, one- and two-column paper).
//
// A chart is always laid out at its physical size at 96 dpi (the screen's logical pixels), so
// a 9 pt font is 9 pt on the printed page whatever the size: an 8.5 cm column is laid out
// 321 px wide with the chart's 9 pt base font. PNG is rendered at dpi / 96 times that and
// records the dpi; PDF and SVG take the physical size as their page size.
#include <QList>
#include <QSize>
#include <QSizeF>
#include <QString>

namespace widgets {

struct ExportOptions {
  enum class Unit { Px, Cm, In };

  double width = 2000;      // in `unit`
  double height = 1240;
  Unit unit = Unit::Px;
  int dpi = 192;            // PNG resolution (and px ↔ length conversion)
  double fontScale = 1.0;   // 1 = the chart's 9 pt base font

  static constexpr int kMinDpi = 72;
  static constexpr int kMaxDpi = 1200;
  static constexpr double kMinFontScale = 0.5;
  static constexpr double kMaxFontScale = 3.0;
  static constexpr int kMinLayoutPx = 200;      // narrower than ~5 cm cannot hold a chart
  static constexpr int kMaxImagePx = 16000;     // per side of a PNG

  // The default: what exports always were (1000×620 laid out, PNG at 2×).
  static ExportOptions screen();

  // Size the chart is laid out at (96 dpi pixels), size of the PNG in pixels, and the
  // physical size in points (1/72 in) that PDF and SVG pages get.
  QSize layoutSize() const;
  QSize imageSize() const;
  QSizeF pagePoints() const;
  double pixelRatio() const { return dpi / 96.0; }

  // Empty when usable, else what is wrong, naming the field and the allowed range.
  QString validate() const;
  // "8.5 × 6.5 cm at 600 dpi, fonts ×1.0" (for the dialog and the message bar).
  QString summary() const;

  bool operator==(const ExportOptions&) const = default;
};

QString unitName(ExportOptions::Unit unit);        // "px", "cm", "in"
bool unitFromName(const QString& name, ExportOptions::Unit& unit);

struct ExportPreset {
  QString id;           // "screen", "slide", "one-column", "two-column"
  QString title;        // what the dialog lists
  ExportOptions options;
};

// In the order the dialog lists them; the first is the default.
const QList<ExportPreset>& exportPresets();
// The preset whose options these are exactly, or nullptr (custom).
const ExportPreset* matchingExportPreset(const ExportOptions& options);

}  // namespace widgets
