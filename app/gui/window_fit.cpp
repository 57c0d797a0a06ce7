#include "app/gui/window_fit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace app::gui {

void fitToScreen(QWidget* window) {
  const QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
  const QRect available = screen->availableGeometry();
  const QSize size = available.size() * 0.85;
  if (size.width() < 1280 || size.height() < 800) {
    // The size it takes when the user un-maximises it: still inside the screen with its frame.
    window->resize(available.size() * 0.9);
    window->move(available.topLeft());
    window->setWindowState((window->windowState() & ~Qt::WindowFullScreen) | Qt::WindowMaximized);
    return;
  }
  window->setWindowState(window->windowState() & ~(Qt::WindowMaximized | Qt::WindowFullScreen));
  window->resize(size);
  window->move(available.center() - QPoint(size.width() / 2, size.height() / 2));
}

}  // namespace app::gui
