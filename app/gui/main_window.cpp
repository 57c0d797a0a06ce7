#include "app/gui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "core/util/version.h"

namespace app::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("AccelLab"));
  setObjectName("MainWindow");
  createActions();
  createMenus();
  createDocks();
  auto* center = new QLabel(tr("Pick a dataset, a model and hardware, then press Run."), this);
  center->setAlignment(Qt::AlignCenter);
  setCentralWidget(center);
  statusBar()->showMessage(tr("Ready"));
  readSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions() {
  m_quitAct = new QAction(QIcon::fromTheme("application-exit"), tr("&Quit"), this);
  m_quitAct->setShortcuts({QKeySequence::Quit, QKeySequence(Qt::CTRL | Qt::Key_Q)});
  m_quitAct->setStatusTip(tr("Quit AccelLab"));
  connect(m_quitAct, &QAction::triggered, this, &QWidget::close);
  m_aboutAct = new QAction(QIcon::fromTheme("help-about"), tr("&About AccelLab"), this);
  connect(m_aboutAct, &QAction::triggered, this, &MainWindow::about);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(m_quitAct);
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(m_aboutAct);
}

void MainWindow::createDocks() {
  m_experimentDock = new QDockWidget(tr("Experiment"), this);
  m_experimentDock->setObjectName("ExperimentDock");
  m_experimentDock->setWidget(new QLabel(tr("Experiment settings"), m_experimentDock));
  addDockWidget(Qt::LeftDockWidgetArea, m_experimentDock);
  m_hardwareDock = new QDockWidget(tr("Hardware"), this);
  m_hardwareDock->setObjectName("HardwareDock");
  m_hardwareDock->setWidget(new QLabel(tr("Device catalog"), m_hardwareDock));
  addDockWidget(Qt::LeftDockWidgetArea, m_hardwareDock);
}

void MainWindow::readSettings() {
  QSettings s;
  if (!restoreGeometry(s.value("window/geometry").toByteArray())) resize(1280, 800);
  restoreState(s.value("window/state").toByteArray());
}

void MainWindow::writeSettings() const {
  QSettings s;
  s.setValue("window/geometry", saveGeometry());
  s.setValue("window/state", saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  writeSettings();
  event->accept();
}

void MainWindow::about() {
  QMessageBox::about(this, tr("About AccelLab"),
                     tr("<b>AccelLab %1</b><p>Train on this CPU for real; simulate CPUs, GPUs and TPUs.</p>"
                        "<p>License: GPL-3.0-or-later.</p>").arg(core::util::kVersion));
}

}  // namespace app::gui
