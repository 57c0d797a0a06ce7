// Every number the Guide states is one the charts or the set-up show. For each preset, at its
// default, at the tour's subset and after a scripted run, each figure typed in the Guide's text
// must be a published mark that the chart it names draws (after the run: in that chart's data),
// a comparison's own figure or protocol, a setting of the experiment on screen or of the
// preset's devices, a figure of a device's or model's own description, or a batch of the sweep.
// A hand-typed number that is none of these ("the P100 takes about 3 s" while the chart says
// 5.28 s) fails, naming the preset, the state and the number. After the run, the Guide's
// This-run column is the ratio of the two devices' whole runs on the epoch-time chart.
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>

#include "app/gui/experiment_model.h"
#include "app/gui/guide_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/preset_controller.h"
#include "app/gui/script_runner.h"
#include "app/gui/setup_controller.h"
#include "app/gui/sim_service.h"
#include "app_test_env.h"
#include "core/data/dataset_info.h"
#include "core/nn/transformer_spec.h"
#include "core/nn/zoo.h"
#include "widgets/accuracy_chart.h"
#include "widgets/chart_base.h"
#include "widgets/chart_deck.h"
#include "widgets/run_store.h"

using app::gui::MainWindow;
using app::gui::Preset;

namespace {

constexpr double kGiB = 1.073741824;   // GB per GiB

// A figure as the text writes it: its value and how many decimals it shows.
struct Figure {
  double value = 0;
  int decimals = 0;
  QString text;
  bool batch = false;   // written as a batch size ("at batch 512")
};

// The figures typed in a Guide text: numbers standing alone (not "v3-8", "CIFAR-10", "1e-3"),
// the placeholders ({published:N}, {accellab:N}) left out: those are the comparisons' own.
QVector<Figure> typedFigures(QString text) {
  static const QRegularExpression placeholder(QStringLiteral("\\{[a-z]+:\\d+\\}"));
  text.replace(placeholder, QStringLiteral(" "));
  static const QRegularExpression number(QStringLiteral("(?<![\\w.\\-])[$≈]?(\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.(\\d+))?(?![\\w\\-])"));
  QVector<Figure> out;
  for (auto it = number.globalMatch(text); it.hasNext();) {
    const QRegularExpressionMatch m = it.next();
    Figure f;
    f.text = m.captured(0);
    f.decimals = static_cast<int>(m.captured(2).size());
    f.value = (m.captured(1).remove(',') + (f.decimals ? "." + m.captured(2) : QString())).toDouble();
    f.batch = text.left(m.capturedStart(0)).endsWith(QStringLiteral("batch "));
    out << f;
  }
  return out;
}

// `fact` written with the figure's decimals is the figure.
bool shows(const Figure& f, double fact) {
  return std::isfinite(fact) && std::abs(fact - f.value) < 0.5 * std::pow(10.0, -f.decimals) - 1e-12;
}

// Every number in `text` ("Xeon Scalable 2.0 GHz", "4 heads, context 128").
QVector<double> numbersIn(const QString& text) {
  QVector<double> out;
  for (const Figure& f : typedFigures(text)) out << f.value;
  return out;
}

struct Fact {
  double value;
  QString what;
  bool batchOnly = false;   // stands for a batch size only (the sweep's)
};

// What the Guide may state without a placeholder: the set-up on screen and the preset's, its
// devices' and model's own descriptions, the comparisons' protocols and the sweep's batches.
QVector<Fact> setupFacts(const Preset& p, const core::experiment::TrainConfig& onScreen, const app::gui::SimService& sim) {
  QVector<Fact> facts;
  for (const core::experiment::TrainConfig* c : {&p.experiment.train, &onScreen}) {
    const double size = static_cast<double>(core::data::datasetInfo(c->datasetId).trainSize);
    const double images = c->limit > 0 ? std::min<double>(size, static_cast<double>(c->limit)) : size;
    const double steps = std::ceil(images / c->batch);
    facts << Fact{static_cast<double>(c->batch), "batch"} << Fact{static_cast<double>(c->epochs), "epochs"}
          << Fact{size, "dataset size"} << Fact{images, "images per epoch"} << Fact{steps, "steps per epoch"}
          << Fact{steps * c->epochs, "updates"};
    for (double v : numbersIn(QString::fromStdString(core::nn::modelInfo(c->modelId).description)))
      facts << Fact{v, "the model's description"};
    if (const auto* spec = core::nn::findTransformer(c->modelId)) {
      facts << Fact{static_cast<double>(spec->vocab), "vocabulary"}
            << Fact{std::log2(static_cast<double>(spec->vocab)), "bits of a uniform guess"};
    }
  }
  for (const auto& d : p.experiment.devices) {
    const core::hw::DeviceSpec& spec = sim.catalog().at(d.deviceId);
    facts << Fact{static_cast<double>(d.count), "device count"} << Fact{static_cast<double>(d.vcpus), "vCPUs"}
          << Fact{d.memoryGib, "memory GiB"} << Fact{d.memoryGib * kGiB, "memory GB"}
          << Fact{static_cast<double>(p.experiment.train.batch) / std::max(1, d.count), "per-device batch"}
          << Fact{spec.memGib, "device memory GiB"};
    for (double v : numbersIn(QString::fromStdString(spec.name))) facts << Fact{v, "the device's name"};
  }
  for (const auto& c : p.comparisons) {
    for (const auto* side : {&c.device, &c.versus}) {
      if (side->batch) facts << Fact{static_cast<double>(*side->batch), "a comparison's batch"};
      if (side->vcpus) facts << Fact{static_cast<double>(*side->vcpus), "a comparison's vCPUs"};
      if (side->count) facts << Fact{static_cast<double>(*side->count), "a comparison's count"};
      if (!side->deviceId.empty())
        for (double v : numbersIn(QString::fromStdString(sim.catalog().at(side->deviceId).name)))
          facts << Fact{v, "the device's name"};
      if (!side->deviceId.empty()) facts << Fact{sim.catalog().at(side->deviceId).memGib, "device memory GiB"};
    }
    if (c.epochs > 0) facts << Fact{static_cast<double>(c.epochs), "the article's epochs"};
    if (c.stepsPerEpoch > 0) facts << Fact{static_cast<double>(c.stepsPerEpoch), "the article's steps per epoch"};
  }
  for (int b : app::gui::SetupController::sweepBatches()) facts << Fact{static_cast<double>(b), "a sweep batch", true};
  return facts;
}

// The chart a reference mark names, as the deck has it.
widgets::ChartBase* chartOf(widgets::ChartDeck* deck, const QString& referenceChart) {
  if (referenceChart == "time_to_accuracy") {
    auto* accuracy = static_cast<widgets::AccuracyChart*>(deck->chart("accuracy"));
    accuracy->setAxis(widgets::AccuracyChart::Axis::Seconds);
    return accuracy;
  }
  if (referenceChart == "cost_per_million") return deck->chart("cost");
  return deck->chart(referenceChart);
}

}  // namespace

class TestGuideNumbers : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  std::unique_ptr<MainWindow> m_window;
  app::gui::SimService m_sim;

  // Loads the preset in the state named (default, subset, run); false when it could not.
  bool reach(const QString& id, const QString& state) {
    if (!m_window->presetController()->apply(id)) return false;
    const bool trains = m_window->experimentModel()->experiment().trainHere;
    if (state == "subset") {
      m_window->experimentModel()->update([](core::experiment::Experiment& e) { e.train.limit = 2048; });
      return true;
    }
    if (state != "run") return true;
    app::gui::LaunchOptions o;
    o.presetId = id;
    o.run = true;
    // Real training kept short: the tour's subset, one epoch (a language model: 256 samples).
    if (trains) {
      o.limit = m_window->experimentModel()->experiment().train.modelId == "char-gpt" ? 256 : 2048;
      o.epochs = 1;
    }
    app::gui::ScriptRunner script(m_window.get(), o);
    QSignalSpy done(&script, &app::gui::ScriptRunner::done);
    script.start();
    if (!done.wait(240000) && done.isEmpty()) return false;
    return done.first().first().toInt() == 0;
  }

private slots:
  void initTestCase() {
    app_test::isolate(m_dir);
    m_window = std::make_unique<MainWindow>();
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
  }

  void everyTypedNumberIsShownData_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("state");
    for (const Preset& p : m_window->presetController()->library().presets())
      for (const char* state : {"default", "subset", "run"})
        QTest::newRow(qPrintable(p.id + ":" + state)) << p.id << QString(state);
  }

  void everyTypedNumberIsShownData() {
    QFETCH(QString, id);
    QFETCH(QString, state);
    QVERIFY2(reach(id, state), qPrintable(id + " could not reach " + state));
    QVERIFY(m_window->presetController()->current().has_value());
    const Preset* p = &*m_window->presetController()->current();
    QVERIFY(p->id == id);
    app::gui::GuidePanel* guide = m_window->guidePanel();
    widgets::ChartDeck* deck = m_window->deck();
    const widgets::Run* run = state == "run" ? m_window->store()->run(m_window->store()->currentRunId()) : nullptr;
    if (state == "run") QVERIFY(run && run->presetId == id);

    const QVector<Fact> facts = setupFacts(*p, m_window->experimentModel()->experiment().train, m_sim);
    QStringList unexplained;
    for (const Figure& f : typedFigures(p->explanation)) {
      // A published mark: one of the preset's references, and after the run the chart it
      // names draws it (the value as the chart has it).
      bool published = false;
      for (const widgets::ReferenceMark& m : p->references) {
        const double scale = m.chart == "time_to_accuracy" ? 100.0 : 1.0;
        const bool value = shows(f, m.value * scale), images = shows(f, m.runImages);
        const bool hours = std::isfinite(m.x) && m.chart == "time_to_accuracy" && shows(f, m.x / 3600.0);
        if (!value && !images && !hours) continue;
        published = true;
        if (!run || !value) continue;
        widgets::ChartBase* chart = chartOf(deck, m.chart);
        QVERIFY2(chart, qPrintable(m.chart));
        chart->refreshNow();
        // On a subset the epoch-time chart draws a full pass's figure at the subset's size
        // (and says so in the mark's label).
        const double size = static_cast<double>(core::data::datasetInfo(run->config.datasetId).trainSize);
        const double subset = m.chart == "epoch_time" && run->config.limit > 0 && run->config.limit < size
                                  ? static_cast<double>(run->config.limit) / size : 1.0;
        bool drawn = false;
        for (const widgets::Series& s : chart->series())
          if (s.source == widgets::SeriesSource::Reference)
            for (double y : s.y) drawn = drawn || std::abs(y - m.value * scale * subset) <= 1e-9 * std::abs(y) + 1e-12;
        QVERIFY2(drawn, qPrintable(QStringLiteral("%1 (%2): the Guide states %3, a published mark of the %4 chart, "
                                                  "which that chart does not draw").arg(id, state, f.text, m.chart)));
      }
      if (published) continue;
      const bool known = std::any_of(facts.begin(), facts.end(), [&](const Fact& fact) {
        return (f.batch || !fact.batchOnly) && shows(f, fact.value);
      });
      if (!known) unexplained << f.text;
    }
    QVERIFY2(unexplained.isEmpty(),
             qPrintable(QStringLiteral("%1 (%2): the Guide states %3, which no chart, comparison or setting shows")
                            .arg(id, state, unexplained.join(", "))));
    // Its placeholders are filled from the same computation as the table beside it.
    QVERIFY2(!guide->explanationText().contains('{'), qPrintable(guide->explanationText()));
    for (int row = 0; row < guide->comparisonRows(); ++row)
      if (p->explanation.contains(QStringLiteral("{accellab:%1}").arg(row + 1)))
        QVERIFY2(guide->explanationText().contains(guide->appValue(row)),
                 qPrintable(QStringLiteral("%1 (%2): row %3 says %4, the text does not").arg(id, state).arg(row + 1).arg(guide->appValue(row))));

    // The Guide belongs to the run drawn, or says whose it is.
    const widgets::Run* current = m_window->store()->run(m_window->store()->currentRunId());
    if (current && current->presetId != id)
      QVERIFY2(!guide->runNoteText().isEmpty(), qPrintable(id + " shows another preset's run without saying so"));
    if (!run) return;
    QVERIFY2(guide->runNoteText().isEmpty(), qPrintable(guide->runNoteText()));
    // The This-run column is the epoch-time chart's own: the two sides' whole runs.
    widgets::ChartBase* epochs = deck->chart("epoch_time");
    epochs->refreshNow();
    for (int row = 0; row < guide->comparisonRows(); ++row) {
      const QString shown = guide->runValue(row);
      if (!shown.endsWith(QStringLiteral("×"))) continue;
      const auto& c = guide->comparisons()[row];
      QVector<double> device, versus;
      for (const widgets::Series& s : epochs->series()) {
        if (s.runId != run->id || s.source == widgets::SeriesSource::Reference) continue;
        double whole = 0;
        for (double v : s.y) whole += std::isfinite(v) ? v : 0.0;
        if (s.deviceId.toStdString() == c.device.deviceId) device << whole;
        if (s.deviceId.toStdString() == c.versus.deviceId) versus << whole;
      }
      if (c.device.deviceId == c.versus.deviceId) continue;   // one id, two sizes (E4's 32 vs 64 vCPUs)
      QVERIFY2(device.size() == 1 && versus.size() == 1,
               qPrintable(QStringLiteral("%1 row %2: This run says %3, the epoch-time chart has %4 and %5 series of its sides")
                              .arg(id).arg(row + 1).arg(shown).arg(device.size()).arg(versus.size())));
      // As the column writes it ("96×", "2.41×"): the chart's ratio to the digits shown.
      const QVector<Figure> figure = typedFigures(QString(shown).remove(QStringLiteral("×")));
      QVERIFY2(figure.size() == 1 && shows(figure[0], versus[0] / device[0]),
               qPrintable(QStringLiteral("%1 row %2: This run says %3, the epoch-time chart gives %4")
                              .arg(id).arg(row + 1).arg(shown).arg(versus[0] / device[0])));
    }
  }
};

QTEST_MAIN(TestGuideNumbers)
#include "test_guide_numbers.moc"
