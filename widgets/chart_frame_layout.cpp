#include "widgets/chart_frame.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QLabel>
#include <QToolButton>
#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/chart_keys.h"
#include "widgets/run_data.h"

// ChartFrame: hover text, the empty-chart note, legend layout for a size, reference label
// placement.
namespace widgets {

namespace {

using namespace chart_keys;

QString unitSuffix(const QString& unit) {
  if (unit.isEmpty()) return {};
  if (unit == "%") return unit;
  return " " + unit;
}

// Lines of at most `width` pixels: each part whole on a line where it fits (after `separator`
// when it does not start the line), a part too long for a line broken at its spaces; never
// inside a word.
QStringList wrapParts(const QStringList& parts, const QFontMetrics& metrics, int width, const QString& separator) {
  QStringList lines;
  auto fits = [&](const QString& text) { return metrics.horizontalAdvance(text) <= width; };
  for (const QString& part : parts) {
    if (!lines.isEmpty() && fits(lines.last() + separator + part)) {
      lines.last() += separator + part;
    } else if (fits(part)) {
      lines << part;
    } else {
      lines << QString();
      for (const QString& word : part.split(' ', Qt::SkipEmptyParts)) {
        const QString longer = lines.last().isEmpty() ? word : lines.last() + ' ' + word;
        if (!lines.last().isEmpty() && !fits(longer)) lines << word;
        else lines.last() = longer;
      }
    }
  }
  return lines;
}

const QString kCaptionSeparator = QStringLiteral(";   ");

}  // namespace

QString ChartFrame::hoverText(const QPointF& pixel) const {
  const double tolerance = 10.0 * m_scale;
  double best = tolerance;
  QCPAbstractPlottable* bestPlottable = nullptr;
  int bestIndex = -1;
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = m_plot->plottable(i);
    // Error bars belong to the bars they whisker: the bar's value is what a hover says.
    if (!p->visible() || p->property(kKeyProperty).toString().isEmpty() || !p->interface1D() ||
        qobject_cast<QCPErrorBars*>(p))
      continue;
    QVariant details;
    const double d = p->selectTest(pixel, false, &details);
    if (d < 0 || d > best) continue;
    const auto sel = details.value<QCPDataSelection>();
    if (sel.isEmpty()) continue;
    best = d;
    bestPlottable = p;
    bestIndex = sel.dataRange().begin();
  }
  if (!bestPlottable) return {};
  auto* iface = bestPlottable->interface1D();
  const double key = iface->dataMainKey(bestIndex);
  const double value = shownValue(bestPlottable, bestIndex);
  QString xText;
  QCPAxis* keyAxis = bestPlottable->keyAxis();
  if (auto text = keyAxis->ticker().dynamicCast<QCPAxisTickerText>()) {
    // Category axis: name the category nearest to the bar.
    double bestDist = std::numeric_limits<double>::max();
    for (auto it = text->ticks().cbegin(); it != text->ticks().cend(); ++it) {
      if (std::abs(it.key() - key) < bestDist) {
        bestDist = std::abs(it.key() - key);
        xText = QString(it.value()).replace('\n', ' ');
      }
    }
  } else {
    const QString xUnit = bestPlottable->property(kXUnitProperty).toString();
    xText = keyAxis->label().isEmpty() ? formatValue(key)
                                       : QStringLiteral("%1: %2").arg(keyAxis->label(),
                                                                      formatValue(key));
    if (xUnit == "batch" || xUnit == "epoch" || xUnit == "step")
      xText = QStringLiteral("%1 %2").arg(xUnit, QString::number(key, 'f', 0));
  }
  const QString yUnit = bestPlottable->property(kYUnitProperty).toString();
  auto nameOf = [](const QCPAbstractPlottable* p) {
    const QString hover = p->property("hoverName").toString();
    return hover.isEmpty() ? p->name() : hover;
  };
  QString text = QStringLiteral("%1\n%2\n%3%4").arg(nameOf(bestPlottable), xText, formatValue(value), unitSuffix(yUnit));
  // Every other line with a point at the same x (other devices, other runs), so one hover
  // compares them all. Faint companions and published marks are left out.
  if (!qobject_cast<QCPGraph*>(bestPlottable) || keyAxis->ticker().dynamicCast<QCPAxisTickerText>()) return text;
  QStringList others;
  for (int i = 0; i < m_plot->graphCount(); ++i) {
    QCPGraph* g = m_plot->graph(i);
    if (g == bestPlottable || !g->visible() || g->keyAxis() != keyAxis || g->pen().color().alpha() < 255 ||
        g->lineStyle() == QCPGraph::lsNone)
      continue;
    const QString key0 = g->property(kKeyProperty).toString();
    if (key0.isEmpty() || key0 == kReferenceKey || key0.startsWith("device:") || key0.startsWith("run:")) continue;
    const auto it = g->data()->findBegin(key, false);
    if (it == g->data()->constEnd() || std::abs(it->key - key) > 1e-9 * std::max(1.0, std::abs(key)) ||
        !std::isfinite(it->value))
      continue;
    others << QStringLiteral("%1: %2%3").arg(nameOf(g), formatValue(it->value),
                                             unitSuffix(g->property(kYUnitProperty).toString()));
  }
  if (!others.isEmpty()) text += "\n\n" + others.join('\n');
  return text;
}

double ChartFrame::shownValue(const QCPAbstractPlottable* p, int index) {
  const double v = const_cast<QCPAbstractPlottable*>(p)->interface1D()->dataMainValue(index);
  const auto* bars = qobject_cast<const QCPBars*>(p);
  return bars && !bars->barBelow() ? v + bars->baseValue() : v;
}

void ChartFrame::rebaseBars(QCPBars* bars, double base) {
  const double delta = base - bars->baseValue();
  if (delta == 0) return;
  for (auto it = bars->data()->begin(); it != bars->data()->end(); ++it) it->value -= delta;
  bars->setBaseValue(base);
}

QString ChartFrame::emptyText() const { return tr("Nothing to show yet."); }

void ChartFrame::setAxesShown(bool shown) {
  // Hiding remembers what each axis and grid showed, so showing again restores the chart's own
  // choices (a category axis without grid lines stays without them).
  for (QCPAxisRect* rect : m_plot->axisRects())
    for (QCPAxis* a : rect->axes()) {
      const bool hidden = a->property("hiddenWhileEmpty").toBool();
      if (!shown && !hidden) {
        a->setProperty("hiddenWhileEmpty", true);
        a->setProperty("axisShownBefore", a->visible());
        a->setProperty("gridShownBefore", a->grid()->visible());
        a->setVisible(false);
        a->grid()->setVisible(false);
      } else if (shown && hidden) {
        a->setProperty("hiddenWhileEmpty", false);
        a->setVisible(a->property("axisShownBefore").toBool());
        a->grid()->setVisible(a->property("gridShownBefore").toBool());
      }
    }
}

bool ChartFrame::hasData() const {
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = m_plot->plottable(i);
    if (p->property(kKeyProperty).toString() == kReferenceKey || !p->interface1D()) continue;
    for (int k = 0; k < p->interface1D()->dataCount(); ++k)
      if (std::isfinite(shownValue(p, k))) return true;
  }
  return false;
}

void ChartFrame::addEmptyNote() {
  const bool empty = !hasData();
  setAxesShown(!empty);  // no axes without data: a scale with nothing on it says nothing
  if (!empty) return;
  auto* text = new QCPItemText(m_plot);
  text->setClipToAxisRect(false);
  text->position->setType(QCPItemPosition::ptAxisRectRatio);
  text->position->setAxisRect(mainRect());
  text->position->setCoords(0.5, 0.5);
  text->setPositionAlignment(Qt::AlignCenter);
  // On a background box so grid lines do not run through the words; wrapped to the plot's
  // width after every layout (wrapEmptyNote).
  const QFont font = chartFont(m_scale);
  text->setFont(font);
  text->setObjectName("emptyNote");
  wrapEmptyNote(text);
  const ChartColors palette = colors();
  QColor c = palette.text;
  c.setAlpha(170);
  text->setColor(c);
  text->setBrush(QBrush(palette.background));
  text->setPadding(QMargins(10, 6, 10, 6));
}

void ChartFrame::wrapEmptyNote(QCPItemText* note) const {
  // By hand (items do not wrap), to 70% of the plot's width as it is laid out now.
  const QFontMetrics metrics(note->font());
  const int maxWidth = std::clamp(m_plot->width() * 7 / 10, metrics.horizontalAdvance(QString(16, 'x')),
                                  metrics.horizontalAdvance(QString(56, 'x')));
  QStringList lines{QString()};
  for (const QString& word : emptyText().split(' ')) {
    const QString longer = lines.last().isEmpty() ? word : lines.last() + ' ' + word;
    if (!lines.last().isEmpty() && metrics.horizontalAdvance(longer) > maxWidth) lines << word;
    else lines.last() = longer;
  }
  note->setText(lines.join('\n'));
}

bool ChartFrame::legendShown() const { return m_plot->legend->visible(); }

QString ChartFrame::legendKeyText() const { return m_key->isHidden() ? QString() : m_key->text(); }

void ChartFrame::setLegendCaption(const QStringList& parts) { m_captionParts = parts; }

QString ChartFrame::legendCaptionText() const {
  return m_legendCell->element(1, 0) == m_caption ? m_caption->text() : QString();
}

// One entry per legend item, in legend order: a short stroke in the entry's colour and pen
// style (a marker for marker-only entries), then its name; hidden series are struck out.
QString ChartFrame::legendKeyHtml() const {
  QStringList entries;
  QCPLegend* legend = m_plot->legend;
  for (int i = 0; i < legend->itemCount(); ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
    if (!item) continue;
    QCPAbstractPlottable* p = item->plottable();
    QColor color = qobject_cast<QCPBars*>(p) ? p->brush().color() : p->pen().color();
    QString glyph = QStringLiteral("━━");
    if (auto* g = qobject_cast<QCPGraph*>(p)) {
      if (g->lineStyle() == QCPGraph::lsNone) {
        glyph = QStringLiteral("✱");
        color = g->scatterStyle().pen().color();
      } else if (g->pen().style() == Qt::DashLine) {
        glyph = QStringLiteral("╍╍");
      } else if (g->pen().style() == Qt::DotLine || g->pen().style() == Qt::DashDotLine) {
        glyph = QStringLiteral("┅┅");
      }
    } else if (qobject_cast<QCPBars*>(p)) {
      glyph = QStringLiteral("■");
    }
    const bool hidden = m_hidden.contains(p->property(kKeyProperty).toString());
    // Qt's rich text wraps at a hyphen whatever the span's white-space says: device ids
    // ("tpu-v5e-8") keep whole with non-breaking hyphens.
    QString name = p->name().toHtmlEscaped().replace(QLatin1Char('-'), QChar(0x2011));
    if (hidden) name = "<s>" + name + "</s>";
    entries << QStringLiteral("<span style='white-space:nowrap'><span style='color:%1'>%2</span>&nbsp;%3</span>")
                   .arg(color.name(), glyph, name);
  }
  return entries.join(QStringLiteral(" &nbsp; "));
}

void ChartFrame::layoutForSize(QSize size, bool keepLegend) {
  m_layoutSize = size;
  QCPLegend* legend = m_plot->legend;
  // Entries, not cells: a legend wrapped into a grid counts its empty cells as items.
  int n = 0;
  for (int i = 0; i < legend->itemCount(); ++i) n += legend->item(i) != nullptr;
  int rows = 0;
  int legendHeight = 0;
  QFont font;
  QStringList captionLines;
  // The legend's columns and height (its caption's lines included) with its text at
  // `fontFactor` of the chart's.
  auto fit = [&](double fontFactor) {
    font = chartFont(m_scale * fontFactor);
    legend->setFont(font);
    legend->setIconSize(static_cast<int>(26 * m_scale * fontFactor), static_cast<int>(12 * m_scale * fontFactor));
    QVector<int> widths;
    int rowHeight = 1;
    for (int i = 0; i < legend->itemCount(); ++i) {
      if (QCPAbstractLegendItem* item = legend->item(i)) {
        item->setFont(font);
        // Room under the line for descenders ("accuracy", "tpu"): an item clips to its row,
        // and its text rect alone cut them off on screen.
        item->setMargins(QMargins(0, 0, 0, std::max(2, static_cast<int>(std::lround(2 * m_scale * fontFactor)))));
        const QSize hint = item->minimumOuterSizeHint();
        widths << hint.width();
        rowHeight = std::max(rowHeight, hint.height());
      }
    }
    // As many columns (at most 4) as fit. Entries run down each column, so the devices stay
    // together and the runs' short entries share a column; each column is as wide as its
    // widest entry.
    const QMargins m = legend->margins();
    const int usable = std::max(1, size.width() - 12 - m.left() - m.right());
    rows = n;
    for (int c = std::min(n, 4); c > 1; --c) {
      const int r = (n + c - 1) / c;
      int total = -legend->columnSpacing();
      for (int first = 0; first < n; first += r)
        total += legend->columnSpacing() + *std::max_element(widths.begin() + first, widths.begin() + std::min(n, first + r));
      if (total <= usable) {
        rows = r;
        break;
      }
    }
    legendHeight = rows * (rowHeight + legend->rowSpacing()) + 12;
    const QFontMetrics metrics(font);
    captionLines = wrapParts(m_captionParts, metrics, std::max(1, usable - 16), kCaptionSeparator);
    if (!captionLines.isEmpty()) legendHeight += static_cast<int>(captionLines.size()) * metrics.lineSpacing() + 4;
  };
  fit(1.0);
  // An export keeps its legend under the plot, in columns; on a small figure (a one-column
  // paper's 8.5 cm) its text steps down to 80% before it may take more than a quarter of the
  // height: the plot keeps the rest.
  for (const double smaller : {0.9, 0.8})
    if (keepLegend && size.height() > 0 && legendHeight > 0.25 * size.height()) fit(smaller);
  const bool show = n > 0 && (keepLegend || size.height() <= 0 || legendHeight <= 0.3 * size.height());
  m_legendFootprint = show ? legendHeight : 0;
  // The caption under a shown legend; a legend shown as the key carries it in the key.
  QCPLayoutElement* captionCell = show && !captionLines.isEmpty() ? static_cast<QCPLayoutElement*>(m_caption) : m_captionSpacer;
  if (m_legendCell->element(1, 0) != captionCell) {
    m_legendCell->take(m_legendCell->element(1, 0));
    m_legendCell->addElement(1, 0, captionCell);
  }
  m_caption->setVisible(captionCell == m_caption);
  if (captionCell == m_caption) {
    m_caption->setFont(font);
    m_caption->setTextColor(colors().text);
    m_caption->setText(captionLines.join('\n'));
  }
  if (!show) {
    // An empty (or oversized) legend would crowd out the plot: take it out of the layout.
    // A zero-height spacer holds the cell: an empty cell would cap the column's width.
    if (m_legendCell->element(0, 0) == legend) {
      m_legendCell->take(legend);
      m_legendCell->addElement(0, 0, m_legendSpacer);
    }
    legend->setVisible(false);
  } else {
    if (m_legendCell->element(0, 0) != legend) {
      m_legendCell->take(m_legendSpacer);
      m_legendCell->addElement(0, 0, legend);
    }
    legend->setVisible(true);
    // Down the columns, `rows` entries each; re-arranged every time so no empty cell is left
    // where an entry went away.
    legend->setWrap(std::max(1, rows));
    legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
  }
  // A legend too big for the plot becomes a key that flows under it: never no legend at all.
  const bool key = n > 0 && !show;
  if (key) {
    QString html = legendKeyHtml();
    if (!m_captionParts.isEmpty())
      html += "<br>" + m_captionParts.join(kCaptionSeparator).toHtmlEscaped().replace(QLatin1Char('-'), QChar(0x2011));
    m_key->setText(html);
  }
  m_key->setVisible(key);
  m_plot->setToolTip(key ? tr("The legend is the key under the chart at this size: maximise the chart to "
                              "have it in the plot and to hide series by clicking it.")
                         : QString());
  placeReferenceLabels();
  syncToRanges();
}

int ChartFrame::plotHeightAt(QSize size) {
  const QRect screen = m_plot->viewport();
  m_plot->setViewport(QRect(QPoint(0, 0), size));
  QCPLayoutGrid* layout = m_plot->plotLayout();
  for (const auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
    layout->update(phase);
  int height = size.height();
  for (QCPAxisRect* rect : m_plot->axisRects()) height = std::min(height, rect->height());
  m_plot->setViewport(screen);
  return height;
}

void ChartFrame::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  updateExplanationVisibility();
  layoutForSize(m_plot->size());
}

double ChartFrame::panelWidth() const {
  const int width = m_layoutSize.width() > 0 ? m_layoutSize.width() : m_plot->width();
  return static_cast<double>(width) / std::max<qsizetype>(1, m_plot->axisRects().size());
}

void ChartFrame::placeReferenceLabels() {
  // Labels of marks in the right part of the plot go to the left of their star, so they
  // are not cut off at the edge, and are shortened to the room on that side (the whole text
  // stays in the star's hover). About 70 px of a panel go to its value axis.
  const double rectWidth = std::max(80.0, panelWidth() - 70 * m_scale);
  for (int i = 0; i < m_plot->itemCount(); ++i) {
    auto* label = qobject_cast<QCPItemText*>(m_plot->item(i));
    if (!label || !label->property("referenceLabel").toBool()) continue;
    if (!label->clipAxisRect()) continue;
    QCPAxis* axis = label->clipAxisRect()->axis(QCPAxis::atBottom);
    const QCPRange r = axis->range();
    const double x = label->property("referenceX").toDouble();
    double frac = 0;
    if (axis->scaleType() == QCPAxis::stLogarithmic && r.lower > 0 && x > 0) {
      frac = std::log(x / r.lower) / std::log(r.upper / r.lower);
    } else if (r.size() > 0) {
      frac = (x - r.lower) / r.size();
    }
    auto fitText = [&](double room) { elideLabel(label, std::max(40, static_cast<int>(room - 8 * m_scale))); };
    if (label->property("referenceAbove").toBool()) {  // above the star, kept inside the plot
      const Qt::Alignment h = frac > 0.6 ? Qt::AlignRight : frac < 0.4 ? Qt::AlignLeft : Qt::AlignHCenter;
      label->setPositionAlignment(h | Qt::AlignBottom);
      label->position->setCoords(h == Qt::AlignRight ? 9 * m_scale : h == Qt::AlignLeft ? -9 * m_scale : 0, -9 * m_scale);
      fitText(rectWidth * (h == Qt::AlignRight ? frac : h == Qt::AlignLeft ? 1 - frac : 2 * std::min(frac, 1 - frac)));
      continue;
    }
    const bool left = (frac > 0.6) != label->property("referenceFlip").toBool();
    fitText(rectWidth * (left ? frac : 1 - frac));
    label->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    label->position->setCoords((left ? -9 : 9) * m_scale, 0);
  }
}

// Published labels, once the plot is laid out: each goes to the first side of its star (the
// one placeReferenceLabels chose, the other, above, below) where it is whole, inside the plot
// and clear of the markers, the bars' labels and the labels placed before it; else to the
// clear side where it is longest, shortened to the room; with no clear side it is left out
// and the star stands alone (its hover has the whole text).
void ChartFrame::fitToLayout() {
  for (int i = 0; i < m_plot->itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(m_plot->item(i)); t && t->objectName() == "emptyNote") wrapEmptyNote(t);
  // What a published label must not cover: the markers (stars, whole-run diamonds) and the
  // bars' labels.
  QVector<QRectF> taken = markerRects();
  QVector<QCPItemText*> references;
  for (int i = 0; i < m_plot->itemCount(); ++i) {
    auto* t = qobject_cast<QCPItemText*>(m_plot->item(i));
    if (!t || !t->visible() || !t->clipAxisRect()) continue;
    if (t->property("referenceLabel").toBool()) references << t;
    else if (t->property("valueLabel").toBool() || t->property("missingLabel").toBool()) taken << itemTextRect(t);
  }
  const double d = 9 * m_scale;
  for (QCPItemText* label : references) {
    const QRectF plot = label->clipAxisRect()->rect();
    // A label kept above its star (a whole-run diamond beside it) stays above or below.
    const bool vertical = label->property("referenceAbove").toBool();
    struct Side {
      Qt::Alignment align;
      QPointF offset;
    };
    // The side chosen before the layout first, then the others.
    const Side chosen{label->positionAlignment(), label->position->coords()};
    const QString chosenText = label->text();
    const Side sides[] = {chosen,
                          {Qt::AlignRight | Qt::AlignVCenter, {-d, 0}},
                          {Qt::AlignLeft | Qt::AlignVCenter, {d, 0}},
                          {Qt::AlignHCenter | Qt::AlignBottom, {0, -d}},
                          {Qt::AlignHCenter | Qt::AlignTop, {0, d}}};
    const QString full = wholeLabelText(label);
    const QPointF star = label->position->parentAnchor() ? label->position->parentAnchor()->pixelPosition()
                                                         : label->position->pixelPosition();
    label->setVisible(true);
    int best = -1, bestLength = -1;
    QString bestText;
    for (int i = 0; i < 5; ++i) {
      const Side& side = sides[i];
      if (vertical && i > 0 && i < 3) continue;
      // The room on this side, inside the plot.
      double room = plot.width() - 8;
      if (side.align & Qt::AlignLeft) room = plot.right() - star.x() - d;
      else if (side.align & Qt::AlignRight) room = star.x() - plot.left() - d;
      else room = 2 * std::min(star.x() - plot.left(), plot.right() - star.x());
      room -= label->padding().left() + label->padding().right() + 2;
      if (room < 30) continue;
      label->setPositionAlignment(side.align);
      label->position->setCoords(side.offset);
      elideLabel(label, static_cast<int>(room));
      const QString text = label->text();
      const QRectF r = itemTextRect(label);
      const bool inside = plot.adjusted(-1, -1, 1, 1).contains(r);
      const bool clear = std::none_of(taken.begin(), taken.end(), [&](const QRectF& o) { return o.intersects(r); });
      const int length = static_cast<int>(text.size());
      if (inside && clear && text == full) {
        best = i;
        bestText = text;
        break;
      }
      if (inside && clear && length > bestLength) {
        best = i;
        bestLength = length;
        bestText = text;
      }
    }
    if (best < 0) {   // no side inside and clear: the star alone (its hover has the text)
      label->setText(chosenText);
      label->setPositionAlignment(chosen.align);
      label->position->setCoords(chosen.offset);
      label->setVisible(false);
      continue;
    }
    label->setPositionAlignment(sides[best].align);
    label->position->setCoords(sides[best].offset);
    label->setText(bestText);
    taken << itemTextRect(label);
  }
}

}  // namespace widgets
