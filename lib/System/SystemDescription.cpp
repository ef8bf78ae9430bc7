//===- SystemDescription.cpp - Reading and writing target systems ---------===//
//
// The schema is documented in docs/systems.md; keep the two in step.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/System/SystemDescription.h"
#include "dsm/Core/System/SpecReader.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <utility>

using namespace dsm::core;

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

static constexpr std::pair<llvm::StringLiteral, Precision> kPrecisions[] = {
    {"fp32", Precision::FP32},
    {"fp16", Precision::FP16},
    {"bf16", Precision::BF16},
    {"int8", Precision::INT8}};
static constexpr std::pair<llvm::StringLiteral, ChipInterconnect>
    kInterconnects[] = {{"ring", ChipInterconnect::Ring},
                        {"split_bus", ChipInterconnect::SplitBus}};
/// chip.tiling: who fits a product's working set to the scratchpad.
static constexpr std::pair<llvm::StringLiteral, bool> kTilings[] = {
    {"scratchpad", false}, {"library", true}};
static constexpr std::pair<llvm::StringLiteral, bool> kElementwise[] = {
    {"fused", false}, {"kernels", true}};
static constexpr std::pair<llvm::StringLiteral, bool> kTensorParallels[] = {
    {"rotation", false}, {"megatron", true}};
static constexpr std::pair<llvm::StringLiteral, DeviceType> kDeviceTypes[] = {
    {"cpu", DeviceType::CPU},
    {"gpu", DeviceType::GPU},
    {"accelerator", DeviceType::Accelerator}};
static constexpr std::pair<llvm::StringLiteral, SystemKind> kSystemKinds[] = {
    {"multi_chip", SystemKind::MultiChip},
    {"memory_hierarchy", SystemKind::MemoryHierarchy},
    {"device_graph", SystemKind::DeviceGraph}};
/// The shorthand network of the DeepSpatialMatrix template (`topology:`,
/// `torus:`, `link_bandwidth:`); listed so that an unknown one is rejected by
/// name. Any other network is a `network:` list of dimensions.
static constexpr std::pair<llvm::StringLiteral, int> kTopologies[] = {
    {"torus_2d", 0}};
static constexpr std::pair<llvm::StringLiteral, NetworkTopology>
    kNetworkTopologies[] = {{"ring", NetworkTopology::Ring},
                            {"torus", NetworkTopology::Torus},
                            {"line", NetworkTopology::Line},
                            {"switch", NetworkTopology::Switch}};

template <typename T, size_t N>
static llvm::StringRef
nameOf(const std::pair<llvm::StringLiteral, T> (&table)[N], T value) {
  for (const auto &[name, v] : table)
    if (v == value)
      return name;
  return "<invalid>";
}

llvm::StringRef dsm::core::stringifyPrecision(Precision precision) {
  return nameOf(kPrecisions, precision);
}

std::optional<Precision> dsm::core::symbolizePrecision(llvm::StringRef name) {
  for (const auto &[n, v] : kPrecisions)
    if (n == name)
      return v;
  return std::nullopt;
}

int64_t dsm::core::bytesPerElement(Precision precision) {
  switch (precision) {
  case Precision::FP32:
    return 4;
  case Precision::FP16:
  case Precision::BF16:
    return 2;
  case Precision::INT8:
    return 1;
  }
  return 4;
}

llvm::StringRef dsm::core::stringifyChipInterconnect(ChipInterconnect kind) {
  return nameOf(kInterconnects, kind);
}

llvm::StringRef dsm::core::stringifyNetworkTopology(NetworkTopology topology) {
  return nameOf(kNetworkTopologies, topology);
}

std::optional<NetworkTopology>
dsm::core::symbolizeNetworkTopology(llvm::StringRef name) {
  for (const auto &[n, v] : kNetworkTopologies)
    if (n == name)
      return v;
  return std::nullopt;
}

double NetworkDimension::ringBandwidth() const {
  if (size <= 1)
    return 0;
  double directions = topology == NetworkTopology::Torus ? 2 : 1;
  return directions * bandwidth * efficiency;
}

double NetworkDimension::railSpeedup() const {
  const double ring = ringBandwidth();
  if (rails <= 1 || ring <= 0)
    return 1;
  return std::max(1.0, std::min(double(rails), railNodeBandwidth / ring));
}

NetworkDimension NetworkDimension::part(int64_t chips) const {
  NetworkDimension result = *this;
  result.size = chips;
  if (chips <= 1) {
    result.bandwidth = 0;
    return result;
  }
  if (chips == size)
    return result;
  switch (topology) {
  case NetworkTopology::Switch:
  case NetworkTopology::Line:
    break;
  case NetworkTopology::Torus:
    result.topology = NetworkTopology::Line;
    break;
  case NetworkTopology::Ring:
    result.bandwidth = bandwidth / 2;
    break;
  }
  return result;
}

llvm::StringRef dsm::core::stringifyDeviceType(DeviceType type) {
  return nameOf(kDeviceTypes, type);
}

llvm::StringRef dsm::core::stringifySystemKind(SystemKind kind) {
  return nameOf(kSystemKinds, kind);
}

const Device *DeviceGraphSystem::findDevice(int64_t id) const {
  for (const Device &device : devices)
    if (device.id == id)
      return &device;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
/// Assigns `value` to `field` when it was read successfully.
template <typename T, typename U>
void assign(T &field, const std::optional<U> &value) {
  if (value)
    field = T(*value);
}

MemorySpec readMemory(SpecMapReader &parent, llvm::StringRef key,
                      bool withEfficiency) {
  MemorySpec memory;
  std::optional<SpecMapReader> reader = parent.map(key);
  if (!reader)
    return memory;
  assign(memory.capacityBytes,
         reader->quantity("capacity", QuantityKind::Bytes, Bound::Positive));
  assign(
      memory.bandwidthBytesPerSecond,
      reader->quantity("bandwidth", QuantityKind::Bandwidth, Bound::Positive));
  if (withEfficiency)
    assign(memory.efficiency,
           reader->quantity("efficiency", QuantityKind::Count, Bound::Fraction,
                            1.0));
  reader->finish();
  return memory;
}

CoreSpec readCore(SpecMapReader &core) {
  CoreSpec spec;
  assign(spec.macsPerCycle, core.integer("macs", 1));
  if (std::optional<SpecMapReader> array = core.map("pe_array")) {
    assign(spec.peRows, array->integer("rows", 1));
    assign(spec.peColumns, array->integer("columns", 1));
    array->finish();
  }
  if (spec.macsPerCycle > 0 && spec.peRows > 0 && spec.peColumns > 0 &&
      spec.macsPerCycle % (spec.peRows * spec.peColumns) != 0)
    core.error("macs", "field '" + core.fieldPath("macs") + "' (" +
                           std::to_string(spec.macsPerCycle) +
                           ") must be a multiple of pe_array rows x columns (" +
                           std::to_string(spec.peRows * spec.peColumns) + ")");
  spec.scratchpad = readMemory(core, "scratchpad", /*withEfficiency=*/false);
  assign(
      spec.sfuOpsPerCycle,
      core.quantity("sfu_ops_per_cycle", QuantityKind::Count, Bound::Positive));
  assign(spec.frequencyHz,
         core.quantity("frequency", QuantityKind::Frequency, Bound::Positive));
  assign(spec.precision, core.choice<Precision>("precision", kPrecisions));
  assign(spec.matrixEfficiency,
         core.quantity("matrix_efficiency", QuantityKind::Count,
                       Bound::Fraction, 1.0));
  core.finish();
  return spec;
}

/// The shorthand 2-D torus (`topology: torus_2d`, `torus:`, `link_bandwidth:`):
/// DeepSpatialMatrix's network, whose link bandwidths are a chip's along each
/// direction, both ways together (§III-A: "160 GB/s per chip, 120 GB/s along
/// X and 40 GB/s along Y"), so each direction of a torus link carries half.
void readTorusShorthand(SpecMapReader &system, MultiChipSystem &result) {
  system.choice<int>("topology", kTopologies);
  if (std::optional<SpecMapReader> torus = system.map("torus")) {
    assign(result.torus.x.size, torus->integer("x", 1));
    assign(result.torus.y.size, torus->integer("y", 1));
    torus->finish();
  }
  // Links are only needed in the directions that have more than one chip.
  bool needLinks = result.torus.x.size > 1 || result.torus.y.size > 1;
  if (std::optional<SpecMapReader> links =
          system.map("link_bandwidth", needLinks)) {
    for (auto [key, dimension] :
         {std::pair<const char *, NetworkDimension *>{"x", &result.torus.x},
          {"y", &result.torus.y}}) {
      bool many = dimension->size > 1;
      std::optional<double> both =
          links->quantity(key, QuantityKind::Bandwidth,
                          many ? Bound::Positive : Bound::NonNegative,
                          many ? std::nullopt : std::optional<double>(0.0));
      if (both)
        dimension->bandwidth = *both / 2;
    }
    links->finish();
  }
}

/// A `network:` list of one or two dimensions, innermost first; the
/// outermost one's size may be left to the top-level `nodes:`.
void readNetwork(SpecMapReader &system, const SpecNode &list,
                 std::optional<int64_t> nodes, bool nodesOverridden,
                 MultiChipSystem &result, SpecDiagnostics &diags) {
  llvm::ArrayRef<SpecNode> items = list.getItems();
  if (items.empty() || items.size() > 2) {
    system.error("network",
                 "field '" + system.fieldPath("network") +
                     "' must list one or two dimensions, innermost first (" +
                     std::to_string(items.size()) +
                     " given): the mapper lays its parallelisms on two");
    return;
  }
  NetworkDimension *dimensions[] = {&result.torus.x, &result.torus.y};
  for (auto [index, item] : llvm::enumerate(items)) {
    SpecMapReader reader(
        item, system.fieldPath("network") + "[" + std::to_string(index) + "]",
        diags);
    if (!reader.isValid())
      continue;
    NetworkDimension &dimension = *dimensions[index];
    bool outermost = index + 1 == items.size();
    if (outermost && nodes) {
      if (reader.has("size")) {
        // nodes= replaces the size; the file's own `nodes:` may not.
        if (!nodesOverridden)
          reader.error("size", "field '" + reader.fieldPath("size") +
                                   "' and the top-level 'nodes' both size "
                                   "the outermost dimension: give one");
        reader.integer("size", 1);
      }
      dimension.size = *nodes;
    } else {
      assign(dimension.size, reader.integer("size", 1));
    }
    assign(dimension.topology,
           reader.choice<NetworkTopology>("topology", kNetworkTopologies));
    bool many = dimension.size > 1;
    assign(dimension.bandwidth,
           reader.quantity("bandwidth", QuantityKind::Bandwidth,
                           many ? Bound::Positive : Bound::NonNegative,
                           many ? std::nullopt : std::optional<double>(0.0)));
    assign(dimension.latency, reader.quantity("latency", QuantityKind::Time,
                                              Bound::NonNegative, 0.0));
    assign(dimension.efficiency,
           reader.quantity("efficiency", QuantityKind::Count, Bound::Fraction,
                           1.0));
    assign(dimension.rails, reader.integer("rails", 1, 1));
    bool railed = dimension.rails > 1;
    assign(dimension.railNodeBandwidth,
           reader.quantity("rail_bandwidth", QuantityKind::Bandwidth,
                           railed ? Bound::Positive : Bound::NonNegative,
                           railed ? std::nullopt : std::optional<double>(0.0)));
    reader.finish();
  }
}

MultiChipSystem readMultiChip(SpecMapReader &root, SpecDiagnostics &diags,
                              const SystemOverrides &overrides) {
  MultiChipSystem result;
  std::optional<int64_t> nodes;
  if (root.has("nodes"))
    nodes = root.integer("nodes", 1);
  bool nodesOverridden = overrides.nodes.has_value();
  if (nodesOverridden)
    nodes = overrides.nodes;
  if (nodes && (*nodes < 1 || *nodes > kMaxSpecInteger)) {
    root.error("nodes", (nodesOverridden ? "nodes=" : "field 'nodes' ") +
                            std::to_string(*nodes) + " is not between 1 and " +
                            std::to_string(kMaxSpecInteger));
    nodes.reset();
  }
  bool nodesGiven = root.has("nodes") || nodesOverridden;
  if (std::optional<SpecMapReader> system = root.map("system")) {
    bool listed = system->has("network");
    bool sized = listed || system->has("torus");
    if (system->has("chips") || !listed)
      assign(result.chips, system->integer("chips", 1));
    if (listed) {
      for (llvm::StringRef shorthand : {"topology", "torus", "link_bandwidth"})
        if (system->has(shorthand)) {
          system->error(shorthand,
                        "field '" + system->fieldPath(shorthand) +
                            "' belongs to the 2-D torus shorthand; with '" +
                            system->fieldPath("network") +
                            "' give every dimension there");
          system->skip(shorthand);
        }
      const SpecNode *network = system->sequence("network");
      if (network && (nodes || !nodesGiven))
        readNetwork(*system, *network, nodes, nodesOverridden, result, diags);
    } else if (nodesGiven) {
      root.error("nodes", std::string(nodesOverridden ? "nodes="
                                                      : "field "
                                                        "'nodes'") +
                              " sizes the outermost dimension of a "
                              "'system.network' list, which this system has "
                              "not (its network is the 2-D torus shorthand)");
      readTorusShorthand(*system, result);
    } else {
      readTorusShorthand(*system, result);
    }
    int64_t x = result.torus.x.size, y = result.torus.y.size;
    if (listed && x * y > kMaxSpecInteger)
      system->error("network", "the network's " + std::to_string(x) + "x" +
                                   std::to_string(y) + " chips are more than " +
                                   std::to_string(kMaxSpecInteger));
    else if (result.chips == 0 && listed)
      result.chips = x * y;
    else if (sized && x > 0 && y > 0 && x * y != result.chips)
      system->error(listed ? "network" : "torus",
                    std::string(listed ? "the network " : "torus ") +
                        std::to_string(x) + "x" + std::to_string(y) + " has " +
                        std::to_string(x * y) + " chips but field '" +
                        system->fieldPath("chips") + "' is " +
                        std::to_string(result.chips));
    system->finish();
  }
  if (std::optional<SpecMapReader> chip = root.map("chip")) {
    assign(result.chip.cores, chip->integer("cores", 1));
    assign(result.chip.interconnect,
           chip->choice<ChipInterconnect>("interconnect", kInterconnects));
    assign(result.chip.coreToCoreBandwidth,
           chip->quantity("core_to_core_bandwidth", QuantityKind::Bandwidth,
                          Bound::Positive));
    result.chip.externalMemory =
        readMemory(*chip, "external_memory", /*withEfficiency=*/true);
    assign(result.chip.libraryTiling,
           chip->choice<bool>("tiling", kTilings, false));
    assign(result.chip.elementwiseKernels,
           chip->choice<bool>("elementwise", kElementwise, false));
    assign(result.chip.megatronTensorParallel,
           chip->choice<bool>("tensor_parallel", kTensorParallels, false));
    if (std::optional<SpecMapReader> host =
            chip->map("host_link", /*required=*/false)) {
      HostLinkSpec link;
      assign(link.bandwidthBytesPerSecond,
             host->quantity("bandwidth", QuantityKind::Bandwidth,
                            Bound::Positive));
      assign(link.memoryBytes,
             host->quantity("memory", QuantityKind::Bytes, Bound::Positive));
      host->finish();
      result.chip.hostLink = link;
    }
    chip->finish();
  }
  if (std::optional<SpecMapReader> core = root.map("core"))
    result.chip.core = readCore(*core);
  return result;
}

MemoryHierarchySystem readMemoryHierarchy(SpecMapReader &root) {
  MemoryHierarchySystem result;
  if (std::optional<SpecMapReader> engines = root.map("engines")) {
    assign(result.engines, engines->integer("count", 1));
    assign(result.macsPerCycle, engines->integer("macs", 1));
    assign(result.frequencyHz,
           engines->quantity("frequency", QuantityKind::Frequency,
                             Bound::Positive));
    assign(result.precision,
           engines->choice<Precision>("precision", kPrecisions));
    result.sram = readMemory(*engines, "sram", /*withEfficiency=*/true);
    engines->finish();
  }
  result.llc = readMemory(root, "llc", /*withEfficiency=*/true);
  result.dram = readMemory(root, "dram", /*withEfficiency=*/true);
  return result;
}

DeviceGraphSystem readDeviceGraph(SpecMapReader &root, SpecDiagnostics &diags) {
  DeviceGraphSystem result;
  if (const SpecNode *devices = root.sequence("devices")) {
    if (devices->getItems().empty())
      root.error("devices", "field 'devices' must list at least one device");
    llvm::DenseSet<int64_t> ids;
    for (auto [index, item] : llvm::enumerate(devices->getItems())) {
      SpecMapReader reader(item, "devices[" + std::to_string(index) + "]",
                           diags);
      if (!reader.isValid())
        continue;
      Device device;
      assign(device.id, reader.integer("id", 0));
      if (!ids.insert(device.id).second)
        reader.error("id", "duplicate device id " + std::to_string(device.id));
      assign(device.name, reader.string("name"));
      assign(device.type, reader.choice<DeviceType>("type", kDeviceTypes));
      assign(device.peakFlops,
             reader.quantity("peak", QuantityKind::Flops, Bound::Positive));
      assign(device.memoryBytes,
             reader.quantity("memory", QuantityKind::Bytes, Bound::Positive));
      assign(device.memoryBandwidth,
             reader.quantity("memory_bandwidth", QuantityKind::Bandwidth,
                             Bound::NonNegative, 0.0));
      assign(device.clockHz, reader.quantity("clock", QuantityKind::Frequency,
                                             Bound::NonNegative, 0.0));
      reader.finish();
      result.devices.push_back(std::move(device));
    }
  }
  // The first link naming each shared channel sets its bandwidth.
  llvm::DenseMap<int64_t, size_t> channels;
  if (const SpecNode *links = root.sequence("links", /*required=*/false)) {
    for (auto [index, item] : llvm::enumerate(links->getItems())) {
      SpecMapReader reader(item, "links[" + std::to_string(index) + "]", diags);
      if (!reader.isValid())
        continue;
      DeviceLink link;
      assign(link.from, reader.integer("from", 0));
      assign(link.to, reader.integer("to", 0));
      for (auto [key, id] :
           {std::pair<const char *, int64_t>{"from", link.from},
            {"to", link.to}})
        if (reader.has(key) && !result.findDevice(id))
          reader.error(key, "field '" + reader.fieldPath(key) +
                                "' names unknown device " + std::to_string(id));
      if (link.from == link.to && reader.has("from") && reader.has("to"))
        reader.error("to", "a link must join two different devices");
      assign(link.bandwidthBytesPerSecond,
             reader.quantity("bandwidth", QuantityKind::Bandwidth,
                             Bound::Positive));
      assign(link.efficiency, reader.quantity("efficiency", QuantityKind::Count,
                                              Bound::Fraction, 1.0));
      assign(link.channel, reader.integer("channel", 0, -1));
      reader.finish();
      result.links.push_back(link);
      if (link.channel < 0)
        continue;
      auto [first, inserted] =
          channels.try_emplace(link.channel, result.links.size() - 1);
      const DeviceLink &owner = result.links[first->second];
      if (!inserted &&
          (owner.bandwidthBytesPerSecond != link.bandwidthBytesPerSecond ||
           owner.efficiency != link.efficiency))
        reader.error("channel", "links sharing channel " +
                                    std::to_string(link.channel) +
                                    " must have the same bandwidth and "
                                    "efficiency");
    }
  }
  if (result.devices.size() > 1 && result.links.empty() && !root.has("links"))
    root.error("devices", "a device graph with " +
                              std::to_string(result.devices.size()) +
                              " devices needs a 'links' list");
  return result;
}
/// Exprimo's device_graphs/*.json (exprimo/device.py DeviceGraph), in base
/// units: the file's numbers are MHz, GFLOPS, GB, GB/s and Gbit/s.
DeviceGraphSystem readExprimoDeviceGraph(SpecMapReader &root,
                                         SpecDiagnostics &diags) {
  DeviceGraphSystem result;
  struct ChannelSpec {
    double bandwidth = 0;
    double efficiency = 1.0;
  };
  std::vector<ChannelSpec> channels;
  if (const SpecNode *list = root.sequence("comm_channels")) {
    for (auto [index, item] : llvm::enumerate(list->getItems())) {
      SpecMapReader reader(item, "comm_channels[" + std::to_string(index) + "]",
                           diags);
      ChannelSpec channel;
      if (reader.isValid()) {
        std::optional<std::string> type = reader.string("type");
        // The thesis measured 17-28% of PCIe3's bandwidth and simulates 25%
        // (E1), as the malvik and luke01 presets do.
        if (type && *type == "pcie3")
          channel.efficiency = 0.25;
        assign(channel.bandwidth,
               reader.scaledNumber("bandwidth", QuantityKind::Bandwidth,
                                   1e9 / 8, "Gbit/s", Bound::Positive));
        reader.finish();
      }
      channels.push_back(channel);
    }
  }
  const SpecNode *devices = root.sequence("devices");
  if (!devices)
    return result;
  if (devices->getItems().empty())
    root.error("devices", "field 'devices' must list at least one device");
  size_t count = devices->getItems().size();
  for (auto [index, item] : llvm::enumerate(devices->getItems())) {
    std::string path = "devices[" + std::to_string(index) + "]";
    SpecMapReader reader(item, path, diags);
    if (!reader.isValid())
      continue;
    Device device;
    device.id = int64_t(index);
    std::optional<std::string> model = reader.string("model");
    assign(device.type,
           reader.choice<DeviceType>("type", kDeviceTypes, DeviceType::CPU));
    device.name =
        stringifyDeviceType(device.type).str() + std::to_string(index);
    assign(device.clockHz, reader.scaledNumber("clock", QuantityKind::Frequency,
                                               1e6, "MHz", Bound::Positive));
    assign(device.peakFlops,
           reader.scaledNumber("peak_gflops", QuantityKind::Flops, 1e9,
                               "GFLOPS", Bound::Positive));
    assign(device.memoryBytes,
           reader.scaledNumber("memory", QuantityKind::Bytes, 1e9, "GB",
                               Bound::Positive));
    // Exprimo's default when a device does not give it.
    assign(device.memoryBandwidth,
           reader.scaledNumber("mem_bandwidth", QuantityKind::Bandwidth, 1e9,
                               "GB/s", Bound::Positive, 68.0));
    reader.integer("id", 0, 0); // the local hardware id: not a property
    if (const SpecNode *neighbours = reader.sequence("neighbours")) {
      for (auto [n, entry] : llvm::enumerate(neighbours->getItems())) {
        SpecMapReader neighbour(
            entry, path + ".neighbours[" + std::to_string(n) + "]", diags);
        if (!neighbour.isValid())
          continue;
        std::optional<int64_t> to = neighbour.integer("device", 0);
        std::optional<int64_t> channel = neighbour.integer("comm_channel", 0);
        if (to && size_t(*to) >= count)
          neighbour.error("device", "field '" + neighbour.fieldPath("device") +
                                        "' names unknown device " +
                                        std::to_string(*to));
        else if (to && *to == int64_t(index))
          neighbour.error("device", "a device cannot be its own neighbour");
        if (channel && size_t(*channel) >= channels.size())
          neighbour.error("comm_channel",
                          "field '" + neighbour.fieldPath("comm_channel") +
                              "' names unknown channel " +
                              std::to_string(*channel) + " (the file has " +
                              std::to_string(channels.size()) + ")");
        neighbour.finish();
        if (!to || !channel || size_t(*to) >= count || *to == int64_t(index) ||
            size_t(*channel) >= channels.size())
          continue;
        // Each side lists the link; keep it once per channel.
        const int64_t self = int64_t(index); // (C++17 cannot capture `index`)
        bool known = llvm::any_of(result.links, [&](const DeviceLink &l) {
          return l.channel == *channel && ((l.from == self && l.to == *to) ||
                                           (l.from == *to && l.to == self));
        });
        if (known)
          continue;
        DeviceLink link;
        link.from = int64_t(index);
        link.to = *to;
        link.channel = *channel;
        link.bandwidthBytesPerSecond = channels[*channel].bandwidth;
        link.efficiency = channels[*channel].efficiency;
        result.links.push_back(link);
      }
    }
    reader.finish();
    result.devices.push_back(std::move(device));
  }
  return result;
}
} // namespace

llvm::Expected<SystemDescription>
dsm::core::readSystemDescription(const SpecNode &root, llvm::StringRef name,
                                 std::vector<SpecWarning> *warnings,
                                 const SystemOverrides &overrides) {
  SpecDiagnostics diags;
  SystemDescription system;
  SpecMapReader reader(root, "", diags);
  if (reader.isValid() && reader.has("comm_channels") && !reader.has("kind")) {
    system.name = name.empty() ? "exprimo" : name.str();
    system.description = "an Exprimo device graph";
    system.target = readExprimoDeviceGraph(reader, diags);
    if (overrides.nodes)
      reader.error("comm_channels", "nodes= sizes a multi-chip network; "
                                    "an Exprimo device graph has none");
    reader.finish();
  } else if (reader.isValid()) {
    assign(system.name, reader.string("name"));
    assign(system.description, reader.string("description", std::string()));
    std::optional<SystemKind> kind =
        reader.choice<SystemKind>("kind", kSystemKinds);
    if (kind) {
      if (overrides.nodes && *kind != SystemKind::MultiChip)
        reader.error("kind", "nodes= sizes a multi-chip network; system '" +
                                 system.name + "' is a " +
                                 stringifySystemKind(*kind).str() + " system");
      switch (*kind) {
      case SystemKind::MultiChip:
        system.target = readMultiChip(reader, diags, overrides);
        break;
      case SystemKind::MemoryHierarchy:
        system.target = readMemoryHierarchy(reader);
        break;
      case SystemKind::DeviceGraph:
        system.target = readDeviceGraph(reader, diags);
        break;
      }
      reader.finish();
    }
  }
  if (warnings)
    *warnings = diags.takeWarnings();
  if (diags.failed())
    return diags.takeErrors();
  return system;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {
std::string number(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.17g", value);
  return text;
}

SpecNode scalar(double value) { return SpecNode::scalar(number(value)); }
SpecNode scalar(int64_t value) {
  return SpecNode::scalar(std::to_string(value));
}
SpecNode scalar(llvm::StringRef value) {
  return SpecNode::scalar(value.str(), {}, /*quoted=*/true);
}

SpecNode writeMemory(const MemorySpec &memory, bool withEfficiency) {
  SpecNode node = SpecNode::mapping();
  node.add("capacity", scalar(memory.capacityBytes));
  node.add("bandwidth", scalar(memory.bandwidthBytesPerSecond));
  if (withEfficiency)
    node.add("efficiency", scalar(memory.efficiency));
  return node;
}

void writeMultiChip(const MultiChipSystem &mc, SpecNode &root) {
  SpecNode &system = root.add("system", SpecNode::mapping());
  system.add("chips", scalar(mc.chips));
  auto isPlainTorus = [](const NetworkDimension &d) {
    return d.topology == NetworkTopology::Torus && d.latency == 0 &&
           d.efficiency == 1;
  };
  if (isPlainTorus(mc.torus.x) && isPlainTorus(mc.torus.y)) {
    // The shorthand, as DeepSpatialMatrix's presets are written.
    system.add("topology", scalar(llvm::StringRef("torus_2d")));
    SpecNode &torus = system.add("torus", SpecNode::mapping());
    torus.add("x", scalar(mc.torus.x.size));
    torus.add("y", scalar(mc.torus.y.size));
    SpecNode &links = system.add("link_bandwidth", SpecNode::mapping());
    links.add("x", scalar(2 * mc.torus.x.bandwidth));
    links.add("y", scalar(2 * mc.torus.y.bandwidth));
  } else {
    SpecNode &network = system.add("network", SpecNode::sequence());
    for (const NetworkDimension *d : {&mc.torus.x, &mc.torus.y}) {
      SpecNode dimension = SpecNode::mapping();
      dimension.add("size", scalar(d->size));
      dimension.add("topology", scalar(stringifyNetworkTopology(d->topology)));
      dimension.add("bandwidth", scalar(d->bandwidth));
      dimension.add("latency", scalar(d->latency));
      dimension.add("efficiency", scalar(d->efficiency));
      if (d->rails > 1) {
        dimension.add("rails", scalar(d->rails));
        dimension.add("rail_bandwidth", scalar(d->railNodeBandwidth));
      }
      network.append(std::move(dimension));
    }
  }

  SpecNode &chip = root.add("chip", SpecNode::mapping());
  chip.add("cores", scalar(mc.chip.cores));
  chip.add("interconnect",
           scalar(stringifyChipInterconnect(mc.chip.interconnect)));
  chip.add("core_to_core_bandwidth", scalar(mc.chip.coreToCoreBandwidth));
  chip.add("external_memory", writeMemory(mc.chip.externalMemory, true));
  if (mc.chip.libraryTiling)
    chip.add("tiling", scalar(llvm::StringRef("library")));
  if (mc.chip.elementwiseKernels)
    chip.add("elementwise", scalar(llvm::StringRef("kernels")));
  if (mc.chip.megatronTensorParallel)
    chip.add("tensor_parallel", scalar(llvm::StringRef("megatron")));
  if (const std::optional<HostLinkSpec> &link = mc.chip.hostLink) {
    SpecNode &host = chip.add("host_link", SpecNode::mapping());
    host.add("bandwidth", scalar(link->bandwidthBytesPerSecond));
    host.add("memory", scalar(link->memoryBytes));
  }

  const CoreSpec &c = mc.chip.core;
  SpecNode &core = root.add("core", SpecNode::mapping());
  core.add("macs", scalar(c.macsPerCycle));
  SpecNode &array = core.add("pe_array", SpecNode::mapping());
  array.add("rows", scalar(c.peRows));
  array.add("columns", scalar(c.peColumns));
  core.add("scratchpad", writeMemory(c.scratchpad, false));
  core.add("sfu_ops_per_cycle", scalar(c.sfuOpsPerCycle));
  core.add("frequency", scalar(c.frequencyHz));
  core.add("precision", scalar(stringifyPrecision(c.precision)));
  if (c.matrixEfficiency != 1.0)
    core.add("matrix_efficiency", scalar(c.matrixEfficiency));
}

void writeMemoryHierarchy(const MemoryHierarchySystem &mh, SpecNode &root) {
  SpecNode &engines = root.add("engines", SpecNode::mapping());
  engines.add("count", scalar(mh.engines));
  engines.add("macs", scalar(mh.macsPerCycle));
  engines.add("frequency", scalar(mh.frequencyHz));
  engines.add("precision", scalar(stringifyPrecision(mh.precision)));
  engines.add("sram", writeMemory(mh.sram, true));
  root.add("llc", writeMemory(mh.llc, true));
  root.add("dram", writeMemory(mh.dram, true));
}

void writeDeviceGraph(const DeviceGraphSystem &dg, SpecNode &root) {
  SpecNode &devices = root.add("devices", SpecNode::sequence());
  for (const Device &device : dg.devices) {
    SpecNode node = SpecNode::mapping();
    node.add("id", scalar(device.id));
    node.add("name", scalar(llvm::StringRef(device.name)));
    node.add("type", scalar(stringifyDeviceType(device.type)));
    node.add("peak", scalar(device.peakFlops));
    node.add("memory", scalar(device.memoryBytes));
    if (device.memoryBandwidth > 0)
      node.add("memory_bandwidth", scalar(device.memoryBandwidth));
    if (device.clockHz > 0)
      node.add("clock", scalar(device.clockHz));
    devices.append(std::move(node));
  }
  SpecNode &links = root.add("links", SpecNode::sequence());
  for (const DeviceLink &link : dg.links) {
    SpecNode node = SpecNode::mapping();
    node.add("from", scalar(link.from));
    node.add("to", scalar(link.to));
    if (link.channel >= 0)
      node.add("channel", scalar(link.channel));
    node.add("bandwidth", scalar(link.bandwidthBytesPerSecond));
    node.add("efficiency", scalar(link.efficiency));
    links.append(std::move(node));
  }
}
} // namespace

SpecNode dsm::core::writeSystemDescription(const SystemDescription &system) {
  SpecNode root = SpecNode::mapping();
  root.add("name", scalar(llvm::StringRef(system.name)));
  if (!system.description.empty())
    root.add("description", scalar(llvm::StringRef(system.description)));
  root.add("kind", scalar(stringifySystemKind(system.getKind())));
  if (const auto *mc = system.getIf<MultiChipSystem>())
    writeMultiChip(*mc, root);
  else if (const auto *mh = system.getIf<MemoryHierarchySystem>())
    writeMemoryHierarchy(*mh, root);
  else if (const auto *dg = system.getIf<DeviceGraphSystem>())
    writeDeviceGraph(*dg, root);
  return root;
}
