#pragma once
// Simulate > Energy estimate: the grid region and the data centre's PUE the energy and CO2e
// estimates use, as two exclusive lists read from resources/energy/grid.json (each entry's
// figure and source in its tooltip). The choice is kept in the settings and applied to the
// simulation service at once; `changed` then asks the app to estimate again. GUI thread only.
#include <QObject>
#include <functional>

class QMenu;
class QSettings;

namespace app::gui {

class SimService;

class EnergyMenu : public QObject {
  Q_OBJECT
public:
  EnergyMenu(SimService* sim, std::function<void()> changed, QObject* parent = nullptr);

  // Adds the submenu to `parent` (nothing when grid.json was not read).
  void addTo(QMenu* parent);
  void readSettings(const QSettings& s);
  void writeSettings(QSettings& s) const;
  // Chooses a region and a PUE by id ("" keeps the current one); false for an unknown id.
  bool choose(const QString& regionId, const QString& pueId);

private:
  void check();  // the actions follow the service's settings

  SimService* m_sim;
  std::function<void()> m_changed;
  QMenu* m_menu = nullptr;
};

}  // namespace app::gui
