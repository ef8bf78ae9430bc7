//===- WorkloadSummary.cpp - Per-layer and total workload of a model ------===//

#include "dsm/Core/Workload/WorkloadSummary.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cstring>
#include <string>

using namespace dsm::core;

bool dsm::core::isDepthwise(const Workload &w) {
  return w.kind == OpKind::Convolution && w.groups > 1 &&
         w.groups == w.get(Dim::In);
}

void WorkloadSummary::computeTotals() {
  totals = WorkloadTotals();
  CheckedCount count;
  for (const LayerRecord &layer : layers) {
    const Workload &w = layer.workload;
    count.overflow |= w.overflow;
    totals.macs = count.add(totals.macs, w.macs);
    totals.params = count.add(totals.params, layer.newParams);
    totals.auxOps += w.auxOps;
    totals.weightBytes = count.add(totals.weightBytes, w.weightBytes);
    if (w.kind != OpKind::Reshape)
      totals.activationBytes = count.add(totals.activationBytes, w.outputBytes);
    switch (w.kind) {
    case OpKind::Convolution:
      ++totals.convLayers;
      totals.depthwiseConvLayers += isDepthwise(w);
      break;
    case OpKind::FullyConnected:
      ++totals.fcLayers;
      break;
    case OpKind::MatMul:
      ++totals.matmulLayers;
      break;
    case OpKind::Lstm:
      ++totals.lstmLayers;
      break;
    default:
      break;
    }
  }
  totals.overflow = count.overflow;
}

/// 1234567 -> "1,234,567": the papers' totals are compared digit by digit.
static std::string grouped(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string result;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      result += ',';
    result += digits[i];
  }
  return value < 0 ? "-" + result : result;
}

void dsm::core::printWorkloadTable(const WorkloadSummary &summary,
                                   llvm::raw_ostream &os) {
  // The name and kind columns are as wide as their longest entry (BERT's
  // layer names are long); the numbers right-aligned under their headings.
  size_t nameWidth = std::strlen("layer"), kindWidth = std::strlen("kind");
  for (const LayerRecord &layer : summary.layers) {
    nameWidth = std::max(nameWidth, layer.name.size());
    kindWidth =
        std::max(kindWidth, stringifyOpKind(layer.workload.kind).size());
  }
  auto row = [&](llvm::StringRef name, llvm::StringRef kind,
                 llvm::ArrayRef<std::string> numbers) {
    static constexpr size_t kWidths[] = {6, 6, 8, 4, 6, 18, 14, 14};
    os << llvm::left_justify(name, nameWidth) << " "
       << llvm::left_justify(kind, kindWidth);
    for (auto [number, width] : llvm::zip_equal(numbers, kWidths))
      os << " " << llvm::right_justify(number, width);
    os << "\n";
  };
  row("layer", "kind",
      {"in", "out", "ij", "kij", "mb", "MACs", "params", "out bytes"});
  for (const LayerRecord &layer : summary.layers) {
    const Workload &w = layer.workload;
    row(layer.name, stringifyOpKind(w.kind),
        {std::to_string(w.get(Dim::In)), std::to_string(w.get(Dim::Out)),
         std::to_string(w.get(Dim::IJ)), std::to_string(w.get(Dim::KIJ)),
         std::to_string(w.get(Dim::MB)), grouped(w.macs),
         grouped(layer.newParams), grouped(w.outputBytes)});
  }
  const WorkloadTotals &t = summary.totals;
  os << "\ntotals: " << grouped(t.macs) << " MACs, " << grouped(t.params)
     << " parameters, " << t.convLayers << " conv (" << t.depthwiseConvLayers
     << " depthwise), " << t.fcLayers << " fc, " << t.matmulLayers
     << " matmul, " << t.lstmLayers << " lstm layers, "
     << grouped(t.activationBytes) << " activation bytes, "
     << grouped(int64_t(t.auxOps)) << " auxiliary ops\n";
}

/// One layer as a small JSON object (keys print sorted).
static llvm::json::Object layerObject(const LayerRecord &layer) {
  const Workload &w = layer.workload;
  return llvm::json::Object{
      {"name", layer.name},
      {"op", layer.op},
      {"kind", stringifyOpKind(w.kind)},
      {"class", w.isPrimary() ? "primary"
                : w.getComputeClass() == ComputeClass::Auxiliary
                    ? "auxiliary"
                    : "data_movement"},
      {"dims", llvm::json::Object{{"in", w.get(Dim::In)},
                                  {"out", w.get(Dim::Out)},
                                  {"ij", w.get(Dim::IJ)},
                                  {"kij", w.get(Dim::KIJ)},
                                  {"mb", w.get(Dim::MB)}}},
      {"stride", llvm::json::Array{w.strideI, w.strideJ}},
      {"timesteps", w.timesteps},
      {"groups", w.groups},
      {"macs", w.macs},
      {"aux_ops", w.auxOps},
      {"params", layer.newParams},
      {"input_bytes", w.inputBytes},
      {"weight_bytes", w.weightBytes},
      {"output_bytes", w.outputBytes},
  };
}

void dsm::core::writeWorkloadJSON(const WorkloadSummary &summary,
                                  llvm::raw_ostream &os) {
  // Streamed layer by layer; top-level keys in sorted order.
  llvm::json::OStream json(os, /*IndentSize=*/2);
  const WorkloadTotals &t = summary.totals;
  json.object([&] {
    json.attributeArray("layers", [&] {
      for (const LayerRecord &layer : summary.layers)
        json.value(layerObject(layer));
    });
    // The report's contract and its version (docs/workload-report.md).
    json.attribute("schema", "dsm.workload-report/1");
    json.attribute("totals",
                   llvm::json::Object{
                       {"macs", t.macs},
                       {"params", t.params},
                       {"aux_ops", t.auxOps},
                       {"conv_layers", t.convLayers},
                       {"depthwise_conv_layers", t.depthwiseConvLayers},
                       {"fc_layers", t.fcLayers},
                       {"matmul_layers", t.matmulLayers},
                       {"lstm_layers", t.lstmLayers},
                       {"activation_bytes", t.activationBytes},
                       {"weight_bytes", t.weightBytes},
                   });
  });
  os << "\n";
}
