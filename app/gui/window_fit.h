#pragma once
// Where a top-level window opens when there is no saved geometry (a first start, or View >
// Reset Layout): 85% of its screen's available area, centred; on a small screen, where that
// would be under 1280 x 800, maximised, so that the whole frame fits the available area (a
// client area of the whole screen put the title bar and the status bar off a 1280 x 800 one).
class QWidget;

namespace app::gui {

void fitToScreen(QWidget* window);

}  // namespace app::gui
