#include "app/gui/appearance.h"

#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QPalette>
#include <QStyle>
#include <algorithm>

#include "widgets/chart_deck.h"

namespace app::gui {
namespace {

QPalette darkPalette() {
  QPalette p;
  const QColor window(0x2b, 0x2b, 0x2e), base(0x1e, 0x1e, 0x21), text(0xe6, 0xe6, 0xe6), disabled(0x80, 0x80, 0x80);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::Light, window.lighter(150));
  p.setColor(QPalette::Midlight, window.lighter(125));
  p.setColor(QPalette::Mid, window.darker(120));
  p.setColor(QPalette::Dark, window.darker(150));
  p.setColor(QPalette::Shadow, Qt::black);
  p.setColor(QPalette::Highlight, QColor(0x56, 0xB4, 0xE9));  // Okabe–Ito sky blue
  p.setColor(QPalette::HighlightedText, Qt::black);
  p.setColor(QPalette::Link, QColor(0x56, 0xB4, 0xE9));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, disabled);
  return p;
}

}  // namespace

Appearance::Appearance(QMainWindow* window, widgets::ChartDeck* deck, QList<QDockWidget*> configDocks, QObject* parent)
    : QObject(parent), m_window(window), m_deck(deck), m_configDocks(std::move(configDocks)) {}

QString Appearance::themeName(widgets::ChartTheme theme) {
  return theme == widgets::ChartTheme::Dark ? QStringLiteral("dark") : QStringLiteral("light");
}

widgets::ChartTheme Appearance::themeFromName(const QString& name) {
  return name == QLatin1String("dark") ? widgets::ChartTheme::Dark : widgets::ChartTheme::Light;
}

void Appearance::setTheme(widgets::ChartTheme theme) {
  m_theme = theme;
  QApplication::setPalette(theme == widgets::ChartTheme::Dark ? darkPalette() : QApplication::style()->standardPalette());
  m_deck->setTheme(theme);
  Q_EMIT themeChanged(theme);
}

void Appearance::setPresentationScale(double scale) {
  m_scale = std::clamp(scale, 1.0, 3.0);
  if (m_presentation) m_deck->setPresentationScale(m_scale);
}

void Appearance::setPresentation(bool on) {
  if (on == m_presentation) return;
  m_presentation = on;
  if (on) {
    m_savedState = m_window->saveState();
    m_wasMaximised = m_window->isMaximized();
    m_savedFont = QApplication::font();
    for (QDockWidget* d : m_configDocks) d->hide();
    QFont big = m_savedFont;
    if (big.pointSizeF() > 0) big.setPointSizeF(big.pointSizeF() * m_scale);
    QApplication::setFont(big);
    m_deck->setPresentationScale(m_scale);
    m_window->showFullScreen();
  } else {
    QApplication::setFont(m_savedFont);
    m_deck->setPresentationScale(1.0);
    m_wasMaximised ? m_window->showMaximized() : m_window->showNormal();
    m_window->restoreState(m_savedState);
  }
  Q_EMIT presentationChanged(on);
}

}  // namespace app::gui
