#pragma once
// File ▸ Export and Edit ▸ Copy: one chart to PNG / PDF / SVG at the export options' size, every chart to one PDF,
// the data of every visible run as CSV / JSON, the chart to the clipboard. Also the batch
// export of the scriptable start: every chart in every format, the data and a screenshot of
// the whole window into one folder. The widgets layer does the rendering; this class picks
// the files, remembers the export folder and reports problems in the message bar.
#include <QJsonObject>
#include <QObject>
#include <functional>
#include <QString>
#include <QStringList>

#include "app/gui/app_actions.h"
#include "widgets/export_options.h"

class QSettings;
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

  // Size, dpi and font scale of every chart export (File ▸ Export Options…); options that do
  // not validate are refused (false) and the current ones kept.
  const widgets::ExportOptions& options() const { return m_options; }
  bool setOptions(const widgets::ExportOptions& options);
  // CSV with a UTF-8 byte-order mark (for spreadsheet programs); chosen in the save dialog.
  bool csvUtf8Bom() const { return m_csvUtf8Bom; }
  void setCsvUtf8Bom(bool on) { m_csvUtf8Bom = on; }

  // Folder, export options and the CSV choice; unusable stored options fall back to the
  // default with a warning in the message bar that names them.
  void readSettings(const QSettings& settings);
  void writeSettings(QSettings& settings) const;

  // The chart an action applies to: the maximised one, else the one under the mouse, else
  // the one holding the keyboard focus; nullptr when none (the dialog then asks).
  widgets::ChartBase* targetChart() const;

  void exportChart();
  void exportAllCharts();
  void exportData(bool json);
  void copyChart();
  void editOptions();   // the Export Options dialog
  // Keys added to every data.json (the preset's comparison rows; see GuidePanel::toJson).
  void setJsonExtras(std::function<QJsonObject()> extras) { m_jsonExtras = std::move(extras); }

  // Every chart as PNG, PDF and SVG, all charts as one PDF, data.csv, data.json and
  // window.png (a screenshot of the whole window) into `dir`. Returns the files written;
  // problems (naming the file) go to `errors`.
  QStringList exportEverything(const QString& dir, QStringList& errors);

private:
  widgets::ChartBase* askForChart();
  QString askForFile(const QString& title, const QString& suggestedName, const QString& filters);
  bool report(const QString& what, const QString& path, const QString& error);
  QJsonObject jsonExtras() const { return m_jsonExtras ? m_jsonExtras() : QJsonObject(); }

  widgets::ChartDeck* m_deck;
  QWidget* m_window;
  MessageBar* m_messages;
  QString m_folder;
  widgets::ExportOptions m_options;
  bool m_csvUtf8Bom = false;
  std::function<QJsonObject()> m_jsonExtras;
};

}  // namespace app::gui
