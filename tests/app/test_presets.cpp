// Presets: the five shipped files load and say what they re-create; broken files are
// rejected with errors that name the file and the key; a saved preset reads back the same.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <sys/stat.h>

#include "../widgets/file_size_limit.h"
#include "app/gui/data_folders.h"
#include "app/gui/preset.h"
#include "app_test_env.h"
#include "core/data/dataset_info.h"
#include "core/experiment/train_config.h"
#include "core/hw/device_catalog.h"
#include "core/nn/zoo.h"
#include "core/util/files.h"

using app::gui::Preset;
using app::gui::PresetLibrary;

namespace {

const char* kMinimal = R"({
  "id": "tiny",
  "title": "Tiny",
  "mode": "train",
  "experiment": {"dataset": "fashion-mnist", "model": "mlp", "batch": 64},
  "devices": [{"id": "k80"}]
})";

QString parseError(const QString& text) {
  try {
    app::gui::parsePreset(text.toStdString(), "broken.json");
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

void write(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

}  // namespace

class TestPresets : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() { app_test::isolate(m_dir); }

  void shippedPresetsLoadAndNameRealThings() {
    PresetLibrary lib;
    lib.load(PresetLibrary::builtinFolder(), QString());
    QVERIFY2(lib.errors().isEmpty(), qPrintable(lib.errors().join('\n')));
    QCOMPARE(lib.ids(), QStringList({"e1-kaggle-flowers", "e2-riseml-imagenet", "e3-colab-fashion", "e4-gce-cpu-gpu",
                                     "e5-kaggle-cifar10", "g1-gpt-fortunes"}));
    const auto catalog = core::hw::DeviceCatalog::loadDirs({PresetLibrary::builtinFolder().replace("presets", "devices").toStdString()});
    for (const Preset& p : lib.presets()) {
      QVERIFY2(!p.explanation.isEmpty() && !p.modeNote.isEmpty(), qPrintable(p.id));
      QVERIFY_THROWS_NO_EXCEPTION(core::data::datasetInfo(p.experiment.train.datasetId));
      QVERIFY_THROWS_NO_EXCEPTION(core::nn::modelInfo(p.experiment.train.modelId));
      QVERIFY2(p.experiment.devices.size() >= 2, qPrintable(p.id));
      for (const auto& d : p.experiment.devices) QVERIFY2(catalog.find(d.deviceId), qPrintable(p.id + ": " + QString::fromStdString(d.deviceId)));
      for (const auto& r : p.references) {
        QVERIFY2(catalog.find(r.deviceId.toStdString()), qPrintable(p.id + ": reference " + r.deviceId));
        QVERIFY(r.value > 0 && !r.label.isEmpty());
      }
      for (const auto& c : p.comparisons) {
        QVERIFY2(!c.source.empty(), c.label.c_str());
        QVERIFY2(c.published > 0 || c.metric == app::gui::Comparison::Metric::Fits, c.label.c_str());
      }
      // Trains for real only where the engine can load the data (ImageNet, flowers: never).
      if (p.experiment.trainHere) QVERIFY2(core::data::datasetInfo(p.experiment.train.datasetId).loadable, qPrintable(p.id));
    }
    // The GPT preset trains the language model on fortunes for real, as the peer does (AdamW
    // with weight decay 0.1, batch 32, 2,000 updates: 16 epochs of 4,000 windows).
    const Preset* gpt = lib.find("g1");
    QVERIFY(gpt);
    QVERIFY(core::experiment::isLanguageModel(gpt->experiment.train.modelId));
    QCOMPARE(gpt->experiment.train.datasetId, std::string("fortunes"));
    QVERIFY(gpt->experiment.trainHere);
    QCOMPARE(gpt->experiment.train.weightDecay, 0.1);
    QCOMPARE(gpt->experiment.train.epochs * ((gpt->experiment.train.limit + gpt->experiment.train.batch - 1) / gpt->experiment.train.batch), 2000);
    QVERIFY_THROWS_NO_EXCEPTION(core::experiment::validate(gpt->experiment.train));
    const Preset* e3 = lib.find("e3");
    QVERIFY(e3);
    QCOMPARE(e3->experiment.train.modelId, std::string("colab-cnn"));
    QCOMPARE(e3->experiment.train.batch, 1024);
    QCOMPARE(e3->experiment.devices.size(), 2);
    QCOMPARE(e3->experiment.devices[1].precision, std::optional(core::util::Precision::BF16));
    QVERIFY(!lib.find("e"));        // ambiguous prefix
    QVERIFY(!lib.find("nothing"));
  }

  void brokenFilesNameFileAndKey_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    const QString ok = kMinimal;
    QTest::newRow("syntax") << QString("{\"id\": ") << "broken.json";
    QTest::newRow("unknown key") << QString(ok).replace("\"mode\"", "\"moed\": 1, \"mode\"") << "broken.json: moed: unknown key";
    QTest::newRow("bad mode") << QString(ok).replace("\"train\"", "\"fly\"") << "broken.json: mode: \"fly\" is not one of";
    QTest::newRow("missing model") << QString(ok).replace("\"model\": \"mlp\", ", "") << "broken.json: experiment.model: missing";
    QTest::newRow("batch zero") << QString(ok).replace("\"batch\": 64", "\"batch\": 0") << "broken.json: experiment.batch: value 0";
    QTest::newRow("device key") << QString(ok).replace("{\"id\": \"k80\"}", "{\"id\": \"k80\", \"cuont\": 2}")
                                << "broken.json: devices[0].cuont: unknown key";
    QTest::newRow("precision") << QString(ok).replace("{\"id\": \"k80\"}", "{\"id\": \"k80\", \"precision\": \"int4\"}")
                               << "broken.json: devices[0].precision";
    QTest::newRow("twice") << QString(ok).replace("{\"id\": \"k80\"}", "{\"id\": \"k80\"}, {\"id\": \"k80\"}")
                           << "broken.json: devices[1].id: device \"k80\" is listed twice";
    QTest::newRow("chart") << QString(ok).replace("\"devices\"", "\"references\": [{\"chart\": \"pie\", \"device\": \"k80\", "
                                                                 "\"value\": 1, \"label\": \"x\"}], \"devices\"")
                           << "broken.json: references[0].chart: \"pie\" is not one of";
    QTest::newRow("bad id") << QString(ok).replace("\"tiny\"", "\"Tiny One\"") << "broken.json: id:";
    QTest::newRow("whole run needs images") << QString(ok).replace("\"devices\"", "\"references\": [{\"chart\": \"throughput\", \"device\": \"k80\", "
                                                                  "\"value\": 1, \"label\": \"x\", \"measures\": \"whole_run\"}], \"devices\"")
                                            << "broken.json: references[0].run_images: is missing";
    QTest::newRow("whole run is throughput") << QString(ok).replace("\"devices\"", "\"references\": [{\"chart\": \"cost\", \"device\": \"k80\", "
                                                                   "\"value\": 1, \"label\": \"x\", \"measures\": \"whole_run\", \"run_images\": 5}], \"devices\"")
                                             << "broken.json: references[0].measures:";
    // A guide figure must name a comparison the preset has (it has none here).
    QTest::newRow("guide figure") << QString(ok).replace("\"mode\"", "\"explanation\": \"TPU {accellab:2} faster\", \"mode\"")
                                  << "broken.json: explanation: {accellab:2}: there is no comparison 2 (the preset has 0)";
    QTest::newRow("guide kind") << QString(ok).replace("\"mode\"", "\"explanation\": \"{guess:1}\", \"mode\"")
                                << "broken.json: explanation: {guess:1}: unknown figure";
  }
  void brokenFilesNameFileAndKey() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const QString error = parseError(text);
    QVERIFY2(error.startsWith(expected), qPrintable(error));
  }

  void savedPresetReadsBackTheSame() {
    PresetLibrary lib;
    lib.load(PresetLibrary::builtinFolder(), QString());
    for (const Preset& p : lib.presets()) {
      const std::string text = app::gui::presetToJson(p);
      const Preset q = app::gui::parsePreset(text, "copy.json");
      QCOMPARE(q.id, p.id);
      QCOMPARE(q.title, p.title);
      QVERIFY(q.experiment == p.experiment);  // every field: core::experiment's operator==
      QCOMPARE(q.references.size(), p.references.size());
      for (int i = 0; i < q.references.size(); ++i) {
        QCOMPARE(q.references[i].value, p.references[i].value);
        QCOMPARE(std::isnan(q.references[i].x), std::isnan(p.references[i].x));
      }
      QCOMPARE(q.comparisons.size(), p.comparisons.size());
      QCOMPARE(app::gui::presetToJson(q), text);
    }
  }

  void userPresetsJoinAndOverride() {
    QTemporaryDir user;
    const Preset* e3 = nullptr;
    PresetLibrary shipped;
    shipped.load(PresetLibrary::builtinFolder(), QString());
    e3 = shipped.find("e3");
    Preset mine = *e3;
    mine.title = "E3, my way";
    mine.experiment.train.epochs = 2;
    app::gui::savePresetFile(mine, QDir(user.path()).filePath(mine.id + ".json"));
    Preset other = *e3;
    other.id = "other";
    other.title = "Other";
    app::gui::savePresetFile(other, QDir(user.path()).filePath("other.json"));
    write(QDir(user.path()).filePath("wrong-name.json"), app::gui::presetToJson(other).c_str());
    write(QDir(user.path()).filePath("junk.json"), "{");

    PresetLibrary lib;
    lib.load(PresetLibrary::builtinFolder(), user.path());
    QCOMPARE(lib.presets().size(), 7);
    QCOMPARE(lib.find("e3-colab-fashion")->title, QString("E3, my way"));
    QVERIFY(lib.find("e3-colab-fashion")->user);
    QVERIFY(lib.find("other"));
    QCOMPARE(lib.errors().size(), 2);
    QVERIFY(lib.errors().join('\n').contains("wrong-name.json: id: \"other\" differs from the file name"));
    QVERIFY(lib.errors().join('\n').contains("junk.json"));
  }

  // Entries of the user presets folder that cannot be read are named, each with why, never
  // skipped in silence (they were: QDir's listing leaves FIFOs and dangling links out).
  void unreadableUserEntriesAreNamed() {
    QTemporaryDir user;
    const QDir d(user.path());
    QVERIFY(QFile::link(d.filePath("nowhere.json"), d.filePath("dangling.json")));
    QVERIFY(QFile::link(d.filePath("loop-b.json"), d.filePath("loop-a.json")));
    QVERIFY(QFile::link(d.filePath("loop-a.json"), d.filePath("loop-b.json")));
    QCOMPARE(::mkfifo(QFile::encodeName(d.filePath("pipe.json")).constData(), 0600), 0);
    QVERIFY(QFile::link("/dev/zero", d.filePath("zero.json")));
    PresetLibrary lib;
    lib.load(PresetLibrary::builtinFolder(), user.path());
    QCOMPARE(lib.presets().size(), 6);  // the shipped ones, all still there
    const QString errors = lib.errors().join('\n');
    for (const char* name : {"dangling.json", "loop-a.json", "loop-b.json", "pipe.json", "zero.json"})
      QVERIFY2(errors.contains(name), qPrintable(QString(name) + " not named in:\n" + errors));
    QVERIFY2(errors.contains("FIFO") && errors.contains("symlink loop") && errors.contains("character device"),
             qPrintable(errors));
    // Asked for by name, such an entry says why it is not there.
    QVERIFY(lib.errorFor("pipe").contains("FIFO"));
    QVERIFY(lib.errorFor("e3").isEmpty());
  }

  // A preset saved on a full disk: the save throws naming the file, and the preset that was
  // there stays whole (Qt 6.4's QSaveFile reported success and left it cut).
  void savingOnAFullDiskKeepsTheOldPreset() {
    QTemporaryDir user;
    PresetLibrary shipped;
    shipped.load(PresetLibrary::builtinFolder(), QString());
    Preset p = *shipped.find("e3");
    const QString path = QDir(user.path()).filePath(p.id + ".json");
    app::gui::savePresetFile(p, path);
    QFile before(path);
    QVERIFY(before.open(QIODevice::ReadOnly));
    const QByteArray old = before.readAll();
    before.close();
    p.explanation = QString(20000, QChar('x'));  // larger than the room left
    QString error;
    {
      const testdata::FileSizeLimit full(static_cast<rlim_t>(old.size()) + 100);
      QVERIFY(full.ok());
      try {
        app::gui::savePresetFile(p, path);
      } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
      }
    }
    QVERIFY2(error.contains(path) && error.contains("write failed"), qPrintable(error));
    QFile after(path);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QCOMPARE(after.readAll(), old);
    QCOMPARE(testdata::allEntries(user.path()), QStringList{p.id + ".json"});
  }

  // The data folders: a preset's data_dir inside them is read without asking, one outside
  // them (~/.ssh, or a path that climbs out with "..") is named by its key.
  void dataFoldersDecideWhatIsOutside() {
    using app::gui::pathsOutsideDataFolders;
    core::experiment::Experiment e;
    QVERIFY(pathsOutsideDataFolders(e).isEmpty());  // the dataset's default location
    const QString user = QString::fromStdString(core::util::userDataDir());
    for (const QString& inside : {QString("/usr/share/datasets/fashion-mnist"), QString("/usr/share/games/fortunes"),
                                 user + "/corpora/mine", QString::fromStdString(core::util::resourceDir()) + "/x"}) {
      e.train.dataDir = inside.toStdString();
      QVERIFY2(pathsOutsideDataFolders(e).isEmpty(), qPrintable(inside));
    }
    for (const QString& outside : {QDir::homePath() + "/.ssh", QString("/usr/share/datasets/../../../etc"),
                                  QString("/etc"), QString("relative/folder")}) {
      e.train.dataDir = outside.toStdString();
      const auto found = pathsOutsideDataFolders(e);
      QCOMPARE(found.size(), 1);
      QCOMPARE(found.front().key, QString("experiment.data_dir"));
      QCOMPARE(found.front().path, outside);
    }
    // A folder the user chose themselves is one of them.
    e.train.dataDir = "/srv/my-corpus/part1";
    QCOMPARE(pathsOutsideDataFolders(e).size(), 1);
    QVERIFY(pathsOutsideDataFolders(e, "/srv/my-corpus").isEmpty());
  }

  void idsFromTitles() {
    QCOMPARE(app::gui::presetIdFromTitle("E3 · Colab (mine)!"), QString("e3-colab-mine"));
    QCOMPARE(app::gui::presetIdFromTitle("···"), QString("my-preset"));
    QVERIFY(app::gui::isValidPresetId("e3-colab"));
    QVERIFY(!app::gui::isValidPresetId("E3"));
    QVERIFY(!app::gui::isValidPresetId("../x"));
  }
};

QTEST_MAIN(TestPresets)
#include "test_presets.moc"
