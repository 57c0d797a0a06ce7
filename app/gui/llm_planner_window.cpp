#include "app/gui/llm_planner_window.h"
#include "app/gui/window_fit.h"

#include <algorithm>
#include <cmath>

#include <QBuffer>
#include <QDir>
#include <QGuiApplication>
#include <QScreen>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QToolBar>

#include "app/gui/sim_service.h"
#include "core/bridge/job_plan.h"
#include "core/bridge/torch_export.h"
#include "core/nn/model_file.h"
#include "core/nn/transformer_spec.h"
#include "core/sim/llm_simulator.h"
#include "core/sim/sim_report_json.h"
#include "core/util/error.h"
#include "core/util/files.h"
#include "widgets/chart_export.h"
#include "widgets/chart_frame.h"
#include "widgets/data_export.h"
#include "widgets/llm_planner_panel.h"

namespace app::gui {
namespace {

using widgets::csvField;

// The results table as CSV starts with a UTF-8 byte-order mark: spreadsheets read it as UTF-8.
QByteArray withBom(const QString& csv) { return QByteArray("\xEF\xBB\xBF") + csv.toUtf8(); }

}  // namespace

LlmPlannerWindow::LlmPlannerWindow(const SimService* sim, QWidget* parent)
    : QMainWindow(parent), m_sim(sim), m_panel(new widgets::LlmPlannerPanel(this)) {
  setObjectName("LlmPlannerWindow");
  setWindowTitle(tr("LLM training planner (simulated) — AccelLab"));
  setCentralWidget(m_panel);

  QVector<widgets::LlmPlannerPanel::DeviceItem> devices;
  for (const auto& d : m_sim->catalog().devices()) devices.push_back({QString::fromStdString(d.id), QString::fromStdString(d.name)});
  QStringList stacks;
  for (const auto& s : m_sim->stacks().stacks()) stacks << QString::fromStdString(s.id);
  m_panel->setCatalogs(modelItems(), devices, stacks);

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(60);
  connect(&m_debounce, &QTimer::timeout, this, &LlmPlannerWindow::recompute);
  connect(m_panel, &widgets::LlmPlannerPanel::studyEdited, this, [this] { m_debounce.start(); });

  loadPresets();
  createMenus();
  if (!m_loadErrors.isEmpty()) {
    // Visible, not only a status tip: a study that was not loaded is named with its key.
    statusBar()->showMessage(tr("Skipped presets: %1").arg(m_loadErrors.join("; ")));
    statusBar()->setToolTip(Qt::convertFromPlainText(m_loadErrors.join('\n')));
  }

  if (!m_presets.empty()) openPreset(QString::fromStdString(m_presets.front().id));
  // Where the main window opens at a first start (a small screen: maximised).
  fitToScreen(this);
}

void LlmPlannerWindow::createMenus() {
  QMenu* presetMenu = menuBar()->addMenu(tr("&Presets"));
  for (const auto& p : m_presets) {
    QAction* a = presetMenu->addAction(QString::fromStdString(p.title));
    a->setStatusTip(QString::fromStdString(p.description));
    const QString id = QString::fromStdString(p.id);
    connect(a, &QAction::triggered, this, [this, id] { openPreset(id); });
  }
  QMenu* modelMenu = menuBar()->addMenu(tr("&Model"));
  QAction* openModelAction =
      modelMenu->addAction(tr("&Open Model… (config.json or model file)"), this, &LlmPlannerWindow::chooseModel);
  openModelAction->setObjectName("openModelAction");
  openModelAction->setStatusTip(tr("Plan your own transformer: a Hugging Face config.json (Llama, Qwen, Mixtral, "
                                   "DeepSeek, Gemma, gpt-oss, ...) or an AccelLab model file"));
  m_exportMenu = menuBar()->addMenu(tr("&Export"));
  QAction* chart = m_exportMenu->addAction(tr("Export &chart (PNG/PDF/SVG)…"), this, &LlmPlannerWindow::exportChart);
  chart->setShortcut(QKeySequence(tr("Ctrl+E")));
  chart->setStatusTip(tr("The chart shown, at the size, resolution and font scale of the Export Options"));
  QAction* data = m_exportMenu->addAction(tr("Export chart &data (CSV/JSON)…"), this, &LlmPlannerWindow::exportData);
  data->setStatusTip(tr("Every figure of the four charts, one row per scenario and series, as the main window's data"));
  QAction* results = m_exportMenu->addAction(tr("Export &results table (CSV/JSON)…"), this, &LlmPlannerWindow::exportResults);
  m_exportMenu->addSeparator();
  QAction* job = m_exportMenu->addAction(tr("Export &Job for the selected scenario (PyTorch, torchrun)…"), this,
                                         &LlmPlannerWindow::chooseExportJob);
  job->setObjectName("exportJobAction");
  job->setIconText(tr("Export Job…"));  // the toolbar's short name
  job->setStatusTip(tr("The selected scenario as a runnable PyTorch job (train.py + README): run it under torchrun, "
                       "then File > Import measured run sets what it measured beside this prediction"));
  m_exportMenu->addSeparator();
  m_exportMenu->addAction(tr("&Close"), QKeySequence::Close, this, &QWidget::close);
  QToolBar* bar = addToolBar(tr("Export"));
  bar->setObjectName("LlmExportToolBar");
  bar->addAction(chart);
  bar->addAction(data);
  bar->addAction(results);
  bar->addAction(job);
}

void LlmPlannerWindow::shareExportOptions(std::function<widgets::ExportOptions()> options, QAction* editOptions) {
  m_exportOptions = std::move(options);
  if (editOptions) m_exportMenu->insertAction(m_exportMenu->actions().value(3), editOptions);
}

widgets::ExportOptions LlmPlannerWindow::exportOptions() const {
  return m_exportOptions ? m_exportOptions() : widgets::ExportOptions::screen();
}

void LlmPlannerWindow::loadPresets() {
  m_presets.clear();
  m_loadErrors.clear();
  m_refused.clear();
  // A study names devices and stacks by id; one the catalogs do not know is refused here
  // with its key, never replaced by the first device or the default stack.
  QStringList devices, stacks;
  for (const auto& d : m_sim->catalog().devices()) devices << QString::fromStdString(d.id);
  for (const auto& st : m_sim->stacks().stacks()) stacks << QString::fromStdString(st.id);
  for (auto& [file, study] : readPresetFiles(&m_loadErrors)) {
    QStringList problems;
    for (std::size_t i = 0; i < study.scenarios.size(); ++i) {
      const auto& sc = study.scenarios[i];
      const QString key = QStringLiteral("scenarios[%1].").arg(i);
      if (!devices.contains(QString::fromStdString(sc.deviceId)))
        problems << tr("%1device: unknown device \"%2\" (the planner knows: %3)")
                        .arg(key, QString::fromStdString(sc.deviceId), devices.join(", "));
      if (!sc.stackId.empty() && !stacks.contains(QString::fromStdString(sc.stackId)))
        problems << tr("%1stack: unknown stack \"%2\" (known: %3)")
                        .arg(key, QString::fromStdString(sc.stackId), stacks.join(", "));
    }
    if (problems.isEmpty()) {
      m_presets.push_back(std::move(study));
    } else {
      const QString why = QDir::toNativeSeparators(file) + ": " + problems.join("; ");
      m_loadErrors << why;
      m_refused.push_back({QString::fromStdString(study.id), why});
    }
  }
}

std::vector<std::pair<QString, core::sim::LlmStudy>> LlmPlannerWindow::readPresetFiles(QStringList* errors) {
  std::vector<std::pair<QString, core::sim::LlmStudy>> out;
  const std::string dir = core::util::resourceDir() + "/llm-presets";
  const core::util::FileListing listing = core::util::listFiles(dir, {".json"});
  if (errors)
    for (const auto& w : listing.warnings) *errors << QString::fromStdString(w);
  for (const auto& f : listing.files) {
    try {
      out.emplace_back(QString::fromStdString(f), core::sim::readStudyFile(f));
    } catch (const std::exception& e) {
      if (errors) *errors << QString::fromUtf8(e.what());
    }
  }
  return out;
}

std::vector<core::sim::LlmStudy> LlmPlannerWindow::shippedPresets(QStringList* errors) {
  std::vector<core::sim::LlmStudy> presets;
  for (auto& [file, study] : readPresetFiles(errors)) presets.push_back(std::move(study));
  return presets;
}

QString LlmPlannerWindow::presetError(const QString& id) const {
  for (const auto& [refused, why] : m_refused)
    if (refused == id) return why;
  return {};
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

void LlmPlannerWindow::chooseModel() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a model"), QString(),
                                                    tr("Model descriptions (*.json);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!openModel(path, &error)) QMessageBox::warning(this, tr("Cannot open the model"), error);
}

QVector<widgets::LlmPlannerPanel::ModelItem> LlmPlannerWindow::modelItems() {
  QVector<widgets::LlmPlannerPanel::ModelItem> models;
  auto add = [&](const core::nn::TransformerSpec& t, bool imported) {
    const QString name = QString::fromStdString(t.name);
    models.push_back({QString::fromStdString(t.id), imported ? tr("%1, imported").arg(name) : name,
                      t.kind == core::nn::TransformerKind::Vision, t.tokensPerSample(0)});
  };
  for (const auto& t : core::nn::referenceTransformers()) add(t, false);
  for (const core::nn::TransformerSpec* t : core::nn::importedTransformers()) add(*t, true);
  return models;
}

bool LlmPlannerWindow::openModel(const QString& path, QString* error) {
  const core::nn::TransformerSpec* spec = nullptr;
  try {
    spec = &core::nn::addImportedTransformer(core::nn::readModelFile(path.toStdString()));
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  // The model joins the list; the study shown keeps its scenarios and plans the new model.
  core::sim::LlmStudy study = m_panel->study();
  m_panel->setCatalogs(modelItems(), m_panel->devices(), m_panel->stacks());
  study.modelId = spec->id;
  study.seqLen = 0;  // the model's own
  study.references.clear();  // published marks belong to the preset's model
  m_panel->setStudy(study);
  setWindowTitle(tr("%1 — LLM training planner (simulated)").arg(QString::fromStdString(spec->name)));
  statusBar()->showMessage(tr("Opened %1: %2 parameters%3").arg(QString::fromStdString(spec->name))
                               .arg(QLocale().toString(static_cast<double>(spec->params()), 'f', 0))
                               .arg(spec->moe() ? tr(", %1 active a token").arg(QLocale().toString(
                                                      static_cast<double>(spec->activeParams()), 'f', 0))
                                                : QString()));
  recompute();
  return true;
}

void LlmPlannerWindow::recompute() {
  m_debounce.stop();
  m_study = m_panel->study();
  m_outcomes = core::sim::runStudy(m_study, m_sim->catalog(), m_sim->stacks(), m_sim->energySettings(),
                                   m_sim->heldOutErrors());
  std::vector<std::vector<core::sim::ScalingPoint>> curves;
  for (const auto& sc : m_study.scenarios) curves.push_back(core::sim::scalingCurve(m_study, sc, m_sim->catalog(), m_sim->stacks()));
  m_panel->showResults(m_outcomes, curves);
}

QString LlmPlannerWindow::resultsCsv() const {
  // The comment line is one line whatever the model id holds.
  QString out = "# AccelLab LLM planner, simulated figures; model " + QString::fromStdString(m_study.modelId).simplified() +
                ", global batch " + QString::number(m_study.batch) + ", precision " +
                QString::fromLatin1(core::util::precisionName(m_study.precision)) + "\n";
  out += "scenario,device,count,stack,finetune,plan,tokens_per_second,samples_per_second,mfu,step_seconds,"
         "memory_bytes_per_chip,capacity_bytes_per_chip,fits_in_memory,usd_per_million_tokens,time_to_tokens_seconds,"
         "usd_to_tokens,price_kind,energy_kwh,co2e_kg,fewest_devices,error_band_pct,error_band_calibrated,"
         "published_value,published_metric,published_error_pct,mfu_caution,source\n";
  const std::vector<core::sim::PublishedCheck> checks = core::sim::checkReferences(m_study, m_outcomes);
  for (std::size_t index = 0; index < m_outcomes.size(); ++index) {
    const auto& o = m_outcomes[index];
    QStringList f{csvField(QString::fromStdString(o.scenario.label())), csvField(QString::fromStdString(o.scenario.deviceId)),
                  QString::number(o.scenario.count), csvField(QString::fromStdString(o.scenario.stackId)),
                  QString::fromLatin1(core::sim::finetuneName(o.scenario.finetune))};
    if (!o.report) {
      f << csvField("cannot run: " + QString::fromStdString(o.error));
      for (int i = 0; i < 20; ++i) f << QString();
    } else {
      const auto& r = *o.report;
      const auto& l = *r.llm;
      f << csvField(QString::fromStdString(l.plan.text())) << QString::number(l.tokensPerSecond, 'g', 6)
        << QString::number(r.imagesPerSecond, 'g', 6) << QString::number(r.utilization, 'g', 4)
        << QString::number(r.stepSeconds, 'g', 6) << QString::number(r.memoryBytesPerDevice, 'g', 6)
        << QString::number(r.memoryCapacityBytes, 'g', 6) << (r.fitsInMemory ? "true" : "false")
        << (r.priceKnown ? QString::number(l.usdPerMillionTokens, 'g', 6) : QString())
        << QString::number(l.timeToTokensSeconds, 'g', 6) << (r.priceKnown ? QString::number(l.usdToTokens, 'g', 6) : QString())
        << (r.priceKnown ? QString::fromLatin1(core::sim::kPriceKindLabels.name(r.priceKind).data()) : QString())
        << (r.energy.known ? QString::number(r.energy.kwh, 'g', 6) : QString())
        << (r.energy.known && r.config.energy.gridKgCo2ePerKwh > 0 ? QString::number(r.energy.co2eKg, 'g', 6) : QString());
      // The fewest devices for the study's deadline or budget (empty: not asked, or none meets it).
      f << (o.fewest && o.fewest->met ? QString::number(o.fewest->count) : QString());
      // The held-out error band (empty: none known), and whether the stack has rows on this
      // device's generation.
      f << (o.band.known() ? QString::number(o.band.pct, 'f', 1) : QString())
        << (o.band.known() ? (o.band.calibrated ? "true" : "false") : QString());
      // The scenario's published mark (the first, where the study has one) and the simulator's error on it.
      const auto check = std::find_if(checks.begin(), checks.end(),
                                      [&](const core::sim::PublishedCheck& c) { return c.scenario == static_cast<int>(index); });
      if (check != checks.end())
        f << QString::number(check->reference->value, 'g', 6) << QString::fromStdString(check->reference->metric)
          << QString::number(check->errorPct, 'f', 1);
      else
        f << QString() << QString() << QString();
      f << csvField(QString::fromStdString(o.mfuCaution));
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
      core::util::Json r = core::sim::simReportToJson(*o.report, core::sim::JsonDigits::Six, core::sim::JsonLayers::Write);
      if (o.band.known()) r.set("error_band", core::sim::errorBandToJson(o.band));
      if (!o.mfuCaution.empty()) r.set("mfu_caution", o.mfuCaution);
      list.push(std::move(r));
    } else {
      core::util::Json e = core::util::Json::object();
      e.set("scenario", o.scenario.label());
      e.set("error", o.error);
      list.push(std::move(e));
    }
  }
  j.set("reports", list);
  // The published marks beside their scenario's simulated figure, as the table's column.
  core::util::Json published = core::util::Json::array();
  for (const auto& c : core::sim::checkReferences(m_study, m_outcomes)) {
    core::util::Json p = core::util::Json::object();
    p.set("scenario", c.scenario);
    p.set("label", c.reference->label);
    p.set("metric", c.reference->metric);
    p.set("published", c.reference->value);
    p.set("simulated", c.simulated);
    p.set("error_pct", std::round(c.errorPct * 10) / 10);
    p.set("tolerance_pct", std::round(c.tolerancePct * 10) / 10);
    p.set("outside_tolerance", c.outside);
    if (!c.reference->knownCause.empty()) p.set("known_cause", c.reference->knownCause);
    published.push(std::move(p));
  }
  j.set("published_checks", published);
  return QByteArray::fromStdString(j.dump(2) + "\n");
}

bool LlmPlannerWindow::exportAll(const QString& dir, QStringList* errors) {
  if (!QDir().mkpath(dir)) {
    if (errors) *errors << tr("%1: cannot create the folder").arg(QDir::toNativeSeparators(dir));
    return false;
  }
  // Every file is tried; each one that fails is named.
  bool ok = true;
  auto note = [&](const widgets::ExportResult& r) {
    if (!r.ok() && errors) *errors << r.error;
    ok = r.ok() && ok;
  };
  const widgets::ExportOptions options = exportOptions();
  for (widgets::ChartFrame* c : m_panel->charts())
    note(widgets::exportChartPng(*c, widgets::chartFileName(dir, *c, widgets::ChartFormat::Png), options));
  note(widgets::writeFileAtomically(QDir(dir).filePath("llm-results.csv"), withBom(resultsCsv())));
  note(widgets::writeFileAtomically(QDir(dir).filePath("llm-results.json"), resultsJson()));
  QByteArray png;
  {
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    if (!grab().save(&buffer, "PNG")) png.clear();
  }
  const QString shot = QDir(dir).filePath("llm-window.png");
  note(png.isEmpty() ? widgets::ExportResult{tr("Cannot write %1: the window could not be rendered.").arg(QDir::toNativeSeparators(shot))}
                     : widgets::writeFileAtomically(shot, png));
  return ok;
}

void LlmPlannerWindow::reportExport(const QString& path, const QStringList& errors) {
  if (!errors.isEmpty()) QMessageBox::warning(this, tr("Export failed"), errors.join('\n'));
  else statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
}

bool LlmPlannerWindow::exportJob(const QString& dir, bool overwrite, QString* error, QString* summary) {
  const int index = m_panel->selectedScenario();
  if (index < 0 || index >= static_cast<int>(m_study.scenarios.size())) {
    if (error) *error = tr("Select a scenario in the results table first.");
    return false;
  }
  const core::sim::LlmScenario& scenario = m_study.scenarios[static_cast<std::size_t>(index)];
  try {
    core::bridge::ExportRequest r = core::bridge::transformerExportRequest(core::sim::scenarioConfig(m_study, scenario));
    core::bridge::chooseLlmPlan(r, m_sim->catalog(), m_sim->stacks());
    const core::bridge::ExportedJob job = core::bridge::exportTorchJob(r);
    const std::string folder = dir.toStdString();
    if (!overwrite)  // the dialog asks first; a caller that did not ask writes over nothing
      for (const auto& f : core::bridge::torchJobFiles(folder))
        if (QFileInfo::exists(QString::fromStdString(f)))
          throw core::util::Error(f + " already exists: choose another folder, or replace it");
    const std::string py = core::bridge::writeTorchJob(job, folder);
    if (summary)
      *summary = tr("%1 as a PyTorch job: %2 (plan %3; %4). Run it with:\n%5 --steps 50 --log run.jsonl\n"
                    "then File > Import measured run in the main window, or accellab-cli import-run run.jsonl.")
                     .arg(QString::fromStdString(scenario.label()), QDir::toNativeSeparators(QString::fromStdString(py)),
                          QString::fromStdString(r.llm->plan.text()), QString::fromStdString(r.llm->planReason),
                          QString::fromStdString(core::bridge::launchCommand(r.count, py)));
    return true;
  } catch (const std::exception& e) {
    if (error) *error = tr("%1 cannot be exported: %2").arg(QString::fromStdString(scenario.label()), QString::fromUtf8(e.what()));
    return false;
  }
}

void LlmPlannerWindow::chooseExportJob() {
  QString error, summary;
  if (m_panel->selectedScenario() < 0) {
    QMessageBox::information(this, tr("Export Job"), tr("Select a scenario in the results table first."));
    return;
  }
  const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the job (train.py and README.md)"));
  if (dir.isEmpty()) return;
  bool overwrite = false;
  const auto files = core::bridge::torchJobFiles(dir.toStdString());
  if (std::any_of(files.begin(), files.end(), [](const std::string& f) { return QFileInfo::exists(QString::fromStdString(f)); })) {
    if (QMessageBox::question(this, tr("Replace the job?"),
                              tr("%1 already holds a job (train.py or README.md). Replace it?").arg(QDir::toNativeSeparators(dir))) !=
        QMessageBox::Yes)
      return;
    overwrite = true;
  }
  if (!exportJob(dir, overwrite, &error, &summary)) QMessageBox::warning(this, tr("Export Job"), error);
  else QMessageBox::information(this, tr("Job written"), summary);
}

void LlmPlannerWindow::exportChart() {
  widgets::ChartFrame* c = m_panel->currentChart();
  if (!c) return;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), c->chartId() + ".png",
                                                    tr("PNG image (*.png);;PDF document (*.pdf);;SVG image (*.svg)"));
  if (path.isEmpty()) return;
  const widgets::ExportResult r = widgets::exportChart(*c, path, exportOptions());
  reportExport(path, r.ok() ? QStringList() : QStringList{r.error});
}

void LlmPlannerWindow::exportData() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export chart data"), "llm-data.csv",
                                                    tr("CSV (*.csv);;JSON (*.json)"));
  if (path.isEmpty()) return;
  const widgets::ExportResult r = path.endsWith(".json", Qt::CaseInsensitive)
                                      ? widgets::exportSeriesJson(m_panel->charts(), path)
                                      : widgets::exportSeriesCsv(m_panel->charts(), path, /*utf8Bom=*/true);
  reportExport(path, r.ok() ? QStringList() : QStringList{r.error});
}

void LlmPlannerWindow::exportResults() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export results"), "llm-results.csv",
                                                    tr("CSV (*.csv);;JSON (*.json)"));
  if (path.isEmpty()) return;
  const bool json = path.endsWith(".json", Qt::CaseInsensitive);
  const widgets::ExportResult r = widgets::writeFileAtomically(path, json ? resultsJson() : withBom(resultsCsv()));
  reportExport(path, r.ok() ? QStringList() : QStringList{r.error});
}

}  // namespace app::gui
