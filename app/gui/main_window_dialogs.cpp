// MainWindow's dialogs: preferences, the run comparison, getting started and about. Each
// non-modal one is the window's only one of its kind: asked again, the open one is raised.
#include "app/gui/main_window.h"

#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

#include "app/gui/appearance.h"
#include "app/gui/export_controller.h"
#include "app/gui/preferences_dialog.h"
#include "app/gui/settings_keys.h"
#include "core/util/version.h"
#include "widgets/chart_base.h"
#include "widgets/run_comparison_view.h"
#include "widgets/run_store.h"

namespace app::gui {

void MainWindow::showPreferences() {
  PreferencesDialog dialog(this);
  dialog.setValues(m_appearance->theme(), m_exportController->exportFolder(), m_appearance->presentationScale());
  if (dialog.exec() != QDialog::Accepted) return;
  m_appearance->setTheme(dialog.theme());
  m_exportController->setExportFolder(dialog.exportFolder());
  m_appearance->setPresentationScale(dialog.presentationScale());
}

namespace {

// A window's one dialog of a kind (`name`): the open one, raised, or nullptr when there is none.
QDialog* raiseOpenDialog(QWidget* window, const char* name) {
  auto* open = window->findChild<QDialog*>(name);
  if (open) {
    open->raise();
    open->activateWindow();
  }
  return open;
}

// A new non-modal dialog of that kind, deleted when closed.
QDialog* newDialog(QWidget* window, const char* name, const QString& title) {
  auto* dialog = new QDialog(window);
  dialog->setObjectName(name);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(title);
  return dialog;
}

}  // namespace

QDialog* MainWindow::showRunComparison() {
  if (QDialog* open = raiseOpenDialog(this, "RunComparisonDialog")) return open;
  QDialog* dialog = newDialog(this, "RunComparisonDialog", tr("Compare runs"));
  auto* layout = new QVBoxLayout(dialog);
  auto* note = new QLabel(dialog);
  note->setWordWrap(true);
  layout->addWidget(note);
  auto* view = new widgets::RunComparisonView(dialog);
  layout->addWidget(view, 1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QPushButton* copy = buttons->addButton(tr("&Copy as Table"), QDialogButtonBox::ActionRole);
  connect(copy, &QPushButton::clicked, view, [view] { QGuiApplication::clipboard()->setText(view->toTsv()); });
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  layout->addWidget(buttons);
  // The ticked runs (the newest ones the charts draw), kept current while it is open.
  auto fill = [this, view, note] {
    std::vector<const widgets::Run*> runs = m_store->visibleRuns();
    const std::size_t all = runs.size();
    constexpr std::size_t cap = widgets::ChartBase::kMaxShownRuns;
    if (runs.size() > cap) runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(cap));
    view->setRuns(runs);
    note->setText(runs.empty() ? tr("Tick runs in the Runs list to compare them.")
                  : all > runs.size() ? tr("The newest %1 of %2 ticked runs; rows in bold differ between them.").arg(runs.size()).arg(all)
                                      : tr("%n ticked run(s); rows in bold differ between them.", nullptr, static_cast<int>(runs.size())));
  };
  fill();
  for (auto signal : {&widgets::RunStore::runAdded, &widgets::RunStore::runRemoved, &widgets::RunStore::runChanged})
    connect(m_store, signal, dialog, fill);
  dialog->resize(std::min(1100, width() - 40), 520);
  dialog->show();
  return dialog;
}

QDialog* MainWindow::showGettingStartedOnce() {
  QSettings s;
  if (s.value(keys::kGettingStartedShown, false).toBool()) return nullptr;
  s.setValue(keys::kGettingStartedShown, true);
  return showGettingStarted();
}

QDialog* MainWindow::showGettingStarted() {
  if (QDialog* open = raiseOpenDialog(this, "GettingStarted")) return open;
  QDialog* dialog = newDialog(this, "GettingStarted", tr("Getting started with AccelLab"));
  auto* layout = new QVBoxLayout(dialog);
  auto* page = new QTextBrowser(dialog);
  page->setObjectName("GettingStartedPage");
  page->setSource(QUrl("qrc:/help/getting-started.html"));
  layout->addWidget(page);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  layout->addWidget(buttons);
  dialog->resize(720, std::min(760, std::max(480, height() - 40)));
  dialog->show();
  return dialog;
}

void MainWindow::about() {
  QMessageBox::about(this, tr("About AccelLab"),
                     tr("<b>AccelLab %1</b><p>Trains on this CPU for real; simulates CPUs, GPUs and TPUs from the "
                        "model's own layers and a data description of the hardware, and compares time and cost.</p>"
                        "<p>Device figures and prices: <code>resources/devices/*.json</code>, each with its source "
                        "and date. Published experiments: <code>resources/presets/*.json</code>.</p>"
                        "<p>License: GPL-3.0-or-later (QCustomPlot is GPL-3.0-or-later).</p>")
                         .arg(core::util::kVersion));
}

}  // namespace app::gui
