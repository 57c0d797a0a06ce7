#include "core/sim/energy.h"

#include <filesystem>

#include "core/util/error.h"
#include "core/util/files.h"
#include "core/util/json.h"
#include "core/util/json_reader.h"

namespace core::sim {

Energy energyFor(const hw::DeviceSpec& d, int count, double seconds, const EnergySettings& s) {
  const std::optional<double>& w = d.trainingPowerWatts ? d.trainingPowerWatts : d.boardPowerWatts;
  if (!w || count < 1 || !(seconds >= 0)) return {};
  Energy e;
  e.known = true;
  e.typicalDraw = d.trainingPowerWatts.has_value();
  e.watts = *w * count;
  e.kwh = e.watts * seconds / 3600.0 / 1000.0 * s.pue;
  e.co2eKg = e.kwh * s.gridKgCo2ePerKwh;
  return e;
}

util::Json energyToJson(const Energy& e, const EnergySettings& s, const std::function<util::Json(double)>& num) {
  util::Json o = util::Json::object();
  o.set("estimate", true);
  o.set("power_watts", e.known ? num(e.watts) : util::Json());
  if (e.known) o.set("power_from", e.typicalDraw ? "typical training draw" : "board power (an upper bound)");
  o.set("pue", num(s.pue));
  if (!s.pueId.empty()) o.set("pue_choice", s.pueId);
  o.set("grid_kg_co2e_per_kwh", num(s.gridKgCo2ePerKwh));
  if (!s.regionId.empty()) o.set("grid_region", s.regionId);
  return o;
}

namespace {

const EnergyFigure* findIn(const std::vector<EnergyFigure>& list, const std::string& id) {
  for (const auto& f : list)
    if (f.id == id) return &f;
  return nullptr;
}

std::string idsOf(const std::vector<EnergyFigure>& list) {
  std::string out;
  for (const auto& f : list) out += (out.empty() ? "" : ", ") + f.id;
  return out;
}

std::vector<EnergyFigure> readFigures(const util::JsonReader& root, const std::string& key, const char* valueKey,
                                      double lo, double hi) {
  std::vector<EnergyFigure> out;
  for (const util::JsonReader& in : root.objects(key)) {
    EnergyFigure f;
    f.id = in.string("id");
    if (f.id.empty()) in.fail("id", "must not be empty");
    for (const char c : f.id)
      if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'))
        in.fail("id", "may hold only a-z, 0-9 and '-' (got \"" + f.id + "\")");
    if (findIn(out, f.id)) in.fail("id", "\"" + f.id + "\" is given twice");
    f.name = in.string("name");
    f.value = in.number(valueKey, lo, hi);
    const util::JsonReader src = in.object("source");
    f.ref = src.string("ref");
    f.date = src.string("date");
    if (f.ref.empty() || f.date.empty()) src.fail(f.ref.empty() ? "ref" : "date", "must not be empty: every figure names its source");
    src.finish();
    in.finish();
    out.push_back(std::move(f));
  }
  if (out.empty()) root.fail(key, "must list at least one");
  return out;
}

}  // namespace

const EnergyFigure* EnergyCatalog::region(const std::string& id) const { return findIn(regions, id); }
const EnergyFigure* EnergyCatalog::pue(const std::string& id) const { return findIn(pues, id); }

EnergySettings EnergyCatalog::settings(const std::string& regionId, const std::string& pueId) const {
  const std::string r = regionId.empty() ? defaultRegion : regionId;
  const std::string p = pueId.empty() ? defaultPue : pueId;
  const EnergyFigure* rf = region(r);
  if (!rf) throw util::FieldError("grid", "unknown region '" + r + "' (known: " + idsOf(regions) + ")");
  const EnergyFigure* pf = pue(p);
  if (!pf) throw util::FieldError("pue", "unknown choice '" + p + "' (known: " + idsOf(pues) + ", or a number such as 1.2)");
  return {pf->value, rf->value, pf->id, rf->id};
}

EnergyCatalog parseEnergyCatalog(const std::string& text, const std::string& path) {
  const util::Json root = util::Json::parse(text, path, util::kDataFileJsonLimits);
  if (!root.isObject()) throw util::Error(path + ": must hold one JSON object");
  const util::JsonReader in(root, path);
  EnergyCatalog c;
  c.defaultRegion = in.string("default_region");
  c.defaultPue = in.string("default_pue");
  // Grid intensities run from hydro/nuclear grids (~0.01) to coal-heavy ones (~1.1).
  c.regions = readFigures(in, "regions", "kg_co2e_per_kwh", 0.0, 2.0);
  c.pues = readFigures(in, "pue", "value", 1.0, 3.0);
  in.finish();
  if (!c.region(c.defaultRegion)) in.fail("default_region", "\"" + c.defaultRegion + "\" is not one of the regions (" + idsOf(c.regions) + ")");
  if (!c.pue(c.defaultPue)) in.fail("default_pue", "\"" + c.defaultPue + "\" is not one of the pue choices (" + idsOf(c.pues) + ")");
  return c;
}

EnergyCatalog loadEnergyCatalog(const std::string& path) {
  return parseEnergyCatalog(util::readFile(path, util::kMaxDataFileBytes), path);
}

EnergyCatalog loadDefaultEnergyCatalog() {
  return loadEnergyCatalog((std::filesystem::path(util::resourceDir()) / "energy" / "grid.json").string());
}

}  // namespace core::sim
