#pragma once
// All charts together, in a scrolling two-column grid; a chart's maximise button shows it
// alone. The app puts one ChartDeck in the window and hands it the RunStore and sweeps.
#include <QList>
#include <QStringList>
#include <QWidget>

#include "widgets/chart_theme.h"

class QGridLayout;
class QScrollArea;

namespace widgets {

class ChartBase;
class RunStore;
class SweepChart;

class ChartDeck : public QWidget {
  Q_OBJECT
public:
  explicit ChartDeck(RunStore* store, QWidget* parent = nullptr);

  // In display order: epoch_time, accuracy, batch_loss, throughput, cost, breakdown,
  // sweep, host_check.
  QList<ChartBase*> charts() const { return m_charts; }
  ChartBase* chart(const QString& chartId) const;   // nullptr when unknown
  SweepChart* sweepChart() const { return m_sweep; }

  void setTheme(ChartTheme theme);
  void setPresentationScale(double scale);
  void refreshAll();                                // immediate redraw of every chart

  void maximise(ChartBase* chart);                  // nullptr = show all again
  ChartBase* maximisedChart() const { return m_maximised; }

  // The charts the grid shows (ids, any order; unknown ids are ignored; empty = every chart).
  // A set small enough is laid out to fit the deck's height without scrolling (down to a
  // minimum chart height at which no label is cut).
  void setShownCharts(const QStringList& chartIds);
  QStringList shownCharts() const;                  // in display order
  bool isShown(const ChartBase* chart) const;      // the user's choice (View ▸ Charts Shown)
  // In the grid now: shown, and not a measured-only chart while the runs drawn trained nowhere
  // (a simulation-only preset gets a full grid of its charts, not half of it "no epochs yet").
  bool isInGrid(const ChartBase* chart) const;

Q_SIGNALS:
  void maximisedChanged(ChartBase* chart);
  void shownChartsChanged(const QStringList& chartIds);

protected:
  void resizeEvent(QResizeEvent* event) override;

private:
  void relayout();
  int twoColumnWidth() const;   // the least deck width at which two charts sit side by side
  void onRunsChanged();   // a run came, went or trained: re-lay the grid when the set changes

  QList<ChartBase*> m_charts;
  QList<ChartBase*> m_hidden;                       // charts the user left out of the grid
  SweepChart* m_sweep = nullptr;
  ChartBase* m_maximised = nullptr;
  QScrollArea* m_scroll = nullptr;
  QWidget* m_grid = nullptr;
  QGridLayout* m_layout = nullptr;
  double m_scale = 1.0;
  bool m_measuredShown = true;                      // some drawn run trained here (or none is drawn)
};

}  // namespace widgets
