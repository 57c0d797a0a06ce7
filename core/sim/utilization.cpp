#include "core/sim/utilization.h"

#include <algorithm>
#include <cmath>

namespace core::sim {

double tileFill(double extent, int tile) {
  if (extent <= 0 || tile <= 1) return 1.0;
  const double tiles = std::ceil(extent / tile);
  return extent / (tiles * tile);
}

double systolicUtilization(const GemmShape& g, int tile) {
  const double t = std::max(1, tile);
  const double pad = tileFill(g.rows, tile) * tileFill(g.contraction, tile);
  const double stream = g.cols / (g.cols + t);
  return pad * stream;
}

double tiledUtilization(const GemmShape& g, int tile, int units) {
  const double t = std::max(1, tile);
  const double u = std::max(1, units);
  const double fill = tileFill(g.rows, tile) * tileFill(g.cols, tile);
  double blocks = std::ceil(g.rows / t) * std::ceil(g.cols / t);
  double contraction = g.contraction;
  if (blocks < u) {  // split the contraction across units (split-K) while it stays long
    const double split = std::max(1.0, std::min(std::ceil(u / blocks), std::floor(contraction / (4 * t))));
    blocks *= split;
    contraction /= split;
  }
  const double waves = std::ceil(blocks / u);
  const double waveEff = blocks / (waves * u);
  const double amortise = contraction / (contraction + 2 * t);
  return fill * waveEff * amortise;
}

}  // namespace core::sim
