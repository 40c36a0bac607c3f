# -*- Python -*-
# The lit configuration of tilec's regression tests.

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILEC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".tile", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Unit", "Inputs", "gpu", "utils", "fuzz"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", sys.executable))
# `%expect_exit 2 tilec ...`: the command must exit with exactly that status.
config.substitutions.append(("%expect_exit", sys.executable + " " + os.path.join(os.path.dirname(__file__), "utils", "expect_exit.py")))
config.substitutions.append(("%tilec_src_root", config.tilec_src_root))
config.substitutions.append(("%tilec_obj_root", config.tilec_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tilec_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("tilec", unresolved="fatal"),
    ToolSubst("tilec-opt", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.tilec_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Sanitizer builds let the sanitizers report crashes; release builds turn
# them into internal errors.
if config.tilec_sanitize:
    config.available_features.add("sanitizers")
else:
    config.available_features.add("crash-recovery")

# Builds with -DTILEC_BUILD_FUZZER=ON have the libFuzzer harness.
if config.tilec_build_fuzzer:
    config.available_features.add("fuzzer")
    llvm_config.add_tool_substitutions([ToolSubst("tilec-fuzz", unresolved="fatal")], tool_dirs)

# The host target's programs are built with the C++ compiler on the PATH.
import shutil
if shutil.which("c++"):
    config.available_features.add("host-cxx")

# Tools the device-code tests use when the machine has them: ptxas from the
# CUDA toolkit (tilec's default, or $CUDA_PATH), and the ROCm device
# libraries beside the tilec binary.
cuda_path = os.environ.get("CUDA_PATH", "/usr/local/cuda")
ptxas = os.path.join(cuda_path, "bin", "ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.substitutions.append(("%cuda_path", cuda_path))
    config.substitutions.append(("%cuda_include", os.path.join(cuda_path, "include")))
rocm_bitcode = os.path.join(config.tilec_obj_root, "lib", "tilec", "rocm", "amdgcn", "bitcode", "ocml.bc")
if os.path.exists(rocm_bitcode):
    config.available_features.add("rocm")
# Debian's HIP headers, to compile the headers of AMD targets against.
if os.path.exists("/usr/include/hip/hip_runtime_api.h") and shutil.which("cc"):
    config.available_features.add("hip")

# Device files for the tests of special outputs: mknod needs privileges.
import stat
import tempfile
with tempfile.TemporaryDirectory() as scratch:
    try:
        device = os.path.join(scratch, "null")
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        # A file system mounted nodev refuses to open it.
        with open(device, "wb") as null:
            null.write(b"x")
        config.available_features.add("mknod")
    except OSError:
        pass
# Permissions bind only users other than root.
if hasattr(os, "geteuid") and os.geteuid() != 0:
    config.available_features.add("non-root")
