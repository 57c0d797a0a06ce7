#pragma once
// File ▸ Export and Edit ▸ Copy: one chart to PNG (2×) / PDF / SVG, every chart to one PDF,
// the data of every visible run as CSV / JSON, the chart to the clipboard. Also the batch
// export of the scriptable start: every chart in every format, the data and a screenshot of
// the whole window into one folder. The widgets layer does the rendering; this class picks
// the files, remembers the export folder and reports problems in the message bar.
#include <QObject>
#include <QString>
#include <QStringList>

#include "app/gui/app_actions.h"

class QWidget;

namespace widgets {
class ChartBase;
class ChartDeck;
}  // namespace widgets

namespace app::gui {

class MessageBar;

class ExportController : public QObject {
  Q_OBJECT
public:
  ExportController(const AppActions& actions, widgets::ChartDeck* deck, QWidget* window, MessageBar* messages,
                   QObject* parent = nullptr);

  QString exportFolder() const { return m_folder; }
  void setExportFolder(const QString& folder);

  // The chart an action applies to: the maximised one, else the one under the mouse, else
  // the one holding the keyboard focus; nullptr when none (the dialog then asks).
  widgets::ChartBase* targetChart() const;

  void exportChart();
  void exportAllCharts();
  void exportData(bool json);
  void copyChart();

  // Every chart as PNG, PDF and SVG, all charts as one PDF, data.csv, data.json and
  // window.png (a screenshot of the whole window) into `dir`. Returns the files written;
  // problems (naming the file) go to `errors`.
  QStringList exportEverything(const QString& dir, QStringList& errors);

private:
  widgets::ChartBase* askForChart();
  QString askForFile(const QString& title, const QString& suggestedName, const QString& filters);
  bool report(const QString& what, const QString& path, const QString& error);

  widgets::ChartDeck* m_deck;
  QWidget* m_window;
  MessageBar* m_messages;
  QString m_folder;
};

}  // namespace app::gui
