//===- CompileTimeBench.cpp - How long --dsm-map-system takes -------------===//
//
// Google Benchmark of the whole mapping pipeline (parse, attach, re-batch,
// expand, explore, select, lower) on the benchmark networks of
// DeepSpatialMatrix, training at minibatch 512 on the 64-chip 8-PFLOP system.
// The paper's tool took minutes; the target here is under a second per network
// on 2 cores.
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"

#include <benchmark/benchmark.h>

using namespace dsm::bench;

static void mapSystem(benchmark::State &state, const char *model,
                      const char *search) {
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
  std::string path = modelPath(model);
  std::string pipeline = std::string("dsm-map-system{system=dsm-8pf-asym "
                                     "mode=train batch=512 search=") +
                         search + "}";
  for (auto _ : state) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        runPipeline(*context, path, pipeline);
    benchmark::DoNotOptimize(module.get());
  }
}

BENCHMARK_CAPTURE(mapSystem, vgg16, "vgg16", "heuristic")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(mapSystem, resnet50, "resnet50", "heuristic")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(mapSystem, gnmt, "gnmt", "heuristic")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(mapSystem, vgg16_exhaustive, "vgg16", "exhaustive")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_MAIN();
