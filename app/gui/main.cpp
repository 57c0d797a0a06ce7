#include <QApplication>

#include "app/gui/main_window.h"
#include "core/util/version.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("AccelLab");
  QApplication::setOrganizationName("AccelLab");
  QApplication::setApplicationVersion(core::util::kVersion);
  QApplication::setDesktopFileName(core::util::kAppId);
  QApplication::setWindowIcon(QIcon(":/icons/accellab.svg"));
  app::gui::MainWindow w;
  w.show();
  return QApplication::exec();
}
