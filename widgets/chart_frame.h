#pragma once
// The chart frame every chart shares: a QCustomPlot with a title, a row of controls above it
// and a short explanation under it. Hover shows exact values, wheel/drag zooms, double-click
// fits, clicking a legend entry hides/shows that series, optional log-y, the light and dark
// themes and the presentation scale, a legend laid out for the size (on screen and in
// exports), and the description exports carry. Redraws are coalesced (at most ~30 per
// second, replot queued). What it draws comes from the subclass: rebuild() draws series().
// The run charts (ChartBase) add the run store and streaming; the LLM planner's charts draw
// a study's outcomes.
#include <QSet>
#include <QString>
#include <QVector>
#include <QWidget>

#include "widgets/chart_theme.h"
#include "widgets/series.h"

class QCustomPlot;
class QCPAbstractPlottable;
class QCPAbstractLegendItem;
class QCPItemText;
class QCPAxis;
class QCPAxisRect;
class QCPBars;
class QCPLayoutElement;
class QCPLayoutGrid;
class QCPTextElement;
class QCheckBox;
class QHBoxLayout;
class QLabel;
class QToolButton;
class QTimer;
class QVBoxLayout;
class QMouseEvent;
class QResizeEvent;

namespace widgets {

class ChartFrame : public QWidget {
  Q_OBJECT
public:
  ChartFrame(const QString& chartId, const QString& title, QWidget* parent = nullptr);
  ~ChartFrame() override;

  QString chartId() const { return m_chartId; }   // "epoch_time", "llm-cost", …
  QString title() const { return m_title; }
  QString explanation() const;                    // the short text under the chart
  QString notes() const;                          // the live notes (what binds, OOM, …)
  QCustomPlot* plot() const { return m_plot; }

  // Every series the chart currently shows, as exported to CSV/JSON.
  virtual QVector<Series> series() const = 0;
  // What the chart shows (and, for run charts, how each drawn run was made): the description
  // exports carry (SVG, PDF, PNG metadata).
  virtual QString exportDescription() const;

  // Coalesced redraw (≤ ~30 Hz) / immediate redraw (before an export, in tests).
  void scheduleRefresh();
  void refreshNow();
  // Something is drawn (a reference mark alone is not data): what the "nothing yet" note and
  // the exports ask (an empty chart is not exported).
  bool hasData() const;

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

  // The hover text for a pixel of the plot (empty when nothing is near): what the tooltip
  // shows. Public so tests and the app's status bar can use it.
  QString hoverText(const QPointF& pixel) const;

  // Lays the legend out in as many columns as fit the plot size (exports call this with
  // their size, then with plot()->size() again) and places reference labels. A legend that
  // would take more than ~30% of the height is left out on screen (maximise the chart to see
  // it); an export (`keepLegend`) always has its legend, since a figure without one is useless.
  void layoutForSize(QSize size, bool keepLegend = false);
  bool legendShown() const;
  // Height the last layout gave the legend and its caption (0 when not shown).
  int legendFootprint() const { return m_legendFootprint; }
  // The pixels a text item on the plot covers as placed now (rotation included).
  static QRectF itemTextRect(QCPItemText* item);
  // Lays the plot out at `size` without drawing it (what an export of that size would get)
  // and returns the height of its lowest data area; the next replot lays it out again.
  int plotHeightAt(QSize size);
  // The key under the plot that stands in for a legend too big for it ("" when not shown).
  QString legendKeyText() const;
  // A caption under the legend for what its short entries stand for: overlaid runs by what
  // sets them apart ("#3: lr 10 · sgd"), once for all their entries. Each part stays on one
  // line where the width allows; lines break only at spaces. Empty: no caption.
  void setLegendCaption(const QStringList& parts);
  QString legendCaptionText() const;   // as laid out for the last size, lines joined by '\n'

  void setMaximised(bool maximised);
  // The Maximise button, for charts in a deck that can show one chart alone (shown by default).
  void setMaximisable(bool on);

Q_SIGNALS:
  void maximiseRequested(bool maximised);
  void refreshed();

protected:
  // Clears the plot and draws series() (subclasses). The frame then applies theme and
  // hidden states and fits if following the data.
  virtual void rebuild() = 0;
  // Before rebuild(): takes away what the last refresh drew (every plottable; run charts
  // keep their lines to stream into). After it: what the subclass finishes (legend order).
  virtual void clearForRebuild();
  virtual void afterRebuild() {}
  // Called after a fit; bar charts start at zero, log axes stay positive (override).
  virtual void adjustFit() {}
  // Called before every draw (screen and export) once the axis ranges are final.
  virtual void syncToRanges() {}
  // Called once the plot is laid out for a draw, before anything is drawn: what depends on
  // pixels (labels that fit or not) is decided here. The frame's own: published labels
  // placed clear of each other and of the bars' labels.
  virtual void fitToLayout();
  // Whether the value axis turns logarithmic by itself when the values span 30x. Bars never
  // do: on a log axis an 11% difference in cost looks like 1.4x. Log is the user's choice.
  virtual bool switchesToLogByItself() const { return true; }
  // What the empty chart says (no data yet).
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
  // Registers any plottable (lines, bars, …) under a series key for hover and legend toggling.
  void registerPlottable(QCPAbstractPlottable* p, const QString& key, const QString& xUnit,
                         const QString& yUnit);
  // The plottables registered since the refresh began, in order (the legend's order).
  const QVector<QCPAbstractPlottable*>& registeredPlottables() const { return m_frameOrder; }
  // Draws the Reference series among `all`: black stars (near-white on dark) with labels,
  // one legend entry "published".
  void drawReferences(const QVector<Series>& all, QCPAxis* keyAxis, QCPAxis* valueAxis);
  // Horizontal line across the axis rect at y with a label at its right end.
  void addHorizontalLine(double y, const QString& label, const QColor& color, QCPAxis* keyAxis,
                         QCPAxis* valueAxis, Qt::PenStyle style = Qt::DashLine);
  // Text on the plot: the box that keeps a label readable over bars and lines, and a label
  // shortened to `width` pixels (its whole text kept in the "fullText" property, which later
  // passes start from).
  QBrush labelBox() const;
  static void elideLabel(QCPItemText* item, int width);
  static QString wholeLabelText(QCPItemText* item);   // the text before any eliding
  // Markers drawn without a line (published stars, whole-run diamonds), as pixel rects.
  QVector<QRectF> markerRects() const;
  // Values the fit must include even though no plottable holds them (lines, labels).
  void includeInFit(QCPAxis* axis, double value);
  static Qt::PenStyle penStyleFor(int styleIndex);
  static Qt::BrushStyle brushStyleFor(int styleIndex);
  static int scatterShapeFor(int styleIndex);   // QCPScatterStyle::ScatterShape
  // The value a data point shows (bars drawn from a shifted base keep v = base + stored).
  static double shownValue(const QCPAbstractPlottable* p, int index);
  // Moves a (non-stacked) bars' base to `base` keeping every bar's top where it is.
  static void rebaseBars(QCPBars* bars, double base);
  double pen(double width) const { return width * m_scale; }
  int layoutWidth() const { return m_layoutSize.width(); }   // width the plot is laid out for
  // Width of one of the plot's side-by-side panels (the cost chart has two) for the layout
  // width. Counted, not measured: right after an export the rects still have its geometry.
  double panelWidth() const;

private:
  void createHeader(QVBoxLayout* layout);
  void createPlot();
  void createTexts(QVBoxLayout* layout);
  void onLegendClick(QCPAbstractLegendItem* item);
  void onMouseMove(QMouseEvent* event);
  void applyHiddenStates();
  void applyLogY();     // the value axes' scale, and every plain ticker made readable
  void setLogScale();
  void autoLogY();
  void doRefresh();
  void placeReferenceLabels();
  QString legendKeyHtml() const;
  void addEmptyNote();
  void wrapEmptyNote(QCPItemText* note) const;  // to the plot's width now
  void setAxesShown(bool shown);
  void updateExplanationVisibility();

  QString m_chartId;
  QString m_title;
  QCustomPlot* m_plot = nullptr;
  QCPTextElement* m_titleElement = nullptr;
  QHBoxLayout* m_controls = nullptr;
  QCheckBox* m_logYBox = nullptr;
  QToolButton* m_maxButton = nullptr;
  QToolButton* m_infoButton = nullptr;
  QLabel* m_explanation = nullptr;
  QLabel* m_notes = nullptr;
  QLabel* m_key = nullptr;   // the legend as a wrapped key when it does not fit the plot
  QString m_notesText;
  QTimer* m_refreshTimer = nullptr;
  ChartTheme m_theme = ChartTheme::Light;
  double m_scale = 1.0;
  bool m_logY = false;
  bool m_logYChosen = false;   // the user decided; no automatic switching
  bool m_autoFit = true;
  bool m_fitting = false;
  QSet<QString> m_hidden;
  QVector<QPair<QCPAxis*, double>> m_fitExtras;
  QVector<QCPAbstractPlottable*> m_frameOrder;   // registered this refresh, in order
  QCPLayoutGrid* m_legendCell = nullptr;
  QCPLayoutElement* m_legendSpacer = nullptr;   // holds the legend's cell while it is hidden
  QCPTextElement* m_caption = nullptr;           // under the legend (row 1 of its cell)
  QCPLayoutElement* m_captionSpacer = nullptr;   // holds the caption's cell while there is none
  QStringList m_captionParts;
  int m_legendFootprint = 0;
  QSize m_layoutSize;
};

}  // namespace widgets
