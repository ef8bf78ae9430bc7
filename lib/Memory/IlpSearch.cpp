//===- IlpSearch.cpp - The exact optimum as a mixed-integer program -------===//
//
// The cost model of MemoryCostModel.h is linear in one-hot level choices but
// for the max(compute, transfer) of each node, which an auxiliary variable
// L(i) >= compute(i), L(i) >= transfer(i) linearises exactly (the objective
// minimises sum L(i), so each L(i) settles on the larger term). Capacity is
// one row per level and per step where some activation dies (at any other
// step every live activation stays live at the next one, so that row is
// implied). Variables and rows (times in units of the compiler map's mean node
// latency, bytes of a level in units of its capacity, so the solver sees
// numbers near 1 whatever the system):
//
//   x(i,l), y(i,l) in {0,1}   weights / activation of node i at level l
//                             (fixed to 0 where the tensor is larger than
//                             one engine's SRAM, CapacityChecker.h)
//   sum_l x(i,l) = 1,  sum_l y(i,l) = 1
//   L(i) >= compute(i)                                          (bound)
//   L(i) - sum_l [W(i) x(i,l) + O(i) y(i,l)]/B(l)
//        - sum_{j in inputs(i)} sum_l O(j) y(j,l)/B(l) >= X(i)/B(DRAM)
//   T(l) = sum_i W(i) x(i,l)                      l in {LLC, SRAM}
//   T(l) + sum_{i live at t} O(i) y(i,l) <= C(l)  l in {LLC, SRAM}, each t
//   minimise sum_i L(i)
//
// DRAM needs no rows: no map keeps more in DRAM than the all-DRAM map, which
// CapacityChecker::create checked. GLPK's branch and cut starts from the
// compiler's map as incumbent.
//
//===----------------------------------------------------------------------===//

#include "MemorySearches.h"
#include "dsm/Core/Memory/MemoryPlacementSearch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#ifdef DSM_HAVE_GLPK
#include <glpk.h>
#endif

using namespace dsm::core;
using namespace dsm::core::memory;
using namespace dsm::core::memory::detail;

bool memory::isIlpSolverAvailable() {
#ifdef DSM_HAVE_GLPK
  return true;
#else
  return false;
#endif
}

#ifndef DSM_HAVE_GLPK
llvm::Expected<PlacementSearchResult>
detail::runIlp(const PlacementEvaluator &, const PlacementSearchOptions &) {
  return makeMissingLibraryError("ilp", "GLPK", "libglpk-dev",
                                 "DSM_ENABLE_GLPK");
}
#else

namespace {

/// Column numbering (GLPK counts from 1).
struct Columns {
  int nodes;
  int weights(int i, MemoryLevel l) const { return 1 + 7 * i + int(l); }
  int activations(int i, MemoryLevel l) const { return 4 + 7 * i + int(l); }
  int latency(int i) const { return 7 + 7 * i; }
  /// T(LLC) and T(SRAM).
  int weightTotal(MemoryLevel l) const {
    return 7 * nodes + (l == MemoryLevel::SRAM ? 2 : 1);
  }
  int count() const { return 7 * nodes + 2; }
};

/// The sparse matrix, rows added one at a time with duplicates merged.
struct Matrix {
  std::vector<int> rows{0}, cols{0};
  std::vector<double> values{0};
  void addRow(int row, std::vector<std::pair<int, double>> entries) {
    llvm::sort(entries);
    for (size_t k = 0; k < entries.size(); ++k) {
      if (k > 0 && entries[k].first == entries[k - 1].first) {
        values.back() += entries[k].second;
        continue;
      }
      rows.push_back(row);
      cols.push_back(entries[k].first);
      values.push_back(entries[k].second);
    }
  }
};

struct CallbackState {
  std::vector<double> incumbent; ///< 1-based, the compiler's map
  bool offered = false;
  double bound = -HUGE_VAL;
  Progress *progress = nullptr;
  std::chrono::steady_clock::time_point start;
  int64_t timeLimitSeconds = 0;
  bool interrupted = false;
};

void ilpCallback(glp_tree *tree, void *info) {
  auto *state = static_cast<CallbackState *>(info);
  if (glp_ios_reason(tree) == GLP_IHEUR && !state->offered) {
    state->offered = true;
    glp_ios_heur_sol(tree, state->incumbent.data());
  }
  if (int node = glp_ios_best_node(tree))
    state->bound = std::max(state->bound, glp_ios_node_bound(tree, node));
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - state->start;
  state->progress->step(
      std::min(int64_t(elapsed.count()), state->timeLimitSeconds),
      state->timeLimitSeconds, Progress::kNoBest);
  // Stopped like the time limit: the incumbent (at worst the compiler's map,
  // offered above) is the result.
  if (!state->interrupted && state->progress->shouldStop()) {
    state->interrupted = true;
    glp_ios_terminate(tree);
  }
}
} // namespace

llvm::Expected<PlacementSearchResult>
detail::runIlp(const PlacementEvaluator &evaluator,
               const PlacementSearchOptions &options) {
  const MemoryGraph &graph = evaluator.getGraph();
  const MemoryCostModel &model = evaluator.getCostModel();
  const CapacityChecker &checker = evaluator.getChecker();
  int n = int(graph.size());
  SearchTracker tracker(evaluator);
  if (n == 0) {
    tracker.record({}, evaluator.evaluate({}));
    PlacementSearchResult result = tracker.finish();
    result.optimal = true;
    return result;
  }
  Columns columns{n};
  constexpr MemoryLevel kOnChip[] = {MemoryLevel::LLC, MemoryLevel::SRAM};

  glp_prob *problem = glp_create_prob();
  llvm::scope_exit cleanup([&] { glp_delete_prob(problem); });
  glp_set_obj_dir(problem, GLP_MIN);
  glp_add_cols(problem, columns.count());
  // Seconds -> solver time units; bytes -> fractions of a level's capacity.
  double timeScale =
      double(n) / std::max(evaluator.getCompilerLatency(), 1e-300);
  auto perSecond = [&](MemoryLevel l) {
    return timeScale / model.getBandwidth(l);
  };
  auto perByte = [&](MemoryLevel l) {
    return 1.0 / double(checker.getCapacity(l));
  };
  MemoryMap empty = makeUniformMap(graph.size(), MemoryLevel::DRAM);
  for (int i = 0; i < n; ++i) {
    const MemoryNode &node = graph.getNode(i);
    for (MemoryLevel l : kMemoryLevels) {
      glp_set_col_kind(problem, columns.weights(i, l), GLP_BV);
      glp_set_col_kind(problem, columns.activations(i, l), GLP_BV);
      // A tensor larger than one engine's SRAM cannot live there.
      if (node.weightBytes > checker.getTensorLimit(l))
        glp_set_col_bnds(problem, columns.weights(i, l), GLP_FX, 0, 0);
      if (node.outputBytes > checker.getTensorLimit(l))
        glp_set_col_bnds(problem, columns.activations(i, l), GLP_FX, 0, 0);
    }
    glp_set_col_bnds(problem, columns.latency(i), GLP_LO,
                     model.getNodeCost(empty, i).compute * timeScale, 0);
    glp_set_obj_coef(problem, columns.latency(i), 1.0);
  }
  for (MemoryLevel l : kOnChip)
    glp_set_col_bnds(problem, columns.weightTotal(l), GLP_LO, 0, 0);

  Matrix matrix;
  auto newRow = [&](int type, double lower, double upper) {
    int row = glp_add_rows(problem, 1);
    glp_set_row_bnds(problem, row, type, lower, upper);
    return row;
  };
  for (int i = 0; i < n; ++i) {
    const MemoryNode &node = graph.getNode(i);
    std::vector<std::pair<int, double>> weights, activations, latency;
    latency.push_back({columns.latency(i), 1.0});
    for (MemoryLevel l : kMemoryLevels) {
      weights.push_back({columns.weights(i, l), 1.0});
      activations.push_back({columns.activations(i, l), 1.0});
      latency.push_back(
          {columns.weights(i, l), -double(node.weightBytes) * perSecond(l)});
      latency.push_back({columns.activations(i, l),
                         -double(node.outputBytes) * perSecond(l)});
      for (int32_t input : graph.getInputsOf(i))
        latency.push_back(
            {columns.activations(input, l),
             -double(graph.getNode(input).outputBytes) * perSecond(l)});
    }
    matrix.addRow(newRow(GLP_FX, 1, 1), weights);
    matrix.addRow(newRow(GLP_FX, 1, 1), activations);
    double external =
        double(node.externalInputBytes) * perSecond(MemoryLevel::DRAM);
    matrix.addRow(newRow(GLP_LO, external, 0), latency);
  }
  for (MemoryLevel l : kOnChip) {
    std::vector<std::pair<int, double>> total{{columns.weightTotal(l), 1.0}};
    for (int i = 0; i < n; ++i)
      total.push_back({columns.weights(i, l),
                       -double(graph.getNode(i).weightBytes) * perByte(l)});
    matrix.addRow(newRow(GLP_FX, 0, 0), total);
  }
  // Capacity at the steps where an activation dies (the others are implied).
  std::vector<bool> dies(n, false);
  for (int i = 0; i < n; ++i)
    dies[graph.getActivationRange(i).last] = true;
  std::vector<std::vector<int>> liveAt(n);
  for (int i = 0; i < n; ++i) {
    LiveRange range = graph.getActivationRange(i);
    for (int t = range.first; t <= range.last; ++t)
      if (dies[t])
        liveAt[t].push_back(i);
  }
  for (int t = 0; t < n; ++t) {
    if (!dies[t])
      continue;
    for (MemoryLevel l : kOnChip) {
      std::vector<std::pair<int, double>> row{{columns.weightTotal(l), 1.0}};
      for (int i : liveAt[t])
        row.push_back({columns.activations(i, l),
                       double(graph.getNode(i).outputBytes) * perByte(l)});
      matrix.addRow(newRow(GLP_UP, 0, 1.0), row);
    }
  }
  glp_load_matrix(problem, int(matrix.rows.size()) - 1, matrix.rows.data(),
                  matrix.cols.data(), matrix.values.data());

  // The compiler's map as the first incumbent.
  CallbackState state;
  state.incumbent.assign(columns.count() + 1, 0.0);
  const MemoryMap &compiler = evaluator.getCompilerMap();
  for (int i = 0; i < n; ++i) {
    state.incumbent[columns.weights(i, compiler[i].weights)] = 1;
    state.incumbent[columns.activations(i, compiler[i].activations)] = 1;
    state.incumbent[columns.latency(i)] =
        model.getNodeLatency(compiler, i) * timeScale;
    for (MemoryLevel l : kOnChip)
      if (compiler[i].weights == l)
        state.incumbent[columns.weightTotal(l)] +=
            double(graph.getNode(i).weightBytes) * perByte(l);
  }

  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  glp_term_out(GLP_OFF); // the scaler prints even with msg_lev off
  glp_scale_prob(problem, GLP_SF_AUTO);
  if (glp_simplex(problem, &simplex) != 0 || glp_get_status(problem) != GLP_OPT)
    return llvm::createStringError(
        "the ILP's linear relaxation could not be solved");
  glp_iocp integer;
  glp_init_iocp(&integer);
  integer.msg_lev = GLP_MSG_OFF;
  integer.cb_func = ilpCallback;
  state.progress = options.progress;
  integer.cb_info = &state;
  integer.mir_cuts = GLP_ON;
  integer.cov_cuts = GLP_ON;
  integer.gmi_cuts = GLP_ON;
  integer.clq_cuts = GLP_ON;
  integer.tm_lim =
      int(std::clamp(options.ilpTimeLimitSeconds, 0.001, 1e6) * 1000.0);
  state.start = std::chrono::steady_clock::now();
  state.timeLimitSeconds = int64_t(std::ceil(integer.tm_lim / 1000.0));
  // Asked to stop already (a budget spent building the problem): the
  // solver is not started, whatever it would find before its first check.
  if (options.progress && options.progress->shouldStop())
    return llvm::createStringError(
        "interrupted before the ILP solver found a solution");
  glp_intopt(problem, &integer);
  int status = glp_mip_status(problem);
  if (status != GLP_OPT && status != GLP_FEAS)
    return llvm::createStringError(
        state.interrupted
            ? "interrupted before the ILP solver found a solution"
            : "the ILP solver found no solution within its time limit");

  MemoryMap map(graph.size());
  auto chosen = [&](auto column) {
    MemoryLevel best = MemoryLevel::DRAM;
    for (MemoryLevel l : kMemoryLevels)
      if (glp_mip_col_val(problem, column(l)) >
          glp_mip_col_val(problem, column(best)))
        best = l;
    return best;
  };
  for (int i = 0; i < n; ++i) {
    map[i].weights =
        chosen([&](MemoryLevel l) { return columns.weights(i, l); });
    map[i].activations =
        chosen([&](MemoryLevel l) { return columns.activations(i, l); });
  }
  tracker.record(map, evaluator.evaluate(map));
  PlacementSearchResult result = tracker.finish();
  result.optimal = status == GLP_OPT;
  result.interrupted = state.interrupted && !result.optimal;
  result.latencyLowerBound =
      (result.optimal ? glp_mip_obj_val(problem) : state.bound) / timeScale;
  return result;
}
#endif
