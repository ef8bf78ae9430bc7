//===- LayerShape.h - A layer as the performance model sees it --*- C++ -*-===//
//
// The performance model of DeepSpatialMatrix §II-D works on one layer (a
// primary computation with its fused auxiliary computations) and one training
// pass at a time. A LayerShape holds what it needs: the five dimensions N{in,
// out, ij, kij, mb}, which of them index each of the three data structures
// (Input, Kernel, Output of DeepSpatialMatrix Fig. 2), the auxiliary work, and
// how the layer reads its inputs across timesteps.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_LAYERSHAPE_H
#define DSM_CORE_SPATIAL_LAYERSHAPE_H

#include "dsm/Core/Workload/Workload.h"

#include "llvm/ADT/SmallString.h"

#include <array>
#include <cstdint>
#include <string>

namespace dsm::core {

/// The three passes of training a layer (DeepSpatialMatrix §II).
enum class TrainingPass { FWD = 0, BWD, UPD };
constexpr int kNumPasses = 3;
llvm::StringRef stringifyTrainingPass(TrainingPass pass);

/// A set of dimensions, as a bit mask over Dim.
class DimSet {
public:
  constexpr DimSet() = default;
  constexpr DimSet(std::initializer_list<Dim> dims) {
    for (Dim d : dims)
      bits |= 1u << unsigned(d);
  }
  constexpr bool contains(Dim d) const { return bits & (1u << unsigned(d)); }
  constexpr DimSet operator|(DimSet o) const { return fromBits(bits | o.bits); }
  constexpr DimSet operator-(DimSet o) const {
    return fromBits(bits & ~o.bits);
  }
  constexpr bool empty() const { return bits == 0; }
  constexpr bool operator==(DimSet o) const { return bits == o.bits; }
  static constexpr DimSet all() { return fromBits((1u << kNumDims) - 1); }

private:
  static constexpr DimSet fromBits(unsigned b) {
    DimSet s;
    s.bits = b;
    return s;
  }
  unsigned bits = 0;
};

/// The role of a tensor in the layer's primary computation.
enum class Operand { Input = 0, Kernel, Output };

/// What a layer keeps for its backward pass, in elements of the whole layer
/// (all samples, all timesteps), by the layout each is kept in: tensors laid
/// out as the primary computation's Input, its Kernel (the second activation
/// of a product of two activations), or its Output (the fused auxiliary
/// computations' tensors). LayerFormation counts them by operation kind
/// (docs/performance-model.md, "Activation memory"); the attention part is
/// what selective recomputation drops (the softmax's output, its dropout's
/// output and mask).
struct SavedActivations {
  double inputs = 0, kernels = 0, outputs = 0;
  /// Dropout masks, one byte an element, laid out as the Output.
  double masks = 0;
  /// The attention core's tensors and masks, laid out as the Output.
  double attention = 0, attentionMasks = 0;
  bool empty() const {
    return inputs == 0 && kernels == 0 && outputs == 0 && masks == 0 &&
           attention == 0 && attentionMasks == 0;
  }
};

/// What a layer's fused auxiliary computations move through external memory
/// in FWD where each runs as a kernel of its own (a GPU's framework; chip
/// `elementwise: kernels`, PerformanceModel.h), over the whole layer: a
/// kernel reads its activation operands and writes its result, except that
/// an element-wise computation hands its result to its only reader in the
/// layer in registers (as fused bias-GeLU, scale-mask-softmax and
/// bias-dropout-add kernels do), and a normalization or softmax ends a
/// kernel. Dropout in training adds the attention's dropout kernel (its
/// tensor read and written) and a one-byte mask per dropped element.
/// docs/performance-model.md, "Element-wise kernels".
struct AuxiliaryKernelTraffic {
  double readElements = 0, writtenElements = 0;
  double dropoutElements = 0, maskBytes = 0;
  /// External-memory bytes of `pass` at `elementBytes` an element: in BWD
  /// each kernel's derivative reads what it read and the error of its
  /// result, and writes the errors of its inputs; UPD runs none.
  double bytes(TrainingPass pass, double elementBytes) const;
};

/// One layer for the performance model.
struct LayerShape {
  std::string name;
  OpKind kind = OpKind::Opaque;
  /// N{in, out, ij, kij, mb}; for a grouped convolution `in` counts the input
  /// channels of one group (the reduction), so that MACs = product of dims.
  DimSizes dims = {1, 1, 1, 1, 1};
  /// Input pixels per output pixel (stride² for a strided convolution, about
  /// 1/stride² ... for pooling folded in). Scales the Input's `ij`.
  double inputPixelRatio = 1.0;
  /// Convolution groups (depthwise: groups == out channels).
  int64_t groups = 1;
  /// LSTM: FWD and BWD run the timesteps one after another (each depends on
  /// the previous); UPD sums over all of them at once.
  int64_t timesteps = 1;
  /// Bidirectional LSTMs: two independent directions.
  int64_t directions = 1;
  /// Does the Kernel hold learnable weights? (false for activation x
  /// activation products, whose "kernel" is a second activation that carries
  /// the minibatch dimension too.)
  bool hasWeights = true;
  /// Is there a primary computation at all? Auxiliary-only layers (an
  /// embedding, a stand-alone pooling) cost memory traffic and SFU time.
  bool hasPrimary = true;
  /// Special-function operations of the fused auxiliary computations, for the
  /// whole layer at its minibatch (all timesteps).
  double auxOps = 0;
  /// Fused auxiliary computations that reduce over the output features or the
  /// minibatch and need core-to-core partial sums when those are split:
  /// batch-norm statistics (over ij, mb) and softmax sums (over out).
  bool reducesStatistics = false; ///< batch norm
  bool reducesFeatures = false;   ///< softmax
  /// Activation elements read by auxiliary computations per output element:
  /// the shortcut of a fused residual addition, or all the inputs of an
  /// auxiliary-only layer.
  double auxInputsPerOutput = 0;
  /// Learnable parameters of the whole layer (primary weights and fused
  /// normalization scales and offsets, or an embedding table): the gradients
  /// UPD produces and data parallelism reduces across chips.
  double params = 0;
  /// Output elements actually written per computed output element (an LSTM
  /// computes 4H gate pre-activations but writes H); also the fraction of the
  /// output error BWD and UPD read back.
  double writtenOutputFraction = 1.0;
  /// Output pixels stored per computed output pixel: a fused pooling keeps
  /// the pooled tensor (1/window of the pixels) and pools in the scratchpad.
  double outputPixelRatio = 1.0;
  /// What the layer keeps for its backward pass (training).
  SavedActivations saved;
  /// The fused auxiliary computations' traffic as kernels of their own.
  AuxiliaryKernelTraffic auxKernels;

  int64_t get(Dim d) const { return dims[int(d)]; }
  /// MACs of one pass over all timesteps and directions.
  double macs() const;
  /// The dimensions that index `operand`.
  DimSet dimsOf(Operand operand) const;
};

/// For each pass, which data structure plays which role: the two operands
/// streamed in and the result produced (DeepSpatialMatrix Fig. 5): FWD computes
/// Output from Input and Kernel; BWD computes the Input's error from the
/// Output's error and the Kernel; UPD computes the Kernel's gradient from the
/// Input and the Output's error.
struct PassRoles {
  Operand first, second, result;
};
PassRoles getPassRoles(TrainingPass pass);

/// Elements of one of `layer`'s data structures at the sizes `sizes` (the
/// whole layer's, a chip's or a core's share).
double operandElements(const LayerShape &layer, Operand operand,
                       const DimSizes &sizes);

/// Dimensions reduced in `pass` (those not indexing its result).
DimSet reductionDims(const LayerShape &layer, TrainingPass pass);

/// MACs `pass` performs: the layer's MACs, twice in BWD for a product of two
/// activations (both operands get an error), none without a primary
/// computation.
double passMacs(const LayerShape &layer, TrainingPass pass);

/// Identifies a shape for memoizing explorations: two layers whose keys are
/// equal (their names aside) have the same best configurations. Held
/// inline: every mapping asks it of every layer.
using LayerShapeKey = llvm::SmallString<128>;
LayerShapeKey layerShapeKey(const LayerShape &shape);

/// Builds the performance model's view of one operation's workload.
LayerShape makeLayerShape(const Workload &primary, llvm::StringRef name);

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_LAYERSHAPE_H
