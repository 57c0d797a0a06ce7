#include "widgets/chart_theme.h"

#include <qcustomplot.h>

namespace widgets {

ChartColors chartColors(ChartTheme theme) {
  if (theme == ChartTheme::Dark) {
    return {QColor(0x1E, 0x1F, 0x22), QColor(0xE6, 0xE6, 0xE6), QColor(0xB0, 0xB0, 0xB0),
            QColor(0x45, 0x47, 0x4C), QColor(0x30, 0x32, 0x36), QColor(0x26, 0x27, 0x2B),
            QColor(0x55, 0x57, 0x5C), QColor(0xF5, 0xF5, 0xF5), QColor(0xFF, 0x70, 0x5A),
            QColor(0xE0, 0xE0, 0xE0)};
  }
  return {QColor(Qt::white),          QColor(0x20, 0x20, 0x20), QColor(0x40, 0x40, 0x40),
          QColor(0xDD, 0xDD, 0xDD),   QColor(0xF0, 0xF0, 0xF0), QColor(255, 255, 255, 230),
          QColor(0xC8, 0xC8, 0xC8),   QColor(Qt::black),        QColor(0xC0, 0x30, 0x10),
          QColor(0x30, 0x30, 0x30)};
}

QFont chartFont(double scale, bool bold) {
  QFont f;
  f.setPointSizeF(9.0 * scale);
  f.setBold(bold);
  return f;
}

namespace {

void styleAxis(QCPAxis* axis, const ChartColors& c, double scale) {
  const QPen axisPen(c.axis, 1.0 * scale);
  axis->setBasePen(axisPen);
  axis->setTickPen(axisPen);
  axis->setSubTickPen(QPen(c.axis, 0.8 * scale));
  axis->setTickLabelColor(c.text);
  axis->setLabelColor(c.text);
  axis->setTickLabelFont(chartFont(scale));
  axis->setLabelFont(chartFont(scale));
  axis->setSelectedTickLabelFont(chartFont(scale, true));
  axis->setSelectedLabelFont(chartFont(scale, true));
  axis->setTickLengthIn(static_cast<int>(4 * scale));
  axis->setPadding(static_cast<int>(4 * scale));
  axis->grid()->setPen(QPen(c.grid, 1.0, Qt::SolidLine));
  axis->grid()->setSubGridPen(QPen(c.subGrid, 1.0, Qt::DotLine));
  axis->grid()->setZeroLinePen(QPen(c.grid, 1.0));
}

}  // namespace

void applyChartTheme(QCustomPlot* plot, ChartTheme theme, double scale) {
  const ChartColors c = chartColors(theme);
  plot->setBackground(QBrush(c.background));
  for (QCPAxisRect* rect : plot->axisRects()) {
    rect->setBackground(QBrush(c.background));
    for (QCPAxis* axis : rect->axes()) styleAxis(axis, c, scale);
  }
  QList<QCPLayoutElement*> elements = plot->plotLayout()->elements(true);
  if (!elements.contains(plot->legend)) elements << plot->legend;   // out of the layout when empty
  for (QCPLayoutElement* e : elements) {
    if (auto* legend = qobject_cast<QCPLegend*>(e)) {
      legend->setBrush(QBrush(c.legendBackground));
      legend->setBorderPen(QPen(c.legendBorder));
      legend->setTextColor(c.text);
      legend->setFont(chartFont(scale));
      legend->setIconSize(static_cast<int>(26 * scale), static_cast<int>(12 * scale));
      for (int i = 0; i < legend->itemCount(); ++i) {
        if (auto* item = legend->item(i)) {
          item->setTextColor(c.text);
          item->setFont(chartFont(scale));
        }
      }
    } else if (auto* text = qobject_cast<QCPTextElement*>(e)) {
      text->setTextColor(c.text);
      // The legend's caption is set in the legend's font when the legend is laid out.
      if (!text->property("legendCaption").toBool()) text->setFont(chartFont(scale * 1.2, true));
    }
  }
}

}  // namespace widgets
