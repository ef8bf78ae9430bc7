//===- Passes.td - dsm passes ------------------------------*- tablegen -*-===//

#ifndef DSM_PASSES_PASSES_TD
#define DSM_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def DsmAttachSystem : Pass<"dsm-attach-system", "mlir::ModuleOp"> {
  let summary = "Attach a target system description to the module";
  let description = [{
    Loads a system -- a preset name from `systems/` (compiled in) or a path to
    a YAML/JSON description (docs/systems.md) -- validates it and stores it on
    the module as `dsm.system = #dsm.system<...>`. Every later pass reads the
    system from the IR, so a lit test that starts from attached IR is
    reproducible without the file.

    A bad file is reported at its own location (file, line, column) naming the
    field, and the pass fails.
  }];
  let options = [
    Option<"system", "system", "std::string", /*default=*/"",
           "Preset name (dsm-8pf-asym, dsm-8pf-sym, dsm-128tf, nnp-i, malvik, "
           "luke01) or path to a system file">,
  ];
  let dependentDialects = ["dsm::DsmDialect"];
}

def DsmSetBatch : Pass<"dsm-set-batch", "mlir::ModuleOp"> {
  let summary = "Change the minibatch size of a model";
  let description = [{
    Sets the batch dimension of every tensor argument of every function to
    `batch` and re-infers all result types in order, so experiments can sweep
    the minibatch without editing model files. The batch dimension of an
    argument is 0 unless the argument carries `dsm.batch_dim = <d>` (e.g. 1 for
    a time-major LSTM input); `dsm.batch_dim = -1` marks an argument that has
    no batch dimension. Operations that cannot infer their result types stop
    the pass with an error naming them.
  }];
  let options = [
    Option<"batch", "batch", "int64_t", /*default=*/"0",
           "New minibatch size (> 0)">,
  ];
  let statistics = [
    Statistic<"numRetyped", "retyped-values", "Values whose type changed">,
  ];
}

def DsmWorkloadReport : Pass<"dsm-workload-report", "mlir::ModuleOp"> {
  let summary = "Report per-layer and total MACs, parameters and activation bytes";
  let description = [{
    Prints the workload of every dsm operation -- N{in, out, ij, kij, mb},
    MACs, auxiliary operations, parameters, bytes -- and totals, as a table or
    as JSON (schema in docs/workload-report.md). Parameters shared by several
    operations are counted once. The report goes to stdout (`output=-`,
    default) or to a file, which is written only if the pass succeeds.
  }];
  let options = [
    Option<"format", "format", "::dsm::ReportFormat",
           /*default=*/"::dsm::ReportFormat::Table", "Report format",
           [{::llvm::cl::values(
               clEnumValN(::dsm::ReportFormat::Table, "table", "readable table"),
               clEnumValN(::dsm::ReportFormat::JSON, "json",
                          "JSON for scripts (docs/workload-report.md)"))}]>,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the report ('-' for stdout)">,
  ];
}

#endif // DSM_PASSES_PASSES_TD
