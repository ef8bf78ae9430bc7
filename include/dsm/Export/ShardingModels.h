//===- ShardingModels.h - Sharding models upstream lacks --------*- C++ -*-===//
//
// Upstream's shard partitioner (LLVM 22) refuses to partition a linalg
// convolution or pooling (its linalg model accepts projected-permutation
// indexing maps only) and has no sharding model for tensor.pad,
// tensor.collapse_shape or tensor.expand_shape, which every CNN a front end
// emits contains. These models partition them along what a spatial mapping
// splits: the minibatch and the channels, never a window (that would need
// halos) or a reduction.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_EXPORT_SHARDINGMODELS_H
#define DSM_EXPORT_SHARDINGMODELS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace dsm {

/// Registers the shard dialect, these models, and then upstream's sharding
/// models of linalg, tensor, arith, func and tosa. Interface registration is
/// first come, first served: called before upstream's (as dsm-opt does), the
/// convolution and pooling models take precedence over linalg's; called after
/// (a plugin of mlir-opt), only the tensor models add anything.
void registerShardingModels(mlir::DialectRegistry &registry);

} // namespace dsm

#endif // DSM_EXPORT_SHARDINGMODELS_H
