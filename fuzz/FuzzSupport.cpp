//===- FuzzSupport.cpp - What the MLIR-level fuzzers share ----------------===//

#include "FuzzSupport.h"

#include "dsm/Dialect/DsmDialect.h"
#include "dsm/Import/OnnxImporter.h"
#include "dsm/Import/Passes.h"
#include "dsm/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"

mlir::MLIRContext &dsm::fuzz::getContext() {
  static mlir::MLIRContext *context = [] {
    dsm::registerDsmPasses();
    dsm::registerDsmImportPasses();
    mlir::DialectRegistry registry;
    registry.insert<dsm::DsmDialect, mlir::arith::ArithDialect,
                    mlir::bufferization::BufferizationDialect,
                    mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                    mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                    mlir::ml_program::MLProgramDialect, mlir::scf::SCFDialect,
                    mlir::tensor::TensorDialect, mlir::tosa::TosaDialect>();
    dsm::registerOnnxImportDialects(registry);
    auto *created =
        new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    created->loadAllAvailableDialects();
    return created;
  }();
  return *context;
}
