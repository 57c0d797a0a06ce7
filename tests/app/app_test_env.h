#pragma once
// Keeps a GUI test away from the user's files: settings, run history and presets go to a
// temporary folder (the device catalog's host measurement cache stays where CTest puts it,
// so it is measured once per build tree, not once per test), under the names the app gives
// itself (its settings and data folders are named after them).
#include <QCoreApplication>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtGlobal>

namespace app_test {

inline void isolate(const QTemporaryDir& dir) {
  qputenv("XDG_CONFIG_HOME", dir.filePath("config").toUtf8());
  qputenv("XDG_DATA_HOME", dir.filePath("data").toUtf8());
  if (qEnvironmentVariableIsEmpty("ACCELLAB_USER_DIR")) qputenv("ACCELLAB_USER_DIR", dir.filePath("user").toUtf8());
  QCoreApplication::setApplicationName("AccelLab");
  QCoreApplication::setOrganizationName("AccelLab");
}

}  // namespace app_test
