#include "widgets/chart_frame.h"

#include <qcustomplot.h>

#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QScrollBar>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "widgets/chart_keys.h"
#include "widgets/palette.h"

// ChartFrame: the frame's widgets, refresh, theme, log-y, fit, hidden series and the mouse.
namespace widgets {

namespace {

constexpr int kRefreshIntervalMs = 33;   // ≤ ~30 redraws per second
using namespace chart_keys;

}  // namespace

ChartFrame::ChartFrame(const QString& chartId, const QString& title, QWidget* parent)
    : QWidget(parent), m_chartId(chartId), m_title(title) {
  setObjectName("chart_" + chartId);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(2);
  createHeader(layout);
  createPlot();
  layout->addWidget(m_plot, 1);
  createTexts(layout);

  m_refreshTimer = new QTimer(this);
  m_refreshTimer->setSingleShot(true);
  m_refreshTimer->setInterval(kRefreshIntervalMs);
  connect(m_refreshTimer, &QTimer::timeout, this, &ChartFrame::doRefresh);

  connect(m_plot, &QCustomPlot::legendClick, this,
          [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) { onLegendClick(item); });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { fitToData(); });
  connect(m_plot, &QCustomPlot::mouseMove, this, &ChartFrame::onMouseMove);
  connect(m_plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { m_autoFit = false; });
  connect(m_plot, &QCustomPlot::beforeReplot, this, [this] {
    placeReferenceLabels();
    syncToRanges();
  });
  // Every layout (on screen, and each export's at its own size) before anything is drawn.
  connect(m_plot, &QCustomPlot::afterLayout, this, [this] { fitToLayout(); });

  applyChartTheme(m_plot, m_theme, m_scale);
}

void ChartFrame::createHeader(QVBoxLayout* layout) {
  auto* header = new QHBoxLayout;
  m_controls = new QHBoxLayout;
  header->addLayout(m_controls);
  header->addStretch(1);
  auto* fit = new QToolButton(this);
  fit->setText(tr("Fit"));
  fit->setToolTip(tr("Fit the axes to the data and follow new data (or double-click the chart)"));
  connect(fit, &QToolButton::clicked, this, &ChartFrame::fitToData);
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
}

void ChartFrame::createPlot() {
  m_plot = new QCustomPlot(this);
  m_plot->setObjectName("plot_" + m_chartId);
  m_plot->setMinimumSize(320, 200);  // four charts fit a 1280x800 window when chosen (ChartDeck)
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->installEventFilter(this);  // the wheel scrolls the page unless Ctrl is held
  m_plot->setToolTip(tr("Drag to pan · Ctrl + wheel to zoom · Fit to follow the data again"));
  m_plot->setNoAntialiasingOnDrag(true);
  m_plot->setAntialiasedElements(QCP::aePlottables | QCP::aeItems | QCP::aeLegendItems);
  // Layout: title (row 0), axis rect(s) (row 1), legend (row 2).
  m_plot->plotLayout()->insertRow(0);
  m_titleElement = new QCPTextElement(m_plot, m_title, chartFont(1.2, true));
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
  // Row 1 of the legend's cell: the caption (what the legend's short run names stand for).
  m_legendCell->setRowSpacing(0);
  m_caption = new QCPTextElement(m_plot, QString(), chartFont(1.0));
  m_caption->setProperty("legendCaption", true);
  m_caption->setTextFlags(Qt::AlignLeft | Qt::AlignTop);
  m_caption->setMargins(QMargins(8, 2, 8, 0));
  m_captionSpacer = new QCPLayoutElement(m_plot);
  m_captionSpacer->setMinimumSize(0, 0);
  m_captionSpacer->setMaximumSize(QWIDGETSIZE_MAX, 0);
  m_captionSpacer->setMargins(QMargins(0, 0, 0, 0));
  m_legendCell->addElement(1, 0, m_captionSpacer);
  m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
  m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
  m_plot->plotLayout()->setRowSpacing(2);
  m_plot->legend->setVisible(true);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
  m_plot->legend->setWrap(3);
  m_plot->legend->setMargins(QMargins(6, 3, 6, 3));
  m_plot->legend->setSelectableParts(QCPLegend::spNone);
  m_plot->legend->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
  m_plot->setAutoAddPlottableToLegend(true);
}

// The texts under the plot: the legend as a key (when too big), the notes, the explanation.
void ChartFrame::createTexts(QVBoxLayout* layout) {
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
  // Elided to the chart's width when short of room: its text must never set the chart's least
  // width (a one-line note elided at 630 px kept the chart 630 px wide, and the deck scrolled
  // sideways at 1280x800).
  m_notes->setMinimumWidth(1);
  // At most three lines under the plot; the whole text is in the tooltip.
  m_notes->setMaximumHeight(m_notes->fontMetrics().lineSpacing() * 3 + 4);
  layout->addWidget(m_notes);
  m_explanation = new QLabel(this);
  m_explanation->setObjectName("explanation");
  m_explanation->setWordWrap(true);
  m_explanation->setTextFormat(Qt::PlainText);
  m_explanation->setForegroundRole(QPalette::PlaceholderText);
  layout->addWidget(m_explanation);
}

ChartFrame::~ChartFrame() = default;

QString ChartFrame::explanation() const { return m_explanation->text(); }
QString ChartFrame::notes() const { return m_notesText; }

void ChartFrame::setExplanation(const QString& text) {
  m_explanation->setText(text);
  m_infoButton->setToolTip(text);
  updateExplanationVisibility();
}

void ChartFrame::updateExplanationVisibility() {
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

void ChartFrame::setNotes(const QString& text) {
  m_notesText = text;
  m_notes->setToolTip(text);
  m_notes->setVisible(!text.isEmpty());
  updateExplanationVisibility();
}

void ChartFrame::scheduleRefresh() {
  if (!m_refreshTimer->isActive()) m_refreshTimer->start();
}

void ChartFrame::refreshNow() {
  m_refreshTimer->stop();
  doRefresh();
}

void ChartFrame::clearForRebuild() {
  for (int i = m_plot->plottableCount() - 1; i >= 0; --i) m_plot->removePlottable(m_plot->plottable(i));
}

void ChartFrame::doRefresh() {
  m_plot->clearItems();
  m_frameOrder.clear();
  clearForRebuild();
  m_fitExtras.clear();
  setAxesShown(true);  // as the chart left them; addEmptyNote hides them again if still empty
  rebuild();
  afterRebuild();
  addEmptyNote();
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

void ChartFrame::setTheme(ChartTheme theme) {
  if (m_theme == theme) return;
  m_theme = theme;
  refreshNow();   // items and markers take theme colours when drawn
}

void ChartFrame::setPresentationScale(double scale) {
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

ChartColors ChartFrame::colors() const { return chartColors(m_theme); }

QColor ChartFrame::readable(const QColor& color) const {
  return readableOn(color, colors().background,
                    m_theme == ChartTheme::Dark ? kDarkSeriesContrast : kLightSeriesContrast);
}

QColor ChartFrame::faint(const QColor& color) const {
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
QColor ChartFrame::textColor() const { return colors().text; }
QCPAxisRect* ChartFrame::mainRect() const { return m_plot->axisRect(0); }

void ChartFrame::setSeriesHidden(const QString& key, bool hidden) {
  if (hidden) {
    m_hidden.insert(key);
  } else {
    m_hidden.remove(key);
  }
  applyHiddenStates();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QStringList ChartFrame::seriesKeys() const {
  QStringList keys;
  for (int i = 0; i < m_plot->legend->itemCount(); ++i) {
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(m_plot->legend->item(i)))
      keys << item->plottable()->property(kKeyProperty).toString();
  }
  return keys;
}

int ChartFrame::visibleGraphPoints(const QString& deviceId) const {
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

void ChartFrame::applyHiddenStates() {
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

void ChartFrame::onLegendClick(QCPAbstractLegendItem* item) {
  auto* pli = qobject_cast<QCPPlottableLegendItem*>(item);
  if (!pli) return;
  const QString key = pli->plottable()->property(kKeyProperty).toString();
  if (key.isEmpty()) return;
  setSeriesHidden(key, !m_hidden.contains(key));
}

void ChartFrame::onMouseMove(QMouseEvent* event) {
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

void ChartFrame::setMaximised(bool maximised) {
  const QSignalBlocker block(m_maxButton);
  m_maxButton->setChecked(maximised);
  m_maxButton->setText(maximised ? tr("Restore") : tr("Maximise"));
}

void ChartFrame::setMaximisable(bool on) { m_maxButton->setVisible(on); }

bool ChartFrame::eventFilter(QObject* watched, QEvent* event) {
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
