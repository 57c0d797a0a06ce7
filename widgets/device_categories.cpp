#include "widgets/device_categories.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

QString DeviceCategories::keyOf(const DeviceResult& d) {
  return QStringLiteral("%1|%2|%3|%4").arg(d.deviceId).arg(d.count).arg(d.vcpus).arg(d.measured);
}

void DeviceCategories::add(int runIndex, const DeviceResult& d) {
  const QString key = keyOf(d);
  auto category = static_cast<int>(m_keys.indexOf(key));
  if (category < 0) {
    category = static_cast<int>(m_keys.size());
    m_keys << key;
    m_labels << deviceShortName(d).replace(QStringLiteral(" · "), QStringLiteral("\n"));   // "cpu-skylake" over "4 vCPUs": narrower
    m_subLabels << QString();
    m_runs.push_back({});
  }
  auto& runs = m_runs[category];
  if (!runs.contains(runIndex)) {
    runs.push_back(runIndex);
    std::sort(runs.begin(), runs.end());
  }
  const QString deviceKey = QStringLiteral("%1/%2").arg(runIndex).arg(d.deviceId);
  if (!m_firstKeyOfDevice.contains(deviceKey)) m_firstKeyOfDevice.insert(deviceKey, key);
}

double DeviceCategories::barWidth() const {
  qsizetype most = 1;
  for (const auto& runs : m_runs) most = std::max(most, runs.size());
  return 0.8 / static_cast<double>(most);
}

double DeviceCategories::slot(int category, int runIndex) const {
  const auto& runs = m_runs[category];
  const auto i = runs.indexOf(runIndex);
  if (runs.size() <= 1 || i < 0) return category;
  return category + (static_cast<double>(i) - (static_cast<double>(runs.size()) - 1) / 2.0) * barWidth();
}

double DeviceCategories::position(int runIndex, const DeviceResult& d) const {
  const auto category = static_cast<int>(m_keys.indexOf(keyOf(d)));
  return category < 0 ? 0.0 : slot(category, runIndex);
}

std::optional<double> DeviceCategories::position(int runIndex, const QString& deviceId) const {
  const auto it = m_firstKeyOfDevice.find(QStringLiteral("%1/%2").arg(runIndex).arg(deviceId));
  if (it == m_firstKeyOfDevice.end()) return std::nullopt;
  return slot(static_cast<int>(m_keys.indexOf(*it)), runIndex);
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
  // Names, not numbers: "beautiful powers" would typeset tpu-v5e-8 as tpu-v5·10⁻⁸.
  axis->setNumberFormat("g");
  axis->setSubTicks(false);
  axis->setTickLength(0, 4);
  axis->grid()->setVisible(false);
}

}  // namespace widgets
