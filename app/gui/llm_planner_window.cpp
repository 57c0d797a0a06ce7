#include "app/gui/llm_planner_window.h"

#include <QDir>
#include <QGuiApplication>
#include <QScreen>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSaveFile>
#include <QStatusBar>
#include <QTableWidget>
#include <QToolBar>
#include <filesystem>
#include <qcustomplot.h>

#include "app/gui/sim_service.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/llm_report_json.h"
#include "core/util/files.h"
#include "widgets/chart_export.h"
#include "widgets/llm_planner_panel.h"

namespace app::gui {
namespace {

QString csvField(QString s) {
  if (s.contains(',') || s.contains('"') || s.contains('\n')) s = '"' + s.replace("\"", "\"\"") + '"';
  return s;
}

bool writeFile(const QString& path, const QByteArray& data, QString* error) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size() || !f.commit()) {
    if (error) *error = path + ": " + f.errorString();
    return false;
  }
  return true;
}

}  // namespace

LlmPlannerWindow::LlmPlannerWindow(const SimService* sim, QWidget* parent)
    : QMainWindow(parent), m_sim(sim), m_panel(new widgets::LlmPlannerPanel(this)) {
  setObjectName("LlmPlannerWindow");
  setWindowTitle(tr("LLM training planner (simulated) — AccelLab"));
  setCentralWidget(m_panel);

  QVector<widgets::LlmPlannerPanel::ModelItem> models;
  for (const auto& t : core::nn::referenceTransformers())
    models.push_back({QString::fromStdString(t.id), QString::fromStdString(t.name),
                      t.kind == core::nn::TransformerKind::Vision, t.tokensPerSample(0)});
  QVector<widgets::LlmPlannerPanel::DeviceItem> devices;
  for (const auto& d : m_sim->catalog().devices())
    if (d.kind != core::hw::DeviceKind::Cpu) devices.push_back({QString::fromStdString(d.id), QString::fromStdString(d.name)});
  QStringList stacks;
  for (const auto& s : m_sim->stacks().stacks()) stacks << QString::fromStdString(s.id);
  m_panel->setCatalogs(models, devices, stacks);

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(60);
  connect(&m_debounce, &QTimer::timeout, this, &LlmPlannerWindow::recompute);
  connect(m_panel, &widgets::LlmPlannerPanel::studyEdited, this, [this] { m_debounce.start(); });

  loadPresets();
  QMenu* presetMenu = menuBar()->addMenu(tr("&Presets"));
  for (const auto& p : m_presets) {
    QAction* a = presetMenu->addAction(QString::fromStdString(p.title));
    a->setStatusTip(QString::fromStdString(p.description));
    const QString id = QString::fromStdString(p.id);
    connect(a, &QAction::triggered, this, [this, id] { openPreset(id); });
  }
  QMenu* file = menuBar()->addMenu(tr("&Export"));
  QAction* chart = file->addAction(tr("Export &chart…"), this, &LlmPlannerWindow::exportChart);
  chart->setShortcut(QKeySequence(tr("Ctrl+E")));
  QAction* results = file->addAction(tr("Export &results (CSV/JSON)…"), this, &LlmPlannerWindow::exportResults);
  file->addSeparator();
  file->addAction(tr("&Close"), QKeySequence::Close, this, &QWidget::close);
  QToolBar* bar = addToolBar(tr("Export"));
  bar->setObjectName("LlmExportToolBar");
  bar->addAction(chart);
  bar->addAction(results);
  if (!m_loadErrors.isEmpty()) statusBar()->showMessage(tr("Skipped presets: %1").arg(m_loadErrors.join("; ")));

  if (!m_presets.empty()) openPreset(QString::fromStdString(m_presets.front().id));
  // Most of the screen, as the main window opens (all of it up to 1280x800).
  const QRect screen = (this->screen() ? this->screen() : QGuiApplication::primaryScreen())->availableGeometry();
  resize(screen.size() * 0.85);
  if (width() < 1280 || height() < 800) resize(screen.size().boundedTo(QSize(1280, 800)));
}

void LlmPlannerWindow::loadPresets() { m_presets = shippedPresets(&m_loadErrors); }

std::vector<core::sim::LlmStudy> LlmPlannerWindow::shippedPresets(QStringList* errors) {
  namespace fs = std::filesystem;
  std::vector<core::sim::LlmStudy> presets;
  const fs::path dir = fs::path(core::util::resourceDir()) / "llm-presets";
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    try {
      presets.push_back(core::sim::readStudyFile(f.string()));
    } catch (const std::exception& e) {
      if (errors) *errors << QString::fromStdString(e.what());
    }
  }
  return presets;
}

bool LlmPlannerWindow::openPreset(const QString& id) {
  for (const auto& p : m_presets) {
    if (QString::fromStdString(p.id) != id) continue;
    m_panel->setStudy(p);
    setWindowTitle(tr("%1 — LLM training planner (simulated)").arg(QString::fromStdString(p.title)));
    recompute();
    return true;
  }
  return false;
}

void LlmPlannerWindow::recompute() {
  m_debounce.stop();
  m_study = m_panel->study();
  m_outcomes = core::sim::runStudy(m_study, m_sim->catalog(), m_sim->stacks());
  std::vector<std::vector<core::sim::ScalingPoint>> curves;
  for (const auto& sc : m_study.scenarios) curves.push_back(core::sim::scalingCurve(m_study, sc, m_sim->catalog(), m_sim->stacks()));
  m_panel->showResults(m_outcomes, curves);
}

QString LlmPlannerWindow::resultsCsv() const {
  QString out = "# AccelLab LLM planner, simulated figures; model " + QString::fromStdString(m_study.modelId) +
                ", global batch " + QString::number(m_study.batch) + ", precision " +
                QString::fromLatin1(core::util::precisionName(m_study.precision)) + "\n";
  out += "scenario,device,count,stack,finetune,plan,tokens_per_second,samples_per_second,mfu,step_seconds,"
         "memory_bytes_per_chip,capacity_bytes_per_chip,fits_in_memory,usd_per_million_tokens,time_to_tokens_seconds,"
         "usd_to_tokens,source\n";
  for (const auto& o : m_outcomes) {
    QStringList f{csvField(QString::fromStdString(o.scenario.label())), QString::fromStdString(o.scenario.deviceId),
                  QString::number(o.scenario.count), QString::fromStdString(o.scenario.stackId),
                  QString::fromLatin1(core::sim::finetuneName(o.scenario.finetune))};
    if (!o.report) {
      f << csvField("cannot run: " + QString::fromStdString(o.error));
      for (int i = 0; i < 10; ++i) f << QString();
    } else {
      const auto& r = *o.report;
      f << csvField(QString::fromStdString(r.plan.text())) << QString::number(r.tokensPerSecond, 'g', 6)
        << QString::number(r.samplesPerSecond, 'g', 6) << QString::number(r.mfu, 'g', 4)
        << QString::number(r.stepSeconds, 'g', 6) << QString::number(r.memory.total(), 'g', 6)
        << QString::number(r.memoryCapacityBytes, 'g', 6) << (r.fitsInMemory ? "true" : "false")
        << (r.priceKnown ? QString::number(r.usdPerMillionTokens, 'g', 6) : QString())
        << QString::number(r.timeToTokensSeconds, 'g', 6) << (r.priceKnown ? QString::number(r.usdToTokens, 'g', 6) : QString());
    }
    f << "simulated";
    out += f.join(',') + "\n";
  }
  return out;
}

QByteArray LlmPlannerWindow::resultsJson() const {
  core::util::Json j = core::util::Json::object();
  j.set("study", core::sim::studyToJson(m_study));
  core::util::Json list = core::util::Json::array();
  for (const auto& o : m_outcomes) {
    if (o.report) {
      list.push(core::sim::llmReportToJson(*o.report));
    } else {
      core::util::Json e = core::util::Json::object();
      e.set("scenario", o.scenario.label());
      e.set("error", o.error);
      list.push(std::move(e));
    }
  }
  j.set("reports", list);
  return QByteArray::fromStdString(j.dump(2) + "\n");
}

bool LlmPlannerWindow::exportAll(const QString& dir, QString* error) {
  QDir().mkpath(dir);
  for (QCustomPlot* c : m_panel->charts()) {
    const QString path = QDir(dir).filePath(m_panel->chartName(c) + ".png");
    if (!c->savePng(path, 1200, 700, 1.0)) {
      if (error) *error = path + ": could not be written";
      return false;
    }
  }
  return writeFile(QDir(dir).filePath("llm-results.csv"), QByteArray("\xEF\xBB\xBF") + resultsCsv().toUtf8(), error) &&
         writeFile(QDir(dir).filePath("llm-results.json"), resultsJson(), error);
}

void LlmPlannerWindow::exportChart() {
  QCustomPlot* c = m_panel->currentChart();
  if (!c) return;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), m_panel->chartName(c) + ".png",
                                                    tr("PNG image (*.png);;PDF document (*.pdf);;SVG image (*.svg)"));
  if (path.isEmpty()) return;
  const QString suffix = QFileInfo(path).suffix().toLower();
  QString error;
  bool ok = false;
  if (suffix == "svg") {
    ok = writeFile(path, widgets::renderPlotSvg(*c, QSize(1200, 700), windowTitle(), "AccelLab LLM planner (simulated)"), &error);
  } else if (suffix == "pdf") {
    ok = c->savePdf(path, 1200, 700);
  } else if (suffix == "png") {
    ok = c->savePng(path, 1200, 700, 2.0);
  } else {
    error = tr("unknown format \"%1\" (use .png, .pdf or .svg)").arg(suffix);
  }
  if (!ok) QMessageBox::warning(this, tr("Export failed"), error.isEmpty() ? tr("%1 could not be written.").arg(path) : error);
  else statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
}

void LlmPlannerWindow::exportResults() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export results"), "llm-results.csv",
                                                    tr("CSV (*.csv);;JSON (*.json)"));
  if (path.isEmpty()) return;
  QString error;
  const bool json = path.endsWith(".json", Qt::CaseInsensitive);
  if (!writeFile(path, json ? resultsJson() : QByteArray("\xEF\xBB\xBF") + resultsCsv().toUtf8(), &error))
    QMessageBox::warning(this, tr("Export failed"), error);
  else statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
}

}  // namespace app::gui
