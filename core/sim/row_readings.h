#pragma once
// Where a published measurement leaves its hardware open ("Kaggle CPU spec not stated in
// article"), the reading AccelLab takes, with the source that supports it: one entry per phrase
// in resources/calibration/readings.json. The reference CSV stays as published; a reading is
// applied to the rows whose tolerance_note holds its phrase, on their configurations of its
// device, and the row keeps a line saying so. Validation, the error bands, the stack fit and
// the presets all see the same hardware.
#include <string>
#include <vector>

#include "core/sim/validation.h"

namespace core::sim {

struct RowReading {
  std::string noteContains;  // rows whose tolerance_note holds this phrase
  std::string device;        // the configurations (a, or b of a ratio) it applies to
  int vcpus = 0;             // cpu devices: the vCPUs the session had
  std::string why;           // one line, shown beside the row
  std::string ref, date;     // where the reading comes from
};

// Strict: unknown keys, a missing phrase/device/source, vCPUs outside 1..1024 are refused,
// naming the file and the key.
std::vector<RowReading> parseRowReadings(const std::string& text, const std::string& path);
std::vector<RowReading> readRowReadings(const std::string& path);
std::string shippedRowReadingsPath();  // resourceDir()/calibration/readings.json

// Sets the configurations' vCPUs and the row's `reading` (the why, with the source).
void applyReadings(std::vector<ReferenceRow>& rows, const std::vector<RowReading>& readings);

// The shipped calibration rows with the shipped readings applied: what the error bands, the
// presets' checks and `validate` use.
std::vector<ReferenceRow> shippedReferenceRows();

}  // namespace core::sim
