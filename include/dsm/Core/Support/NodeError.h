//===- NodeError.h - A core error about one node of a graph -----*- C++ -*-===//
//
// Core algorithms work on graphs of plain structs keyed by integer ids (a
// layer, an operation, a tensor's producer). When the input is impossible at
// one node, they return a NodeError carrying that id; the pass that built the
// graph maps the id back to its operation and emits the diagnostic there. No
// caller ever searches message text to find where an error belongs.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_NODEERROR_H
#define DSM_CORE_SUPPORT_NODEERROR_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace dsm::core {

class NodeError : public llvm::ErrorInfo<NodeError> {
public:
  static char ID;

  NodeError(int64_t node, std::string message)
      : node(node), message(std::move(message)) {}

  /// The id of the node in the graph the algorithm was given.
  int64_t getNode() const { return node; }
  /// The message, without any location: the caller adds that.
  const std::string &getMessage() const { return message; }

  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  int64_t node;
  std::string message;
};

/// Convenience: `return makeNodeError(i, "needs ", n, " bytes");`
template <typename... Parts>
llvm::Error makeNodeError(int64_t node, const Parts &...parts) {
  std::string message;
  llvm::raw_string_ostream os(message);
  (os << ... << parts);
  return llvm::make_error<NodeError>(node, std::move(message));
}

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_NODEERROR_H
