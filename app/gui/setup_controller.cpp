#include "app/gui/setup_controller.h"

#include <QLocale>

#include "app/gui/comparisons.h"
#include "app/gui/experiment_model.h"
#include "app/gui/guide_panel.h"
#include "app/gui/sim_service.h"
#include "core/sim/simulator.h"
#include "core/util/units.h"
#include "widgets/experiment_panel.h"
#include "widgets/hardware_panel.h"
#include "widgets/run_data.h"
#include "widgets/run_store.h"
#include "widgets/sweep_chart.h"

namespace app::gui {
namespace {

constexpr double kGiB = core::util::kBytesPerGib;

widgets::DeviceStatus statusFor(const core::sim::SimReport& r, const core::sim::ErrorBand& band) {
  widgets::DeviceStatus s;
  const QString memory = QObject::tr("%1 of %2 GiB per device")
                             .arg(r.memoryBytesPerDevice / kGiB, 0, 'f', 1)
                             .arg(r.memoryCapacityBytes / kGiB, 0, 'f', 1);
  if (!r.fitsInMemory) {
    s.kind = widgets::DeviceStatus::Kind::OutOfMemory;
    s.text = QObject::tr("out of memory");
    s.detail = QObject::tr("Would not fit at batch %1: needs %2. Lower the batch, use more devices, or a 16-bit "
                           "precision.").arg(r.config.batch).arg(memory);
    return s;
  }
  s.text = widgets::formatSeconds(r.epochSeconds);
  s.detail = QObject::tr("≈ %7 per epoch (simulated)\n%1 images/s · step %2 · first epoch %3 · bound by %4\n%5\nMemory: %6")
                 .arg(widgets::formatValue(r.imagesPerSecond), widgets::formatSeconds(r.stepSeconds),
                      widgets::formatSeconds(r.firstEpochSeconds), QString::fromLatin1(core::sim::boundName(r.bound)),
                      QString::fromStdString(r.explanation), memory, widgets::formatSeconds(r.epochSeconds));
  s.detail += "\n" + (r.priceKnown ? QObject::tr("Cost: %1 per run, %2 per million images%3")
                                        .arg(widgets::formatMoney(r.usdPerRun), widgets::formatMoney(r.usdPerMillionImages),
                                             r.priceKind == core::sim::PriceKind::User ? QObject::tr(" (your price)")
                                                                                       : QString())
                                  : QObject::tr("No price known for this device: type yours in the price cell"));
  if (r.energy.known) {
    const auto& e = r.config.energy;
    s.detail += "\n" + QObject::tr("Energy (estimate): %1 kWh per run%2, from %3 W %4 × PUE %5")
                           .arg(widgets::formatValue(r.energy.kwh),
                                e.gridKgCo2ePerKwh > 0 ? QObject::tr(", %1 kg CO₂e (%2 grid)")
                                                             .arg(widgets::formatValue(r.energy.co2eKg),
                                                                  QString::fromStdString(e.regionId.empty() ? "custom" : e.regionId))
                                                       : QString(),
                                QLocale().toString(r.energy.watts, 'f', 0),
                                r.energy.typicalDraw ? QObject::tr("typical training draw") : QObject::tr("board power"),
                                QLocale().toString(e.pue, 'g', 3));
  }
  if (!r.precisionNote.empty()) s.detail += "\n" + QString::fromStdString(r.precisionNote);
  if (band.known()) {
    // The band goes in the tooltip's first line (the cell stays narrow enough for 1280×800;
    // the charts' legends carry it too).
    s.detail.replace(QObject::tr("per epoch (simulated)"),
                     QObject::tr("per epoch (simulated %1)").arg(QString::fromStdString(band.label())));
    s.detail += "\n" + QObject::tr("Simulated with %1: %2")
                            .arg(QString::fromStdString(r.stackName), QString::fromStdString(band.text()));
  }
  return s;
}

}  // namespace

std::vector<int> SetupController::sweepBatches() { return widgets::ExperimentPanel::batchChoices(); }

SetupController::SetupController(const SimService* sim, const ExperimentModel* experiment,
                                 widgets::HardwarePanel* hardware, widgets::SweepChart* sweep, GuidePanel* guide,
                                 QObject* parent)
    : QObject(parent), m_sim(sim), m_experiment(experiment), m_hardware(hardware), m_sweep(sweep), m_guide(guide) {
  m_timer.setSingleShot(true);
  m_timer.setInterval(0);
  connect(&m_timer, &QTimer::timeout, this, &SetupController::updateNow);
  connect(m_experiment, &ExperimentModel::changed, this, &SetupController::schedule);
  connect(m_hardware, &widgets::HardwarePanel::choicesChanged, this, &SetupController::schedule);
  schedule();
}

void SetupController::setPreset(const std::optional<Preset>& preset) {
  m_preset = preset;
  m_guide->setPreset(m_preset ? &*m_preset : nullptr);
  updateGuideRun();
  schedule();
}

void SetupController::setStore(const widgets::RunStore* store) {
  if (m_store) disconnect(m_store, nullptr, this, nullptr);
  m_store = store;
  if (!m_store) return;
  connect(m_store, &widgets::RunStore::currentRunChanged, this, &SetupController::updateGuideRun);
  connect(m_store, &widgets::RunStore::runRemoved, this, &SetupController::updateGuideRun);
  connect(m_store, &widgets::RunStore::runChanged, this, [this](int id) {
    if (id == m_store->currentRunId()) updateGuideRun();
  });
  updateGuideRun();
}

void SetupController::updateGuideRun() {
  if (!m_preset || !m_store) return;
  const widgets::Run* run = m_store->run(m_store->currentRunId());
  if (!run) {
    m_guide->setRunResults({}, tr("No run on screen yet: Run trains or simulates this set-up, and the This-run "
                                  "column gives its own figures."));
    return;
  }
  if (run->presetId != m_preset->id) {
    m_guide->setRunResults({}, tr("The charts show run #%1 (%2), not one of this preset: Run makes one.")
                                   .arg(run->id)
                                   .arg(run->presetId.isEmpty() ? tr("your own set-up") : run->presetId));
    return;
  }
  QVector<ComparisonResult> results;
  for (const Comparison& c : m_preset->comparisons) results << comparisonOnRun(c, *run);
  m_guide->setRunResults(results);
}

void SetupController::schedule() { m_timer.start(); }

void SetupController::updateNow() {
  m_timer.stop();
  updateHardware();
  updateSweep();
  updateGuide();
  Q_EMIT updated();
}

core::experiment::DeviceChoice SetupController::withStack(core::experiment::DeviceChoice choice) const {
  choice.stackId = core::experiment::stackFor(m_experiment->experiment(), choice);
  return choice;
}

std::optional<core::experiment::DeviceChoice> SetupController::rowChoice(const QString& id) const {
  std::optional<core::experiment::DeviceChoice> choice = m_hardware->settings(id);
  if (!choice) return choice;
  // What the table does not show comes from the experiment: a cloud CPU's VM RAM.
  for (const auto& d : m_experiment->experiment().devices)
    if (d.deviceId == choice->deviceId && choice->vcpus > 0) choice->memoryGib = d.memoryGib;
  return choice;
}

void SetupController::updateHardware() {
  const core::experiment::TrainConfig& config = m_experiment->experiment().train;
  for (const QString& id : m_hardware->deviceIds()) {
    const std::optional<core::experiment::DeviceChoice> choice = rowChoice(id);
    if (!choice) continue;
    // A stack that describes no device of this kind (tf-tuned-2018 has no CPU figures) is not
    // an error of the set-up: the row says so quietly, and how to simulate it.
    const core::experiment::DeviceChoice run = withStack(*choice);
    const core::hw::StackSpec* stack = m_sim->stacks().find(run.stackId);
    const core::hw::DeviceSpec* spec = m_sim->catalog().find(run.deviceId);
    if (stack && spec && !core::hw::stackCovers(*stack, *spec)) {
      m_hardware->setDeviceStatus(
          id, {widgets::DeviceStatus::Kind::NotApplicable, tr("not in %1").arg(QString::fromStdString(stack->id)),
               tr("The software stack %1 has no figures for %2 devices; choose another under Software to simulate "
                  "this one.")
                   .arg(QString::fromStdString(stack->name), QString::fromLatin1(core::hw::deviceKindName(spec->kind)))});
      continue;
    }
    try {
      const core::sim::SimReport r = m_sim->simulateRun(config, run);
      m_hardware->setDeviceStatus(id, statusFor(r, m_sim->errorBand(r)));
    } catch (const std::exception& e) {
      m_hardware->setDeviceStatus(id, {widgets::DeviceStatus::Kind::Error, tr("cannot simulate"), QString::fromUtf8(e.what())});
    }
  }
}

void SetupController::updateSweep() {
  if (!m_sweep) return;
  const core::experiment::TrainConfig& config = m_experiment->experiment().train;
  QVector<core::experiment::DeviceChoice> choices;
  for (const auto& c : m_experiment->experiment().devices) choices << withStack(c);
  m_sweep->setReports(m_sim->sweep(config, choices, sweepBatches()), config);
  m_sweep->setMarkedBatch(config.batch);
}

void SetupController::updateGuide() {
  if (!m_preset) return;
  const core::experiment::TrainConfig& config = m_experiment->experiment().train;
  // Every row's settings, checked or not: a comparison may name a device not chosen.
  QVector<core::experiment::DeviceChoice> devices;
  for (const QString& id : m_hardware->deviceIds())
    if (auto c = rowChoice(id)) devices << withStack(*c);
  QVector<ComparisonResult> results;
  for (const Comparison& c : m_preset->comparisons) results << evaluateComparison(*m_sim, c, config, devices);
  m_guide->setResults(results, presetMismatch(*m_preset, m_experiment->experiment()));
}

}  // namespace app::gui
