//===- Passes.td - Export passes ---------------------------*- tablegen -*-===//
//
// The back ends: the way from a mapped dsm graph back to the program a
// downstream compiler owns, in upstream MLIR dialects.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_EXPORT_PASSES_TD
#define DSM_EXPORT_PASSES_TD

include "mlir/Pass/PassBase.td"

def DsmStepwiseReshard : Pass<"dsm-stepwise-reshard"> {
  let summary = "Split every multi-axis resharding into steps upstream's "
                "`shard-partition` can lower";
  let description = [{
    Upstream's `--shard-partition` (LLVM 22) lowers a resharding (a
    `shard.shard ... annotate_for_users` of a `shard.shard` result) only when
    it changes one grid axis at the end of one tensor dimension: it splits
    it (`all_slice`), unsplits it (`all_gather`) or moves it
    (`all_to_all`). On a 2-D torus a layer's parallelism splits over both
    grid axes, so a weight that starts whole must be split by two, and a
    relayout from data to model parallelism moves two. Run after
    `--sharding-propagation` and before `--shard-partition`, this pass puts
    between such a pair the intermediate shardings of a path of single-axis
    steps: trailing axes removed one at a time down to what the two
    shardings share, then the target's added one at a time. Each step is
    exact, so the partitioned program computes the same per-chip shares;
    the collectives are an `all_gather` per removed axis and an `all_slice`
    per added one. Shardings with halos or explicit offsets are left alone.
    An operation naming a `shard.grid` with a dimension of size 0 is an
    error here: upstream's partitioner divides by it and crashes.
    docs/shard-export.md.
  }];
  let dependentDialects = ["mlir::shard::ShardDialect"];
}

def DsmExportShard : Pass<"dsm-export-shard", "mlir::ModuleOp"> {
  let summary = "Write the spatial mapping onto the imported linalg program "
                "as upstream `shard` annotations";
  let description = [{
    Runs after `--dsm-map-system` on a model imported with
    `--dsm-import-linalg`. It reads the original program again (`source=`),
    finds the operation each layer was imported from (a layer keeps that
    operation's location), and writes the program with the mapping in
    upstream MLIR's `shard` dialect to `output=`: a `shard.grid` for the
    chip torus (X x Y) and, around every layer's anchor (its convolution or
    contraction), `shard.sharding`/`shard.shard` annotations that split its
    minibatch and output features over the grid axes as the layer's
    parallelism does (forward pass):

    | parallelism | minibatch | output features |
    |---|---|---|
    | data | axes 0, 1 | -- |
    | model | -- | axes 0, 1 |
    | DataXModelY | axis 0 | axis 1 |
    | ModelXDataY | axis 1 | axis 0 |

    Upstream's `--sharding-propagation` and `--shard-partition` then turn the
    program into SPMD form, with a per-chip share equal to the layer's ChipD
    and resharding collectives where consecutive layers' parallelisms differ.
    Registering `dsm::registerShardingModels` (dsm-opt and the plugin do)
    lets them partition convolutions, pooling, `tensor.pad` and reshapes,
    which upstream's models refuse. The dsm module passes through unchanged;
    the output is written only if every layer found its anchor.
    docs/shard-export.md says what `shard` cannot express (the rotation
    schedule, pipe stages, DySM, memory decisions).
  }];
  let options = [
    Option<"source", "source", "std::string", /*default=*/"",
           "The linalg program the model was imported from">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the annotated program ('-' for stdout)">,
    Option<"grid", "grid", "std::string", /*default=*/"\"chips\"",
           "Name of the shard.grid symbol for the chip torus">,
  ];
}

#endif // DSM_EXPORT_PASSES_TD
