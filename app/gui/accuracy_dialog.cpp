#include "app/gui/accuracy_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "core/sim/validation.h"

namespace app::gui {

namespace {

QTableWidgetItem* cell(const QString& text, bool number = false) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QString pct(double v) { return QStringLiteral("%1%").arg(v, 0, 'f', 1); }

}  // namespace

AccuracyDialog::AccuracyDialog(const core::sim::ValidationResult& v, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("How accurate is this?"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("Every simulated figure comes from the model's layers, the device file and the software stack. Here is "
         "how far the simulator is from %1 published measurements it was calibrated on (median absolute error "
         "%2 overall), per software stack and device family. The ± band next to a simulated figure is the "
         "median of its row here.")
          .arg(v.overall.rows)
          .arg(pct(v.overall.medianAbsPct)),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  auto* table = new QTableWidget(static_cast<int>(v.stackFamilies.size()) + 1, 4, this);
  table->setObjectName("scoreboard");
  table->setHorizontalHeaderLabels({tr("Stack / family"), tr("Rows"), tr("Median error"), tr("Mean error")});
  int row = 0;
  for (const auto& s : v.stackFamilies) {
    if (s.rows == 0) continue;
    table->setItem(row, 0, cell(QString::fromStdString(s.family)));
    table->setItem(row, 1, cell(QString::number(s.rows), true));
    table->setItem(row, 2, cell(pct(s.medianAbsPct), true));
    table->setItem(row, 3, cell(pct(s.meanAbsPct), true));
    ++row;
  }
  table->setItem(row, 0, cell(tr("all rows")));
  table->setItem(row, 1, cell(QString::number(v.overall.rows), true));
  table->setItem(row, 2, cell(pct(v.overall.medianAbsPct), true));
  table->setItem(row, 3, cell(pct(v.overall.meanAbsPct), true));
  table->setRowCount(row + 1);
  table->verticalHeader()->hide();
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  layout->addWidget(table, 1);

  std::vector<const core::sim::RowResult*> worst;
  for (const auto& r : v.rows)
    if (r.ok && r.row.metric != "oom") worst.push_back(&r);
  std::sort(worst.begin(), worst.end(), [](auto* a, auto* b) { return a->absPctError > b->absPctError; });
  QString misses = tr("Largest misses:");
  for (std::size_t i = 0; i < worst.size() && i < 5; ++i)
    misses += QStringLiteral("\n• %1 (%2, %3): %4")
                  .arg(QString::fromStdString(worst[i]->row.id), QString::fromStdString(worst[i]->stack),
                       pct(worst[i]->absPctError), QString::fromStdString(worst[i]->row.source));
  auto* missLabel = new QLabel(misses, this);
  missLabel->setWordWrap(true);
  layout->addWidget(missLabel);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(640, 560);
}

}  // namespace app::gui
