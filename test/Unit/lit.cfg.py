# -*- Python -*-
# Runs the GoogleTest unit tests of the core library (executables named
# *Tests in the build's bin directory), one lit test per gtest case.

import lit.formats

config.name = "DSM-Unit"
config.suffixes = []
config.test_source_root = config.unit_test_dir
config.test_exec_root = config.unit_test_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")
