# lit configuration for spyre-mlir. Run: lit -v test/lit
import os
import shutil
import sys

import lit.formats

config.name = "spyre-mlir"
config.test_format = lit.formats.ShTest(execute_external=False)  # internal shell: `not` built in
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)

bindir = os.path.dirname(sys.executable)


def tool(name: str) -> str:
    path = os.path.join(bindir, name)
    if os.path.exists(path):
        return path
    found = shutil.which(name)
    if found is None:
        lit_config.fatal(f"cannot find '{name}'; install the project with its test extras")
    return found


# Tool names are matched as whole words; `%`-prefixed ones never collide with pass names.
config.substitutions.append(("%spyre-opt", tool("spyre-opt")))
config.substitutions.append(("%spyre-run", tool("spyre-run")))
config.substitutions.append(("%xdsl-opt", tool("xdsl-opt")))
config.substitutions.append(("%FileCheck", tool("filecheck")))
config.substitutions.append(("%python", sys.executable))
config.environment["PYTHONIOENCODING"] = "utf-8"
