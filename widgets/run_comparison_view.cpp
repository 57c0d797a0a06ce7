#include "widgets/run_comparison_view.h"

#include <QHeaderView>

#include "widgets/run_comparison.h"
#include "widgets/run_store.h"

namespace widgets {

RunComparisonView::RunComparisonView(QWidget* parent) : QTableWidget(parent) {
  setObjectName("RunComparison");
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionMode(QAbstractItemView::ContiguousSelection);
  setWordWrap(false);
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void RunComparisonView::setRuns(const std::vector<const Run*>& runs) {
  const QVector<ComparisonRow> rows = compareRuns(runs);
  clear();
  setColumnCount(static_cast<int>(runs.size()));
  setRowCount(static_cast<int>(rows.size()));
  // Columns are named by what sets each run apart (the full name is the tooltip).
  const QStringList names = distinguishingNames(runs);
  QStringList headers;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const QString& differs = names[static_cast<qsizetype>(i)];
    headers << QStringLiteral("#%1 %2").arg(runs[i]->id).arg(differs.isEmpty() ? runs[i]->name : differs);
  }
  setHorizontalHeaderLabels(headers);
  for (int i = 0; i < static_cast<int>(runs.size()); ++i) {
    QTableWidgetItem* h = horizontalHeaderItem(i);
    h->setForeground(runs[static_cast<std::size_t>(i)]->color);
    h->setToolTip(QStringLiteral("#%1 %2").arg(runs[static_cast<std::size_t>(i)]->id).arg(runs[static_cast<std::size_t>(i)]->name));
  }
  QColor tint = palette().color(QPalette::Highlight);
  tint.setAlpha(40);
  for (int row = 0; row < rows.size(); ++row) {
    const ComparisonRow& r = rows[row];
    auto* header = new QTableWidgetItem(r.label);
    header->setToolTip(!r.note.isEmpty() ? r.note : r.differs ? tr("The runs differ here") : tr("The same for every run"));
    QFont f = font();
    f.setBold(r.differs);
    f.setItalic(!r.setting);
    header->setFont(f);
    setVerticalHeaderItem(row, header);
    for (int col = 0; col < r.values.size(); ++col) {
      auto* item = new QTableWidgetItem(r.values[col]);
      if (r.differs) {
        item->setFont(f);
        item->setBackground(tint);
      }
      item->setData(Qt::UserRole, r.differs);
      setItem(row, col, item);
    }
  }
}

QString RunComparisonView::toTsv() const {
  QStringList lines;
  QStringList header{QString()};
  for (int c = 0; c < columnCount(); ++c) header << horizontalHeaderItem(c)->text();
  lines << header.join('\t');
  for (int r = 0; r < rowCount(); ++r) {
    QStringList cells{verticalHeaderItem(r)->text()};
    for (int c = 0; c < columnCount(); ++c) cells << (item(r, c) ? item(r, c)->text() : QString());
    lines << cells.join('\t');
  }
  return lines.join('\n') + '\n';
}

}  // namespace widgets
