#pragma once
// Plain figures derived from a Run, shared by the charts (and their exports).
#include <QString>
#include <QVector>

namespace widgets {

struct DeviceResult;
struct Run;

// The device's legend text, always ending in "(measured)" or "(simulated)".
QString deviceLabel(const DeviceResult& d);
// "4× V100" style short name (no measured/simulated suffix).
QString deviceShortName(const DeviceResult& d);
// Seconds per completed epoch: DeviceResult::epochSeconds, or for the measured host when
// the app has not filled them, the run's EpochSample::hostSeconds.
QVector<double> deviceEpochSeconds(const Run& run, const DeviceResult& d);
// Measured images/s of the run on this machine: mean over epochs after the first (which
// includes warm-up) when there are several; else from the batches so far. NaN when none.
double measuredImagesPerSecond(const Run& run);
// Measured mean seconds per training step for each completed epoch.
QVector<double> measuredStepSecondsPerEpoch(const Run& run);
// True when the simulator says the device cannot hold this batch.
bool outOfMemory(const DeviceResult& d);

// What a run was, for exports (a paper's figure must say how it was made): "#3 name: colab-cnn
// on fashion-mnist (subset 2,048), batch 1024, 5 epochs, adam lr 0.001 (weight decay 0,
// schedule constant), fp32, seed 1; devices: this machine (measured); k80 ×1 fp32 keras-2017
// $0.70/h on-demand; ...".
QString runConfigurationText(const Run& run);

// Figures for people, by core/util/numbers.h's one rule: "0.0123", "12.3", "16,834", "1.23 M";
// money "$0.0000229", "$12.35", "$1,234"; "850 ms", "42.0 s", "3.5 min", "12.3 days"; "–" for NaN.
QString formatValue(double v);
QString formatMoney(double usd);
QString formatSeconds(double s);
QString formatGib(double bytes);   // "79.4" (GiB, one decimal)

}  // namespace widgets
