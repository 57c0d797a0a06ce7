#pragma once
// The status bar's run display: a progress bar with the ETA, and live images/s.
#include <QWidget>

#include "app/gui/training_session.h"

class QLabel;
class QProgressBar;

namespace app::gui {

class RunStatusWidget : public QWidget {
  Q_OBJECT
public:
  explicit RunStatusWidget(QWidget* parent = nullptr);

  void showProgress(const RunProgress& progress, bool paused);
  void showIdle(const QString& text = {});
  QString rateText() const;
  QString etaText() const;
  int percent() const;

  static QString formatEta(double seconds);  // "12 s", "3 min 05 s", "1 h 20 min"

private:
  QProgressBar* m_bar = nullptr;
  QLabel* m_rate = nullptr;
};

}  // namespace app::gui
