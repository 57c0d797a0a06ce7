#pragma once
// The share of a device's matrix units one GEMM keeps busy, from its shape alone.
//
// GEMM shape: the output is rows x cols, each element a dot product of length `contraction`.
// A convolution's forward pass is rows = out channels (M), cols = out pixels x batch (N),
// contraction = in channels x kernel window (K); the backward pass is two more GEMMs
// (input gradient: K x N over M; weight gradient: M x K over N).
namespace core::sim {

struct GemmShape {
  double rows = 1;
  double cols = 1;
  double contraction = 1;
};

// Fraction of a tile edge a dimension fills after rounding up to whole tiles.
double tileFill(double extent, int tile);

// Systolic matrix unit (TPU MXU, tile x tile, weights stationary): the weight block
// (rows x contraction) is padded to whole tiles, and the streamed dimension (cols: pixels x
// per-core batch) must be long against the array's fill/drain of `tile` cycles. Small
// per-core batches and narrow layers waste most of it.
double systolicUtilization(const GemmShape& g, int tile);

// Tiled GEMM on `units` parallel processors (GPU SMs, CPU threads): the output is cut into
// tile x tile blocks run in waves over the units (a partial last wave idles the rest; a long
// contraction is split to fill the units); a block's fixed cost (prologue, epilogue, operand
// staging) is amortised over its contraction: contraction / (contraction + kTileFixedCost x
// tile edge).
inline constexpr double kTileFixedCost = 2.0;
// `tileMin`: the narrowest tile the stack falls back to for narrow outputs (older GPU stacks
// only had large tiles).
inline constexpr int kMinTile = 16;
double tiledUtilization(const GemmShape& g, int tile, int units, int tileMin = kMinTile);

}  // namespace core::sim
