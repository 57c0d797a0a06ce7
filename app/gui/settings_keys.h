#pragma once
// Every QSettings key the app uses, in one place: readSettings() and writeSettings() use
// these names and nothing else, so what is written is what is read.
#include <QLatin1StringView>

namespace app::gui::keys {

inline constexpr QLatin1StringView kGeometry{"window/geometry"};
inline constexpr QLatin1StringView kWindowState{"window/state"};
inline constexpr QLatin1StringView kTheme{"view/theme"};                   // "light" | "dark"
inline constexpr QLatin1StringView kExportFolder{"export/folder"};
inline constexpr QLatin1StringView kLastExperiment{"experiment/last"};    // JSON: config, devices, execution
inline constexpr QLatin1StringView kPresentationScale{"view/presentationScale"};

}  // namespace app::gui::keys
