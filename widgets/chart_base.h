#pragma once
// The common chart: a QCustomPlot with a title, a row of controls above it and a short
// explanation under it. Hover shows exact values, wheel/drag zooms, double-click fits,
// clicking a legend entry hides/shows that series, optional log-y. Data comes from the
// RunStore; redraws are coalesced (at most ~30 per second, replot queued).
#include <QHash>
#include <QSet>
#include <functional>
#include <optional>
#include <vector>
#include <QString>
#include <QWidget>

#include "widgets/chart_theme.h"
#include "widgets/series.h"

class QCustomPlot;
class QCPAbstractPlottable;
class QCPAbstractLegendItem;
class QCPAxis;
class QCPAxisRect;
class QCPBars;
class QCPGraph;
class QCPLayoutElement;
class QCPLayoutGrid;
class QCPTextElement;
class QCheckBox;
class QHBoxLayout;
class QLabel;
class QToolButton;
class QTimer;
class QMouseEvent;
class QResizeEvent;

namespace widgets {

class RunStore;
struct ReferenceMark;
struct Run;
struct DeviceResult;

class ChartBase : public QWidget {
  Q_OBJECT
public:
  ChartBase(const QString& chartId, const QString& title, QWidget* parent = nullptr);
  ~ChartBase() override;

  QString chartId() const { return m_chartId; }   // "epoch_time", "accuracy", …
  QString title() const { return m_title; }
  QString explanation() const;                    // the short text under the chart
  QString notes() const;                          // the live notes (what binds, OOM, …)
  QCustomPlot* plot() const { return m_plot; }

  // The store to read runs from (not owned; may be null). Charts redraw on its signals.
  void setStore(RunStore* store);
  RunStore* store() const { return m_store; }

  // Every series the chart currently shows (visible runs only), as exported to CSV/JSON.
  virtual QVector<Series> series() const = 0;

  // Coalesced redraw (≤ ~30 Hz) / immediate redraw (before an export, in tests).
  void scheduleRefresh();
  void refreshNow();

  void setTheme(ChartTheme theme);
  ChartTheme theme() const { return m_theme; }
  void setPresentationScale(double scale);     // 1 = desktop; fonts and pens scale with it
  double presentationScale() const { return m_scale; }

  bool supportsLogY() const { return m_logYBox != nullptr; }
  bool logY() const { return m_logY; }
  // Sets log-y by hand; from then on the chart no longer picks it by itself. (Until the
  // user chooses, log-y turns on when the shown values span more than ~30×.)
  void setLogY(bool on);

  // Fits every axis to the visible data and resumes following new data (double-click).
  void fitToData();
  bool followsData() const { return m_autoFit; }

  // Series hidden by a legend click, by key ("<run id>/<series name>/<device>").
  bool isSeriesHidden(const QString& key) const { return m_hidden.contains(key); }
  void setSeriesHidden(const QString& key, bool hidden);
  QStringList seriesKeys() const;               // of plottables in the legend, legend order
  int visibleGraphPoints(const QString& deviceId = {}) const;  // points drawn (tests)
  // Points appended to kept lines / lines drawn from scratch in the last refresh (tests).
  int lastAppendedPoints() const { return m_appendedPoints; }
  int lastRedrawnLines() const { return m_redrawnLines; }

  // The hover text for a pixel of the plot (empty when nothing is near): what the tooltip
  // shows. Public so tests and the app's status bar can use it.
  QString hoverText(const QPointF& pixel) const;

  // Lays the legend out in as many columns as fit the plot size (exports call this with
  // their size, then with plot()->size() again) and places reference labels. A legend that
  // would take more than ~30% of the height is left out on screen (maximise the chart to see
  // it); an export (`keepLegend`) always has its legend, since a figure without one is useless.
  void layoutForSize(QSize size, bool keepLegend = false);
  bool legendShown() const;
  // The key under the plot that stands in for a legend too big for it ("" when not shown).
  QString legendKeyText() const;

  void setMaximised(bool maximised);

Q_SIGNALS:
  void maximiseRequested(bool maximised);
  void refreshed();

protected:
  // Clears the plot and draws series() (subclasses). The base then applies theme and
  // hidden states and fits if following the data.
  virtual void rebuild() = 0;
  // Called after a fit; bar charts start at zero, log axes stay positive (override).
  virtual void adjustFit() {}
  // Called before every draw (screen and export) once the axis ranges are final.
  virtual void syncToRanges() {}
  // Whether the value axis turns logarithmic by itself when the values span 30x. Bars never
  // do: on a log axis an 11% difference in cost looks like 1.4x. Log is the user's choice.
  virtual bool switchesToLogByItself() const { return true; }
  // What the empty chart says (no runs, no data yet).
  virtual QString emptyText() const;
  void resizeEvent(QResizeEvent* event) override;
  // The mouse wheel scrolls the page of charts; Ctrl + wheel zooms the chart.
  bool eventFilter(QObject* watched, QEvent* event) override;

  QHBoxLayout* controls() const { return m_controls; }
  void enableLogYToggle();
  void setExplanation(const QString& text);
  void setNotes(const QString& text);
  QCPAxisRect* mainRect() const;
  QColor textColor() const;
  ChartColors colors() const;
  // A series colour made readable on this chart's background (palette.h: readableOn; 4.5:1
  // on the dark theme, 3:1 on the light one). Every line, bar and entry goes through it.
  QColor readable(const QColor& color) const;
  // A faint companion line (raw loss under its smoothing): as translucent as still reads at
  // the theme's contrast once blended with the background.
  QColor faint(const QColor& color) const;

  // Helpers for subclasses ------------------------------------------------------------
  static QString seriesKey(const Series& s);
  // A line with markers for a series, styled by its colour/styleIndex; registered for
  // hover, legend toggling and unit display. `faint` draws it thin and translucent and
  // keeps it out of the legend (it follows the key's visibility). Lines stream: the graph
  // of the same series from the last refresh is kept, and when its points are the start of
  // the new ones only the new points are appended (addData), not the whole series again.
  QCPGraph* addLine(const Series& s, QCPAxis* keyAxis, QCPAxis* valueAxis, bool faint = false);
  // Registers any plottable (bars, …) under a series key for hover and legend toggling.
  void registerPlottable(QCPAbstractPlottable* p, const QString& key, const QString& xUnit,
                         const QString& yUnit);
  // Published reference figures of every shown run for `chart`, as series (source
  // Reference, one point each). xOf places a mark of the shown run `runIndex` on the key axis: nullopt skips it (e.g. a
  // device not on this chart), NaN makes it a horizontal line. For category charts pass
  // the bar position and set exportX = false (the device names the category).
  QVector<Series> referenceSeries(
      const QString& chart, const std::function<std::optional<double>(const ReferenceMark&, int runIndex)>& xOf,
      const QString& xUnit, const QString& yUnit, double valueScale = 1.0,
      bool exportX = true) const;
  // Draws the Reference series among `all`: black stars (near-white on dark) with labels,
  // one legend entry "published".
  void drawReferences(const QVector<Series>& all, QCPAxis* keyAxis, QCPAxis* valueAxis);
  // Horizontal line across the axis rect at y with a label at its right end.
  void addHorizontalLine(double y, const QString& label, const QColor& color, QCPAxis* keyAxis,
                         QCPAxis* valueAxis, Qt::PenStyle style = Qt::DashLine);
  // Values the fit must include even though no plottable holds them (lines, labels).
  void includeInFit(QCPAxis* axis, double value);
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

public:
  // What the chart shows and how each drawn run was made (model, data, batch, optimizer, seed,
  // devices with stack and price): the description exports carry (SVG, PDF, PNG metadata).
  QString exportDescription() const;
  // Charts draw at most this many visible runs (the newest; the current one always).
  static constexpr int kMaxShownRuns = 12;

protected:
  QString runPrefix(const Run& run) const;
  // A series of this chart for one device of one run: identity, legend label, measured vs
  // simulated, device colour and run style set; the caller adds name, units and points.
  Series deviceSeries(const Run& run, const DeviceResult& d, int styleIndex) const;
  static Qt::PenStyle penStyleFor(int styleIndex);
  static Qt::BrushStyle brushStyleFor(int styleIndex);
  // The value a data point shows (bars drawn from a shifted base keep v = base + stored).
  static double shownValue(const QCPAbstractPlottable* p, int index);
  // Moves a (non-stacked) bars' base to `base` keeping every bar's top where it is.
  static void rebaseBars(QCPBars* bars, double base);
  static int scatterShapeFor(int styleIndex);   // QCPScatterStyle::ScatterShape
  double pen(double width) const { return width * m_scale; }
  int layoutWidth() const { return m_layoutSize.width(); }   // width the plot is laid out for
  // Width of one of the plot's side-by-side panels (the cost chart has two) for the layout
  // width. Counted, not measured: right after an export the rects still have its geometry.
  double panelWidth() const;

private:
  void onLegendClick(QCPAbstractLegendItem* item);
  void onMouseMove(QMouseEvent* event);
  void applyHiddenStates();
  void applyLogY();
  void autoLogY();
  void doRefresh();
  void placeReferenceLabels();
  QString legendKeyHtml() const;
  void addEmptyNote();
  void setAxesShown(bool shown);
  void updateExplanationVisibility();

  QString m_chartId;
  QString m_title;
  QCustomPlot* m_plot = nullptr;
  QCPTextElement* m_titleElement = nullptr;
  QHBoxLayout* m_controls = nullptr;
  QCheckBox* m_logYBox = nullptr;
  QToolButton* m_maxButton = nullptr;
  QLabel* m_explanation = nullptr;
  QLabel* m_notes = nullptr;
  QLabel* m_key = nullptr;   // the legend as a wrapped key when it does not fit the plot
  QString m_notesText;
  QTimer* m_refreshTimer = nullptr;
  RunStore* m_store = nullptr;
  ChartTheme m_theme = ChartTheme::Light;
  double m_scale = 1.0;
  bool m_logY = false;
  bool m_logYChosen = false;   // the user decided; no automatic switching
  bool m_autoFit = true;
  bool m_fitting = false;
  QSet<QString> m_hidden;
  QVector<QPair<QCPAxis*, double>> m_fitExtras;
  // Streaming: last refresh's lines by series key (see addLine); what a refresh does not
  // take again is removed after it. The order of registration rebuilds the legend's order.
  QMultiHash<QString, QCPGraph*> m_reusableLines;
  QVector<QCPAbstractPlottable*> m_frameOrder;
  int m_appendedPoints = 0;
  int m_redrawnLines = 0;
  QCPLayoutGrid* m_legendCell = nullptr;
  QCPLayoutElement* m_legendSpacer = nullptr;   // holds the legend's cell while it is hidden
  QSize m_layoutSize;
  QToolButton* m_infoButton = nullptr;
};

}  // namespace widgets
