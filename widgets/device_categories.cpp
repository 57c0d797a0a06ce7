#include "widgets/device_categories.h"

#include <qcustomplot.h>

#include <cmath>

#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

DeviceCategories::DeviceCategories(int runCount) : m_runCount(std::max(1, runCount)) {}

QString DeviceCategories::keyOf(const DeviceResult& d) {
  return QStringLiteral("%1|%2|%3|%4").arg(d.deviceId).arg(d.count).arg(d.vcpus).arg(d.measured);
}

double DeviceCategories::barWidth() const { return 0.8 / m_runCount; }

double DeviceCategories::slot(int category, int runIndex) const {
  if (m_runCount == 1) return category;
  return category + (runIndex - (m_runCount - 1) / 2.0) * barWidth();
}

double DeviceCategories::add(int runIndex, const DeviceResult& d) {
  const double x = add(runIndex, keyOf(d), deviceShortName(d));
  m_slotsByDevice[QStringLiteral("%1/%2").arg(runIndex).arg(d.deviceId)].push_back(x);
  return x;
}

double DeviceCategories::add(int runIndex, const QString& key, const QString& label) {
  auto category = static_cast<int>(m_keys.indexOf(key));
  if (category < 0) {
    category = static_cast<int>(m_keys.size());
    m_keys << key;
    m_labels << label;
    m_subLabels << QString();
  }
  return slot(category, runIndex);
}

std::optional<double> DeviceCategories::position(int runIndex, const QString& deviceId) const {
  const auto it = m_slotsByDevice.find(QStringLiteral("%1/%2").arg(runIndex).arg(deviceId));
  if (it == m_slotsByDevice.end() || it->isEmpty()) return std::nullopt;
  return it->front();
}

void DeviceCategories::setSubLabel(double position, const QString& text) {
  const int category = static_cast<int>(std::lround(position));
  if (category < 0 || category >= m_subLabels.size()) return;
  if (m_subLabels[category].isEmpty()) {
    m_subLabels[category] = text;
  } else if (!m_subLabels[category].split(" / ").contains(text)) {
    m_subLabels[category] += " / " + text;
  }
}

void DeviceCategories::applyTo(QCPAxis* axis) const {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int i = 0; i < m_keys.size(); ++i) {
    const QString label =
        m_subLabels[i].isEmpty() ? m_labels[i] : m_labels[i] + "\n" + m_subLabels[i];
    ticker->addTick(i, label);
  }
  axis->setTicker(ticker);
  axis->setSubTicks(false);
  axis->setTickLength(0, 4);
  axis->grid()->setVisible(false);
}

}  // namespace widgets
