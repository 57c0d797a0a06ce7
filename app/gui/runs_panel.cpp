#include "app/gui/runs_panel.h"

#include <QHBoxLayout>
#include <QListView>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/run_list_model.h"
#include "widgets/run_store.h"

namespace app::gui {

RunsPanel::RunsPanel(widgets::RunStore* store, QWidget* parent)
    : QWidget(parent), m_store(store), m_model(new widgets::RunListModel(store, this)), m_view(new QListView(this)),
      m_buttons(new QWidget(this)) {
  setObjectName("RunsPanel");
  m_view->setObjectName("runsList");
  m_view->setModel(m_model);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->setUniformItemSizes(true);
  auto* buttons = new QHBoxLayout(m_buttons);
  buttons->setContentsMargins(0, 0, 0, 0);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_view, 1);
  layout->addWidget(m_buttons);

  connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& index) {
    const int id = m_model->runIdAt(index.row());
    if (id) m_store->setCurrentRun(id);
    Q_EMIT selectionChanged(id);
  });
  // The store's current run (a new run, a deleted one) is the selected row.
  connect(m_store, &widgets::RunStore::currentRunChanged, this, [this](int id) {
    const QModelIndex index = m_model->indexForRun(id);
    if (index.isValid() && m_view->currentIndex() != index) m_view->setCurrentIndex(index);
    if (!index.isValid()) Q_EMIT selectionChanged(0);
  });
}

void RunsPanel::addActions(const QList<QAction*>& actions) {
  auto* layout = static_cast<QHBoxLayout*>(m_buttons->layout());
  for (QAction* a : actions) {
    auto* b = new QToolButton(m_buttons);
    b->setDefaultAction(a);
    b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    layout->addWidget(b);
  }
}

int RunsPanel::selectedRunId() const {
  const QModelIndex index = m_view->currentIndex();
  return index.isValid() ? m_model->runIdAt(index.row()) : 0;
}

}  // namespace app::gui
