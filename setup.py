"""setuptools glue for pip: builds tensorplay._C with CMake, so the extension is compiled with
exactly the flags of the CMake build (python/CMakeLists.txt), and reads the version from
include/tensorplay/config.hpp, its one source of truth. Metadata lives in pyproject.toml.

The module is configured with CMakePresets.json's "release" preset (g++, Release, the options
CI tests), overriding only the build directory, the interpreter and which parts are built.

Knobs (environment): CMAKE_BUILD_PARALLEL_LEVEL (default 2 jobs), TENSORPLAY_CMAKE_PRESET
(default release; empty: no preset), CMAKE_BUILD_TYPE (overrides the preset's), CMAKE_GENERATOR
(default Ninja when found), CMAKE_ARGS (extra configure arguments, e.g.
"-DTENSORPLAY_USE_BLAS=ON"), TENSORPLAY_CMAKE_BUILD_DIR (package the module of an existing CMake
build tree, e.g. build/release, instead of configuring one).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

ROOT = Path(__file__).resolve().parent


def read_version():
    text = (ROOT / "include" / "tensorplay" / "config.hpp").read_text()
    parts = [re.search(rf"^#define TENSORPLAY_VERSION_{k} (\d+)", text, re.M) for k in
             ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        raise RuntimeError("TENSORPLAY_VERSION_MAJOR/MINOR/PATCH not found in config.hpp")
    return ".".join(m.group(1) for m in parts)


class CMakeExtension(Extension):
    """An extension whose sources CMake knows; setuptools only places the result."""

    def __init__(self, name, target):
        super().__init__(name, sources=[])
        self.target = target


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not isinstance(ext, CMakeExtension):
            return super().build_extension(ext)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(self.parallel or 2)
        reuse = os.environ.get("TENSORPLAY_CMAKE_BUILD_DIR")
        if reuse:
            # Package the module of an existing CMake build tree configured with
            # TENSORPLAY_BUILD_PYTHON=ON (e.g. build/release): no second compile, its flags.
            build_dir = Path(reuse).resolve()
        else:
            # One stable build tree per interpreter, setuptools' own build_temp name, for
            # `pip install .`, `pip wheel .` and `pip install -e .` alike (an editable build
            # would otherwise compile everything again in a throwaway directory).
            tag = f"temp.{sysconfig.get_platform()}-{sys.implementation.cache_tag}"
            build_dir = ROOT / "build" / tag / "cmake"
            self._drop_stale_cache(build_dir)
            build_dir.mkdir(parents=True, exist_ok=True)
            # The configure preset the CMake build tests (compiler, build type, options), with
            # only the module built and this interpreter's headers.
            preset = os.environ.get("TENSORPLAY_CMAKE_PRESET", "release")
            use_preset = bool(preset) and (ROOT / "CMakePresets.json").exists()
            args = [f"--preset={preset}"] if use_preset else []
            if "CMAKE_BUILD_TYPE" in os.environ or self.debug or not use_preset:
                config = os.environ.get("CMAKE_BUILD_TYPE", "Debug" if self.debug else "Release")
                args.append(f"-DCMAKE_BUILD_TYPE={config}")
            args += [
                f"-DPython_EXECUTABLE={sys.executable}",
                "-DTENSORPLAY_BUILD_PYTHON=ON",
                "-DTENSORPLAY_BUILD_TESTS=OFF",
                "-DTENSORPLAY_BUILD_EXAMPLES=OFF",
                "-DTENSORPLAY_BUILD_BENCHMARKS=OFF",
                # The module does not use the Vulkan backend yet: no Vulkan headers needed.
                "-DTENSORPLAY_USE_VULKAN=OFF",
            ]
            if "CMAKE_GENERATOR" not in os.environ and not shutil.which("ninja"):
                args.append("-GUnix Makefiles")  # the preset's Ninja is not installed
            elif "CMAKE_GENERATOR" not in os.environ and not use_preset:
                args.append("-GNinja")  # no preset
            args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
            self._run(["cmake", "-S", str(ROOT), "-B", str(build_dir), *args])
        self._run(["cmake", "--build", str(build_dir), "--target", ext.target, "-j", jobs])

        # CMake lays the package out in <build>/python/tensorplay (python/CMakeLists.txt);
        # take the module and the generated version file from there.
        pkg = build_dir / "python" / "tensorplay"
        dest = Path(self.get_ext_fullpath(ext.name))
        built = pkg / dest.name
        if not built.exists():
            raise RuntimeError(f"no {built}: was {build_dir} configured for this Python "
                               f"({sys.executable}) with TENSORPLAY_BUILD_PYTHON=ON?")
        dest.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(dest))
        self.copy_file(str(pkg / "_version.py"), str(dest.parent / "_version.py"))

    # Editable installs (pip install -e .) copy the module into python/tensorplay; the generated
    # _version.py goes with it.
    def _version_files(self):
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            inplace_file, regular_file = self._get_inplace_equivalent(build_py, ext)
            yield (str(Path(regular_file).parent / "_version.py"),
                   str(Path(inplace_file).parent / "_version.py"))

    def copy_extensions_to_source(self):
        super().copy_extensions_to_source()
        for regular, inplace in self._version_files():
            self.copy_file(regular, inplace, level=self.verbose)

    def get_output_mapping(self):
        mapping = super().get_output_mapping()
        if self.inplace:
            mapping.update(self._version_files())
        return mapping

    def get_outputs(self):
        outputs = super().get_outputs()
        for ext in self.extensions:
            outputs.append(str(Path(self.get_ext_fullpath(ext.name)).parent / "_version.py"))
        return outputs

    @staticmethod
    def _drop_stale_cache(build_dir):
        # A cache written for another source directory (a moved or copied checkout) would make
        # CMake refuse to configure; start that build directory over.
        cache = build_dir / "CMakeCache.txt"
        if cache.exists():
            m = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache.read_text(), re.M)
            if m and Path(m.group(1)).resolve() != ROOT:
                shutil.rmtree(build_dir)

    @staticmethod
    def _run(cmd):
        print("+", shlex.join(cmd), flush=True)
        subprocess.run(cmd, check=True)


class SDist(sdist):
    """The source distribution carries what CMake needs to build the module (no MANIFEST.in)."""

    def make_release_tree(self, base_dir, files):
        extra = ["CMakeLists.txt", "CMakePresets.json", "LICENSE", "python/CMakeLists.txt"]
        for pattern in ("cmake/*", "include/**/*", "src/*", "python/src/*", "python/tests/*.py",
                        "python/tests/*.sh"):
            extra += [str(p.relative_to(ROOT)) for p in sorted(ROOT.glob(pattern)) if p.is_file()]
        generated = {"python/tensorplay/_version.py"}  # left by an editable build
        files = [f for f in files if f not in generated]
        super().make_release_tree(base_dir, files + [f for f in extra if f not in files])


setup(
    version=read_version(),
    package_dir={"": "python"},
    packages=["tensorplay", "tensorplay.autograd", "tensorplay.nn"],
    zip_safe=False,
    ext_modules=[CMakeExtension("tensorplay._C", target="tensorplay_python")],
    cmdclass={"build_ext": CMakeBuild, "sdist": SDist},
)
