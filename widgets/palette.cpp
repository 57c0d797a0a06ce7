#include "widgets/palette.h"
#include "core/hw/device_spec.h"

#include <QHash>
#include <cmath>

namespace widgets {

const QVector<QColor>& okabeIto() {
  static const QVector<QColor> colors = {
      QColor(0xE6, 0x9F, 0x00),  // orange
      QColor(0x56, 0xB4, 0xE9),  // sky blue
      QColor(0x00, 0x9E, 0x73),  // bluish green
      QColor(0xF0, 0xE4, 0x42),  // yellow
      QColor(0x00, 0x72, 0xB2),  // blue
      QColor(0xD5, 0x5E, 0x00),  // vermillion
      QColor(0xCC, 0x79, 0xA7),  // reddish purple
      QColor(0x00, 0x00, 0x00),  // black
  };
  return colors;
}

namespace {

double channel(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

double luminance(const QColor& c) {
  return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

}  // namespace

double contrastRatio(const QColor& a, const QColor& b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor readableOn(const QColor& color, const QColor& background, double minRatio) {
  if (contrastRatio(color, background) >= minRatio) return color;
  const bool lighten = luminance(background) < 0.18;
  QColor c = color.toHsl();
  // HSL lightness in small steps: the first that reads is the one nearest the original.
  for (int step = 0; step < 100; ++step) {
    const double l = std::clamp(c.lightnessF() + (lighten ? 0.01 : -0.01), 0.0, 1.0);
    c.setHslF(c.hslHueF(), c.hslSaturationF(), l, c.alphaF());
    if (contrastRatio(c, background) >= minRatio) break;
  }
  return c.toRgb();
}

QColor deviceColor(const QString& deviceId, ChartTheme theme) {
  const bool dark = theme == ChartTheme::Dark;
  const ChartColors palette = chartColors(theme);
  // The measured host stands apart from every simulated device: the theme's text colour.
  if (deviceId == core::hw::kHostDeviceId) return dark ? palette.text : QColor(0x33, 0x33, 0x33);
  // Catalog ids get distinct colours; the devices a preset sets side by side never share one
  // (G1: t4, a100, tpu-v5e-8; the LLM presets: h100, h200, b200, mi300x, tpu-v5e-8).
  static const QHash<QString, int> fixed = {
      {"cpu-skylake", 0}, {"k80", 6},       {"p100", 1},      {"v100", 4},      {"t4", 2},
      {"a100", 5},        {"h100", 3},      {"h200", 1},      {"b200", 2},      {"mi300x", 5},
      {"tpu-v2-8", 2},    {"tpu-v3-8", 6},  {"tpu-v4-8", 0},  {"tpu-v5e-8", 4}, {"tpu-v5p-8", 1},
      {"tpu-v6e-8", 5},
  };
  const auto& c = okabeIto();
  QColor col;
  if (const auto it = fixed.find(deviceId); it != fixed.end()) {
    col = c[it.value()];
    // TPUs share hues with GPUs: shift them away from the background so the pair stays
    // apart once both are made readable (darker on white, lighter on the dark grey).
    if (deviceId.startsWith("tpu")) col = dark ? col.lighter(125) : col.darker(135);
  } else {
    col = c[static_cast<int>(qHash(deviceId) % 7)];
  }
  return readableOn(col, palette.background, dark ? kDarkSeriesContrast : kLightSeriesContrast);
}

}  // namespace widgets
