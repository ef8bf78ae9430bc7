# -*- Python -*-
# lit configuration of the dsm-opt tests (dialect, passes, systems, models).

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "DSM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".yaml"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dsm_obj_root, "test")

config.substitutions.append(("%dsm_src_root", config.dsm_src_root))
config.substitutions.append(("%dsm_obj_root", config.dsm_obj_root))
config.substitutions.append(("%models", os.path.join(config.dsm_src_root, "models")))
config.substitutions.append(("%systems", os.path.join(config.dsm_src_root, "systems")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cmake", config.cmake_command))
# The Python package's directory under an install prefix (python/CMakeLists.txt).
config.substitutions.append(("%dsm_python_dir", config.dsm_python_install_dir))
config.substitutions.append(("%dsm_tools_dir", config.dsm_tools_dir))
config.substitutions.append(("%dsm_plugin", os.path.join(config.dsm_lib_dir, "DsmPlugin.so")))
config.substitutions.append(("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(("%core_include_flags", config.core_include_flags))

# Sanitized builds: libMLIR is not instrumented, so user poisoning (LLVM's
# allocators inlined into our code) must be off; every report is fatal.
# A real browser for the HTML report's screenshot test (scripts/install-deps.sh).
import shutil
if shutil.which("chromium"):
    config.available_features.add("chromium")
if config.dsm_onnx:
    config.available_features.add("onnx")
# The studies' figures (tools/dsm-bench/plot_studies.py): dsm-study is built
# with the benchmarks; matplotlib is optional (DSM_WITH_PLOTS=1
# scripts/install-deps.sh), and lit's own Python must import it.
if config.dsm_benchmarks:
    config.available_features.add("dsm-study")
# placement=ilp and the memory study's ILP line need GLPK (DSM_ENABLE_GLPK).
if config.dsm_glpk:
    config.available_features.add("glpk")
# placement=egrl and pg need libtorch (DSM_ENABLE_TORCH).
if config.dsm_torch:
    config.available_features.add("torch")
import subprocess
if subprocess.run([config.python_executable, "-c", "import matplotlib"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("matplotlib")
# The Python package's optional companions (test/Python): torch and
# torchvision for dsm.from_torch, jsonschema for the report schemas.
for feature, modules in (("python-torch", "torch, torchvision"),
                         ("python-jsonschema", "jsonschema")):
    if subprocess.run([config.python_executable, "-c", "import " + modules],
                      stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0:
        config.available_features.add(feature)
if config.sanitizers:
    # Uninstrumented tools (mlir-opt) cannot load instrumented plugins.
    config.available_features.add("sanitized")
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0:detect_leaks=1:abort_on_error=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    config.environment["LSAN_OPTIONS"] = "suppressions=" + os.path.join(
        config.test_source_root, "lsan.supp")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.dsm_tools_dir, config.llvm_tools_dir]
tools = [ToolSubst("dsm-opt", unresolved="fatal"),
         ToolSubst("dsm-translate", unresolved="fatal")]
if config.dsm_benchmarks:
    tools.append(ToolSubst("dsm-study", unresolved="fatal"))
    tools.append(ToolSubst("dsm-memory-study", unresolved="fatal"))
llvm_config.add_tool_substitutions(tools, tool_dirs)
