// MainWindow's menu bar and tool bars: which action sits where. The actions themselves are made
// in createActions (main_window.cpp) and by the controllers that own them.
#include "app/gui/main_window.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSignalBlocker>
#include <QToolBar>

#include "app/gui/bridge_controller.h"
#include "app/gui/energy_menu.h"
#include "app/gui/preset_controller.h"
#include "widgets/chart_base.h"
#include "widgets/chart_deck.h"

namespace app::gui {

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addMenu(m_presetController->menu());
  file->addAction(m_actions.openPreset);
  file->addAction(m_actions.openModel);
  file->addAction(m_actions.savePreset);
  file->addSeparator();
  file->addAction(m_actions.exportChart);
  file->addAction(m_actions.exportAllCharts);
  file->addAction(m_actions.exportCsv);
  file->addAction(m_actions.exportJson);
  file->addAction(m_actions.exportOptions);
  file->addSeparator();
  file->addAction(m_bridge->exportJobAction());
  file->addAction(m_bridge->importRunAction());
  file->addSeparator();
  file->addAction(m_actions.quit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(m_actions.copyChart);
  edit->addSeparator();
  edit->addAction(m_actions.preferences);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : {m_experimentDock, m_hardwareDock, m_guideDock, m_runsDock}) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(m_actions.lightTheme);
  view->addAction(m_actions.darkTheme);
  view->addSeparator();
  view->addAction(m_actions.showAllCharts);
  addChartsShownMenu(view);
  view->addAction(m_actions.presentation);
  view->addAction(m_actions.resetLayout);

  QMenu* hardware = menuBar()->addMenu(tr("Hard&ware"));
  hardware->addAction(m_actions.newDevice);
  hardware->addAction(m_actions.editDevice);
  hardware->addSeparator();
  hardware->addAction(m_actions.remeasureHost);

  QMenu* simulate = menuBar()->addMenu(tr("&Simulate"));
  QAction* planner = simulate->addAction(tr("&LLM training planner…"), this, [this] { openLlmPlanner(); });
  planner->setObjectName("llmPlannerAction");
  planner->setShortcut(QKeySequence(tr("Ctrl+Shift+L")));
  planner->setStatusTip(tr("Simulate LLM and transformer training (pre-training, LoRA) on today's accelerators: "
                           "plans, memory, tokens/s and cost"));
  simulate->addAction(m_bridge->calibrateAction());
  simulate->addSeparator();
  m_energyMenu->addTo(simulate);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(m_actions.run);
  run->addAction(m_actions.pause);
  run->addAction(m_actions.stop);
  run->addSeparator();
  run->addAction(m_actions.compareRuns);
  run->addAction(m_actions.hideRun);
  run->addAction(m_actions.deleteRun);
  run->addAction(m_actions.clearRuns);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(m_actions.gettingStarted);
  help->addAction(m_actions.accuracy);
  help->addAction(m_actions.about);
  help->addAction(m_actions.aboutQt);
}

void MainWindow::addChartsShownMenu(QMenu* view) {
  // Which charts the grid shows: a smaller set is laid out to fit the window without scrolling.
  QMenu* menu = view->addMenu(tr("C&harts Shown"));
  menu->setObjectName("chartsShownMenu");
  for (widgets::ChartBase* chart : m_deck->charts()) {
    QAction* a = menu->addAction(chart->title());
    a->setObjectName("showChart_" + chart->chartId());
    a->setData(chart->chartId());
    a->setCheckable(true);
    a->setChecked(m_deck->isShown(chart));
    a->setStatusTip(tr("Show or hide the chart \"%1\" in the grid").arg(chart->title()));
    connect(a, &QAction::toggled, this, [this, chart](bool on) {
      QStringList ids = m_deck->shownCharts();
      ids.removeAll(chart->chartId());
      if (on) ids << chart->chartId();
      m_deck->setShownCharts(ids);  // none left: every chart again
    });
  }
  connect(m_deck, &widgets::ChartDeck::shownChartsChanged, menu, [this, menu](const QStringList& ids) {
    for (QAction* a : menu->actions()) {
      const QSignalBlocker block(a);
      a->setChecked(ids.contains(a->data().toString()));
    }
  });
}

void MainWindow::createToolBars() {
  QToolBar* runBar = addToolBar(tr("Run"));
  runBar->setObjectName("RunToolBar");
  runBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  runBar->addAction(m_actions.run);
  runBar->addAction(m_actions.pause);
  runBar->addAction(m_actions.stop);
  QToolBar* chartBar = addToolBar(tr("Charts"));
  chartBar->setObjectName("ChartToolBar");
  chartBar->addAction(m_actions.exportChart);
  chartBar->addAction(m_actions.exportAllCharts);
  chartBar->addAction(m_actions.copyChart);
  chartBar->addAction(m_actions.showAllCharts);
  chartBar->addAction(m_actions.presentation);
}

}  // namespace app::gui
