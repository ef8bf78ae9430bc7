//===- DsmInterfaces.td - dsm op interfaces ----------------*- tablegen -*-===//

#ifndef DSM_DIALECT_DSMINTERFACES_TD
#define DSM_DIALECT_DSMINTERFACES_TD

include "mlir/IR/OpBase.td"

def Dsm_WorkloadOpInterface : OpInterface<"WorkloadOpInterface"> {
  let cppNamespace = "::dsm";
  let description = [{
    The work an operation asks of the hardware in the terms of DeepSpatialMatrix (Venkataramani et al.) §II-A:
    N{in, out, ij, kij, mb}, stride, timesteps, MACs, auxiliary operations,
    learnable parameters and bytes moved. Cost models consume the returned
    plain `dsm::core::Workload`.
  }];
  let methods = [
    InterfaceMethod<
      "Returns the workload of this operation at its current shapes.",
      "::dsm::core::Workload", "getWorkload">,
    InterfaceMethod<
      "Returns the workload, where which of the function's values depend on "
      "its inputs is known (`inputs`, found once for the function's body): "
      "an op whose workload asks it (the add, residual or bias) answers "
      "without searching the graph. What a pass over a whole function calls.",
      "::dsm::core::Workload", "getWorkloadGiven",
      (ins "const ::dsm::InputDependence &":$inputs), [{}],
      /*defaultImplementation=*/[{ return $_op.getWorkload(); }]>,
    InterfaceMethod<
      "Returns the operands that are learnable parameters (weights, biases, "
      "normalization scales and offsets, embedding tables).",
      "::llvm::SmallVector<::mlir::Value>", "getParameterOperands", (ins), [{}],
      /*defaultImplementation=*/[{ return {}; }]>,
    InterfaceMethod<
      "Returns the dimension of result 0 that indexes the minibatch.",
      "int64_t", "getBatchDim", (ins), [{}],
      /*defaultImplementation=*/[{ return 0; }]>,
    InterfaceMethod<
      "Returns whether the workload's element or operation counts overflow "
      "64 bits: what the verifier checks, after every pass. An op whose "
      "getWorkload() does more than count (a graph search to classify it) "
      "answers without that work.",
      "bool", "workloadOverflows", (ins), [{}],
      /*defaultImplementation=*/[{ return $_op.getWorkload().overflow; }]>,
  ];
  // Runs after result-type inference has been verified (also a region-level
  // check), so the workload is computed from consistent shapes.
  let verifyWithRegions = 1;
  let verify = [{
    return ::dsm::detail::verifyWorkload($_op);
  }];
}

#endif // DSM_DIALECT_DSMINTERFACES_TD
