//===- DsmAttrs.td - dsm enums and attributes --------------*- tablegen -*-===//

#ifndef DSM_DIALECT_DSMATTRS_TD
#define DSM_DIALECT_DSMATTRS_TD

include "dsm/Dialect/DsmDialect.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Tensor layouts
//===----------------------------------------------------------------------===//

def Dsm_DataLayout : I32EnumAttr<"DataLayout",
    "activation layout of spatial operations", [
  I32EnumAttrCase<"NCHW", 0, "nchw">,
  I32EnumAttrCase<"NHWC", 1, "nhwc">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_DataLayoutAttr : EnumAttr<Dsm_Dialect, Dsm_DataLayout, "layout"> {
  let summary = "activation layout (nchw or nhwc)";
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_KernelLayout : I32EnumAttr<"KernelLayout",
    "convolution kernel layout (O = output channels, I = input channels per group)", [
  I32EnumAttrCase<"OIHW", 0, "oihw">,
  I32EnumAttrCase<"HWIO", 1, "hwio">,
  I32EnumAttrCase<"OHWI", 2, "ohwi">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_KernelLayoutAttr : EnumAttr<Dsm_Dialect, Dsm_KernelLayout, "kernel_layout"> {
  let summary = "convolution kernel layout (oihw, hwio or ohwi)";
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_ReduceKind : I32EnumAttr<"ReduceKind", "reduction performed", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Mean", 1, "mean">,
  I32EnumAttrCase<"Max", 2, "max">,
  I32EnumAttrCase<"Min", 3, "min">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_ReduceKindAttr : EnumAttr<Dsm_Dialect, Dsm_ReduceKind, "reduce"> {
  let summary = "reduction kind (sum, mean, max, min)";
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Mapping vocabulary (written by the mapping passes)
//===----------------------------------------------------------------------===//

def Dsm_Parallelism : I32EnumAttr<"Parallelism",
    "how a layer is spread over the chips of the 2D torus (000 §II-D, §III-A)", [
  I32EnumAttrCase<"Data", 0, "data">,
  I32EnumAttrCase<"Model", 1, "model">,
  I32EnumAttrCase<"DataXModelY", 2, "data_x_model_y">,
  I32EnumAttrCase<"ModelXDataY", 3, "model_x_data_y">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_ParallelismAttr : EnumAttr<Dsm_Dialect, Dsm_Parallelism, "parallelism"> {
  let summary = "parallelism on the torus: data, model, data_x_model_y, model_x_data_y";
  let description = [{
    `data` splits the minibatch over all chips, `model` the features. The
    hybrids of 000 §III-A split the minibatch along one torus direction and the
    features along the other: `data_x_model_y` reduces gradients along X and
    rotates features along Y; `model_x_data_y` the converse.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_MemoryLevel : I32EnumAttr<"MemoryLevel",
    "where a tensor lives (001: DRAM, LLC or SRAM)", [
  I32EnumAttrCase<"DRAM", 0, "dram">,
  I32EnumAttrCase<"LLC", 1, "llc">,
  I32EnumAttrCase<"SRAM", 2, "sram">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_MemoryLevelAttr : EnumAttr<Dsm_Dialect, Dsm_MemoryLevel, "memory"> {
  let summary = "memory level: dram, llc or sram";
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_TrainingPass : I32EnumAttr<"TrainingPass",
    "the three passes of training a layer (000 §II)", [
  I32EnumAttrCase<"FWD", 0, "fwd">,
  I32EnumAttrCase<"BWD", 1, "bwd">,
  I32EnumAttrCase<"UPD", 2, "upd">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dsm";
}
def Dsm_TrainingPassAttr : EnumAttr<Dsm_Dialect, Dsm_TrainingPass, "pass"> {
  let summary = "training pass: fwd (activations), bwd (errors) or upd (weight gradients)";
  let assemblyFormat = "`<` $value `>`";
}

def Dsm_SplitAttr : Dsm_Attr<"Split", "split"> {
  let summary = "a work split over the dimensions {in, out, ij, kij, mb}";
  let description = [{
    How many parts each of the five workload dimensions of 000 Fig. 4 is cut
    into at one level of the hierarchy: across chips (ChipD), across the cores
    of a chip (CoreD) or across the PE array of a core (ArrayD). Every factor
    is at least 1.

    ```mlir
    #dsm.split<in = 1, out = 4, ij = 8, kij = 1, mb = 1>
    ```
  }];
  let parameters = (ins "int64_t":$in, "int64_t":$out, "int64_t":$ij,
                        "int64_t":$kij, "int64_t":$mb);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Product of the five factors.
    int64_t getProduct() const;
    /// The factor of dimension `dim` (0..4 in the order in, out, ij, kij, mb).
    int64_t getFactor(unsigned dim) const;
  }];
}

def Dsm_DeviceAttr : Dsm_Attr<"Device", "device"> {
  let summary = "a device of the target system, by id";
  let parameters = (ins "int64_t":$id);
  let assemblyFormat = "`<` $id `>`";
  let genVerifyDecl = 1;
}

def Dsm_SystemAttr : Dsm_Attr<"System", "system"> {
  let summary = "the target system the module is compiled for";
  let description = [{
    A complete system description (docs/systems.md) stored on the module as
    `dsm.system`, with every quantity in base units (bytes, bytes/s, Hz,
    FLOP/s), so that every pass -- and every lit test -- sees exactly the
    system that was attached. The verifier validates it with the same reader
    as system files.

    ```mlir
    module attributes {dsm.system = #dsm.system<"malvik", {kind = "device_graph", ...}>}
    ```
  }];
  let parameters = (ins StringRefParameter<"system name">:$name,
                        "::mlir::DictionaryAttr":$spec);
  let assemblyFormat = "`<` $name `,` $spec `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Stores `system`.
    static SystemAttr get(::mlir::MLIRContext *context,
                          const ::dsm::core::SystemDescription &system);
    /// Reads the description back (the verifier has checked it).
    ::dsm::core::SystemDescription getDescription() const;
    /// Name of the module attribute that holds the system.
    static constexpr ::llvm::StringLiteral kModuleAttrName = "dsm.system";
  }];
}

#endif // DSM_DIALECT_DSMATTRS_TD
