#pragma once
// Published comparisons of a preset, re-computed by the simulator at the current settings
// ("TPU v3-8 vs P100, batch 16: published ≈3.5×, AccelLab 3.1×"): core's evaluation
// (core/experiment/comparison.h) in the app's words, and the guide text's figures.
#include <QJsonArray>
#include <QString>
#include <QStringList>
#include <limits>
#include <QVector>

#include "app/gui/preset.h"

namespace widgets {
struct Run;
}

namespace app::gui {

class SimService;

struct ComparisonResult {
  bool ok = false;
  double value = 0;        // the speed-up, or 1 = fits / 0 = out of memory
  QString text;            // "3.1×", "fits", "out of memory", or why it could not be computed
  QString detail;          // the two run times, for a tooltip
  // Against the published figure: AccelLab / published - 1 (speed-ups; NaN otherwise or
  // when not computed), and whether that is within the row's tolerance (fits: the same answer).
  double error = std::numeric_limits<double>::quiet_NaN();
  bool agrees = false;
};

// "+12%", "−30%", "–" when not computed.
QString errorText(double error);

// What the AccelLab figure of a row is computed for, as the article measured it: "5 epochs ×
// 100 steps, compilation included", "12 whole epochs".
QString protocolText(const Comparison& comparison, int presetEpochs);

// The same figure as the row, read off the run on screen (`run`, of this preset): the ratio of
// the two devices' whole-run times (simulated, or measured for this machine), or whether the
// device fits. Not computed (ok false, text "–", detail why) when a side is not in the run or
// the row is for another batch.
ComparisonResult comparisonOnRun(const Comparison& comparison, const widgets::Run& run);

// `devices` are the current device choices (a side's count/vcpus/precision default to the
// chosen device's row, then to the comparison's overrides).
ComparisonResult evaluateComparison(const SimService& sim, const Comparison& comparison,
                                    const core::experiment::TrainConfig& config,
                                    const QVector<core::experiment::DeviceChoice>& devices);

// "≈3.5×", "3.96×", "fits", "out of memory".
QString publishedText(const Comparison& comparison);

// A guide text with its figures taken from the comparisons, so that no hand-typed number can
// contradict a chart: "{published:N}" is row N's published figure ("≈100×"), "{accellab:N}"
// AccelLab's ("448×"; "…" until computed). Rows count from 1.
QString renderGuideText(const QString& text, const QVector<Comparison>& comparisons,
                        const QVector<ComparisonResult>& results);
// core::experiment::guidePlaceholderErrors as a QStringList.
QStringList guidePlaceholderErrors(const QString& text, int rows);

// The rows as the exported data.json carries them, for a script to check the agreement:
// label, published, accellab, error, tolerance, agrees, explanation (and their texts, the
// source). `mismatch` (the set-up is not the preset's) marks every row not compared.
QJsonArray comparisonsToJson(const QVector<Comparison>& comparisons, const QVector<ComparisonResult>& results,
                             const QString& mismatch);

}  // namespace app::gui
