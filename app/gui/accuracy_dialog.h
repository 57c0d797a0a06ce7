#pragma once
// Help -> "How accurate is this?": the simulator's held-out errors on the shipped calibration
// rows (each row predicted by a fit without it), per workload (CNN/RNN, transformer), software
// stack and hardware generation, with the rows that miss most. The ± band beside every
// simulated figure comes from this table (core/sim/error_band.h).
#include <QDialog>

namespace core::sim {
struct HeldOutErrors;
}

namespace app::gui {

class AccuracyDialog : public QDialog {
  Q_OBJECT
public:
  // `calibration`: the shipped held-out errors (the bands' rows); false: a file of published
  // figures the user opened, which the simulator was never fitted on.
  AccuracyDialog(const core::sim::HeldOutErrors& errors, QWidget* parent = nullptr, bool calibration = true);
};

}  // namespace app::gui
