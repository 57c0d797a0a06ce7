#include "app/gui/data_folders.h"

#include <QFile>

#include "core/data/text_corpus.h"
#include "core/util/files.h"

namespace app::gui {

QStringList dataFolders(const QString& userChosenDir) {
  QStringList dirs{QString::fromStdString(core::util::resourceDir()), QString::fromStdString(core::util::userDataDir()),
                   QStringLiteral("/usr/share/datasets"), QString::fromLatin1(core::data::kFortunesDir)};
  if (!userChosenDir.trimmed().isEmpty()) dirs << userChosenDir.trimmed();
  return dirs;
}

bool isInDataFolders(const QString& path, const QString& userChosenDir) {
  const std::string p = QFile::encodeName(path).toStdString();
  for (const QString& dir : dataFolders(userChosenDir))
    if (core::util::isInside(p, QFile::encodeName(dir).toStdString())) return true;
  return false;
}

QVector<KeyedPath> pathsOutsideDataFolders(const core::experiment::Experiment& e, const QString& userChosenDir) {
  QVector<KeyedPath> out;
  // data_dir is the one path an experiment (and so a preset) holds today; a new path key
  // joins this list.
  const QString dataDir = QString::fromStdString(e.train.dataDir).trimmed();
  if (!dataDir.isEmpty() && !isInDataFolders(dataDir, userChosenDir)) out.push_back({QStringLiteral("experiment.data_dir"), dataDir});
  return out;
}

}  // namespace app::gui
