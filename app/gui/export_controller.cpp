#include "app/gui/export_controller.h"

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCursor>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QSettings>
#include <QStandardPaths>
#include <qcustomplot.h>

#include "app/gui/message_bar.h"
#include "app/gui/settings_keys.h"
#include "widgets/chart_base.h"
#include "widgets/chart_deck.h"
#include "widgets/chart_export.h"
#include "widgets/data_export.h"
#include "widgets/export_options_dialog.h"

namespace app::gui {
namespace {

widgets::ChartBase* chartContaining(QWidget* w) {
  for (; w; w = w->parentWidget())
    if (auto* c = qobject_cast<widgets::ChartBase*>(w)) return c;
  return nullptr;
}

}  // namespace

ExportController::ExportController(const AppActions& a, widgets::ChartDeck* deck, QWidget* window,
                                   MessageBar* messages, QObject* parent)
    : QObject(parent), m_deck(deck), m_window(window), m_messages(messages),
      m_folder(QStandardPaths::writableLocation(QStandardPaths::PicturesLocation)) {
  connect(a.exportChart, &QAction::triggered, this, &ExportController::exportChart);
  connect(a.exportAllCharts, &QAction::triggered, this, &ExportController::exportAllCharts);
  connect(a.exportCsv, &QAction::triggered, this, [this] { exportData(false); });
  connect(a.exportJson, &QAction::triggered, this, [this] { exportData(true); });
  connect(a.copyChart, &QAction::triggered, this, &ExportController::copyChart);
  connect(a.exportOptions, &QAction::triggered, this, &ExportController::editOptions);
}

void ExportController::setExportFolder(const QString& folder) {
  if (!folder.isEmpty()) m_folder = folder;
}

bool ExportController::setOptions(const widgets::ExportOptions& options) {
  if (!options.validate().isEmpty()) return false;
  m_options = options;
  return true;
}

void ExportController::readSettings(const QSettings& s) {
  setExportFolder(s.value(keys::kExportFolder).toString());
  m_csvUtf8Bom = s.value(keys::kExportCsvBom, false).toBool();
  if (!s.contains(keys::kExportWidth)) return;
  widgets::ExportOptions o;
  o.width = s.value(keys::kExportWidth).toDouble();
  o.height = s.value(keys::kExportHeight).toDouble();
  o.dpi = s.value(keys::kExportDpi).toInt();
  o.fontScale = s.value(keys::kExportFontScale).toDouble();
  const QString unit = s.value(keys::kExportUnit).toString();
  QString why = widgets::unitFromName(unit, o.unit) ? o.validate()
                                                    : tr("unit \"%1\" is not px, cm or in").arg(unit);
  if (!why.isEmpty())
    m_messages->showMessage(MessageBar::Level::Warning, tr("Export options reset to the default"),
                            tr("The saved export options (settings: export/…) were not usable: %1.").arg(why));
  else
    m_options = o;
}

void ExportController::writeSettings(QSettings& s) const {
  s.setValue(keys::kExportFolder, m_folder);
  s.setValue(keys::kExportWidth, m_options.width);
  s.setValue(keys::kExportHeight, m_options.height);
  s.setValue(keys::kExportUnit, widgets::unitName(m_options.unit));
  s.setValue(keys::kExportDpi, m_options.dpi);
  s.setValue(keys::kExportFontScale, m_options.fontScale);
  s.setValue(keys::kExportCsvBom, m_csvUtf8Bom);
}

void ExportController::editOptions() {
  widgets::ExportOptionsDialog dialog(m_options, m_window);
  if (dialog.exec() != QDialog::Accepted) return;
  if (setOptions(dialog.options()))
    m_messages->showMessage(MessageBar::Level::Info, tr("Charts will be exported at %1").arg(m_options.summary()));
}

widgets::ChartBase* ExportController::targetChart() const {
  if (widgets::ChartBase* c = m_deck->maximisedChart()) return c;
  if (widgets::ChartBase* c = chartContaining(QApplication::widgetAt(QCursor::pos()))) return c;
  return chartContaining(QApplication::focusWidget());
}

widgets::ChartBase* ExportController::askForChart() {
  QStringList titles;
  for (const widgets::ChartBase* c : m_deck->charts()) titles << c->title();
  bool ok = false;
  const QString title = QInputDialog::getItem(m_window, tr("Export Chart"), tr("Chart:"), titles, 0, false, &ok);
  if (!ok) return nullptr;
  return m_deck->charts().value(static_cast<int>(titles.indexOf(title)));
}

QString ExportController::askForFile(const QString& title, const QString& suggestedName, const QString& filters) {
  const QString path = QFileDialog::getSaveFileName(m_window, title, QDir(m_folder).filePath(suggestedName), filters);
  if (!path.isEmpty()) m_folder = QFileInfo(path).absolutePath();
  return path;
}

bool ExportController::report(const QString& what, const QString& path, const QString& error) {
  if (error.isEmpty()) {
    m_messages->showMessage(MessageBar::Level::Info, tr("%1 saved").arg(what), QDir::toNativeSeparators(path));
    return true;
  }
  m_messages->showMessage(MessageBar::Level::Error, tr("%1 could not be saved").arg(what),
                          error + "\n" + tr("Choose another folder (one you can write to) and try again."));
  return false;
}

void ExportController::exportChart() {
  widgets::ChartBase* chart = targetChart();
  if (!chart) chart = askForChart();
  if (!chart) return;
  const QString path = askForFile(tr("Export Chart"), chart->chartId() + ".png",
                                  tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"));
  if (path.isEmpty()) return;
  chart->refreshNow();
  const widgets::ExportResult result = widgets::exportChart(*chart, path, m_options);
  if (!report(tr("Chart “%1”").arg(chart->title()), path, result.error)) return;
  // A figure made taller than asked for says so (at the size chosen its legend or upright
  // labels would have squeezed the plot).
  if (result.figure.height != m_options.height)
    m_messages->showMessage(MessageBar::Level::Info, tr("Chart “%1” saved, taller than chosen").arg(chart->title()),
                            tr("%1\n%2 instead of %3: at the chosen height the legend and labels would have left "
                               "too little of the figure to the plot.")
                                .arg(QDir::toNativeSeparators(path), result.figure.summary(), m_options.summary()));
}

void ExportController::exportAllCharts() {
  const QString path = askForFile(tr("Export All Charts"), "accellab-charts.pdf", tr("PDF document (*.pdf)"));
  if (path.isEmpty()) return;
  m_deck->refreshAll();
  report(tr("All charts"), path, widgets::exportChartsPdf(m_deck->charts(), path, m_options).error);
}

void ExportController::exportData(bool json) {
  // The CSV's two filters differ only in the byte-order mark; the choice is remembered.
  const QString plainCsv = tr("CSV table (*.csv)");
  const QString bomCsv = tr("CSV for spreadsheet programs, UTF-8 with byte-order mark (*.csv)");
  QString filter = m_csvUtf8Bom ? bomCsv : plainCsv;
  QString path;
  if (json) {
    path = askForFile(tr("Export Data as JSON"), "accellab-data.json", tr("JSON (*.json)"));
  } else {
    path = QFileDialog::getSaveFileName(m_window, tr("Export Data as CSV"), QDir(m_folder).filePath("accellab-data.csv"),
                                        plainCsv + ";;" + bomCsv, &filter);
    if (!path.isEmpty()) {
      m_folder = QFileInfo(path).absolutePath();
      m_csvUtf8Bom = filter == bomCsv;
    }
  }
  if (path.isEmpty()) return;
  const widgets::ExportResult r = json ? widgets::exportSeriesJson(m_deck->charts(), path, jsonExtras())
                                       : widgets::exportSeriesCsv(m_deck->charts(), path, m_csvUtf8Bom);
  report(json ? tr("Data (JSON)") : tr("Data (CSV)"), path, r.error);
}

void ExportController::copyChart() {
  widgets::ChartBase* chart = targetChart();
  if (!chart && !m_deck->charts().isEmpty()) chart = m_deck->charts().first();
  if (!chart) return;
  chart->refreshNow();
  widgets::copyChartToClipboard(*chart, m_options);
  m_messages->showMessage(MessageBar::Level::Info, tr("Chart “%1” copied to the clipboard").arg(chart->title()));
}

QStringList ExportController::exportEverything(const QString& dir, QStringList& errors) {
  QStringList written;
  if (!QDir().mkpath(dir)) {
    errors << tr("%1: cannot create the folder").arg(QDir::toNativeSeparators(dir));
    return written;
  }
  auto note = [&](const QString& path, const widgets::ExportResult& r) {
    if (r.ok()) {
      written << path;
    } else {
      errors << r.error;
    }
  };
  m_deck->refreshAll();
  // Charts with nothing drawn (accuracy and loss of a simulation-only run) are not written.
  for (widgets::ChartBase* chart : m_deck->charts()) {
    chart->refreshNow();
    if (!chart->hasData()) continue;
    for (widgets::ChartFormat f : {widgets::ChartFormat::Png, widgets::ChartFormat::Pdf, widgets::ChartFormat::Svg}) {
      const QString path = widgets::chartFileName(dir, *chart, f);
      note(path, f == widgets::ChartFormat::Png   ? widgets::exportChartPng(*chart, path, m_options)
                 : f == widgets::ChartFormat::Pdf ? widgets::exportChartPdf(*chart, path, m_options)
                                                  : widgets::exportChartSvg(*chart, path, m_options));
    }
  }
  const QDir d(dir);
  note(d.filePath("all-charts.pdf"), widgets::exportChartsPdf(m_deck->charts(), d.filePath("all-charts.pdf"), m_options));
  note(d.filePath("data.csv"), widgets::exportSeriesCsv(m_deck->charts(), d.filePath("data.csv"), m_csvUtf8Bom));
  note(d.filePath("data.json"), widgets::exportSeriesJson(m_deck->charts(), d.filePath("data.json"), jsonExtras()));
  // The charts replot lazily (queued); the window grab paints their buffers as they are, so
  // bring them up to date first (a simulation-only run finishes before any queued replot).
  for (widgets::ChartBase* chart : m_deck->charts()) chart->plot()->replot(QCustomPlot::rpImmediateRefresh);
  QByteArray png;
  {
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!m_window->grab().save(&buffer, "PNG")) png.clear();
  }
  const QString shot = d.filePath("window.png");
  note(shot, png.isEmpty() ? widgets::ExportResult{tr("Cannot render the window screenshot for %1.").arg(QDir::toNativeSeparators(shot))}
                           : widgets::writeFileAtomically(shot, png));
  return written;
}

}  // namespace app::gui
