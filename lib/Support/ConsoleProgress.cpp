//===- ConsoleProgress.cpp - A long run's line on the terminal ------------===//

#include "dsm/Core/Support/ConsoleProgress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>

using namespace dsm::core;

// Set from a signal handler: a lock-free atomic is async-signal-safe.
static std::atomic<bool> interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);
// Whether some ConsoleProgress holds LLVM's (single) interrupt function.
static std::atomic<bool> anyCatching{false};

static void onInterrupt() { interrupted.store(true); }

// Which signal interrupted (SIGINT or SIGTERM: a tool exits 128 + it).
// LLVM's interrupt function is not told, so a handler of our own records it
// and passes the signal on to the handler it replaced (LLVM's).
static std::atomic<int> interruptSignal{0};
static struct sigaction replacedInt, replacedTerm;

static void recordSignal(int signal, siginfo_t *info, void *context) {
  int expected = 0;
  interruptSignal.compare_exchange_strong(expected, signal);
  const struct sigaction &replaced =
      signal == SIGINT ? replacedInt : replacedTerm;
  if (replaced.sa_flags & SA_SIGINFO)
    replaced.sa_sigaction(signal, info, context);
  else if (replaced.sa_handler != SIG_DFL && replaced.sa_handler != SIG_IGN)
    replaced.sa_handler(signal);
}

static void catchSignalNumbers() {
  struct sigaction action = {};
  action.sa_sigaction = recordSignal;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &replacedInt);
  sigaction(SIGTERM, &action, &replacedTerm);
}

static void releaseSignalNumbers() {
  // Only if ours is still installed (LLVM's handler restores its own
  // predecessors when a signal arrives).
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) == 0 &&
      (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == recordSignal)
    sigaction(SIGINT, &replacedInt, nullptr);
  if (sigaction(SIGTERM, nullptr, &current) == 0 &&
      (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == recordSignal)
    sigaction(SIGTERM, &replacedTerm, nullptr);
}

static double steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ConsoleProgress::ConsoleProgress(std::string what, std::string bestName)
    : ConsoleProgress(std::move(what), std::move(bestName),
                      llvm::sys::Process::StandardErrIsDisplayed()
                          ? &llvm::errs()
                          : nullptr,
                      steadySeconds) {
  if (os)
    columns = llvm::sys::Process::StandardErrColumns();
  // After an interrupt the next one must kill, as LLVM's handler does.
  if (!interrupted.load() && !anyCatching.exchange(true)) {
    llvm::sys::SetInterruptFunction(onInterrupt);
    catchSignalNumbers();
    catching = true;
  }
}

ConsoleProgress::ConsoleProgress(std::string what, std::string bestName,
                                 llvm::raw_ostream *os, Clock clock)
    : what(std::move(what)), bestName(std::move(bestName)), os(os),
      clock(std::move(clock)) {
  start = lastDraw = this->clock();
}

ConsoleProgress::~ConsoleProgress() { finish(); }

void ConsoleProgress::finish() {
  if (os && drawnWidth > 0) {
    *os << '\r';
    os->indent(drawnWidth);
    *os << '\r';
    os->flush();
    drawnWidth = 0;
  }
  os = nullptr;
  if (catching) {
    // LLVM's handler: a later interrupt kills (after removing its files).
    releaseSignalNumbers();
    llvm::sys::SetInterruptFunction(nullptr);
    anyCatching.store(false);
    catching = false;
  }
}

bool ConsoleProgress::wasInterrupted() { return interrupted.load(); }

void ConsoleProgress::clearInterrupt() {
  interrupted.store(false);
  interruptSignal.store(0);
}

int ConsoleProgress::getInterruptSignal() {
  return interrupted.load() ? interruptSignal.load() : 0;
}

bool ConsoleProgress::shouldStop() { return interrupted.load(); }

std::string ConsoleProgress::formatLine(int64_t done, int64_t total,
                                        double best, double elapsed) const {
  std::string line;
  llvm::raw_string_ostream s(line);
  s << what << ": " << done << "/" << total;
  if (total > 0)
    s << " (" << done * 100 / total << "%)";
  if (!std::isnan(best)) {
    s << ", best ";
    if (!bestName.empty())
      s << bestName << " ";
    s << llvm::format("%.4g", best);
  }
  s << llvm::format(", %.1f s", elapsed);
  // The time left at the rate so far (a search's steps cost alike).
  if (done > 0 && done < total)
    s << llvm::format(", %.1f s left",
                      elapsed * double(total - done) / double(done));
  return line;
}

void ConsoleProgress::step(int64_t done, int64_t total, double best) {
  if (!os)
    return;
  double now = clock();
  if (now - lastDraw < kRedrawInterval)
    return;
  lastDraw = now;
  std::string line = formatLine(done, total, best, now - start);
  // A line wider than the terminal would wrap, and \r not return to it.
  if (columns > 1 && line.size() >= columns)
    line.resize(columns - 1);
  *os << '\r' << line;
  if (line.size() < drawnWidth)
    os->indent(drawnWidth - line.size());
  drawnWidth = std::max(drawnWidth, line.size());
  os->flush();
}
