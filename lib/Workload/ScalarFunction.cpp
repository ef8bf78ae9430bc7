//===- ScalarFunction.cpp - The scalar body of an elementwise op ----------===//

#include "dsm/Core/Workload/ScalarFunction.h"

#include <algorithm>
#include <cmath>

using namespace dsm::core;

int ScalarFunction::input(unsigned index) {
  Node node{ScalarOpcode::Input, {}, 0, index, {}};
  nodes.push_back(std::move(node));
  numInputs = std::max(numInputs, index + 1);
  return int(nodes.size()) - 1;
}

int ScalarFunction::constant(double value) {
  Node node{ScalarOpcode::Constant, {}, value, 0, {}};
  nodes.push_back(std::move(node));
  return int(nodes.size()) - 1;
}

int ScalarFunction::operation(ScalarOpcode opcode, llvm::ArrayRef<int> args,
                              llvm::StringRef name) {
  Node node{opcode, llvm::SmallVector<int, 3>(args), 0, 0, name.str()};
  nodes.push_back(std::move(node));
  return int(nodes.size()) - 1;
}

static std::optional<double> apply(ScalarOpcode opcode,
                                   llvm::ArrayRef<double> a) {
  switch (opcode) {
  case ScalarOpcode::Convert:
    return a[0];
  case ScalarOpcode::TruncateToF32:
    return double(float(a[0]));
  case ScalarOpcode::Neg:
    return -a[0];
  case ScalarOpcode::Abs:
    return std::fabs(a[0]);
  case ScalarOpcode::Exp:
    return std::exp(a[0]);
  case ScalarOpcode::Log:
    return std::log(a[0]);
  case ScalarOpcode::Sqrt:
    return std::sqrt(a[0]);
  case ScalarOpcode::Rsqrt:
    return 1.0 / std::sqrt(a[0]);
  case ScalarOpcode::Reciprocal:
    return 1.0 / a[0];
  case ScalarOpcode::Tanh:
    return std::tanh(a[0]);
  case ScalarOpcode::Erf:
    return std::erf(a[0]);
  case ScalarOpcode::Sigmoid:
    return 1.0 / (1.0 + std::exp(-a[0]));
  case ScalarOpcode::Floor:
    return std::floor(a[0]);
  case ScalarOpcode::Ceil:
    return std::ceil(a[0]);
  case ScalarOpcode::Round:
    return std::round(a[0]);
  case ScalarOpcode::Add:
    return a[0] + a[1];
  case ScalarOpcode::Sub:
    return a[0] - a[1];
  case ScalarOpcode::Mul:
    return a[0] * a[1];
  case ScalarOpcode::Div:
    return a[0] / a[1];
  case ScalarOpcode::Max:
    return std::max(a[0], a[1]);
  case ScalarOpcode::Min:
    return std::min(a[0], a[1]);
  case ScalarOpcode::Pow:
    return std::pow(a[0], a[1]);
  case ScalarOpcode::CmpLT:
    return a[0] < a[1] ? 1.0 : 0.0;
  case ScalarOpcode::CmpLE:
    return a[0] <= a[1] ? 1.0 : 0.0;
  case ScalarOpcode::CmpGT:
    return a[0] > a[1] ? 1.0 : 0.0;
  case ScalarOpcode::CmpGE:
    return a[0] >= a[1] ? 1.0 : 0.0;
  case ScalarOpcode::CmpEQ:
    return a[0] == a[1] ? 1.0 : 0.0;
  case ScalarOpcode::CmpNE:
    return a[0] != a[1] ? 1.0 : 0.0;
  case ScalarOpcode::Select:
    return a[0] != 0.0 ? a[1] : a[2];
  case ScalarOpcode::Input:
  case ScalarOpcode::Constant:
  case ScalarOpcode::Unknown:
    break;
  }
  return std::nullopt;
}

std::optional<double>
ScalarFunction::evaluate(llvm::ArrayRef<double> inputs) const {
  if (result < 0)
    return std::nullopt;
  std::vector<bool> needed = live();
  std::vector<double> values(nodes.size(), 0.0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!needed[i])
      continue;
    const Node &node = nodes[i];
    if (node.opcode == ScalarOpcode::Input) {
      if (node.index >= inputs.size())
        return std::nullopt;
      values[i] = inputs[node.index];
      continue;
    }
    if (node.opcode == ScalarOpcode::Constant) {
      values[i] = node.value;
      continue;
    }
    llvm::SmallVector<double, 3> args;
    for (int arg : node.args)
      args.push_back(values[arg]);
    size_t arity = node.opcode == ScalarOpcode::Select ? 3
                   : node.opcode >= ScalarOpcode::Add  ? 2
                                                       : 1;
    if (node.opcode == ScalarOpcode::Unknown || args.size() != arity)
      return std::nullopt;
    std::optional<double> value = apply(node.opcode, args);
    if (!value)
      return std::nullopt;
    values[i] = *value;
  }
  return values[result];
}

std::vector<bool> ScalarFunction::live() const {
  std::vector<bool> needed(nodes.size(), false);
  if (result < 0)
    return needed;
  needed[result] = true;
  for (size_t i = nodes.size(); i-- > 0;)
    if (needed[i])
      for (int arg : nodes[i].args)
        needed[arg] = true;
  return needed;
}

unsigned ScalarFunction::countOperations() const {
  std::vector<bool> needed = live();
  unsigned count = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!needed[i])
      continue;
    switch (nodes[i].opcode) {
    case ScalarOpcode::Input:
    case ScalarOpcode::Constant:
    case ScalarOpcode::Convert:
    case ScalarOpcode::TruncateToF32:
      break;
    default:
      ++count;
    }
  }
  return count;
}

bool ScalarFunction::dependsOn(unsigned index) const {
  std::vector<bool> needed = live();
  for (size_t i = 0; i < nodes.size(); ++i)
    if (needed[i] && nodes[i].opcode == ScalarOpcode::Input &&
        nodes[i].index == index)
      return true;
  return false;
}

void ScalarFunction::substitute(unsigned index, const ScalarFunction &other,
                                llvm::ArrayRef<unsigned> otherInputs) {
  std::vector<Node> merged;
  merged.reserve(nodes.size() + other.nodes.size());
  unsigned inputs = numInputs;
  // The producer's nodes first, so that every reference points backwards.
  for (const Node &node : other.nodes) {
    Node copy = node;
    if (copy.opcode == ScalarOpcode::Input) {
      copy.index = copy.index < otherInputs.size() ? otherInputs[copy.index]
                                                   : copy.index;
      inputs = std::max(inputs, copy.index + 1);
    }
    merged.push_back(std::move(copy));
  }
  int otherResult = other.result;
  std::vector<int> remap(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node &node = nodes[i];
    if (node.opcode == ScalarOpcode::Input && node.index == index &&
        otherResult >= 0) {
      remap[i] = otherResult;
      continue;
    }
    Node copy = node;
    for (int &arg : copy.args)
      arg = remap[arg];
    merged.push_back(std::move(copy));
    remap[i] = int(merged.size()) - 1;
  }
  if (result >= 0)
    result = remap[result];
  nodes = std::move(merged);
  numInputs = inputs;
}

void ScalarFunction::bind(unsigned index, double value) {
  for (Node &node : nodes)
    if (node.opcode == ScalarOpcode::Input && node.index == index) {
      node.opcode = ScalarOpcode::Constant;
      node.value = value;
    }
}

llvm::SmallVector<std::string> ScalarFunction::getUnknownNames() const {
  std::vector<bool> needed = live();
  llvm::SmallVector<std::string> names;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (needed[i] && nodes[i].opcode == ScalarOpcode::Unknown &&
        !llvm::is_contained(names, nodes[i].name))
      names.push_back(nodes[i].name);
  return names;
}
