#pragma once
// Runs side by side (the W&B runs table): one row per setting or result, one column per run,
// and the rows where the runs differ marked. The same rows name runs by what differs between
// them ("lr 10 · sgd"), where a legend needs to tell two runs apart.
#include <QString>
#include <QStringList>
#include <QVector>
#include <vector>

namespace widgets {

struct Run;

struct ComparisonRow {
  QString label;          // "learning rate", "time on k80 (simulated)"
  QStringList values;     // one per run, "" where it does not apply
  bool setting = true;    // a hyper-parameter or set-up (false: a result)
  bool differs = false;   // not every run has the same value (a measured time: beyond noise)
  QString note;           // why a row that looks different is not marked
};

// Settings first (model, data, subset, batch, epochs, optimizer and its settings, precision,
// seed, threads, stack, devices), then results (status, final accuracy or bits per character,
// time measured here, and per device the simulated run time and cost).
QVector<ComparisonRow> compareRuns(const std::vector<const Run*>& runs);

// Per run, the settings that set it apart from the others ("lr 10 · sgd · seed 1"); empty
// strings when there is one run or nothing differs.
QStringList distinguishingNames(const std::vector<const Run*>& runs);

}  // namespace widgets
