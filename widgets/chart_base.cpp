#include "widgets/chart_base.h"

#include <qcustomplot.h>

#include <QAbstractScrollArea>
#include <QCheckBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QMap>
#include <QSettings>
#include <QScrollBar>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/chart_base_keys.h"
#include "widgets/palette.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"

namespace widgets {

namespace {

constexpr int kRefreshIntervalMs = 33;   // ≤ ~30 redraws per second
using namespace chart_keys;

}  // namespace

ChartBase::ChartBase(const QString& chartId, const QString& title, QWidget* parent)
    : QWidget(parent), m_chartId(chartId), m_title(title) {
  setObjectName("chart_" + chartId);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(2);

  auto* header = new QHBoxLayout;
  m_controls = new QHBoxLayout;
  header->addLayout(m_controls);
  header->addStretch(1);
  m_logYBox = nullptr;
  auto* fit = new QToolButton(this);
  fit->setText(tr("Fit"));
  fit->setToolTip(tr("Fit the axes to the data and follow new data (or double-click the chart)"));
  connect(fit, &QToolButton::clicked, this, &ChartBase::fitToData);
  m_maxButton = new QToolButton(this);
  m_maxButton->setCheckable(true);
  m_maxButton->setText(tr("Maximise"));
  m_maxButton->setToolTip(tr("Show this chart alone"));
  connect(m_maxButton, &QToolButton::toggled, this, [this](bool on) {
    m_maxButton->setText(on ? tr("Restore") : tr("Maximise"));
    Q_EMIT maximiseRequested(on);
  });
  m_infoButton = new QToolButton(this);
  m_infoButton->setText(tr("About"));
  m_infoButton->setCheckable(true);
  m_infoButton->setToolTip(tr("What this chart shows"));
  connect(m_infoButton, &QToolButton::toggled, this, [this] { updateExplanationVisibility(); });
  header->addWidget(m_infoButton);
  header->addWidget(fit);
  header->addWidget(m_maxButton);
  layout->addLayout(header);

  m_plot = new QCustomPlot(this);
  m_plot->setObjectName("plot_" + chartId);
  m_plot->setMinimumSize(320, 200);  // four charts fit a 1280x800 window when chosen (ChartDeck)
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->installEventFilter(this);  // the wheel scrolls the page unless Ctrl is held
  m_plot->setToolTip(tr("Drag to pan · Ctrl + wheel to zoom · Fit to follow the data again"));
  m_plot->setNoAntialiasingOnDrag(true);
  m_plot->setAntialiasedElements(QCP::aePlottables | QCP::aeItems | QCP::aeLegendItems);
  // Layout: title (row 0), axis rect(s) (row 1), legend (row 2).
  m_plot->plotLayout()->insertRow(0);
  m_titleElement = new QCPTextElement(m_plot, title, chartFont(1.2, true));
  m_plot->plotLayout()->addElement(0, 0, m_titleElement);
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  // The legend sits in a padded cell under the plot, so its frame is never cut off.
  m_legendCell = new QCPLayoutGrid;
  m_legendCell->setMargins(QMargins(6, 2, 6, 6));
  m_plot->plotLayout()->addElement(2, 0, m_legendCell);
  m_legendCell->addElement(0, 0, m_plot->legend);
  m_legendSpacer = new QCPLayoutElement(m_plot);
  m_legendSpacer->setMinimumSize(0, 0);
  m_legendSpacer->setMaximumSize(QWIDGETSIZE_MAX, 0);
  m_legendSpacer->setMargins(QMargins(0, 0, 0, 0));
  m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
  m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
  m_plot->plotLayout()->setRowSpacing(2);
  m_plot->legend->setVisible(true);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  m_plot->legend->setWrap(3);
  m_plot->legend->setMargins(QMargins(6, 3, 6, 3));
  m_plot->legend->setSelectableParts(QCPLegend::spNone);
  m_plot->legend->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
  m_plot->setAutoAddPlottableToLegend(true);
  layout->addWidget(m_plot, 1);

  // The legend as a flowing key under the plot when the plot is too small to hold it.
  m_key = new QLabel(this);
  m_key->setObjectName("legendKey");
  m_key->setWordWrap(true);
  m_key->setTextFormat(Qt::RichText);
  m_key->setVisible(false);
  layout->addWidget(m_key);

  m_notes = new QLabel(this);
  m_notes->setObjectName("notes");
  m_notes->setWordWrap(true);
  m_notes->setTextFormat(Qt::PlainText);
  m_notes->setVisible(false);
  // At most three lines under the plot; the whole text is in the tooltip.
  m_notes->setMaximumHeight(m_notes->fontMetrics().lineSpacing() * 3 + 4);
  layout->addWidget(m_notes);
  m_explanation = new QLabel(this);
  m_explanation->setObjectName("explanation");
  m_explanation->setWordWrap(true);
  m_explanation->setTextFormat(Qt::PlainText);
  m_explanation->setForegroundRole(QPalette::PlaceholderText);
  layout->addWidget(m_explanation);

  m_refreshTimer = new QTimer(this);
  m_refreshTimer->setSingleShot(true);
  m_refreshTimer->setInterval(kRefreshIntervalMs);
  connect(m_refreshTimer, &QTimer::timeout, this, &ChartBase::doRefresh);

  connect(m_plot, &QCustomPlot::legendClick, this,
          [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) { onLegendClick(item); });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { fitToData(); });
  connect(m_plot, &QCustomPlot::mouseMove, this, &ChartBase::onMouseMove);
  connect(m_plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { m_autoFit = false; });
  connect(m_plot, &QCustomPlot::beforeReplot, this, [this] {
    placeReferenceLabels();
    syncToRanges();
  });

  applyChartTheme(m_plot, m_theme, m_scale);
}

ChartBase::~ChartBase() = default;

QString ChartBase::explanation() const { return m_explanation->text(); }
QString ChartBase::notes() const { return m_notesText; }

void ChartBase::setExplanation(const QString& text) {
  m_explanation->setText(text);
  m_infoButton->setToolTip(text);
  updateExplanationVisibility();
}

void ChartBase::updateExplanationVisibility() {
  // Shown when the chart has room (maximised, presentation) or when asked for.
  constexpr int kRoomyHeight = 560;
  const bool roomy = height() >= kRoomyHeight;
  m_explanation->setVisible(!m_explanation->text().isEmpty() && (m_infoButton->isChecked() || roomy));
  // Notes: in full when there is room, else one line (the whole text is in the tooltip).
  if (roomy || m_notesText.isEmpty()) {
    m_notes->setWordWrap(true);
    m_notes->setText(m_notesText);
  } else {
    m_notes->setWordWrap(false);
    const QString oneLine = QString(m_notesText).replace('\n', "  ");
    m_notes->setText(m_notes->fontMetrics().elidedText(oneLine, Qt::ElideRight,
                                                       std::max(40, width() - 12)));
  }
}

void ChartBase::setNotes(const QString& text) {
  m_notesText = text;
  m_notes->setToolTip(text);
  m_notes->setVisible(!text.isEmpty());
  updateExplanationVisibility();
}

void ChartBase::setStore(RunStore* store) {
  if (m_store == store) return;
  if (m_store) disconnect(m_store, nullptr, this, nullptr);
  m_store = store;
  if (m_store) {
    connect(m_store, &RunStore::runAdded, this, &ChartBase::scheduleRefresh);
    connect(m_store, &RunStore::runRemoved, this, &ChartBase::scheduleRefresh);
    connect(m_store, &RunStore::runChanged, this, &ChartBase::scheduleRefresh);
    connect(m_store, &RunStore::currentRunChanged, this, &ChartBase::scheduleRefresh);
    connect(m_store, &RunStore::destroyed, this, [this] { m_store = nullptr; });
  }
  scheduleRefresh();
}

void ChartBase::scheduleRefresh() {
  if (!m_refreshTimer->isActive()) m_refreshTimer->start();
}

void ChartBase::refreshNow() {
  m_refreshTimer->stop();
  doRefresh();
}

void ChartBase::doRefresh() {
  m_plot->clearItems();
  // Lines are kept for addLine to take again (streaming); every other plottable is redrawn.
  m_reusableLines.clear();
  m_frameOrder.clear();
  m_appendedPoints = 0;
  m_redrawnLines = 0;
  for (int i = m_plot->plottableCount() - 1; i >= 0; --i) {
    QCPAbstractPlottable* p = m_plot->plottable(i);
    const QString reuseKey = p->property(kReuseKeyProperty).toString();
    auto* graph = qobject_cast<QCPGraph*>(p);
    if (graph && !reuseKey.isEmpty()) m_reusableLines.insert(reuseKey, graph);
    else m_plot->removePlottable(p);
  }
  m_fitExtras.clear();
  setAxesShown(true);  // as the chart left them; addEmptyNote hides them again if still empty
  rebuild();
  for (QCPGraph* stale : std::as_const(m_reusableLines)) m_plot->removePlottable(stale);
  m_reusableLines.clear();
  // The legend in the order the plottables were made this time (as if drawn afresh).
  for (QCPAbstractPlottable* p : std::as_const(m_frameOrder)) {
    if (m_plot->legend->hasItemWithPlottable(p)) {
      p->removeFromLegend();
      p->addToLegend();
    }
  }
  // Run entries (overlaid runs) go after the device entries.
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = m_plot->plottable(i);
    if (p->property(kKeyProperty).toString().startsWith("run:")) {
      p->removeFromLegend();
      p->addToLegend();
    }
  }
  addEmptyNote();
  if (const int left = hiddenByCap(); left > 0) {
    auto* text = new QCPItemText(m_plot);
    text->setClipToAxisRect(false);
    text->position->setType(QCPItemPosition::ptAxisRectRatio);
    text->position->setAxisRect(mainRect());
    text->position->setCoords(1.0, 0.0);
    text->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    text->setFont(chartFont(0.85 * m_scale));
    text->setText(tr("newest %1 runs drawn; %2 more ticked in Runs").arg(kMaxShownRuns).arg(left));
  }
  applyChartTheme(m_plot, m_theme, m_scale);
  autoLogY();
  applyLogY();
  layoutForSize(m_plot->size());
  applyHiddenStates();
  if (m_autoFit) {
    fitToData();
  } else {
    m_plot->replot(QCustomPlot::rpQueuedReplot);
  }
  Q_EMIT refreshed();
}

void ChartBase::setTheme(ChartTheme theme) {
  if (m_theme == theme) return;
  m_theme = theme;
  refreshNow();   // items and markers take theme colours when drawn
}

void ChartBase::setPresentationScale(double scale) {
  scale = std::clamp(scale, 0.5, 3.0);
  if (m_scale == scale) return;
  m_scale = scale;
  m_titleElement->setFont(chartFont(1.2 * m_scale, true));
  QFont f = font();
  f.setPointSizeF(QFont().pointSizeF() * m_scale);
  m_explanation->setFont(f);
  m_notes->setFont(f);
  m_key->setFont(f);
  m_notes->setMaximumHeight(QFontMetrics(f).lineSpacing() * 3 + 4);
  refreshNow();
}

ChartColors ChartBase::colors() const { return chartColors(m_theme); }

QColor ChartBase::readable(const QColor& color) const {
  return readableOn(color, colors().background,
                    m_theme == ChartTheme::Dark ? kDarkSeriesContrast : kLightSeriesContrast);
}

QColor ChartBase::faint(const QColor& color) const {
  QColor c = readable(color);
  const double bar = m_theme == ChartTheme::Dark ? kDarkSeriesContrast : kLightSeriesContrast;
  const QColor bg = colors().background;
  for (int alpha = 70; alpha <= 255; alpha += 5) {
    const double a = alpha / 255.0;
    const QColor blended = QColor::fromRgbF(static_cast<float>(c.redF() * a + bg.redF() * (1 - a)),
                                            static_cast<float>(c.greenF() * a + bg.greenF() * (1 - a)),
                                            static_cast<float>(c.blueF() * a + bg.blueF() * (1 - a)));
    if (contrastRatio(blended, bg) >= bar) {
      c.setAlpha(alpha);
      return c;
    }
  }
  return c;
}
QColor ChartBase::textColor() const { return colors().text; }
QCPAxisRect* ChartBase::mainRect() const { return m_plot->axisRect(0); }

void ChartBase::enableLogYToggle() {
  if (m_logYBox) return;
  m_logYBox = new QCheckBox(tr("Log y"), this);
  m_logYBox->setToolTip(tr("Logarithmic value axis: compare devices that differ 100×"));
  connect(m_logYBox, &QCheckBox::toggled, this, &ChartBase::setLogY);
  // The user's own choice is remembered per chart, across restarts.
  connect(m_logYBox, &QCheckBox::clicked, this,
          [this](bool on) { QSettings().setValue("charts/" + m_chartId + "/log_y", on); });
  m_controls->addWidget(m_logYBox);
  if (const QVariant saved = QSettings().value("charts/" + m_chartId + "/log_y"); saved.isValid()) {
    m_logYChosen = true;
    m_logY = saved.toBool();
    const QSignalBlocker block(m_logYBox);
    m_logYBox->setChecked(m_logY);
  }
}

void ChartBase::setLogY(bool on) {
  if (!supportsLogY()) return;
  m_logYChosen = true;
  if (m_logY == on) return;
  m_logY = on;
  {
    const QSignalBlocker block(m_logYBox);
    m_logYBox->setChecked(on);
  }
  applyLogY();
  fitToData();
}

void ChartBase::autoLogY() {
  if (!supportsLogY() || m_logYChosen || !switchesToLogByItself()) return;
  // The widest span of any one value axis (the cost chart has two panels).
  QMap<QCPAxis*, QPair<double, double>> spans;
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = m_plot->plottable(i);
    if (!p->visible() || p->property(kKeyProperty).toString() == kReferenceKey) continue;
    if (p->valueAxis()->axisType() != QCPAxis::atLeft) continue;
    auto* iface = p->interface1D();
    if (!iface) continue;
    for (int k = 0; k < iface->dataCount(); ++k) {
      const double v = shownValue(p, k);
      if (!std::isfinite(v) || v <= 0) continue;
      auto it = spans.find(p->valueAxis());
      if (it == spans.end()) {
        spans.insert(p->valueAxis(), {v, v});
      } else {
        it->first = std::min(it->first, v);
        it->second = std::max(it->second, v);
      }
    }
  }
  if (spans.isEmpty()) return;
  double ratio = 1;
  for (const auto& [lo, hi] : spans) ratio = std::max(ratio, hi / lo);
  // Hysteresis: on above 30×, off again only below 10×, so live data does not flicker.
  const bool want = m_logY ? ratio > 10 : ratio > 30;
  if (want == m_logY) return;
  m_logY = want;
  const QSignalBlocker block(m_logYBox);
  m_logYBox->setChecked(want);
}

void ChartBase::applyLogY() {
  if (!supportsLogY()) return;
  for (QCPAxisRect* rect : m_plot->axisRects()) {
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    if (m_logY && y->scaleType() != QCPAxis::stLogarithmic) {
      y->setScaleType(QCPAxis::stLogarithmic);
      y->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
      y->setNumberFormat("gb");
      y->setNumberPrecision(3);
    } else if (!m_logY && y->scaleType() != QCPAxis::stLinear) {
      y->setScaleType(QCPAxis::stLinear);
      y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
      y->setNumberFormat("g");
      y->setNumberPrecision(6);
    }
  }
}

void ChartBase::fitToData() {
  m_fitting = true;
  // Bars measure from 0 while fitting (their log-axis base follows the range afterwards).
  for (int i = 0; i < m_plot->plottableCount(); ++i)
    if (auto* bars = qobject_cast<QCPBars*>(m_plot->plottable(i)); bars && !bars->barBelow())
      rebaseBars(bars, 0);
  for (QCPAxisRect* rect : m_plot->axisRects()) {
    for (QCPAxis* axis : rect->axes()) {
      bool found = false;
      QCPRange range;
      for (QCPAbstractPlottable* p : axis->plottables()) {
        if (!p->visible()) continue;
        bool ok = false;
        const QCP::SignDomain sign =
            axis->scaleType() == QCPAxis::stLogarithmic ? QCP::sdPositive : QCP::sdBoth;
        QCPRange r = p->keyAxis() == axis ? p->getKeyRange(ok, sign) : p->getValueRange(ok, sign);
        if (p->valueAxis() == axis && sign == QCP::sdPositive && p->interface1D()) {
          // QCPBars always counts its base (0) in; on a log axis take the values alone.
          ok = false;
          for (int k = 0; k < p->interface1D()->dataCount(); ++k) {
            const double v = shownValue(p, k);
            if (!std::isfinite(v) || v <= 0) continue;
            r = ok ? QCPRange(std::min(r.lower, v), std::max(r.upper, v)) : QCPRange(v, v);
            ok = true;
          }
        }
        if (!ok) continue;
        if (!found) {
          range = r;
          found = true;
        } else {
          range.expand(r);
        }
      }
      for (const auto& [a, v] : m_fitExtras) {
        if (a != axis || !std::isfinite(v)) continue;
        if (axis->scaleType() == QCPAxis::stLogarithmic && v <= 0) continue;
        if (!found) {
          range = QCPRange(v, v);
          found = true;
        } else {
          range.expand(v);
        }
      }
      if (!found) continue;
      if (axis->scaleType() == QCPAxis::stLogarithmic) {
        range.lower /= 1.35;
        range.upper *= 1.35;
      } else {
        double span = range.size();
        if (span <= 0) span = std::abs(range.lower) > 0 ? std::abs(range.lower) * 0.2 : 1.0;
        range.lower -= span * 0.06;
        range.upper += span * 0.08;
      }
      axis->setRange(range);
    }
  }
  adjustFit();
  syncToRanges();
  m_autoFit = true;
  m_fitting = false;
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartBase::includeInFit(QCPAxis* axis, double value) { m_fitExtras.push_back({axis, value}); }

void ChartBase::setSeriesHidden(const QString& key, bool hidden) {
  if (hidden) {
    m_hidden.insert(key);
  } else {
    m_hidden.remove(key);
  }
  applyHiddenStates();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QStringList ChartBase::seriesKeys() const {
  QStringList keys;
  for (int i = 0; i < m_plot->legend->itemCount(); ++i) {
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(m_plot->legend->item(i)))
      keys << item->plottable()->property(kKeyProperty).toString();
  }
  return keys;
}

int ChartBase::visibleGraphPoints(const QString& deviceId) const {
  int n = 0;
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = m_plot->plottable(i);
    if (!p->visible() || p->property(kKeyProperty).toString() == kReferenceKey) continue;
    if (!deviceId.isEmpty() && p->property("deviceId").toString() != deviceId) continue;
    if (auto* iface = p->interface1D()) {
      for (int k = 0; k < iface->dataCount(); ++k)
        if (std::isfinite(shownValue(p, k))) ++n;
    }
  }
  return n;
}

void ChartBase::applyHiddenStates() {
  const ChartColors c = colors();
  QColor dim = c.text;
  dim.setAlpha(90);
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = m_plot->plottable(i);
    // Hidden by its own entry, or (overlaid runs) by its device's or its run's entry.
    const bool hidden =
        m_hidden.contains(p->property(kKeyProperty).toString()) ||
        (!p->property("deviceId").toString().isEmpty() &&
         m_hidden.contains("device:" + p->property("deviceId").toString())) ||
        (p->property("runId").toInt() > 0 &&
         m_hidden.contains(QStringLiteral("run:%1").arg(p->property("runId").toInt())));
    p->setVisible(!hidden);
  }
  for (int i = 0; i < m_plot->itemCount(); ++i) {
    QCPAbstractItem* item = m_plot->item(i);
    const QString key = item->property(kKeyProperty).toString();
    if (!key.isEmpty()) item->setVisible(!m_hidden.contains(key));
  }
  for (int i = 0; i < m_plot->legend->itemCount(); ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(m_plot->legend->item(i));
    if (!item) continue;
    const bool hidden = m_hidden.contains(item->plottable()->property(kKeyProperty).toString());
    item->setTextColor(hidden ? dim : c.text);
  }
}

void ChartBase::onLegendClick(QCPAbstractLegendItem* item) {
  auto* pli = qobject_cast<QCPPlottableLegendItem*>(item);
  if (!pli) return;
  const QString key = pli->plottable()->property(kKeyProperty).toString();
  if (key.isEmpty()) return;
  setSeriesHidden(key, !m_hidden.contains(key));
}

void ChartBase::onMouseMove(QMouseEvent* event) {
  if (event->buttons() != Qt::NoButton) {
    m_autoFit = false;   // the user drags: stop following the data
    QToolTip::hideText();
    return;
  }
  const QString text = hoverText(event->position());
  if (text.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
  }
}

void ChartBase::setMaximised(bool maximised) {
  const QSignalBlocker block(m_maxButton);
  m_maxButton->setChecked(maximised);
  m_maxButton->setText(maximised ? tr("Restore") : tr("Maximise"));
}

bool ChartBase::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot && event->type() == QEvent::Wheel) {
    auto* wheel = static_cast<QWheelEvent*>(event);
    if (!(wheel->modifiers() & Qt::ControlModifier)) {
      // QCustomPlot accepts every wheel event, so the page would never scroll: hand it to
      // the enclosing scroll area's bar instead.
      for (QWidget* p = parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
          QCoreApplication::sendEvent(area->verticalScrollBar(), wheel);
          break;
        }
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace widgets
