#pragma once
// The data folders: where a preset (or a study, or a device file) may point AccelLab to read
// without asking. A downloaded preset's data_dir can otherwise make char-gpt train on any
// folder (~/.ssh) and keep what it read in the run history. Outside these folders the GUI
// asks first and a scripted run needs --allow-outside-data.
#include <QString>
#include <QStringList>
#include <QVector>

#include "core/experiment/experiment.h"

namespace app::gui {

// The shipped resources folder, the user's data folder (core::util::userDataDir()),
// /usr/share/datasets, the fortunes folder, and `userChosenDir` (a folder the user chose in
// the Experiment panel themselves; empty = none).
QStringList dataFolders(const QString& userChosenDir = {});

// True when `path` lies inside one of dataFolders(userChosenDir) once resolved (symlinks, "..").
bool isInDataFolders(const QString& path, const QString& userChosenDir = {});

// A path an experiment would read, by the key that holds it in the file ("experiment.data_dir").
struct KeyedPath {
  QString key;
  QString path;
};

// The paths `e` would read that lie outside the data folders (empty when none).
QVector<KeyedPath> pathsOutsideDataFolders(const core::experiment::Experiment& e, const QString& userChosenDir = {});

}  // namespace app::gui
