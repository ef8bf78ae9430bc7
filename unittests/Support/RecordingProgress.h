//===- RecordingProgress.h - A recording, stopping Progress -----*- C++ -*-===//
//
// For the searches' tests: records every step reported and asks the search
// to stop once `stopAt` steps are done.
//
//===----------------------------------------------------------------------===//

#ifndef DSM_UNITTESTS_SUPPORT_RECORDINGPROGRESS_H
#define DSM_UNITTESTS_SUPPORT_RECORDINGPROGRESS_H

#include "dsm/Core/Support/Progress.h"

#include <gtest/gtest.h>

#include <vector>

namespace dsm::core::testing {

class RecordingProgress final : public Progress {
public:
  struct Step {
    int64_t done, total;
    double best;
  };

  explicit RecordingProgress(
      int64_t stopAt = std::numeric_limits<int64_t>::max())
      : stopAt(stopAt) {}

  void step(int64_t done, int64_t total, double best) override {
    steps.push_back({done, total, best});
  }
  bool shouldStop() override {
    ++stopQuestions;
    return !steps.empty() && steps.back().done >= stopAt;
  }

  /// `done` never decreases, `total` never changes, and the last step is at
  /// `lastDone` of `total`.
  void expectMonotoneUpTo(int64_t lastDone, int64_t total) const {
    ASSERT_FALSE(steps.empty());
    for (size_t i = 0; i < steps.size(); ++i) {
      EXPECT_EQ(steps[i].total, total) << "step " << i;
      if (i > 0) {
        EXPECT_GE(steps[i].done, steps[i - 1].done) << "step " << i;
      }
    }
    EXPECT_EQ(steps.back().done, lastDone);
  }

  std::vector<Step> steps;
  int64_t stopQuestions = 0;

private:
  int64_t stopAt;
};

} // namespace dsm::core::testing

#endif // DSM_UNITTESTS_SUPPORT_RECORDINGPROGRESS_H
