#pragma once
// A message strip above the charts: what went wrong, where, and how to fix it — in the
// window, not a modal box, so the app keeps working (missing dataset, batch larger than the
// dataset, a device file that fails validation, a diverged run).
#include <QFrame>

class QLabel;
class QToolButton;

namespace app::gui {

class MessageBar : public QFrame {
  Q_OBJECT
public:
  enum class Level { Info, Warning, Error };
  explicit MessageBar(QWidget* parent = nullptr);

  // `what` is the headline; `details` the where and how-to-fix (plain text, may be multi-line).
  void showMessage(Level level, const QString& what, const QString& details = {});
  void clearMessage();
  Level level() const { return m_level; }
  QString text() const;  // headline and details, for tests and the log
  const QString& details() const { return m_details; }

private:
  QLabel* m_icon = nullptr;
  QLabel* m_text = nullptr;
  QToolButton* m_close = nullptr;
  Level m_level = Level::Info;
  QString m_what, m_details;
};

}  // namespace app::gui
