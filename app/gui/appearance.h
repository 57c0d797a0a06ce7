#pragma once
// How the window looks: light or dark theme (the widgets' palette and the charts), and
// presentation mode for teaching (full screen, larger fonts, configuration docks hidden;
// leaving it restores the window exactly as it was).
#include <QByteArray>
#include <QFont>
#include <QList>
#include <QObject>

#include "widgets/chart_theme.h"

class QDockWidget;
class QMainWindow;

namespace widgets { class ChartDeck; }

namespace app::gui {

class Appearance : public QObject {
  Q_OBJECT
public:
  // `configDocks` are hidden in presentation mode.
  Appearance(QMainWindow* window, widgets::ChartDeck* deck, QList<QDockWidget*> configDocks, QObject* parent = nullptr);

  void setTheme(widgets::ChartTheme theme);
  widgets::ChartTheme theme() const { return m_theme; }
  static QString themeName(widgets::ChartTheme theme);           // "light" | "dark"
  static widgets::ChartTheme themeFromName(const QString& name);  // unknown = light

  void setPresentation(bool on);
  bool presentation() const { return m_presentation; }
  void setPresentationScale(double scale);  // fonts and chart lines in presentation mode
  double presentationScale() const { return m_scale; }

Q_SIGNALS:
  void themeChanged(widgets::ChartTheme theme);
  void presentationChanged(bool on);

private:
  QMainWindow* m_window;
  widgets::ChartDeck* m_deck;
  QList<QDockWidget*> m_configDocks;
  widgets::ChartTheme m_theme = widgets::ChartTheme::Light;
  bool m_presentation = false;
  double m_scale = 1.5;
  QByteArray m_savedState;
  QFont m_savedFont;
  bool m_wasMaximised = false;
};

}  // namespace app::gui
