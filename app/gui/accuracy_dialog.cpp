#include "app/gui/accuracy_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/sim/error_band.h"

namespace app::gui {

namespace {

QTableWidgetItem* cell(const QString& text, bool number = false) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QString pct(double v) { return QStringLiteral("%1%").arg(v, 0, 'f', 1); }
QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

AccuracyDialog::AccuracyDialog(const core::sim::HeldOutErrors& errors, QWidget* parent, bool calibration)
    : QDialog(parent) {
  setWindowTitle(tr("How accurate is this?"));
  const core::sim::Scoreboard board = core::sim::scoreboardOf(errors, 5);
  auto* layout = new QVBoxLayout(this);
  QString overall;
  for (const auto& w : board.workloads)
    overall += tr("%1: %2 median over %3 rows. ").arg(qs(w.workload == "all" ? "all" : w.workload), pct(w.medianAbsPct)).arg(w.rows);
  auto* intro = new QLabel(
      calibration
          ? tr("Every simulated figure comes from the model's layers, the device file and the software stack. Here is "
               "how far the simulator is from published and measured figures it was calibrated on, each predicted by "
               "a fit made without it (held-out error), per workload, software stack and hardware generation. %1"
               "The ± band beside a simulated figure is the median of its stack and generation here; with fewer than "
               "%2 rows it says \"uncalibrated\" and quotes the stack's rows on other devices.")
                .arg(overall)
                .arg(core::sim::kMinBandRows)
          : tr("The figures of %1 beside the simulator's, per workload, software stack and hardware generation. The "
               "simulator was never fitted on them: these are out-of-sample errors. %2")
                .arg(QString::fromStdString(errors.path), overall),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  auto* table = new QTableWidget(static_cast<int>(board.groups.size()), 6, this);
  table->setObjectName("scoreboard");
  table->setHorizontalHeaderLabels(
      {tr("Workload"), tr("Stack"), tr("Generation"), tr("Rows"), tr("Median error"), tr("Mean error")});
  int row = 0;
  for (const auto& g : board.groups) {
    table->setItem(row, 0, cell(qs(g.workload)));
    table->setItem(row, 1, cell(qs(g.stack)));
    table->setItem(row, 2, cell(qs(g.generation)));
    table->setItem(row, 3, cell(QString::number(g.rows), true));
    table->setItem(row, 4, cell(pct(g.medianAbsPct), true));
    table->setItem(row, 5, cell(pct(g.meanAbsPct), true));
    ++row;
  }
  table->verticalHeader()->hide();
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(table, 1);

  QString misses;
  std::string workload;
  for (const auto* r : board.largestMisses) {
    if (r->workload != workload) {
      workload = r->workload;
      misses += (misses.isEmpty() ? QString() : QStringLiteral("\n")) + tr("Largest misses, %1 (held out):").arg(qs(workload));
    }
    misses += QStringLiteral("\n• %1 (%2 on %3): %4").arg(qs(r->id), qs(r->stack), qs(r->device), pct(*r->absPctError));
  }
  if (board.refused > 0) misses += tr("\n%n row(s) the simulator refuses (no plan fits) are not counted.", "", board.refused);
  auto* missLabel = new QLabel(misses, this);
  missLabel->setWordWrap(true);
  layout->addWidget(missLabel);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(720, 600);
}

}  // namespace app::gui
