#pragma once
// Fitting the software stacks' figures on published measurements, reproducibly: a fit spec
// (resources/calibration/stack-fit.json) names each free figure (stack, key, selector), its starting
// value and bounds, the rows left out by rule, and the ties (a figure set equal to another,
// fitted one). The fit is a deterministic pattern search per stack on the mean
// |log(predicted / published)| of that stack's rows, so rerunning it gives the shipped figures.
#include <string>
#include <vector>

#include "core/hw/device_catalog.h"
#include "core/hw/stack_catalog.h"
#include "core/sim/validation.h"

namespace core::sim {

struct FigureRef {
  std::string stack, key, selector;
  std::string name() const { return stack + "." + key + "." + selector; }
};

struct FitParameter {
  FigureRef figure;
  double start = 0, min = 0, max = 0;
};

struct FitTie {
  FigureRef figure;  // set to...
  FigureRef from;    // ...this figure's fitted value
};

struct FitSpec {
  std::vector<FitParameter> parameters;  // fitted in this order, stack by stack
  std::vector<FitTie> ties;              // applied after all fits, in order
  std::vector<std::string> excludeModels;          // rows of these models are left out
  std::vector<std::string> excludeNotesContaining; // rows whose note holds one of these (unless a reading resolves it)
  int significantDigits = 3;             // fitted values are rounded to this many digits
};

// Throws core::util::Error naming the file and the key.
FitSpec parseFitSpec(const std::string& text, const std::string& path);
FitSpec readFitSpec(const std::string& path);

struct FittedFigure {
  FigureRef figure;
  double value = 0;
  bool tied = false;
};

struct StackFitResult {
  std::string stack;
  int rows = 0;              // rows in the objective
  double objectiveStart = 0; // mean |log(pred/pub)| at the starting values
  double objectiveFitted = 0;
  int evaluations = 0;
};

struct FitOutcome {
  hw::StackCatalog stacks;            // the input catalog with the fitted figures
  std::vector<FittedFigure> figures;  // parameters, then ties
  std::vector<StackFitResult> perStack;
};

// Rows of `rows` that the spec's rules keep.
std::vector<ReferenceRow> rowsForFit(const std::vector<ReferenceRow>& rows, const FitSpec& spec);

FitOutcome fitStacks(const hw::DeviceCatalog& devices, const hw::StackCatalog& stacks,
                     const std::vector<ReferenceRow>& rows, const FitSpec& spec);

}  // namespace core::sim
