#pragma once
// The AccelLab main window. Its constructor reads like a table of contents (Qt's
// application example): actions, menus, docks, settings.
#include <QMainWindow>

class QDockWidget;
class QLabel;

namespace app::gui {

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  QDockWidget* experimentDock() const { return m_experimentDock; }
  QDockWidget* hardwareDock() const { return m_hardwareDock; }

protected:
  void closeEvent(QCloseEvent* event) override;

private:
  void createActions();
  void createMenus();
  void createDocks();
  void readSettings();
  void writeSettings() const;
  void about();

  QDockWidget* m_experimentDock = nullptr;
  QDockWidget* m_hardwareDock = nullptr;
  QAction* m_quitAct = nullptr;
  QAction* m_aboutAct = nullptr;
};

}  // namespace app::gui
