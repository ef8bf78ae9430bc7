//===- SystemDescription.h - Target systems of the three papers -*- C++ -*-===//
//
// Plain descriptions of the three kinds of target the seeds study:
//  - MultiChipSystem: the hierarchical template of DeepSpatialMatrix
//    Fig. 3 -- PE arrays in cores, cores on a ring or split bus in a chip
//    with external memory, chips on a 2D torus (baseline parameters in
//    DeepSpatialMatrix Fig. 10);
//  - MemoryHierarchySystem: one chip whose compute engines see private SRAM, a
//    shared LLC and DRAM (NNP-I, EGRL App. G);
//  - DeviceGraphSystem: heterogeneous devices joined by links (the servers of
//    Andreassen's thesis, Tables 4.1/4.2).
// All quantities are in base units: bytes, bytes/s, Hz, FLOP/s.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SYSTEM_SYSTEMDESCRIPTION_H
#define DSM_CORE_SYSTEM_SYSTEMDESCRIPTION_H

#include "dsm/Core/System/SpecNode.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace dsm::core {

/// Number formats of the compute engines (and of tensors in the dsm dialect).
enum class Precision { FP32, FP16, BF16, INT8 };
llvm::StringRef stringifyPrecision(Precision precision);
std::optional<Precision> symbolizePrecision(llvm::StringRef name);
int64_t bytesPerElement(Precision precision);

/// A memory: how much it holds and how fast it streams.
struct MemorySpec {
  double capacityBytes = 0;
  double bandwidthBytesPerSecond = 0;
  /// Fraction of the peak bandwidth achieved in practice (DeepSpatialMatrix
  /// Fig. 10: HBM at 80%).
  double efficiency = 1.0;

  double effectiveBandwidth() const {
    return bandwidthBytesPerSecond * efficiency;
  }
};

//===----------------------------------------------------------------------===//
// DeepSpatialMatrix: multi-chip spatial accelerator
//===----------------------------------------------------------------------===//

enum class ChipInterconnect { Ring, SplitBus };
llvm::StringRef stringifyChipInterconnect(ChipInterconnect kind);

/// One core (DeepSpatialMatrix Fig. 3): a 2D systolic array of PEs, each a SIMD
/// array of MAC units, with a private scratchpad and special-function units.
struct CoreSpec {
  int64_t macsPerCycle = 0;
  int64_t peRows = 0;
  int64_t peColumns = 0;
  /// MACs per PE (the SIMD width): macsPerCycle / (peRows * peColumns).
  int64_t simdWidth() const { return macsPerCycle / (peRows * peColumns); }
  MemorySpec scratchpad;
  /// Special-function (auxiliary) operations per cycle.
  double sfuOpsPerCycle = 0;
  double frequencyHz = 0;
  Precision precision = Precision::FP16;
  /// The share of the PE arrays' peak that a matrix product reaches at best
  /// on this chip: a GPU's measured maximum achievable matmul throughput
  /// over its data-sheet peak (clocks under load, the library's kernels).
  /// 1 for the DeepSpatialMatrix core, whose model counts its cycles itself.
  double matrixEfficiency = 1.0;
};

/// A chip's link to its host and the host memory it may fill (a GPU's PCIe
/// link and its share of the node's DRAM): where memory savers may offload
/// optimizer state (StepMemory.h).
struct HostLinkSpec {
  /// Per direction (the link is full duplex), bytes/s.
  double bandwidthBytesPerSecond = 0;
  double memoryBytes = 0;
};

struct ChipSpec {
  int64_t cores = 0;
  ChipInterconnect interconnect = ChipInterconnect::Ring;
  double coreToCoreBandwidth = 0;
  MemorySpec externalMemory;
  /// Optional: none when the system declares no host link.
  std::optional<HostLinkSpec> hostLink;
  /// Whether the chip's library tiles a matrix product to the scratchpad
  /// itself (a GPU's cuBLAS): a stationary operand larger than the room the
  /// scratchpad leaves it is worked on in chunks that fit, the other input
  /// streamed again for each, where the DeepSpatialMatrix chip has no legal
  /// mapping (PerformanceModel.h).
  bool libraryTiling = false;
  /// Whether a layer's auxiliary computations (normalizations, softmax,
  /// element-wise chains) run as kernels of their own that stream their
  /// tensors through external memory (`elementwise: kernels`: a GPU under a
  /// framework, as Megatron-LM runs), rather than fused into the primary
  /// computation's pass on chip (`fused`, DeepSpatialMatrix §II-D).
  bool elementwiseKernels = false;
  /// Whether a model-parallel layer's exchange of activations between chips
  /// blocks its compute (`tensor_parallel: megatron`: a framework issues it
  /// as a collective between kernels, as Megatron-LM's tensor-parallel
  /// all-reduces are), rather than rotating under it (`overlapped`,
  /// DeepSpatialMatrix §II-D's RotateAlongX/Y in FWD and UPD).
  bool megatronTensorParallel = false;
  CoreSpec core;
};

/// How the chips along one dimension of a network are joined.
enum class NetworkTopology {
  /// A unidirectional ring: each chip sends to the next only.
  Ring,
  /// A bidirectional ring (a torus dimension): each chip sends to both
  /// neighbours at once, so a ring collective runs half its data each way.
  /// DeepSpatialMatrix's torus directions.
  Torus,
  /// Bidirectional links without the wrap-around (a mesh dimension, or part
  /// of a torus dimension): a ring collective goes out and back over the
  /// same links.
  Line,
  /// A switch (NVSwitch, a fat tree's rail): every pair of chips at the full
  /// bandwidth of a chip's port, whichever of them take part.
  Switch,
};
llvm::StringRef stringifyNetworkTopology(NetworkTopology topology);
std::optional<NetworkTopology> symbolizeNetworkTopology(llvm::StringRef name);

/// One dimension of a system's network, in the spirit of ASTRA-sim's
/// multi-dimensional topologies: `size` chips joined by `topology`, each
/// chip's port sending `bandwidth` bytes/s in each direction, every step of a
/// collective paying `latency` seconds before its bytes, and `efficiency`
/// the share of the bandwidth collectives achieve (a measured bus bandwidth
/// over the nominal one).
struct NetworkDimension {
  int64_t size = 1;
  NetworkTopology topology = NetworkTopology::Torus;
  double bandwidth = 0; ///< bytes/s per direction; 0 only when size is 1
  double latency = 0;   ///< seconds per collective step
  double efficiency = 1.0;
  /// Chips of one node along the dimension, each with a link of its own
  /// into it (a rail-optimised fabric: the other GPUs of a node that
  /// regroupInnermost leaves to the outer dimension): a ring collective runs
  /// one ring per rail, as NCCL's channels do, each leaving the node on its
  /// own rail and crossing the node on the node's links, whose ring
  /// bandwidth `railNodeBandwidth` bounds it. 1: no rails.
  int64_t rails = 1;
  double railNodeBandwidth = 0;

  /// Bytes/s a chip's share of a ring collective (reduce-scatter, all-gather,
  /// all-reduce, a rotation) flows at along the dimension: both directions
  /// of a torus, one of a ring, a line or a switch port; the achievable share
  /// of it. Zero for a single chip.
  double ringBandwidth() const;

  /// How many times ringBandwidth() a ring collective along the dimension
  /// flows at: its rails, as far as the node's links carry them; 1 without
  /// rails. A chip's own transfers (a pipeline's sends) do not share rails.
  double railSpeedup() const;

  /// The dimension `chips` consecutive chips of this one form (1 <= chips <=
  /// size): a switch serves any group at its full port bandwidth; part of a
  /// torus or line is a line; part of a unidirectional ring closes over the
  /// rest of the ring, whose links the other parts' wrap-arounds share (half
  /// its bandwidth: an estimate). A single chip has no links.
  NetworkDimension part(int64_t chips) const;
};

/// Chips on a network of two dimensions, X innermost (X columns, Y rows;
/// DeepSpatialMatrix §III-A: M = X, N = Y, a 2-D torus). Each dimension's
/// size is the number of chips along it.
struct TorusSpec {
  NetworkDimension x;
  NetworkDimension y;
};

struct MultiChipSystem {
  int64_t chips = 0;
  TorusSpec torus;
  ChipSpec chip;

  int64_t totalCores() const { return chips * chip.cores; }
  int64_t totalMacsPerCycle() const {
    return totalCores() * chip.core.macsPerCycle;
  }
  /// Peak FLOP/s counting a MAC as two operations.
  double peakFlops() const {
    return 2.0 * double(totalMacsPerCycle()) * chip.core.frequencyHz;
  }
};

//===----------------------------------------------------------------------===//
// EGRL (Khadka et al.): single chip with a DRAM/LLC/SRAM hierarchy
//===----------------------------------------------------------------------===//

struct MemoryHierarchySystem {
  int64_t engines = 0;
  int64_t macsPerCycle = 0; ///< per engine
  double frequencyHz = 0;
  Precision precision = Precision::INT8;
  MemorySpec sram; ///< private to each engine
  MemorySpec llc;  ///< shared by all engines
  MemorySpec dram;

  double peakOps() const {
    return 2.0 * double(engines) * double(macsPerCycle) * frequencyHz;
  }
};

//===----------------------------------------------------------------------===//
// Andreassen's thesis: heterogeneous device graph
//===----------------------------------------------------------------------===//

enum class DeviceType { CPU, GPU, Accelerator };
llvm::StringRef stringifyDeviceType(DeviceType type);

struct Device {
  int64_t id = 0;
  std::string name;
  DeviceType type = DeviceType::GPU;
  double peakFlops = 0;
  double memoryBytes = 0;
  /// Bytes/s between the device and its memory; 0 when not given. Only cost
  /// models that charge memory traffic (Paleo's) use it.
  double memoryBandwidth = 0;
  /// Hz; 0 when not given. Paleo charges at least one cycle per term.
  double clockHz = 0;
};

/// A bidirectional link between two devices. Links that name the same
/// `channel` share it: one bus, one queue of transfers (the peer's device
/// graphs put a GPU's traffic with the CPU and with the other GPU on the
/// GPU's PCIe bus). A link without one has a channel of its own. Between
/// two devices, the links the sender lists (`from`) are taken first.
struct DeviceLink {
  int64_t from = 0;
  int64_t to = 0;
  double bandwidthBytesPerSecond = 0;
  /// Fraction of the theoretical bandwidth achieved (Andreassen's thesis §4.3.1
  /// measured 17-28% on PCIe3 and simulates 25%).
  double efficiency = 1.0;

  /// Shared channel id, or -1: a channel of its own.
  int64_t channel = -1;

  double effectiveBandwidth() const {
    return bandwidthBytesPerSecond * efficiency;
  }
};

struct DeviceGraphSystem {
  std::vector<Device> devices;
  std::vector<DeviceLink> links;

  const Device *findDevice(int64_t id) const;
};

//===----------------------------------------------------------------------===//
// The description
//===----------------------------------------------------------------------===//

enum class SystemKind { MultiChip, MemoryHierarchy, DeviceGraph };
llvm::StringRef stringifySystemKind(SystemKind kind);

struct SystemDescription {
  std::string name;
  std::string description;
  std::variant<MultiChipSystem, MemoryHierarchySystem, DeviceGraphSystem>
      target;

  SystemKind getKind() const { return SystemKind(target.index()); }
  template <typename T> const T *getIf() const & {
    return std::get_if<T>(&target);
  }
  /// A pointer into a temporary would dangle: keep the description first.
  template <typename T> const T *getIf() const && = delete;
};

/// Reads and validates a description from its YAML/JSON tree. Every problem is
/// reported with the location and dotted path of the offending field; all of
/// them are returned together (joined llvm::Errors of SpecError).
///
/// A tree with `devices` and `comm_channels` and no `kind` is a device graph
/// in the format of Exprimo (the device-placement thesis's tool; its
/// device_graphs/*.json): devices with `model`, `clock` (MHz), `peak_gflops`,
/// `memory` (GB), `mem_bandwidth` (GB/s), `type` (cpu, gpu) and `neighbours`
/// [{`device`, `comm_channel`}], channels with `type` and `bandwidth`
/// (Gbit/s). Devices are numbered by position; a PCIe3 channel achieves 25%
/// of its bandwidth, as the thesis measured (E1). `name` names the system.
/// Every quantity, Exprimo's after scaling, must be in its plausible range
/// (Quantity.h); `warnings`, when given, receives what is read but probably
/// not as meant (a bare number where a unit is expected).
/// What a command line may change of a system file.
struct SystemOverrides {
  /// The size of the outermost dimension of a multi-chip system's `network:`
  /// list (`nodes=`), in place of the file's `nodes:` or size.
  std::optional<int64_t> nodes;
};

llvm::Expected<SystemDescription>
readSystemDescription(const SpecNode &root, llvm::StringRef name = "",
                      std::vector<SpecWarning> *warnings = nullptr,
                      const SystemOverrides &overrides = {});

/// The inverse of readSystemDescription: a tree in base units that reads back
/// to an equal description. Used to store a system in the IR.
SpecNode writeSystemDescription(const SystemDescription &system);

} // namespace dsm::core

#endif // DSM_CORE_SYSTEM_SYSTEMDESCRIPTION_H
