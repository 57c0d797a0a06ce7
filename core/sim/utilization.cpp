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

double tiledUtilization(const GemmShape& g, int tile, int units, int tileMin) {
  // Libraries pick narrower tiles for narrow outputs (down to tileMin), so a dimension smaller
  // than the tile wastes at most the rounding to the next power of two.
  auto tileFor = [&](double extent) {
    double t = std::min(std::max(1, tileMin), std::max(1, tile));
    while (t < extent && t < tile) t *= 2;
    return std::min<double>(t, std::max(1, tile));
  };
  const double tr = tileFor(g.rows), tc = tileFor(g.cols);
  const double u = std::max(1, units);
  const double fill = g.rows / (std::ceil(g.rows / tr) * tr) * (g.cols / (std::ceil(g.cols / tc) * tc));
  double blocks = std::ceil(g.rows / tr) * std::ceil(g.cols / tc);
  double contraction = g.contraction;
  if (blocks < u) {  // too few output blocks: split the contraction across units (split-K)
    const double split = std::max(1.0, std::min(std::ceil(u / blocks), std::floor(contraction / (4 * tile))));
    blocks *= split;
    contraction /= split;
  }
  const double waves = std::ceil(blocks / u);
  const double waveEff = blocks / (waves * u);
  // A block's fixed cost (prologue, epilogue, smaller tiles' lower reuse) is amortised over its
  // contraction: contraction / (contraction + k0 x tile edge).
  const double edge = std::sqrt(tr * tc);
  const double amortise = contraction / (contraction + kTileFixedCost * edge);
  return fill * waveEff * amortise;
}

}  // namespace core::sim
