#include "widgets/palette.h"

#include <QHash>

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

QColor deviceColor(const QString& deviceId) {
  // Catalog ids get distinct colours; the host (measured) is black-ish so it stands apart.
  static const QHash<QString, int> fixed = {
      {"host", 7}, {"cpu-skylake", 0}, {"k80", 5}, {"p100", 1}, {"v100", 4},
      {"t4", 2}, {"a100", 6}, {"h100", 3}, {"tpu-v2-8", 2}, {"tpu-v3-8", 6}, {"tpu-v4-8", 0},
  };
  const auto& c = okabeIto();
  if (const auto it = fixed.find(deviceId); it != fixed.end()) {
    QColor col = c[it.value()];
    // TPUs share hues with GPUs; darken them so the pair stays distinguishable.
    if (deviceId.startsWith("tpu")) col = col.darker(135);
    if (deviceId == "host") col = QColor(0x33, 0x33, 0x33);
    return col;
  }
  return c[static_cast<int>(qHash(deviceId) % 7)];
}

}  // namespace widgets
