//===- ProcessGroup.cpp - A program run with a deadline -------------------===//
//
// posix_spawn with POSIX_SPAWN_SETPGROUP makes the program a group leader
// before it runs a single instruction (no window in which a child could be
// started outside the group). The wait uses a pidfd where the kernel has
// one (Linux 5.3), so the deadline costs no polling; elsewhere waitpid is
// polled every few milliseconds.
//
//===----------------------------------------------------------------------===//

#include "dsm/Core/Support/ProcessGroup.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace dsm::core;

namespace {
using Clock = std::chrono::steady_clock;

/// Reaps `pid` if it has ended: its wait status, or -1 while it runs.
int tryReap(pid_t pid) {
  int status = 0;
  pid_t done;
  do
    done = ::waitpid(pid, &status, WNOHANG);
  while (done < 0 && errno == EINTR);
  return done == pid ? status : -1;
}

/// Waits until `pid` ends or `deadline` passes: its wait status, or -1 at
/// the deadline (the program still running).
int waitUntil(pid_t pid, Clock::time_point deadline) {
#ifdef SYS_pidfd_open
  int pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    int status = -1;
    while ((status = tryReap(pid)) < 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - Clock::now());
      if (left.count() <= 0)
        break;
      struct pollfd readable = {pidfd, POLLIN, 0};
      (void)::poll(&readable, 1, int(std::min<int64_t>(left.count(), 1000)));
    }
    ::close(pidfd);
    return status;
  }
#endif
  auto pause = std::chrono::milliseconds(1);
  int status;
  while ((status = tryReap(pid)) < 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  return status;
}
} // namespace

ProcessOutcome dsm::core::runInProcessGroup(llvm::StringRef program,
                                            llvm::ArrayRef<std::string> args,
                                            llvm::StringRef outputPath,
                                            llvm::StringRef errorsPath,
                                            unsigned timeoutSeconds) {
  ProcessOutcome outcome;
  std::string path = program.str(), output = outputPath.str(),
              errors = errorsPath.str();
  std::vector<char *> argv;
  for (const std::string &arg : args)
    argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);

  posix_spawn_file_actions_t files;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&files);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, output.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&files, 2, errors.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  // A group of its own, no signal blocked, SIGPIPE as programs expect it.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP |
                                            POSIX_SPAWN_SETSIGMASK |
                                            POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  int error = ::posix_spawn(&pid, path.c_str(), &files, &attributes,
                            argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    outcome.error = std::strerror(error);
    return outcome;
  }
  outcome.started = true;

  Clock::time_point deadline =
      timeoutSeconds == 0 ? Clock::time_point::max()
                          : Clock::now() + std::chrono::seconds(timeoutSeconds);
  int status = waitUntil(pid, deadline);
  if (status < 0) {
    outcome.timedOut = true;
    // The group is the program's pid: everything it started, too.
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return outcome;
  }
  if (WIFEXITED(status))
    outcome.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    outcome.signal = WTERMSIG(status);
  return outcome;
}
