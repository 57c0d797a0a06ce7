#include "app/gui/run_status_widget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <cmath>

namespace app::gui {

RunStatusWidget::RunStatusWidget(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_rate = new QLabel(this);
  m_rate->setObjectName("imagesPerSecond");
  m_rate->setMinimumWidth(fontMetrics().horizontalAdvance("00,000 images/s") + 8);
  m_rate->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  m_bar = new QProgressBar(this);
  m_bar->setObjectName("runProgress");
  m_bar->setRange(0, 1000);
  m_bar->setTextVisible(true);
  m_bar->setMinimumWidth(260);
  layout->addWidget(m_rate);
  layout->addWidget(m_bar);
  showIdle();
}

QString RunStatusWidget::formatEta(double s) {
  if (!std::isfinite(s) || s < 0) return QObject::tr("estimating…");
  const auto total = static_cast<long long>(std::llround(s));
  if (total < 60) return QObject::tr("%1 s").arg(total);
  if (total < 3600) return QObject::tr("%1 min %2 s").arg(total / 60).arg(total % 60, 2, 10, QChar('0'));
  return QObject::tr("%1 h %2 min").arg(total / 3600).arg((total % 3600) / 60, 2, 10, QChar('0'));
}

void RunStatusWidget::showProgress(const RunProgress& p, bool paused) {
  m_bar->setEnabled(true);
  m_bar->setValue(static_cast<int>(std::lround(p.fraction * 1000)));
  const QString head = tr("epoch %1/%2 · %3%").arg(p.epoch).arg(p.epochs).arg(std::floor(p.fraction * 100), 0, 'f', 0);
  m_bar->setFormat(paused ? tr("%1 · paused").arg(head) : tr("%1 · ETA %2").arg(head, formatEta(p.etaSeconds)));
  if (p.imagesPerSecond <= 0) m_rate->setText({});
  else if (p.tokensPerSample > 0) m_rate->setText(tr("%1 tokens/s").arg(QLocale().toString(p.imagesPerSecond * p.tokensPerSample, 'f', 0)));
  else m_rate->setText(tr("%1 images/s").arg(QLocale().toString(p.imagesPerSecond, 'f', 0)));
}

void RunStatusWidget::showIdle(const QString& text) {
  m_bar->setValue(0);
  m_bar->setFormat(text.isEmpty() ? tr("idle") : text);
  m_bar->setEnabled(false);
  m_rate->clear();
}

QString RunStatusWidget::rateText() const { return m_rate->text(); }
QString RunStatusWidget::etaText() const { return m_bar->format(); }
int RunStatusWidget::percent() const { return m_bar->value() / 10; }

}  // namespace app::gui
