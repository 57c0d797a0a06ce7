#include "widgets/llm_planner_panel.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "core/sim/sim_report.h"
#include "widgets/llm_bar_charts.h"
#include "widgets/run_data.h"
#include "widgets/llm_scaling_chart.h"

namespace widgets {
namespace {

using core::sim::Finetune;
using core::sim::LlmOutcome;
using core::sim::LlmScenario;
using core::util::Precision;

enum ScenarioColumn { kDevice, kCount, kStack, kMode, kPrice, kScenarioColumns };
enum ResultColumn {
  kRScenario, kRPlan, kRTokens, kRMfu, kRPublished, kRCost, kRTime, kRCostTo, kREnergy, kRFewest, kRMemory, kRWhy,
  kResultColumns
};


}  // namespace

LlmPlannerPanel::LlmPlannerPanel(QWidget* parent) : QWidget(parent) {
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QWidget(split);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->addWidget(createWorkload());
  leftLayout->addWidget(createScenarios(), 1);
  split->addWidget(left);
  split->addWidget(createCharts());
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setSizes({480, 800});  // the scenarios table shows its five columns at 1280 wide
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(split);
}

QWidget* LlmPlannerPanel::createWorkload() {
  auto* box = new QWidget(this);
  auto* form = new QFormLayout(box);
  m_model = new QComboBox(box);
  m_model->setObjectName("llm_model");
  m_seqLen = new QSpinBox(box);
  m_seqLen->setObjectName("llm_seq_len");
  m_seqLen->setRange(0, 1 << 20);
  m_seqLen->setSpecialValueText(tr("model's own"));
  m_seqLen->setToolTip(tr("Tokens per sequence; ViTs read their image's patches"));
  m_batch = new QSpinBox(box);
  m_batch->setObjectName("llm_batch");
  m_batch->setRange(1, 1 << 24);
  m_batch->setToolTip(tr("Global batch, in sequences (images for ViT), split over the data-parallel replicas"));
  m_precision = new QComboBox(box);
  m_precision->setObjectName("llm_precision");
  for (Precision p : {Precision::BF16, Precision::FP16, Precision::FP8, Precision::FP4, Precision::TF32, Precision::FP32})
    m_precision->addItem(QString::fromLatin1(core::util::precisionName(p)), static_cast<int>(p));
  m_precision->setToolTip(tr("fp8: fp8 matmuls, bf16 elsewhere; a device without fp8 runs bf16 and says so.\n"
                             "fp4: NVFP4/MXFP4 matmuls (Blackwell, MI355X), bf16 elsewhere; a device without fp4 runs "
                             "fp8 (or bf16) and says so"));
  m_loraRank = new QSpinBox(box);
  m_loraRank->setObjectName("llm_lora_rank");
  m_loraRank->setRange(1, core::sim::kMaxLoraRank);
  m_loraRank->setToolTip(tr("Rank of the LoRA adapters on q, k, v, o (scenarios in LoRA mode)"));
  m_tokens = new QDoubleSpinBox(box);
  m_tokens->setObjectName("llm_train_tokens");
  m_tokens->setRange(0.001, 1e6);
  m_tokens->setDecimals(3);
  m_tokens->setSuffix(tr(" B tokens"));
  m_tokens->setToolTip(tr("Tokens to train: the time and cost charts answer \"how long and how much for this many\""));
  form->addRow(tr("&Model:"), m_model);
  form->addRow(tr("&Sequence length:"), m_seqLen);
  form->addRow(tr("Global &batch:"), m_batch);
  form->addRow(tr("&Precision:"), m_precision);
  form->addRow(tr("LoRA &rank:"), m_loraRank);
  m_deadline = new QDoubleSpinBox(box);
  m_deadline->setObjectName("llm_deadline_days");
  m_deadline->setRange(0, 1e5);
  m_deadline->setDecimals(1);
  m_deadline->setSpecialValueText(tr("none"));
  m_deadline->setSuffix(tr(" days"));
  m_deadline->setToolTip(tr("Plan backwards: the fewest devices of each scenario's kind that train the tokens within "
                            "this many days (the \"Fewest\" column)"));
  m_budget = new QDoubleSpinBox(box);
  m_budget->setObjectName("llm_budget_usd");
  m_budget->setRange(0, 1e12);
  m_budget->setDecimals(0);
  m_budget->setSingleStep(1000);
  m_budget->setSpecialValueText(tr("none"));
  m_budget->setPrefix(QStringLiteral("$"));
  m_budget->setToolTip(tr("Plan backwards: the most the tokens may cost (needs a price for the device)"));
  form->addRow(tr("&Train:"), m_tokens);
  form->addRow(tr("&Deadline:"), m_deadline);
  form->addRow(tr("B&udget:"), m_budget);
  m_scalingMode = new QComboBox(box);
  m_scalingMode->setObjectName("llm_scaling_mode");
  m_scalingMode->addItem(tr("strong: this global batch"));
  m_scalingMode->addItem(tr("weak: this batch per chip"));
  m_scalingMode->setToolTip(tr("The Scaling chart: strong scaling keeps the global batch as the chips grow (counts "
                               "with more chips than sequences are left out); weak scaling keeps the sequences per "
                               "chip of each scenario, so the global batch grows with the chips"));
  form->addRow(tr("S&caling chart:"), m_scalingMode);
  connect(m_model, &QComboBox::currentIndexChanged, this, [this] {
    const int i = m_model->currentIndex();
    m_seqLen->setEnabled(i >= 0 && i < m_models.size() && !m_models[i].vision);
    emitEdited();
  });
  for (QSpinBox* s : {m_seqLen, m_batch, m_loraRank}) connect(s, &QSpinBox::valueChanged, this, &LlmPlannerPanel::emitEdited);
  connect(m_precision, &QComboBox::currentIndexChanged, this, &LlmPlannerPanel::emitEdited);
  connect(m_scalingMode, &QComboBox::currentIndexChanged, this, &LlmPlannerPanel::emitEdited);
  for (QDoubleSpinBox* s : {m_tokens, m_deadline, m_budget})
    connect(s, &QDoubleSpinBox::valueChanged, this, &LlmPlannerPanel::emitEdited);
  return box;
}

QWidget* LlmPlannerPanel::createScenarios() {
  auto* box = new QWidget(this);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("<b>Hardware scenarios</b> (simulated side by side)"), box));
  m_scenarios = new QTableWidget(0, kScenarioColumns, box);
  m_scenarios->setObjectName("llm_scenarios");
  m_scenarios->setHorizontalHeaderLabels({tr("Device"), tr("Count"), tr("Software"), tr("Training"), tr("Price")});
  m_scenarios->horizontalHeaderItem(kPrice)->setToolTip(
      tr("\"catalog\": the device file's price; or type the $/h you pay per device (marked \"yours\")"));
  m_scenarios->verticalHeader()->setVisible(false);
  m_scenarios->horizontalHeader()->setSectionResizeMode(kDevice, QHeaderView::Stretch);
  // The narrow columns take what their editors need, so that all five fit the left pane.
  for (int c : {kCount, kStack, kMode, kPrice}) m_scenarios->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  m_scenarios->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_scenarios->horizontalHeaderItem(kCount)->setToolTip(tr("Devices: GPUs, or TPU boards of 4 or 8 chips (pods up to 65,536)"));
  layout->addWidget(m_scenarios, 1);
  auto* buttons = new QHBoxLayout;
  auto* add = new QPushButton(tr("&Add scenario"), box);
  add->setObjectName("llm_add_scenario");
  auto* remove = new QPushButton(tr("Remo&ve"), box);
  remove->setObjectName("llm_remove_scenario");
  buttons->addWidget(add);
  buttons->addWidget(remove);
  buttons->addStretch(1);
  layout->addLayout(buttons);
  connect(add, &QPushButton::clicked, this, [this] {
    LlmScenario s;
    s.deviceId = m_devices.isEmpty() ? std::string() : m_devices.front().id.toStdString();
    s.count = 8;
    addScenarioRow(s);
    emitEdited();
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    const int row = m_scenarios->currentRow();
    if (row < 0) return;
    m_scenarios->removeRow(row);
    m_shown.references.clear();  // they pointed at scenarios by position
    emitEdited();
  });
  return box;
}

QWidget* LlmPlannerPanel::createCharts() {
  auto* box = new QWidget(this);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  m_tabs = new QTabWidget(box);
  m_tabs->setObjectName("llm_charts");
  m_charts = {new LlmThroughputChart(m_tabs), new LlmCostChart(m_tabs), new LlmMemoryChart(m_tabs),
              new LlmScalingChart(m_tabs)};
  const QStringList tabs{tr("Tokens/s"), tr("Cost"), tr("Memory"), tr("Scaling")};
  for (int i = 0; i < m_charts.size(); ++i) {
    m_charts[i]->setMinimumHeight(260);
    m_tabs->addTab(m_charts[i], tabs[i]);
  }
  layout->addWidget(m_tabs, 3);
  m_note = new QLabel(box);
  m_note->setWordWrap(true);
  m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_note);
  m_results = new QTableWidget(0, kResultColumns, box);
  m_results->setObjectName("llm_results");
  m_results->setHorizontalHeaderLabels({tr("Scenario"), tr("Plan"), tr("Tokens/s"), tr("MFU"), tr("vs published"),
                                        tr("$/M tokens"),
                                        tr("Time to N"), tr("Cost to N"), tr("Energy to N"), tr("Fewest"),
                                        tr("Memory/chip"), tr("Why")});
  m_results->horizontalHeaderItem(kREnergy)->setToolTip(
      tr("Estimate: board power × devices × time × PUE, and CO₂e at the grid's intensity (resources/energy/grid.json)"));
  m_results->horizontalHeaderItem(kRPublished)->setToolTip(
      tr("The simulated figure against the published mark on the chart (simulated / published - 1); ⚠ outside the "
         "scenario's error band, with the known cause where there is one"));
  m_results->horizontalHeaderItem(kRFewest)->setToolTip(
      tr("With a deadline or a budget: the fewest devices of the scenario's kind that meet it, each count simulated"));
  m_results->verticalHeader()->setVisible(false);
  m_results->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_results->horizontalHeader()->setSectionResizeMode(kRWhy, QHeaderView::Stretch);
  m_results->setWordWrap(false);
  m_results->setSelectionBehavior(QAbstractItemView::SelectRows);
  layout->addWidget(m_results, 2);
  m_why = new QLabel(box);
  m_why->setObjectName("llm_why");
  m_why->setWordWrap(true);
  m_why->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_why);
  // The selected scenario's whole explanation under the table (the Why column is cut at any width).
  connect(m_results, &QTableWidget::currentCellChanged, this, &LlmPlannerPanel::showWhy);
  return box;
}

int LlmPlannerPanel::selectedScenario() const {
  const int row = m_results->currentRow();
  return row >= 0 && row < static_cast<int>(m_outcomes.size()) ? row : -1;
}

void LlmPlannerPanel::showWhy(int row) {
  const QTableWidgetItem* why = row >= 0 ? m_results->item(row, kRWhy) : nullptr;
  m_why->setText(why ? m_results->item(row, kRScenario)->text() + ": " + why->text() : QString());
}

void LlmPlannerPanel::setCatalogs(const QVector<ModelItem>& models, const QVector<DeviceItem>& devices,
                                  const QStringList& stacks) {
  m_updating = true;
  m_models = models;
  m_devices = devices;
  m_stacks = stacks;
  m_model->clear();
  for (const auto& m : models) m_model->addItem(m.name + " (" + m.id + ")", m.id);
  m_updating = false;
}

void LlmPlannerPanel::addScenarioRow(const LlmScenario& s) {
  const int row = m_scenarios->rowCount();
  m_scenarios->insertRow(row);
  auto* device = new QComboBox(m_scenarios);
  for (const auto& d : m_devices) {
    device->addItem(d.id, d.id);
    device->setItemData(device->count() - 1, d.name, Qt::ToolTipRole);
  }
  device->setCurrentIndex(std::max(0, device->findData(QString::fromStdString(s.deviceId))));
  auto* count = new QSpinBox(m_scenarios);
  count->setRange(1, 65536);
  count->setValue(s.count);
  auto* stack = new QComboBox(m_scenarios);
  stack->addItem(tr("default"), QString());
  for (const auto& id : m_stacks) stack->addItem(id, id);
  stack->setCurrentIndex(std::max(0, stack->findData(QString::fromStdString(s.stackId))));
  // As wide as "default" needs, not as its longest stack id: the device's name keeps its room
  // ("tpu-v5e-8" was cut at 1280x800); the list still opens wide enough for every id.
  stack->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  stack->setMinimumContentsLength(8);
  stack->view()->setMinimumWidth(stack->view()->sizeHintForColumn(0) + 24);
  stack->setToolTip(tr("Software stack: %1").arg(stack->currentText()));
  connect(stack, &QComboBox::currentTextChanged, stack, [stack](const QString& t) { stack->setToolTip(QObject::tr("Software stack: %1").arg(t)); });
  auto* mode = new QComboBox(m_scenarios);
  mode->addItem(tr("pre-train"), 0);
  mode->addItem(tr("LoRA"), 1);
  mode->setCurrentIndex(s.finetune == Finetune::Lora ? 1 : 0);
  m_scenarios->setCellWidget(row, kDevice, device);
  m_scenarios->setCellWidget(row, kCount, count);
  m_scenarios->setCellWidget(row, kStack, stack);
  auto* price = new QDoubleSpinBox(m_scenarios);
  price->setRange(0, 1e5);  // 0 shows "catalog"
  price->setDecimals(3);
  price->setPrefix(QStringLiteral("$"));
  price->setSuffix(tr("/h"));
  price->setSpecialValueText(tr("catalog"));
  price->setValue(s.userUsdPerHour.value_or(0));
  m_scenarios->setCellWidget(row, kMode, mode);
  m_scenarios->setCellWidget(row, kPrice, price);
  for (QComboBox* c : {device, stack, mode}) connect(c, &QComboBox::currentIndexChanged, this, &LlmPlannerPanel::emitEdited);
  connect(count, &QSpinBox::valueChanged, this, &LlmPlannerPanel::emitEdited);
  connect(price, &QDoubleSpinBox::valueChanged, this, &LlmPlannerPanel::emitEdited);
}

void LlmPlannerPanel::setStudy(const core::sim::LlmStudy& study) {
  m_updating = true;
  m_shown = study;
  m_model->setCurrentIndex(std::max(0, m_model->findData(QString::fromStdString(study.modelId))));
  const int mi = m_model->currentIndex();
  m_seqLen->setEnabled(mi >= 0 && mi < m_models.size() && !m_models[mi].vision);
  m_seqLen->setValue(study.seqLen);
  m_batch->setValue(study.batch);
  m_precision->setCurrentIndex(std::max(0, m_precision->findData(static_cast<int>(study.precision))));
  m_loraRank->setValue(study.loraRank);
  m_tokens->setValue(study.trainTokens / 1e9);
  m_deadline->setValue(study.deadlineDays);
  m_budget->setValue(study.budgetUsd);
  m_scalingMode->setCurrentIndex(study.weakScaling ? 1 : 0);
  m_scenarios->setRowCount(0);
  for (const auto& s : study.scenarios) addScenarioRow(s);
  m_updating = false;
}

core::sim::LlmStudy LlmPlannerPanel::study() const {
  core::sim::LlmStudy s = m_shown;
  s.modelId = m_model->currentData().toString().toStdString();
  s.seqLen = m_seqLen->isEnabled() ? m_seqLen->value() : 0;
  s.batch = m_batch->value();
  s.precision = static_cast<Precision>(m_precision->currentData().toInt());
  s.loraRank = m_loraRank->value();
  s.trainTokens = m_tokens->value() * 1e9;
  s.deadlineDays = m_deadline->value();
  s.budgetUsd = m_budget->value();
  s.weakScaling = m_scalingMode->currentIndex() == 1;
  s.scenarios.clear();
  s.references.clear();  // set below: only the marks whose set-up is still the one shown
  for (int r = 0; r < m_scenarios->rowCount(); ++r) {
    LlmScenario sc;
    sc.deviceId = static_cast<QComboBox*>(m_scenarios->cellWidget(r, kDevice))->currentData().toString().toStdString();
    sc.count = static_cast<QSpinBox*>(m_scenarios->cellWidget(r, kCount))->value();
    sc.stackId = static_cast<QComboBox*>(m_scenarios->cellWidget(r, kStack))->currentData().toString().toStdString();
    sc.finetune = static_cast<QComboBox*>(m_scenarios->cellWidget(r, kMode))->currentData().toInt() == 1 ? Finetune::Lora
                                                                                                          : Finetune::Full;
    if (const double typed = static_cast<QDoubleSpinBox*>(m_scenarios->cellWidget(r, kPrice))->value(); typed > 0)
      sc.userUsdPerHour = typed;
    s.scenarios.push_back(sc);
  }
  // A published mark measured one set-up: it stays while the workload and its scenario are as
  // the study gave them, and goes when the user edits either (else the chart and the "vs
  // published" column would compare another configuration with it).
  const bool sameWorkload = s.modelId == m_shown.modelId && s.seqLen == m_shown.seqLen && s.batch == m_shown.batch &&
                            s.precision == m_shown.precision && s.loraRank == m_shown.loraRank;
  for (const auto& ref : m_shown.references) {
    const auto k = static_cast<std::size_t>(ref.scenario);
    if (sameWorkload && ref.scenario >= 0 && k < s.scenarios.size() && k < m_shown.scenarios.size() &&
        s.scenarios[k].deviceId == m_shown.scenarios[k].deviceId && s.scenarios[k].count == m_shown.scenarios[k].count &&
        s.scenarios[k].stackId == m_shown.scenarios[k].stackId && s.scenarios[k].finetune == m_shown.scenarios[k].finetune)
      s.references.push_back(ref);
  }
  return s;
}

void LlmPlannerPanel::emitEdited() {
  if (!m_updating) Q_EMIT studyEdited();
}

void LlmPlannerPanel::showResults(const std::vector<LlmOutcome>& outcomes,
                                  const std::vector<std::vector<core::sim::ScalingPoint>>& scaling) {
  m_outcomes = outcomes;
  const LlmChartData data{study(), outcomes, scaling};
  for (LlmChart* c : m_charts) c->setData(data);
  fillTable();
  int refused = 0, oom = 0;
  for (const auto& o : outcomes) {
    if (!o.report) ++refused;
    else if (!o.report->fitsInMemory) ++oom;
  }
  QString note = tr("All figures are simulated from the model's layers, the device files and the software stack; "
                    "stars are published measurements.");
  if (oom) note += " " + tr("%n scenario(s) do not fit in memory (no bar; see the Memory tab).", nullptr, oom);
  if (refused) note += " " + tr("%n scenario(s) cannot run: see the table.", nullptr, refused);
  m_note->setText(note);
}

void LlmPlannerPanel::fillTable() {
  m_results->setRowCount(static_cast<int>(m_outcomes.size()));
  const core::sim::LlmStudy current = study();  // its references: the marks still shown
  const std::vector<core::sim::PublishedCheck> checks = core::sim::checkReferences(current, m_outcomes);
  for (int i = 0; i < static_cast<int>(m_outcomes.size()); ++i) {
    const auto& o = m_outcomes[i];
    auto set = [&](int col, const QString& text, const QString& tip = QString()) {
      auto* item = new QTableWidgetItem(text);
      item->setToolTip(tip.isEmpty() ? text : tip);
      m_results->setItem(i, col, item);
    };
    set(kRScenario, QString::fromStdString(o.scenario.label()));
    if (o.fewest) {
      const auto& f = *o.fewest;
      if (f.met)
        set(kRFewest, tr("%1 (%2)").arg(f.count).arg(formatSeconds(f.report.llm->timeToTokensSeconds)),
            tr("%1 devices: %2, %3%4").arg(f.count).arg(QString::fromStdString(f.report.llm->plan.describe()),
                                                       formatSeconds(f.report.llm->timeToTokensSeconds),
                                                       f.report.priceKnown ? ", " + formatMoney(f.report.llm->usdToTokens) : QString()));
      else
        set(kRFewest, tr("none"), QString::fromStdString(f.why));
    } else {
      set(kRFewest, QStringLiteral("–"), tr("Set a deadline or a budget to plan backwards"));
    }
    if (!o.report) {
      set(kRPlan, tr("cannot run"));
      for (int c = kRTokens; c < kRWhy; ++c)
        if (c != kRFewest) set(c, QStringLiteral("–"));
      set(kRWhy, QString::fromStdString(o.error));
      continue;
    }
    const auto& r = *o.report;
    set(kRPlan, QString::fromStdString(r.llm->plan.describe()), QString::fromStdString(r.llm->plan.text()));
    // The held-out error band beside the throughput; its text (on which rows, or uncalibrated)
    // in the tooltips of every figure it bounds.
    const QString band = o.band.known() ? QString::fromStdString(o.band.label()) : QString();
    const QString bandTip = o.band.known() ? tr("Simulated, error band %1").arg(QString::fromStdString(o.band.text()))
                                           : tr("Simulated; no error band known");
    set(kRTokens, r.fitsInMemory ? formatValue(r.llm->tokensPerSecond) + (band.isEmpty() ? QString() : " " + band) : tr("out of memory"),
        bandTip);
    // Every simulated figure of the row carries the band (its ± only; "uncalibrated" is in the
    // tokens cell and every tooltip). MFU is itself a percentage: its band is in points.
    const QString pm = o.band.known() ? " " + QString::fromStdString(o.band.percent()) : QString();
    const QString mfu = QString::number(100 * r.utilization, 'f', 1) + "%" +
                        (o.band.known() ? tr(" ±%1 pts").arg(r.utilization * o.band.pct, 0, 'f', 1) : QString());
    if (o.mfuCaution.empty()) {
      set(kRMfu, r.fitsInMemory ? mfu : QStringLiteral("–"), bandTip);
    } else {  // above what published runs of this scale reached: marked, and the tooltip says so
      set(kRMfu, mfu + " ⚠", QString::fromStdString(o.mfuCaution) + ".\n" + bandTip);
    }
    set(kRCost, r.priceKnown && r.fitsInMemory ? formatMoney(r.llm->usdPerMillionTokens) + pm : tr("no price"),
        r.priceKnown ? bandTip : QString::fromStdString(core::sim::noPriceText(r.priceDate)) + tr("; type the $/h you pay in the Price column"));
    set(kRTime, r.fitsInMemory ? formatSeconds(r.llm->timeToTokensSeconds) + pm : QStringLiteral("–"), bandTip);
    set(kRCostTo, r.priceKnown && r.fitsInMemory ? formatMoney(r.llm->usdToTokens) + pm +
                                                      (r.priceKind == core::sim::PriceKind::User ? tr(" (yours)") : QString())
                                                : QStringLiteral("–"),
        bandTip);
    if (r.energy.known && r.fitsInMemory) {
      QString e = tr("%1 kWh").arg(formatValue(r.energy.kwh));
      if (r.config.energy.gridKgCo2ePerKwh > 0) e += tr(", %1 t CO₂e").arg(formatValue(r.energy.co2eKg / 1000));
      set(kREnergy, e, e + tr(" (estimate: %1 W %2 × PUE %3)")
                              .arg(QString::number(r.energy.watts, 'f', 0),
                                   r.energy.typicalDraw ? tr("training draw") : tr("board power"),
                                   QString::number(r.config.energy.pue, 'g', 3)));
    } else {
      set(kREnergy, QStringLiteral("–"), tr("no power figure in the device file"));
    }
    // The published mark of this scenario, if any, as the preset table shows one.
    QStringList vs, vsTips;
    for (const auto& c : checks) {
      if (c.scenario != i) continue;
      vs << QStringLiteral("%1%2%3").arg(c.errorPct >= 0 ? "+" : "").arg(c.errorPct, 0, 'f', 0).arg(c.outside ? "% ⚠" : "%");
      QString tip = tr("%1: published %2, simulated %3 (%4); tolerance ±%5% (the error band)")
                        .arg(QString::fromStdString(c.reference->label), formatValue(c.reference->value),
                             formatValue(c.simulated), QString::fromStdString(c.reference->metric))
                        .arg(c.tolerancePct, 0, 'f', 0);
      if (c.outside)
        tip += c.reference->knownCause.empty() ? tr("\nOutside the tolerance; no known cause.")
                                               : tr("\nOutside the tolerance. Known cause: %1")
                                                     .arg(QString::fromStdString(c.reference->knownCause));
      vsTips << tip + "\n" + QString::fromStdString(c.reference->source);
    }
    if (vs.isEmpty()) set(kRPublished, QStringLiteral("–"), tr("No published mark for this scenario"));
    else set(kRPublished, vs.join(", "), vsTips.join("\n\n"));
    set(kRMemory, formatGib(r.llm->memory.total()) + " / " + formatGib(r.memoryCapacityBytes) + " GiB");
    set(kRWhy, QString::fromStdString(o.mfuCaution.empty() ? r.explanation : "Caution: " + o.mfuCaution + ". " + r.explanation));
  }
  m_results->resizeColumnsToContents();
  m_results->horizontalHeader()->setSectionResizeMode(kRWhy, QHeaderView::Stretch);
  // The row stays current across recomputes, which emits no change: its explanation is shown
  // anew here (it kept the previous study's text, a plan the table no longer showed).
  if (!m_outcomes.empty() && m_results->currentRow() < 0) m_results->setCurrentCell(0, kRScenario);
  showWhy(m_results->currentRow());
}

ChartFrame* LlmPlannerPanel::currentChart() const { return qobject_cast<ChartFrame*>(m_tabs->currentWidget()); }

QList<ChartFrame*> LlmPlannerPanel::charts() const { return {m_charts.cbegin(), m_charts.cend()}; }

void LlmPlannerPanel::setTheme(ChartTheme theme) {
  for (LlmChart* c : m_charts) c->setTheme(theme);
}

}  // namespace widgets
