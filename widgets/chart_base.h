#pragma once
// The run chart: a ChartFrame whose data comes from the RunStore. It redraws on the store's
// signals, draws the visible runs (at most kMaxShownRuns), tells overlaid runs apart (one
// legend entry per device and per run), streams lines (only the new points of a series are
// appended) and marks the runs' published reference figures.
#include <QMultiHash>
#include <functional>
#include <optional>
#include <vector>

#include "widgets/chart_frame.h"

class QCPGraph;

namespace widgets {

class RunStore;
struct ReferenceMark;
struct Run;
struct DeviceResult;

class ChartBase : public ChartFrame {
  Q_OBJECT
public:
  using ChartFrame::ChartFrame;

  // The store to read runs from (not owned; may be null). Charts redraw on its signals.
  void setStore(RunStore* store);
  RunStore* store() const { return m_store; }

  // Points appended to kept lines / lines drawn from scratch in the last refresh (tests).
  int lastAppendedPoints() const { return m_appendedPoints; }
  int lastRedrawnLines() const { return m_redrawnLines; }

  // The frame's description, then how each drawn run was made (model, data, batch, optimizer,
  // seed, devices with stack and price).
  QString exportDescription() const override;
  // Charts draw at most this many visible runs (the newest; the current one always).
  static constexpr int kMaxShownRuns = 12;
  // The chart draws only what was measured training here (accuracy, batch loss, the host
  // check): the deck leaves it out while the runs shown trained nowhere.
  virtual bool measuredOnly() const { return false; }
  // Some shown run trained here (or none is shown): what a measured-only chart needs.
  bool someRunTrainedHere() const;

protected:
  // Lines are kept for addLine to take again (streaming); every other plottable is redrawn.
  void clearForRebuild() override;
  // Removes the lines not taken again, puts the legend in drawing order (run entries last)
  // and says how many visible runs the cap leaves out.
  void afterRebuild() override;
  QString emptyText() const override;

  static QString seriesKey(const Series& s);
  static bool hasValue(const Series& s);   // some y is finite: the series draws something
  // A line with markers for a series, styled by its colour/styleIndex; registered for
  // hover, legend toggling and unit display. `faint` draws it thin and translucent and
  // keeps it out of the legend (it follows the key's visibility). Lines stream: the graph
  // of the same series from the last refresh is kept, and when its points are the start of
  // the new ones only the new points are appended (addData), not the whole series again.
  QCPGraph* addLine(const Series& s, QCPAxis* keyAxis, QCPAxis* valueAxis, bool faint = false);
  // Published reference figures of every shown run for `chart`, as series (source
  // Reference, one point each). xOf places a mark of the shown run `runIndex` on the key axis: nullopt skips it (e.g. a
  // device not on this chart), NaN makes it a horizontal line. For category charts pass
  // the bar position and set exportX = false (the device names the category).
  QVector<Series> referenceSeries(
      const QString& chart, const std::function<std::optional<double>(const ReferenceMark&, int runIndex)>& xOf,
      const QString& xUnit, const QString& yUnit, double valueScale = 1.0,
      bool exportX = true) const;
  // With several runs shown, the legend lists each device once (colour) and each run once
  // (line style / hatching) instead of every run × device; clicking a device or run entry
  // hides all its series. addLine/addBar call this; charts with their own legends may too.
  bool groupedLegend() const { return shownRuns().size() > 1; }
  void ensureDeviceEntry(const Series& s, QCPAxis* keyAxis, QCPAxis* valueAxis, bool bars);
  void ensureRunEntry(int runId, int styleIndex, QCPAxis* keyAxis, QCPAxis* valueAxis, bool bars);
  // Runs shown (visible ones, in store order) and a prefix telling them apart when > 1.
  // The visible runs the chart draws: all of them up to kMaxShownRuns, else the newest (the
  // current run always included); hiddenByCap() says how many visible runs are left out.
  std::vector<const Run*> shownRuns() const;
  int hiddenByCap() const;
  // The current run is a language model's (char-gpt): its samples are sequences of tokens, its
  // loss bits per character; only language-model runs are drawn beside it (and the other way).
  bool languageModelView() const;
  // "#3 · " before a series of a run when several runs are shown ("" otherwise); what sets
  // the runs apart is said once, in the legend's caption.
  QString runPrefix(const Run& run) const;
  // The caption's parts: "#3: lr 10 · sgd" for each shown run the legend names, when several are.
  QStringList runCaption() const;
  // A series of this chart for one device of one run: identity, legend label, measured vs
  // simulated, device colour and run style set; the caller adds name, units and points.
  Series deviceSeries(const Run& run, const DeviceResult& d, int styleIndex) const;

private:
  RunStore* m_store = nullptr;
  // Streaming: last refresh's lines by series key (see addLine); what a refresh does not
  // take again is removed after it.
  QMultiHash<QString, QCPGraph*> m_reusableLines;
  int m_appendedPoints = 0;
  int m_redrawnLines = 0;
};

}  // namespace widgets
