//===- ConsoleProgress.h - A long run's line on the terminal ----*- C++ -*-===//
//
// The Progress a tool hands the core for a long run. When stderr is a
// terminal it redraws one line there, at most ten times a second: what runs,
// steps done of the total, the best so far, the time elapsed; the line is
// cleared when the run ends. When stderr is not a terminal (tests, CI, pipes)
// it prints nothing, so output stays byte-identical.
//
// For its lifetime, the first interrupt (Ctrl-C; also SIGTERM, SIGHUP) asks
// the run to stop at its next iteration boundary instead of killing the
// process, through LLVM's one-shot interrupt function: the signal handler
// only sets an atomic flag, and LLVM's handler also removes the files
// registered with RemoveFileOnSignal (a tool's partial output), which is
// right since an interrupted run fails and writes nothing. LLVM then
// uninstalls its handlers, so a second interrupt kills the process as usual.
// Once interrupted, the process stays interrupted: every later run stops at
// once, and no later ConsoleProgress catches another interrupt.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_CONSOLEPROGRESS_H
#define DSM_CORE_SUPPORT_CONSOLEPROGRESS_H

#include "dsm/Core/Support/Progress.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace dsm::core {

class ConsoleProgress final : public Progress {
public:
  /// Seconds since some fixed point.
  using Clock = std::function<double()>;

  /// For tools: `what` names the run ("ea placement of @main"), `bestName`
  /// the objective shown as best ("speedup"); draws on stderr only when it
  /// is a terminal, and catches the first interrupt.
  ConsoleProgress(std::string what, std::string bestName);
  /// For tests: draws on `os` (nowhere when null) with `clock`, and leaves
  /// the signals alone.
  ConsoleProgress(std::string what, std::string bestName, llvm::raw_ostream *os,
                  Clock clock);
  /// Calls finish().
  ~ConsoleProgress() override;

  /// Clears the line (call it before reporting how the run ended) and gives
  /// interrupts back to LLVM's default handling. Idempotent.
  void finish();

  ConsoleProgress(const ConsoleProgress &) = delete;
  ConsoleProgress &operator=(const ConsoleProgress &) = delete;

  void step(int64_t done, int64_t total, double best) override;
  /// True once the process was interrupted (by this or an earlier run).
  bool shouldStop() override;

  /// Whether an interrupt arrived, in this process, while a ConsoleProgress
  /// was catching them.
  static bool wasInterrupted();
  /// The signal that interrupted (SIGINT, SIGTERM; 0 when none did or it
  /// is unknown): a tool exits with 128 + it, as a shell reports a signal.
  static int getInterruptSignal();
  /// Forgets an interrupt, so that the next run may catch one: for a
  /// library that runs many jobs in one process (the C API), never while a
  /// ConsoleProgress lives.
  static void clearInterrupt();

  /// The line as drawn: "<what>: <done>/<total> (<pct>%), best <bestName>
  /// <best>, <elapsed> s, <eta> s left" (no best part while there is none,
  /// no time left before the first step or after the last).
  std::string formatLine(int64_t done, int64_t total, double best,
                         double elapsed) const;

  /// Seconds between redraws at least.
  static constexpr double kRedrawInterval = 0.1;

private:
  std::string what, bestName;
  llvm::raw_ostream *os;
  Clock clock;
  double start, lastDraw;
  size_t drawnWidth = 0;
  /// The terminal's width (0: unknown, no limit).
  size_t columns = 0;
  bool catching = false;
};

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_CONSOLEPROGRESS_H
