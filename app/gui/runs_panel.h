#pragma once
// The Runs dock: every run made (and reopened from the history), its colour and status; a
// checkbox shows or hides it on every chart; the selected run is the store's current run.
#include <QWidget>

class QAction;
class QListView;

namespace widgets {
class RunListModel;
class RunStore;
}  // namespace widgets

namespace app::gui {

class RunsPanel : public QWidget {
  Q_OBJECT
public:
  RunsPanel(widgets::RunStore* store, QWidget* parent = nullptr);

  // Buttons under the list for these actions (hide/show, delete).
  void addActions(const QList<QAction*>& actions);
  int selectedRunId() const;   // 0 when none
  widgets::RunListModel* model() const { return m_model; }
  QListView* view() const { return m_view; }

Q_SIGNALS:
  void selectionChanged(int runId);

private:
  widgets::RunStore* m_store;
  widgets::RunListModel* m_model;
  QListView* m_view;
  QWidget* m_buttons;
};

}  // namespace app::gui
