//===- ProcessGroup.h - A program run with a deadline -----------*- C++ -*-===//
//
// An external program (the memory placement's `evaluator=`) may start
// programs of its own: a shell script running a board's driver, a Python
// wrapper. Killing only the program at its deadline would leave those
// running, holding the board and the output files. So it runs as the leader
// of a process group of its own, and at the deadline the whole group is
// killed.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_PROCESSGROUP_H
#define DSM_CORE_SUPPORT_PROCESSGROUP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace dsm::core {

/// How a program run by runInProcessGroup ended.
struct ProcessOutcome {
  /// The program could not be started: `error` says why.
  bool started = false;
  /// The deadline passed; the group was killed.
  bool timedOut = false;
  /// The exit code, when it exited.
  int exitCode = 0;
  /// The signal that ended it (0 when it exited).
  int signal = 0;
  std::string error;
};

/// Runs `program` (a path) with `args` (argv, the program's name first) as
/// the leader of a new process group, standard input from /dev/null, its
/// output and errors into the files `outputPath` and `errorsPath`; waits at
/// most `timeoutSeconds` (0: no deadline). At the deadline every process of
/// the group (its children too, unless they left it) gets SIGKILL, and the
/// program is reaped before this returns. Thread-safe.
ProcessOutcome runInProcessGroup(llvm::StringRef program,
                                 llvm::ArrayRef<std::string> args,
                                 llvm::StringRef outputPath,
                                 llvm::StringRef errorsPath,
                                 unsigned timeoutSeconds);

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_PROCESSGROUP_H
