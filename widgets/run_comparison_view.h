#pragma once
// The runs comparison table: settings and results of the given runs side by side, the rows
// where they differ in bold on a tinted background (widgets/run_comparison.h builds the rows).
#include <QTableWidget>
#include <vector>

namespace widgets {

struct Run;

class RunComparisonView : public QTableWidget {
  Q_OBJECT
public:
  explicit RunComparisonView(QWidget* parent = nullptr);
  void setRuns(const std::vector<const Run*>& runs);
  // Tab-separated, a header line then one line per row (for the clipboard and spreadsheets).
  QString toTsv() const;
};

}  // namespace widgets
