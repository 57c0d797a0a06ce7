#include "app/gui/energy_menu.h"

#include <QActionGroup>
#include <QLocale>
#include <QMenu>
#include <QSettings>

#include "app/gui/settings_keys.h"
#include "app/gui/sim_service.h"

namespace app::gui {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

EnergyMenu::EnergyMenu(SimService* sim, std::function<void()> changed, QObject* parent)
    : QObject(parent), m_sim(sim), m_changed(std::move(changed)) {}

void EnergyMenu::addTo(QMenu* parent) {
  const core::sim::EnergyCatalog& catalog = m_sim->energyCatalog();
  if (catalog.regions.empty()) return;
  m_menu = parent->addMenu(tr("&Energy estimate"));
  m_menu->setObjectName("energyMenu");
  m_menu->setToolTipsVisible(true);
  // "France (0.04 kg CO2e/kWh)", "Hyperscale cloud (PUE 1.14)".
  auto addGroup = [this](const QString& title, const std::vector<core::sim::EnergyFigure>& figures, const QString& format,
                         bool region) {
    m_menu->addSection(title);
    auto* group = new QActionGroup(m_menu);
    for (const auto& f : figures) {
      QAction* a = m_menu->addAction(format.arg(qs(f.name), QLocale().toString(f.value, 'g', 3)));
      a->setObjectName(QStringLiteral("energy_%1_%2").arg(region ? "region" : "pue", qs(f.id)));
      a->setCheckable(true);
      a->setData(qs(f.id));
      a->setToolTip(tr("Source: %1 (%2)").arg(qs(f.ref), qs(f.date)));
      group->addAction(a);
      connect(a, &QAction::triggered, this, [this, region, id = qs(f.id)] {
        if (region ? choose(id, QString()) : choose(QString(), id)) m_changed();
      });
    }
  };
  addGroup(tr("Grid (carbon intensity)"), catalog.regions, tr("%1 (%2 kg CO₂e/kWh)"), true);
  addGroup(tr("Data centre (PUE)"), catalog.pues, tr("%1 (PUE %2)"), false);
  check();
}

bool EnergyMenu::choose(const QString& regionId, const QString& pueId) {
  const auto& now = m_sim->energySettings();
  const bool ok = m_sim->setEnergyChoice(regionId.isEmpty() ? now.regionId : regionId.toStdString(),
                                         pueId.isEmpty() ? now.pueId : pueId.toStdString());
  check();
  return ok;
}

void EnergyMenu::check() {
  if (!m_menu) return;
  const auto& now = m_sim->energySettings();
  for (QAction* a : m_menu->actions()) {
    if (!a->isCheckable()) continue;
    const bool region = a->objectName().startsWith("energy_region_");
    a->setChecked(a->data().toString().toStdString() == (region ? now.regionId : now.pueId));
  }
}

void EnergyMenu::readSettings(const QSettings& s) {
  choose(s.value(keys::kEnergyRegion).toString(), s.value(keys::kEnergyPue).toString());
}

void EnergyMenu::writeSettings(QSettings& s) const {
  const auto& now = m_sim->energySettings();
  s.setValue(keys::kEnergyRegion, qs(now.regionId));
  s.setValue(keys::kEnergyPue, qs(now.pueId));
}

}  // namespace app::gui
