#pragma once
// Every QSettings key the app uses, in one place: readSettings() and writeSettings() use
// these names and nothing else, so what is written is what is read.
#include <QLatin1StringView>

namespace app::gui::keys {

inline constexpr QLatin1StringView kGeometry{"window/geometry"};
inline constexpr QLatin1StringView kWindowState{"window/state"};
inline constexpr QLatin1StringView kTheme{"view/theme"};                   // "light" | "dark"
inline constexpr QLatin1StringView kExportFolder{"export/folder"};
// Chart export size: width and height in the unit ("px" | "cm" | "in"), dpi, font scale.
inline constexpr QLatin1StringView kExportWidth{"export/width"};
inline constexpr QLatin1StringView kExportHeight{"export/height"};
inline constexpr QLatin1StringView kExportUnit{"export/unit"};
inline constexpr QLatin1StringView kExportDpi{"export/dpi"};
inline constexpr QLatin1StringView kExportFontScale{"export/fontScale"};
inline constexpr QLatin1StringView kExportCsvBom{"export/csvUtf8Bom"};   // bool
inline constexpr QLatin1StringView kLastExperiment{"experiment/last"};    // JSON: config, devices, execution
inline constexpr QLatin1StringView kPresentationScale{"view/presentationScale"};
inline constexpr QLatin1StringView kShownCharts{"view/chartsShown"};      // chart ids, display order
// The energy and CO2e estimate: ids of resources/energy/grid.json's regions and PUE choices.
inline constexpr QLatin1StringView kEnergyRegion{"energy/region"};
inline constexpr QLatin1StringView kEnergyPue{"energy/pue"};
inline constexpr QLatin1StringView kGettingStartedShown{"help/gettingStartedShown"};  // bool: shown at a first start

}  // namespace app::gui::keys
