// Hardware > New Device… and Edit Device…, as a user meets them: a device made from a form is
// written to the user's folder, listed in the Hardware table and simulated at once; a figure
// out of range is refused with its key and range and nothing is written; built-in devices are
// read-only and their ids are refused; another user file is replaced only when the user says so.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "app/gui/device_controller.h"
#include "app/gui/device_editor_dialog.h"
#include "app/gui/experiment_model.h"
#include "app/gui/main_window.h"
#include "app/gui/setup_controller.h"
#include "app/gui/sim_service.h"
#include "app_test_env.h"
#include "core/hw/device_catalog.h"
#include "core/util/files.h"
#include "core/util/json.h"
#include "widgets/hardware_panel.h"

using app::gui::DeviceEditorDialog;
using app::gui::MainWindow;
using Mode = DeviceEditorDialog::Mode;

namespace {

QString userDevices() { return QDir(QString::fromStdString(core::util::userDataDir())).filePath("devices"); }
QString userFile(const QString& id) { return QDir(userDevices()).filePath(id + ".json"); }

// Types `text` over a line edit's content as a user does (textEdited fires).
bool type(QWidget* root, const QString& name, const QString& text) {
  auto* e = root->findChild<QLineEdit*>(name);
  if (!e) return false;
  e->selectAll();
  QTest::keyClick(e, Qt::Key_Delete);
  QTest::keyClicks(e, text);
  return e->text() == text;
}

QString textOf(QWidget* root, const QString& name) {
  auto* e = root->findChild<QLineEdit*>(name);
  return e ? e->text() : QStringLiteral("<no %1>").arg(name);
}

// Answers the next message box with `button`; `asked` says whether one came.
void answerNextQuestion(QMessageBox::StandardButton button, bool* asked) {
  QTimer::singleShot(0, [button, asked] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    *asked = true;
    box->button(button)->click();
  });
}

std::string readText(const QString& path) { return core::util::readFile(path.toStdString()); }

}  // namespace

class TestDeviceEditor : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

private slots:
  void initTestCase() {
    app_test::isolate(m_dir);
  }

  void cleanup() {
    for (const QString& f : QDir(userDevices()).entryList({"*.json"}, QDir::Files)) QFile::remove(QDir(userDevices()).filePath(f));
  }

  void theHardwareMenuOffersNewAndEdit() {
    MainWindow w;
    QMenu* hardware = nullptr;
    for (QAction* a : w.menuBar()->actions())
      if (a->text().remove('&') == "Hardware") hardware = a->menu();
    QVERIFY(hardware);
    QVERIFY(hardware->actions().contains(w.actions().newDevice));
    QVERIFY(hardware->actions().contains(w.actions().editDevice));
    QVERIFY(!w.actions().newDevice->statusTip().isEmpty());
  }

  void everyKeyIsShownWithItsUnitAndRange() {
    MainWindow w;
    w.actions().newDevice->trigger();
    auto* dialog = w.findChild<DeviceEditorDialog*>();
    QVERIFY(dialog);
    QCOMPARE(dialog->mode(), Mode::New);
    for (const auto& k : core::hw::deviceKeyInfo()) {
      const QString name = QString::fromStdString(k.name);
      QVERIFY2(dialog->findChild<QLineEdit*>("value_" + name) || dialog->findChild<QComboBox*>("value_" + name),
               qPrintable(name));
      if (!k.text) QVERIFY2(dialog->findChild<QLineEdit*>("ref_" + name) && dialog->findChild<QLineEdit*>("date_" + name), qPrintable(name));
    }
    QStringList labels;
    for (const QLabel* l : dialog->findChildren<QLabel*>()) labels << l->text();
    const auto* bandwidth = core::hw::findDeviceKeyInfo("mem_bandwidth_gbps");
    QVERIFY(labels.contains("GB/s") && labels.contains("TFLOP/s") && labels.contains("$/h") && labels.contains("W"));
    QVERIFY(labels.contains(QStringLiteral("[%1, %2]").arg(QString::fromStdString(core::util::formatNumber(bandwidth->lo)),
                                                          QString::fromStdString(core::util::formatNumber(bandwidth->hi)))));
    // It starts from a GPU of the catalog, with its figures and their sources.
    QVERIFY(!dialog->deviceId().isEmpty());
    QVERIFY(!textOf(dialog, "value_mem_gib").isEmpty());
    QVERIFY(!textOf(dialog, "ref_mem_gib").isEmpty());
    QVERIFY(textOf(dialog, "value_id").isEmpty());
  }

  void aNewDeviceIsSavedListedAndSimulated() {
    MainWindow w;
    DeviceEditorDialog* dialog = w.deviceController()->showEditor(Mode::New);
    QVERIFY(dialog->selectDevice("v100"));
    const std::string v100Source = textOf(dialog, "ref_mem_gib").toStdString();
    QVERIFY(type(dialog, "value_id", "lab-v100"));
    QVERIFY(type(dialog, "value_name", "Lab V100"));
    QVERIFY(type(dialog, "value_mem_bandwidth_gbps", "1000"));
    // A changed figure's source is the user's word until they say better; the others keep theirs.
    QCOMPARE(textOf(dialog, "ref_mem_bandwidth_gbps"), QString("entered by the user"));
    QCOMPARE(textOf(dialog, "date_mem_bandwidth_gbps").toStdString(), core::util::todayUtc());
    QCOMPARE(textOf(dialog, "ref_mem_gib").toStdString(), v100Source);

    QPointer<DeviceEditorDialog> open(dialog);
    dialog->findChild<QPushButton*>("saveButton")->click();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QVERIFY(!open);  // saved: the editor closed

    // The file is in the user's folder and loads as the loader loads it.
    QVERIFY(QFile::exists(userFile("lab-v100")));
    const core::hw::DeviceSpec spec = core::hw::parseDeviceFile(userFile("lab-v100").toStdString());
    QCOMPARE(spec.name, std::string("Lab V100"));
    QCOMPARE(spec.memBandwidthGBps, 1000.0);
    QCOMPARE(spec.sourceOf("mem_bandwidth_gbps")->ref, std::string("entered by the user"));
    QCOMPARE(spec.peakTflopsFp16, w.sim().catalog().at("v100").peakTflopsFp16);

    // The Hardware table lists it, ticked, and simulates on it.
    QVERIFY(w.hardwarePanel()->deviceIds().contains("lab-v100"));
    QVERIFY(w.hardwarePanel()->settings("lab-v100"));
    bool ticked = false;
    for (const auto& c : w.hardwarePanel()->choices()) ticked = ticked || c.deviceId == "lab-v100";
    QVERIFY(ticked);
    w.setupController()->updateNow();
    const widgets::DeviceStatus status = w.hardwarePanel()->deviceStatus("lab-v100");
    QVERIFY2(status.kind == widgets::DeviceStatus::Kind::Ok, qPrintable(status.text + " " + status.detail));
    core::experiment::DeviceChoice choice;
    choice.deviceId = "lab-v100";
    const core::sim::SimReport r = w.sim().simulateRun(w.experimentModel()->experiment().train, choice);
    QCOMPARE(r.config.deviceId, std::string("lab-v100"));
    QVERIFY(r.stepSeconds > 0);
  }

  void aFigureOutOfRangeIsRefusedAndNothingIsWritten_data() {
    QTest::addColumn<QString>("value");
    QTest::newRow("zero") << "0";
    QTest::newRow("too large") << "1e9";
    QTest::newRow("not a number") << "fast";
  }

  void aFigureOutOfRangeIsRefusedAndNothingIsWritten() {
    QFETCH(QString, value);
    MainWindow w;
    DeviceEditorDialog* dialog = w.deviceController()->showEditor(Mode::New);
    QVERIFY(dialog->selectDevice("v100"));
    QVERIFY(type(dialog, "value_id", "bad-gpu"));
    QVERIFY(type(dialog, "value_mem_bandwidth_gbps", value));
    QVERIFY(dialog->save().isEmpty());
    const QString error = dialog->errorText();
    QVERIFY2(error.contains("mem_bandwidth_gbps"), qPrintable(error));
    QVERIFY2(error.contains("[0.1, 1000000]"), qPrintable(error));
    QVERIFY(dialog->findChild<QLabel*>("errorLabel")->isVisibleTo(dialog));
    QVERIFY(!QFile::exists(userFile("bad-gpu")));
    QVERIFY(!w.hardwarePanel()->deviceIds().contains("bad-gpu"));
    dialog->close();
  }

  void aBuiltInDeviceIsReadOnlyInTheEditForm() {
    MainWindow w;
    DeviceEditorDialog* dialog = w.deviceController()->showEditor(Mode::Edit);
    QCOMPARE(dialog->mode(), Mode::Edit);
    QVERIFY(dialog->selectDevice("v100"));
    QVERIFY(dialog->isReadOnly());
    QVERIFY(dialog->findChild<QLineEdit*>("value_mem_gib")->isReadOnly());
    QVERIFY(dialog->findChild<QLineEdit*>("ref_mem_gib")->isReadOnly());
    QVERIFY(!dialog->findChild<QComboBox*>("value_kind")->isEnabled());
    QVERIFY(!dialog->findChild<QPushButton*>("saveButton")->isEnabled());
    auto* note = dialog->findChild<QLabel*>("readOnlyNote");
    QVERIFY(note->isVisibleTo(dialog));
    QVERIFY2(note->text().contains("read-only: save as a new id", Qt::CaseInsensitive), qPrintable(note->text()));
    QVERIFY(dialog->save().isEmpty());
    QVERIFY(!QFile::exists(userFile("v100")));

    // Save as New: the same figures, editable, under an id of the user's.
    dialog->findChild<QPushButton*>("saveAsNewButton")->click();
    QCOMPARE(dialog->mode(), Mode::New);
    QVERIFY(!dialog->isReadOnly());
    QVERIFY(!dialog->findChild<QLineEdit*>("value_mem_gib")->isReadOnly());
    QVERIFY(!note->isVisibleTo(dialog));
    // A built-in id is refused: the user file would replace the built-in device silently.
    QVERIFY(type(dialog, "value_id", "v100"));
    QVERIFY(dialog->save().isEmpty());
    QVERIFY2(dialog->errorText().contains("built-in"), qPrintable(dialog->errorText()));
    QVERIFY(!QFile::exists(userFile("v100")));
    QVERIFY(type(dialog, "value_id", "my-v100"));
    QCOMPARE(dialog->save(), userFile("my-v100"));
    QVERIFY(w.hardwarePanel()->deviceIds().contains("my-v100"));
  }

  void anExistingUserDeviceIsReplacedOnlyWhenTheUserSaysSo() {
    MainWindow w;
    DeviceEditorDialog* first = w.deviceController()->showEditor(Mode::New);
    QVERIFY(first->selectDevice("a100"));
    QVERIFY(type(first, "value_id", "mine"));
    QVERIFY(!first->save().isEmpty());
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    const std::string before = readText(userFile("mine"));

    DeviceEditorDialog* again = w.deviceController()->showEditor(Mode::New);
    QVERIFY(again->selectDevice("v100"));
    QVERIFY(type(again, "value_id", "mine"));
    bool asked = false;
    answerNextQuestion(QMessageBox::No, &asked);
    QVERIFY(again->save().isEmpty());
    QVERIFY(asked);
    QCOMPARE(readText(userFile("mine")), before);
    asked = false;
    answerNextQuestion(QMessageBox::Yes, &asked);
    QCOMPARE(again->save(), userFile("mine"));
    QVERIFY(asked);
    QCOMPARE(w.sim().catalog().at("mine").memGib, w.sim().catalog().at("v100").memGib);
    QCOMPARE(w.hardwarePanel()->deviceIds().count("mine"), 1);
  }

  // Edit Device… opens on the user's device and saves it in place, without asking; what the
  // form does not show (a calibrated device's fitted software figures) is kept.
  void aUserDeviceIsEditedInPlace() {
    QDir().mkpath(userDevices());
    const std::string base = core::util::resourceDir() + "/devices/t4.json";
    core::util::Json file = core::util::Json::parse(core::util::readFile(base), base);
    file.set("id", "lab-t4");
    core::util::Json fitted = core::util::Json::object();
    fitted.set("gemm_efficiency", 0.5);
    file.set(core::hw::kCalibratedSoftware, fitted);
    core::util::Json source = core::util::Json::object();
    source.set("ref", "fitted on my runs");
    source.set("date", "2026-11");
    file[std::string("sources")].set(core::hw::kCalibratedSoftware, source);
    core::util::writeFileAtomic(userFile("lab-t4").toStdString(), file.dump(2));

    MainWindow w;
    DeviceEditorDialog* dialog = w.deviceController()->showEditor(Mode::Edit);
    QCOMPARE(dialog->deviceId(), QString("lab-t4"));
    QVERIFY(!dialog->isReadOnly());
    QVERIFY(dialog->findChild<QLineEdit*>("value_id")->isReadOnly());
    QVERIFY(type(dialog, "value_mem_gib", "32"));
    bool asked = false;
    answerNextQuestion(QMessageBox::No, &asked);
    QCOMPARE(dialog->save(), userFile("lab-t4"));
    QVERIFY(!asked);
    const core::hw::DeviceSpec spec = core::hw::parseDeviceFile(userFile("lab-t4").toStdString());
    QCOMPARE(spec.memGib, 32.0);
    QVERIFY(spec.sourceOf(core::hw::kCalibratedSoftware));
    QCOMPARE(w.sim().catalog().at("lab-t4").memGib, 32.0);
  }
};

QTEST_MAIN(TestDeviceEditor)
#include "test_device_editor.moc"
