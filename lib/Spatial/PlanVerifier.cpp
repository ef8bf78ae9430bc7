//===- PlanVerifier.cpp - What every mapping plan must be -----------------===//
//
// A plan of a layer graph, checked in the core after the driver chose it, as
// MLIR verifies an op after a pass built it: every layer planned with the
// passes it runs, each pass's split covering the chips it runs on and the
// cores of a chip, each memory decision's values going together (its
// record's rules, DecisionRecords.h), the stages of a pipeline on rows of
// their own with one microbatch count, and the plan's memory figure
// recorded for the chips it runs on.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Spatial/MappingPlan.h"

#include "dsm/Core/Spatial/DecisionRecords.h"
#include "dsm/Core/Spatial/LayerGraph.h"
#include "dsm/Core/Spatial/PerformanceModel.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace dsm::core;

namespace {

/// The first failure of a plan's check, naming the layer and pass.
llvm::Error planError(const LayerNode &layer, TrainingPass pass,
                      const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::formatv("the plan of layer '{0}' ({1}) ",
                                               layer.shape.name,
                                               stringifyTrainingPass(pass))
                                         .str() +
                                     why);
}

/// The passes `layer` runs, in order.
std::vector<TrainingPass> passesOf(const LayerNode &layer) {
  std::vector<TrainingPass> passes;
  if (layer.fwd)
    passes.push_back(TrainingPass::FWD);
  if (layer.bwd)
    passes.push_back(TrainingPass::BWD);
  if (layer.upd)
    passes.push_back(TrainingPass::UPD);
  return passes;
}

/// The chips a pass's split covers: its stage's rows (every column of the
/// torus or of the plan's block) or the block, else the torus.
int64_t chipsOf(const PerformanceModel &model, const MappingConfig &config) {
  const TorusSpec &torus = model.getSystem().torus;
  const ChipBlock &block = config.block;
  const int64_t columns = block.whole() ? torus.x.size : block.columns;
  const int64_t rows = config.memory.pipeRows > 0 ? config.memory.pipeRows
                       : block.whole()            ? torus.y.size
                                                  : block.rows;
  return rows * columns;
}

llvm::Error verifyPass(const PerformanceModel &model, const LayerNode &layer,
                       const PassPlan &pass) {
  const MappingConfig &config = pass.eval.config;
  const int64_t chips = chipsOf(model, config);
  if (product(config.chipSplit) != chips)
    return planError(layer, pass.pass,
                     llvm::formatv("splits its work over {0} chips, but runs "
                                   "on {1}",
                                   product(config.chipSplit), chips));
  if (product(config.coreSplit) != model.numCores())
    return planError(layer, pass.pass,
                     llvm::formatv("splits a chip's work over {0} cores, but "
                                   "a chip has {1}",
                                   product(config.coreSplit),
                                   model.numCores()));
  if (std::string why = checkDecision(config.memory); !why.empty())
    return planError(layer, pass.pass, "decides " + why);
  if (std::string why =
          checkDecisionInPlan({layer, pass.pass, config.memory, model});
      !why.empty())
    return planError(layer, pass.pass, why);
  if (!(pass.cycles.total >= 0))
    return planError(layer, pass.pass, "takes no number of cycles");
  return llvm::Error::success();
}

/// A pipeline's stages: one microbatch count, and the layers of a stage on
/// the same rows, each stage's rows its own.
llvm::Error verifyStages(const LayerGraph &graph, const MappingPlan &plan) {
  std::map<int64_t, int64_t> rowsFrom; // first row -> rows
  int64_t microbatches = 0;
  for (size_t i = 0; i < plan.layers.size(); ++i)
    for (const PassPlan &pass : plan.layers[i].passes) {
      const MemoryDecision &m = pass.eval.config.memory;
      if (m.microbatches <= 1)
        continue;
      if (microbatches != 0 && m.microbatches != microbatches)
        return planError(graph.layers[i], pass.pass,
                         llvm::formatv("runs {0} microbatches, another "
                                       "stage {1}",
                                       m.microbatches, microbatches));
      microbatches = m.microbatches;
      auto [it, inserted] = rowsFrom.insert({m.pipeFirstRow, m.pipeRows});
      if (!inserted && it->second != m.pipeRows)
        return planError(graph.layers[i], pass.pass,
                         llvm::formatv("runs on {0} rows from row {1}, "
                                       "another stage there on {2}",
                                       m.pipeRows, m.pipeFirstRow, it->second));
    }
  int64_t end = 0;
  for (auto [first, rows] : rowsFrom) {
    if (first < end)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("the plan's pipeline stages share torus row {0}", first)
              .str());
    end = first + rows;
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error dsm::core::verifyPlan(const PerformanceModel &model,
                                  const LayerGraph &graph,
                                  const MappingPlan &plan) {
  if (plan.layers.size() != graph.layers.size())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the plan maps {0} layers of a graph of {1}",
                      plan.layers.size(), graph.layers.size())
            .str());
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const LayerNode &layer = graph.layers[i];
    const std::vector<TrainingPass> expected = passesOf(layer);
    const std::vector<PassPlan> &passes = plan.layers[i].passes;
    if (passes.size() != expected.size())
      return planError(layer,
                       expected.empty() ? TrainingPass::FWD : expected.front(),
                       llvm::formatv("plans {0} passes of the layer's {1}",
                                     passes.size(), expected.size()));
    for (size_t p = 0; p < passes.size(); ++p) {
      if (passes[p].pass != expected[p])
        return planError(layer, passes[p].pass,
                         "is not the layer's pass in that place");
      if (llvm::Error error = verifyPass(model, layer, passes[p]))
        return error;
    }
  }
  if (llvm::Error error = verifyStages(graph, plan))
    return error;
  if (plan.memory.capacity > 0 &&
      plan.memory.capacity !=
          double(model.getSystem().chip.externalMemory.capacityBytes))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the plan's memory figure is counted against another chip's memory");
  return llvm::Error::success();
}
