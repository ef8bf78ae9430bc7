//===- BoundedFile.h - Every file a reader reads, with a limit --*- C++ -*-===//
//
// Every reader of the project's inputs (system files, models for dsm-opt and
// the importers, strategy files, study results) reads through here, so that
// no input is read without end: `/dev/zero` given as a file was read until
// the process ran out of memory. The rule:
//   - a character or block device (other than a terminal) is refused before
//     anything is read: it is not a file, and /dev/zero never ends;
//   - a regular file larger than the limit is refused before it is read;
//   - anything else (standard input, a FIFO, a terminal) is read until it
//     ends or passes the limit, and refused then.
// The limit is kMaxInputBytes (2 GiB) unless a reader asks for less. Errors
// that come from opening or reading the file (no such file, permission)
// keep their std::error_code, so callers word them as before.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_BOUNDEDFILE_H
#define DSM_CORE_SUPPORT_BOUNDEDFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>

namespace dsm::core {

/// The most any input may hold: 2 GiB (an ONNX protobuf cannot be larger).
constexpr uint64_t kMaxInputBytes = uint64_t(2) << 30;

/// Reads `path` ("-": standard input) whole, as
/// llvm::MemoryBuffer::getFileOrSTDIN does, never past `limit` bytes (see
/// the file comment). The buffer is null-terminated unless
/// `requiresNullTerminator` is false. A refused input is an error whose
/// message says why ("it is a device, not a file ..."), without the path:
/// callers name the file as their messages do.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readBoundedFile(llvm::StringRef path, bool isText = true,
                bool requiresNullTerminator = true,
                uint64_t limit = kMaxInputBytes);

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_BOUNDEDFILE_H
