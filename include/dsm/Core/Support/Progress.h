//===- Progress.h - What a search reports, and when it stops ----*- C++ -*-===//
//
// The core never prints and never handles signals: a long search (memory and
// device placement, the spatial mapper's explorations) reports its steps to
// the Progress its caller handed it, and asks it at every iteration boundary
// whether to stop. A search told to stop returns the best it has so far,
// marked as interrupted. The default, Progress::none(), reports nowhere and
// never stops, so library users and unit tests pay nothing; a tool hands the
// core a ConsoleProgress (ConsoleProgress.h). Reporting changes nothing the
// search computes: not its iterations, not its random draws.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_CORE_SUPPORT_PROGRESS_H
#define DSM_CORE_SUPPORT_PROGRESS_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <limits>

namespace dsm::core {

class Progress {
public:
  virtual ~Progress();

  /// `done` of `total` steps of the run are finished; `best` is the best
  /// objective so far (NaN when there is none yet). Calls come from one
  /// thread at a time, `done` never decreases, and a run that is not
  /// interrupted ends with done == total.
  virtual void step(int64_t done, int64_t total, double best) {}
  /// Whether the run should stop at its next iteration boundary.
  virtual bool shouldStop() { return false; }

  /// The sink that reports nowhere and never stops: every search's default.
  static Progress &none();

  static constexpr double kNoBest = std::numeric_limits<double>::quiet_NaN();
};

/// A time budget: passes every step on to `inner`, and stops the run when
/// `inner` says so or when `seconds` of wall-clock time have passed since
/// construction (0 or less: no limit). The deadline is asked only at
/// iteration boundaries, so a run ends within one iteration of it; the
/// iterations done before it are the same as without a budget.
class DeadlineProgress final : public Progress {
public:
  DeadlineProgress(Progress &inner, double seconds);

  void step(int64_t done, int64_t total, double best) override {
    inner.step(done, total, best);
  }
  bool shouldStop() override;
  /// Whether the run was stopped by the deadline.
  bool expired() const { return reached; }

private:
  Progress &inner;
  double seconds, start;
  bool reached = false;
};

/// A run that produces nothing without all its steps (the spatial mapper's
/// plan) fails with this when told to stop: "interrupted after <done> of
/// <total> <unit>".
class InterruptedError : public llvm::ErrorInfo<InterruptedError> {
public:
  static char ID;

  InterruptedError(int64_t done, int64_t total, llvm::StringRef unit)
      : done(done), total(total), unit(unit.str()) {}

  int64_t getDone() const { return done; }
  int64_t getTotal() const { return total; }

  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  int64_t done, total;
  std::string unit;
};

} // namespace dsm::core

#endif // DSM_CORE_SUPPORT_PROGRESS_H
