//===- DsmTraits.h - dsm operation traits -----------------------*- C++ -*-===//

#ifndef DSM_DIALECT_DSMTRAITS_H
#define DSM_DIALECT_DSMTRAITS_H

#include "mlir/IR/OpDefinition.h"

#include "llvm/ADT/SmallVector.h"

namespace dsm {

/// Verifies an op by running its shape inference (InferTypeOpAdaptor's
/// inferReturnTypes) with errors at the op, so a bad shape or attribute gets
/// one precise error; the InferTypeOpInterface check that follows (a region
/// verifier) compares the written result type. Last among an op's traits, it
/// runs where a `verify()` would, and an op's own verifier runs after it.
template <typename ConcreteType>
class VerifiesShapes
    : public mlir::OpTrait::TraitBase<ConcreteType, VerifiesShapes> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    llvm::SmallVector<mlir::Type> types;
    return ConcreteType::inferReturnTypes(
        op->getContext(), op->getLoc(),
        typename ConcreteType::Adaptor(llvm::cast<ConcreteType>(op)), types);
  }
};

} // namespace dsm

#endif // DSM_DIALECT_DSMTRAITS_H
