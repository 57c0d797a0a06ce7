// Runs side by side: the comparison table marks exactly the rows where runs differ, results
// follow the settings, and legends name runs by what sets them apart ("lr 10 · sgd").
#include <qcustomplot.h>

#include <QApplication>
#include <QSignalSpy>
#include <QtTest>

#include "synthetic_run.h"
#include "widgets/chart_base.h"
#include "widgets/chart_deck.h"
#include "widgets/run_comparison.h"
#include "widgets/run_comparison_view.h"
#include "widgets/run_list_model.h"
#include "widgets/run_store.h"

using namespace widgets;

namespace {

const ComparisonRow* row(const QVector<ComparisonRow>& rows, const QString& label) {
  for (const auto& r : rows)
    if (r.label == label) return &r;
  return nullptr;
}

}  // namespace

class TestRunComparison : public QObject {
  Q_OBJECT
private slots:
  // "165 ms vs 85.9 ms" for the same work is noise, not a difference; another batch is one.
  void theSameWorkMeasuredTwiceIsNotADifference() {
    Run a = testdata::syntheticRun();
    a.id = 1;
    for (auto& e : a.epochs) e.hostSeconds = 0.0859;
    Run b = a;
    b.id = 2;
    b.config.seed = 7;
    b.config.learningRate = 0.01;
    for (auto& e : b.epochs) e.hostSeconds = 0.165;
    const auto same = compareRuns({&a, &b});
    const ComparisonRow* time = row(same, "time here (measured)");
    QVERIFY(time);
    QVERIFY(time->values[0] != time->values[1]);
    QVERIFY(!time->differs);
    QVERIFY2(time->note.contains("noise"), qPrintable(time->note));
    b.config.batch = a.config.batch * 2;
    const auto bigger = compareRuns({&a, &b});
    const ComparisonRow* other = row(bigger, "time here (measured)");
    QVERIFY(other && other->differs && other->note.isEmpty());
  }

  // The runs list: newest first, numbered, and runs that share a name told apart.
  void theRunsListIsNewestFirstAndTellsNamesakesApart() {
    RunStore store;
    RunListModel model(&store);
    Run a = testdata::syntheticRun();
    a.name = "colab-cnn · fashion-mnist · b128";
    const int first = store.addRun(a);
    Run b = a;
    b.config.learningRate = 10;
    const int second = store.addRun(b);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.runIdAt(0), second);
    QCOMPARE(model.runIdAt(1), first);
    const QString top = model.data(model.index(0), Qt::DisplayRole).toString();
    const QString bottom = model.data(model.index(1), Qt::DisplayRole).toString();
    QVERIFY2(top.startsWith(QStringLiteral("#%1 ").arg(second)) && top.contains("lr 10"), qPrintable(top));
    QVERIFY2(bottom.contains("lr 0.001"), qPrintable(bottom));
    // Renamed apart, they are no longer namesakes: the name alone, and the other row is told.
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    store.setName(second, "fast");
    bool otherRowTold = false;
    for (const auto& args : changed) {
      const QModelIndex from = args[0].toModelIndex(), to = args[1].toModelIndex();
      otherRowTold = otherRowTold || (from.row() <= 1 && to.row() >= 1);
    }
    QVERIFY(otherRowTold);
    QCOMPARE(model.data(model.index(1), Qt::DisplayRole).toString().contains("lr"), false);
    // A third run goes on top.
    const int third = store.addRun(a);
    QCOMPARE(model.runIdAt(0), third);
    QCOMPARE(model.indexForRun(first).row(), 2);
    // A middle row removed: the others keep their order.
    store.removeRun(second);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.runIdAt(0), third);
    QCOMPARE(model.runIdAt(1), first);
  }

  void differencesAreMarkedAndOnlyThem() {
    Run a = testdata::syntheticRun();
    a.id = 1;
    Run b = a;
    b.id = 2;
    b.config.learningRate = 10;
    b.config.optimizer = core::experiment::OptimizerKind::SGD;
    b.config.momentum = 0.9;
    b.epochs.back().testAccuracy = 0.1;
    const auto rows = compareRuns({&a, &b});
    QVERIFY(row(rows, "learning rate") && row(rows, "learning rate")->differs);
    QCOMPARE(row(rows, "learning rate")->values, QStringList({"0.001", "10"}));
    QVERIFY(row(rows, "optimizer")->differs);
    QVERIFY(row(rows, "momentum")->differs);                       // only SGD has one
    QCOMPARE(row(rows, "momentum")->values, QStringList({"", "0.9"}));
    QVERIFY(!row(rows, "batch")->differs);
    QVERIFY(!row(rows, "seed")->differs);
    QVERIFY(!row(rows, "devices")->differs);
    QVERIFY(!row(rows, "data folder"));                             // empty for both: no row
    const ComparisonRow* acc = row(rows, "final test accuracy");
    QVERIFY(acc && !acc->setting && acc->differs);
    QCOMPARE(acc->values[1], QString("10.00%"));
    // Per simulated device: its run time and cost.
    QVERIFY(row(rows, "time on 4× v100 (simulated)") || row(rows, "time on v100 (simulated)"));
    bool cost = false;
    for (const auto& r : rows) cost = cost || (r.label.startsWith("cost on") && !r.values[0].isEmpty());
    QVERIFY(cost);
    // Settings come before results.
    bool seenResult = false;
    for (const auto& r : rows) {
      if (!r.setting) seenResult = true;
      QVERIFY2(!(seenResult && r.setting), qPrintable(r.label));
    }
  }

  void runsAreNamedByWhatDiffers() {
    Run a = testdata::syntheticRun(), b = a, c = a;
    a.id = 1, b.id = 2, c.id = 3;
    b.config.learningRate = 10;
    c.config.seed = 7;
    const QStringList names = distinguishingNames({&a, &b, &c});
    QCOMPARE(names, QStringList({"lr 0.001 · seed 0", "lr 10 · seed 0", "lr 0.001 · seed 7"}));
    QCOMPARE(distinguishingNames({&a}), QStringList({""}));
    QCOMPARE(distinguishingNames({&a, &a}), QStringList({"", ""}));
    // The legends carry it once, in their caption; the entries name the runs by number.
    RunStore store;
    const int first = store.addRun(a);
    const int second = store.addRun(b);
    ChartDeck deck(&store);
    deck.refreshAll();
    ChartBase* chart = deck.chart("epoch_time");
    chart->layoutForSize(QSize(1000, 620), /*keepLegend=*/true);
    const QString caption = chart->legendCaptionText();
    QVERIFY2(caption.contains(QStringLiteral("#%1: lr 0.001").arg(first)) &&
                 caption.contains(QStringLiteral("#%1: lr 10").arg(second)),
             qPrintable(caption));
    for (int i = 0; i < chart->plot()->legend->itemCount(); ++i)
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(chart->plot()->legend->item(i)))
        QVERIFY2(!item->plottable()->name().contains("lr "), qPrintable(item->plottable()->name()));
    // Too small for the legend, the key under the chart carries the caption.
    chart->layoutForSize(QSize(300, 160));
    QVERIFY(chart->legendCaptionText().isEmpty());
    QVERIFY2(chart->legendKeyText().contains("lr 10"), qPrintable(chart->legendKeyText()));
  }

  void theViewMarksTheDifferingRows() {
    Run a = testdata::syntheticRun(), b = a;
    a.id = 1, b.id = 2;
    b.config.batch = 256;
    RunComparisonView view;
    view.setRuns({&a, &b});
    QCOMPARE(view.columnCount(), 2);
    int marked = 0;
    for (int r = 0; r < view.rowCount(); ++r) {
      const bool differs = view.item(r, 0)->data(Qt::UserRole).toBool();
      if (view.verticalHeaderItem(r)->text() == "batch") QVERIFY(differs);
      if (view.verticalHeaderItem(r)->text() == "seed") QVERIFY(!differs);
      marked += differs;
    }
    QVERIFY(marked >= 1);
    const QString tsv = view.toTsv();
    QVERIFY(tsv.contains("batch\t128\t256"));
  }
};

QTEST_MAIN(TestRunComparison)
#include "test_run_comparison.moc"
