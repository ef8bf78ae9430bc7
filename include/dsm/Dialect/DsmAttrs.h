//===- DsmAttrs.h - dsm enums and attributes --------------------*- C++ -*-===//

#ifndef DSM_DIALECT_DSMATTRS_H
#define DSM_DIALECT_DSMATTRS_H

#include "dsm/Core/Spatial/DecisionRecords.h"
#include "dsm/Core/Spatial/Mapping.h"
#include "dsm/Core/Spatial/StepMemory.h"
#include "dsm/Core/System/SystemDescription.h"
#include "dsm/Core/Workload/Workload.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include "dsm/Dialect/DsmEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dsm/Dialect/DsmAttrs.h.inc"

namespace dsm {

/// Converts a system description tree to and from the dictionary stored in a
/// `#dsm.system` attribute (scalars become integer, float or string attrs).
mlir::DictionaryAttr specToDictionary(mlir::MLIRContext *context,
                                      const core::SpecNode &node);
core::SpecNode dictionaryToSpec(mlir::DictionaryAttr dictionary);

/// The system attached to `module`, or an error at the module if there is
/// none (run --dsm-attach-system first).
mlir::FailureOr<core::SystemDescription> getModuleSystem(mlir::ModuleOp module);

/// The module's system when it is a multi-chip one; otherwise an error at the
/// module saying that `purpose` ("spatial mapping") needs one.
mlir::FailureOr<core::MultiChipSystem>
getModuleMultiChipSystem(mlir::ModuleOp module, llvm::StringRef purpose);

/// The typed dictionaries of a mapping record (DsmAttrs.td): transfer
/// groups by name, and a layer's cycles by parallelism name.
bool isTransferDictionary(mlir::Attribute attr);
bool isAlternativesDictionary(mlir::Attribute attr);

/// Split attribute <-> core dimension sizes.
SplitAttr getSplitAttr(mlir::MLIRContext *context, const core::DimSizes &split);
core::DimSizes getDimSizes(SplitAttr split);

/// Dialect enums <-> core enums (the core library cannot see the dialect's).
core::Parallelism toCore(Parallelism p);
Parallelism fromCore(core::Parallelism p);
core::TrainingPass toCore(TrainingPass pass);
TrainingPass fromCore(core::TrainingPass pass);
core::Dim toCore(Dim dim);
Dim fromCore(core::Dim dim);

} // namespace dsm

#endif // DSM_DIALECT_DSMATTRS_H
