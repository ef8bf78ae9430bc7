//===- BatchPlacement.h - The reshape dimension with the batch --*- C++ -*-===//
//
// A front end writes each dsm.reshape for the shapes at hand, and must say
// which output dimension follows the batch when the model is re-batched (0
// copies a dimension, -1 takes what is left). In a file exported at one
// batch, most notably batch 1, that is ambiguous: nn.MultiheadAttention
// views [T, B, D] as [T, B*H, d] and later [T, B*H, d] as [T*B, D], and at
// B = 1 both are [17, 1, 32] -> [17, 4, 8] and [17, 4, 8] -> [17, 32] with
// the batch on either side of a group boundary. Only what follows decides:
// the wrong side multiplies a sequence (attention's work grows with its
// square) or meets a weight that fixes the features.
//
// placeBatchInReshapes() decides by re-batching: it re-infers the function
// at twice its batch, as --dsm-set-batch does, and requires every op's work
// (MACs and auxiliary operations) to stay or to double. Where an op breaks
// that, the reshapes it reads from (nearest first, each with the reshapes of
// the same shapes and encoding, which the same code wrote) are tried with the
// batch in each of their output dimensions, keeping the choice that lets the
// probe go furthest; an encoding is kept only if the whole function then
// re-batches exactly, otherwise every reshape is left as the front end wrote
// it. Re-batching never changes the shapes at the imported batch.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_IMPORT_BATCHPLACEMENT_H
#define DSM_IMPORT_BATCHPLACEMENT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace dsm {

/// The import summary's name for a reshape whose batch dimension was
/// placed by re-batching.
inline constexpr const char *kBatchPlacedPattern = "reshape re-batched";

/// Re-encodes the reshapes of `func` so that re-batching it scales every
/// op's work exactly (see above). Returns how many reshapes changed.
unsigned placeBatchInReshapes(mlir::func::FuncOp func);

} // namespace dsm

#endif // DSM_IMPORT_BATCHPLACEMENT_H
