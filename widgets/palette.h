#pragma once
// Colours for devices and runs. Okabe–Ito's colour-blind-safe set: a device keeps the same
// colour on every chart, derived from its id, so "v100" is the same blue everywhere.
#include <QColor>
#include <QString>
#include <QVector>

#include "widgets/chart_theme.h"

namespace widgets {

// The eight Okabe–Ito colours (black last; it is kept for reference markers).
const QVector<QColor>& okabeIto();

// A stable colour for a device id: fixed for the catalog's ids, hashed for user devices,
// made readable on the theme's plot background (readableOn): on the dark theme every device
// has at least 4.5:1 (WCAG AA, as for text) and the measured host is the theme's text colour;
// on the light theme at least 3:1 (WCAG's bar for graphics), the host near-black.
QColor deviceColor(const QString& deviceId, ChartTheme theme = ChartTheme::Light);

// WCAG 2 contrast ratio of two colours (1 … 21), from their relative luminance.
double contrastRatio(const QColor& a, const QColor& b);
// The colour with its hue and saturation kept and its lightness moved away from the
// background's until the contrast reaches `minRatio` (unchanged when it already does).
QColor readableOn(const QColor& color, const QColor& background, double minRatio);

// The contrast each theme asks of a series against its plot background.
inline constexpr double kDarkSeriesContrast = 4.5;
inline constexpr double kLightSeriesContrast = 3.0;

}  // namespace widgets
