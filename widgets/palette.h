#pragma once
// Colours for devices and runs. Okabe–Ito's colour-blind-safe set: a device keeps the same
// colour on every chart, derived from its id, so "v100" is the same blue everywhere.
#include <QColor>
#include <QString>
#include <QVector>

namespace widgets {

// The eight Okabe–Ito colours (black last; it is kept for reference markers).
const QVector<QColor>& okabeIto();

// A stable colour for a device id: fixed for the catalog's ids, hashed for user devices.
QColor deviceColor(const QString& deviceId);

}  // namespace widgets
