//===- ConsoleProgressTest.cpp - The terminal line and interrupts ---------===//

#include "dsm/Core/Support/ConsoleProgress.h"

#include <gtest/gtest.h>

#include <csignal>

using namespace dsm::core;

namespace {

TEST(ConsoleProgressTest, LineSaysWhatRunsHowFarTheBestTheTimeAndWhatIsLeft) {
  ConsoleProgress progress("ea memory placement of @main", "speedup", nullptr,
                           [] { return 0.0; });
  EXPECT_EQ(progress.formatLine(1200, 4000, 1.8734, 12.34),
            "ea memory placement of @main: 1200/4000 (30%), best speedup "
            "1.873, 12.3 s, 28.8 s left");
  // No best yet: no best part; no name: the value alone.
  EXPECT_EQ(progress.formatLine(0, 4000, Progress::kNoBest, 0),
            "ea memory placement of @main: 0/4000 (0%), 0.0 s");
  ConsoleProgress unnamed("ga", "", nullptr, [] { return 0.0; });
  EXPECT_EQ(unnamed.formatLine(5, 5, 0.25, 1), "ga: 5/5 (100%), best 0.25, "
                                               "1.0 s");
}

TEST(ConsoleProgressTest, RedrawsAtMostTenTimesASecondAndClearsAtTheEnd) {
  std::string drawn;
  llvm::raw_string_ostream os(drawn);
  // Times in binary fractions, so the intervals are exact.
  double now = 100.0;
  {
    ConsoleProgress progress("run", "", &os, [&] { return now; });
    // Within the first 0.1 s nothing is drawn: short runs stay silent.
    progress.step(1, 10, Progress::kNoBest);
    now += 0.0625;
    progress.step(2, 10, Progress::kNoBest);
    EXPECT_EQ(drawn, "");
    now += 0.0625;
    progress.step(3, 10, 2.0);
    EXPECT_EQ(drawn, "\rrun: 3/10 (30%), best 2, 0.1 s, 0.3 s left");
    // Steps within 0.1 s of the last drawing are not drawn.
    now += 0.0625;
    progress.step(4, 10, 1.5);
    EXPECT_EQ(drawn, "\rrun: 3/10 (30%), best 2, 0.1 s, 0.3 s left");
    drawn.clear();
    now += 1.0;
    // A shorter line blanks what is left of the longer one.
    progress.step(5, 10, Progress::kNoBest);
    EXPECT_EQ(drawn,
              "\rrun: 5/10 (50%), 1.2 s, 1.2 s left" + std::string(8, ' '));
    drawn.clear();
  }
  EXPECT_EQ(drawn, "\r" + std::string(42, ' ') + "\r");
}

TEST(ConsoleProgressTest, NothingIsDrawnWithoutAStream) {
  double now = 0;
  ConsoleProgress progress("run", "", nullptr, [&] { return now; });
  for (int i = 1; i <= 10; ++i) {
    now += 1;
    progress.step(i, 10, 1.0);
  }
  EXPECT_FALSE(progress.shouldStop());
}

TEST(ConsoleProgressTest, FirstInterruptAsksToStop) {
  ASSERT_FALSE(ConsoleProgress::wasInterrupted());
  {
    ConsoleProgress progress("run", "");
    EXPECT_FALSE(progress.shouldStop());
    std::raise(SIGINT);
    EXPECT_TRUE(progress.shouldStop());
  }
  // The process stays interrupted: later runs stop at once.
  EXPECT_TRUE(ConsoleProgress::wasInterrupted());
  ConsoleProgress later("later", "");
  EXPECT_TRUE(later.shouldStop());
}

} // namespace
