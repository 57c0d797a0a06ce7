#pragma once
// The Guide dock: the loaded preset's title, whether it trains for real or simulates (and
// why), what to look for, and its published comparisons beside AccelLab's own figures.
#include <QColor>
#include <QJsonObject>
#include <QWidget>

#include "app/gui/comparisons.h"
#include "app/gui/preset.h"

class QLabel;
class QTableWidget;

namespace app::gui {

class GuidePanel : public QWidget {
  Q_OBJECT
public:
  explicit GuidePanel(QWidget* parent = nullptr);

  void setPreset(const Preset* preset);     // nullptr: no preset (own settings)
  // One per comparison. `mismatch` (empty when the set-up is the preset's) says how the
  // current set-up differs from the preset: the published figures are then not comparable,
  // the panel says so and greys them.
  void setResults(const QVector<ComparisonResult>& results, const QString& mismatch = {});
  QString mismatchText() const;
  // The same figures read off the run on screen (comparisonOnRun), one per row; `why` (not
  // empty) says why there are none ("the run on screen is not this preset's").
  void setRunResults(const QVector<ComparisonResult>& results, const QString& why = {});
  QString runValue(int row) const;          // the This-run column's text
  QString runNoteText() const;              // the `why` shown, "" when hidden
  QString modeText() const;
  QString explanationText() const;   // as shown, its figures filled in
  int comparisonRows() const;
  QString appValue(int row) const;          // AccelLab, for the article's set-up
  QString errorValue(int row) const;        // the Error column's text
  QColor errorColor(int row) const;         // and its colour
  QColor tableBase() const;                 // on this background
  // {"preset": id, "preset_title", "comparisons": [...]} for data.json; {} without a preset.
  QJsonObject toJson() const;

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  void fitColumns();  // figure columns at their content width, capped; rows re-wrapped

  QLabel* m_title = nullptr;
  QLabel* m_mode = nullptr;
  QLabel* m_explanation = nullptr;
  QLabel* m_mismatch = nullptr;
  QLabel* m_runNote = nullptr;   // whose run the charts show, when not this preset's
  QTableWidget* m_table = nullptr;
  QVector<Comparison> m_comparisons;       // the preset's rows
  QVector<ComparisonResult> m_results;     // AccelLab's, in the same order
  QString m_presetId, m_presetTitle;
  int m_presetEpochs = 0;
  QString m_mismatchReason;
  QString m_explanationTemplate;   // the preset's text, with {published:N} / {accellab:N}

public:
  const QVector<ComparisonResult>& results() const { return m_results; }
  const QVector<Comparison>& comparisons() const { return m_comparisons; }
};

}  // namespace app::gui
