#pragma once
// Help -> "How accurate is this?": the simulator's scoreboard on the shipped calibration rows,
// per software stack and device family, with the rows that miss most. AccelLab shows its own
// measured error next to every simulated figure; this is where those bands come from.
#include <QDialog>

namespace core::sim {
struct ValidationResult;
}

namespace app::gui {

class AccuracyDialog : public QDialog {
  Q_OBJECT
public:
  AccuracyDialog(const core::sim::ValidationResult& result, QWidget* parent = nullptr);
};

}  // namespace app::gui
