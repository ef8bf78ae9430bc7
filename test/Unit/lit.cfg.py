# -*- Python -*-
# Runs the GoogleTest unit tests of the core library (executables named
# *Tests in the build's bin directory), one lit test per gtest case.

import os

import lit.formats

config.name = "DSM-Unit"
config.suffixes = []
config.test_source_root = config.unit_test_dir
config.test_exec_root = config.unit_test_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")

# Sanitized builds: libMLIR is not instrumented, so user poisoning (LLVM's
# allocators inlined into our code) must be off; every report is fatal.
if config.sanitizers:
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0:detect_leaks=1:abort_on_error=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    config.environment["LSAN_OPTIONS"] = "suppressions=" + os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lsan.supp")
