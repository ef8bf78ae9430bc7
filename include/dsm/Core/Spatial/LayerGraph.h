//===- LayerGraph.h - The layers a spatial mapping plans --------*- C++ -*-===//
//
// The network as the spatial mapper sees it: layers in a topological order,
// the passes each runs in a training step (FWD, BWD, UPD), and the
// activations flowing between them. Each activation has a live range over
// the step's schedule -- FWD of every layer in order, then BWD and UPD in
// reverse -- from its producer's FWD to its last reader, which in training
// is the earliest consumer whose backward passes read it again; memory
// accounting over a whole step stands on these ranges.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SPATIAL_LAYERGRAPH_H
#define DSM_CORE_SPATIAL_LAYERGRAPH_H

#include "dsm/Core/Spatial/LayerShape.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace dsm::core {

/// A layer to map and the passes it runs.
struct LayerNode {
  LayerShape shape;
  bool fwd = true;
  bool bwd = false;
  bool upd = false;
  /// A result of the network (returned): always written to external memory.
  bool networkOutput = false;
  /// In a pipeline stage's graph (stageGraph): the layer's output is read
  /// by a later stage, so written out and sent on; the receiving stage keeps
  /// it for its backward passes, this one does not.
  bool sentToLaterStage = false;
  /// In a pipeline stage's graph: elements of the activations the layer
  /// reads from earlier stages, which this stage keeps from their arrival
  /// until the layer's backward passes have read them.
  double receivedElements = 0;
  /// Elements of all the FWD's results (all samples; 0: unknown, the
  /// largest edge out of the layer stands for them).
  double outputElements = 0;
};

/// An activation flowing from one layer to another.
struct LayerEdge {
  int producer = 0;
  int consumer = 0;
  double elements = 0; ///< the whole tensor (all samples)
  /// Training: the consumer's BWD sends the error of this tensor back, and
  /// it is re-laid out too when the parallelisms differ.
  bool carriesError = false;
  /// The consumer's primary input (not a shortcut read by auxiliary work).
  bool primaryInput = false;
};

/// Where an activation is live in a step's schedule (see stepOf): from its
/// producer's FWD to its last reader, inclusive.
struct LiveRange {
  int producer = 0;
  int firstStep = 0;
  int lastStep = 0;
};

/// A weight two layers read (tied embeddings): `reader` reads `elements` of
/// parameters that the earlier layer `holder` reads too. A chip holds such
/// a weight once, at its first reader's share (StepMemory.h); each reader
/// still fetches it and computes its share of the gradient.
struct SharedParameters {
  int holder = 0;
  int reader = 0;
  double elements = 0;
};

/// The module path of a layer's block: its name up to its first numbered
/// component ("transformer.h.12" of "transformer.h.12.attn.c_attn"); ""
/// when it has none (LayerGraph::blockStarts).
llvm::StringRef blockPathOf(llvm::StringRef layerName);

/// Layers in a topological order (every edge goes forward).
struct LayerGraph {
  std::vector<LayerNode> layers;
  std::vector<LayerEdge> edges;
  std::vector<SharedParameters> sharedParameters;

  /// The parameters each layer holds on a chip: its shape's, less those an
  /// earlier layer of the graph holds (never below 0).
  std::vector<double> heldParameters() const;

  /// Decides the passes: FWD always; in training, UPD for layers with
  /// parameters and BWD for layers whose inputs need an error (some producer
  /// runs BWD or UPD). Also sets the edges' carriesError.
  void assignTrainingPasses(bool training);

  /// Whether the layers tell what they keep for their backward passes
  /// (LayerShape::saved; LayerFormation counts it). IR written by hand or by
  /// an older dsm-opt may not: its layers' outputs are kept instead.
  bool tellsSavedActivations() const;

  /// The first layer of each repeated block, in order (always 0 first): a
  /// block is the layers whose names share a path up to its first numbered
  /// component ("transformer.h.12" of "transformer.h.12.attn.c_attn", as
  /// importers and the zoo name module paths); a layer with none (an
  /// embedding, a head) belongs to the block before it, or the first.
  std::vector<int> blockStarts() const;

  /// Fails unless every edge goes forward between existing layers.
  llvm::Error check() const;

  /// The position of `layer`'s forward (or backward: BWD and UPD) passes in
  /// a step that runs FWD over the layers in order, then the backward
  /// passes in reverse.
  int forwardStep(int layer) const { return layer; }
  int backwardStep(int layer) const {
    return 2 * int(layers.size()) - 1 - layer;
  }

  /// The live range of every layer's output that some layer reads, in
  /// producer order. A consumer that runs BWD or UPD reads its inputs again
  /// there (weight gradients, the derivative of a nonlinearity), so in
  /// training the range ends at the backward step of the earliest such
  /// consumer; otherwise at the forward step of the last consumer.
  std::vector<LiveRange> activationLiveRanges() const;
};

} // namespace dsm::core

#endif // DSM_CORE_SPATIAL_LAYERGRAPH_H
