#!/bin/sh
# Runs the Python tests against an INSTALLED tensorplay, never the source or build tree: the tests
# are copied to a temporary directory and run from there with PYTHONSAFEPATH=1 and no PYTHONPATH
# of ours, and the run fails unless tensorplay.__file__ lies in the install location.
#
#   run_installed.sh                      pip-install this checkout into a fresh venv that sees the
#                                         system's packages (numpy, torch from apt), test that
#   run_installed.sh --cmake-install DIR  cmake --install build tree DIR (component python) into a
#                                         temporary prefix, test that with PYTHONPATH=<prefix>/...
#   run_installed.sh --prefix DIR         test what an earlier `cmake --install --prefix DIR` put there
#
# Environment: PYTHON (default /usr/bin/python3), CMAKE (default cmake), CMAKE_BUILD_PARALLEL_LEVEL
# (pip's compile jobs, default 2), KEEP_TMP=1 keeps the temporary directory.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd -P)
python=${PYTHON:-/usr/bin/python3}
cmake=${CMAKE:-cmake}
mode=pip dir=
case "${1:-}" in
  "") ;;
  --cmake-install|--prefix) mode=${1#--}; dir=${2:?"usage: $0 [--cmake-install BUILD | --prefix DIR]"} ;;
  *) echo "usage: $0 [--cmake-install BUILD | --prefix DIR]" >&2; exit 2 ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tensorplay-installed.XXXXXX")
[ "${KEEP_TMP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
now() { date +%s; }
version=$(sed -n 's/^#define TENSORPLAY_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
          "$src/include/tensorplay/config.hpp" | paste -sd. -)

case "$mode" in
  pip)
    # Debian's pip will not write into the system's site-packages (PEP 668); a venv with
    # --system-site-packages is the documented way, and keeps apt's numpy and torch importable.
    "$python" -m venv --system-site-packages "$tmp/venv"
    python="$tmp/venv/bin/python"
    t0=$(now)
    # --no-build-isolation: build with the system's setuptools (offline); --no-index: never
    # reach for a package index. The compile happens here, CMake's Release flags, 2 jobs.
    CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
      "$python" -m pip install --no-build-isolation --no-deps --no-index \
      --disable-pip-version-check "$src"
    echo "run_installed: pip install took $(($(now) - t0)) s"
    site=$("$python" -c "import sysconfig; print(sysconfig.get_path('platlib'))")
    ;;
  cmake-install)
    t0=$(now)
    "$cmake" --install "$dir" --component python --prefix "$tmp/prefix"
    echo "run_installed: cmake --install took $(($(now) - t0)) s"
    pydir=$(sed -n 's/^TENSORPLAY_PYTHON_INSTALL_DIR:[A-Z]*=//p' "$dir/CMakeCache.txt")
    site="$tmp/prefix/$pydir"
    ;;
  prefix)
    site=$(cd "$dir" && pwd -P)/$("$python" -c "import sysconfig; print(sysconfig.get_path('platlib', 'posix_prefix', vars={'base': '', 'platbase': ''}).lstrip('/'))")
    ;;
esac
[ "$mode" = pip ] && unset PYTHONPATH || export PYTHONPATH="$site"

mkdir -p "$tmp/tests" "$tmp/run"
cp "$src"/python/tests/*.py "$tmp/tests/"
cd "$tmp/run"
t0=$(now)
# One process checks where tensorplay comes from, then runs the tests with that same import.
OMP_NUM_THREADS=1 PYTHONSAFEPATH=1 PYTHONDONTWRITEBYTECODE=1 "$python" - "$site" "$src" "$version" "$mode" "$tmp/tests" <<'EOF'
import os, sys, unittest
site, src, version, mode, tests = sys.argv[1:]
real = os.path.realpath
inside = lambda p, d: real(p) == real(d) or real(p).startswith(real(d) + os.sep)
bad = [p for p in sys.path if inside(p or os.getcwd(), src)]
assert not bad, f"source tree on sys.path: {bad}"
import tensorplay as tp
print("tensorplay.__file__ =", tp.__file__)
print("tensorplay._C.__file__ =", tp._C.__file__)
for f in (tp.__file__, tp._C.__file__):
    assert inside(f, site), f"{f} is not in the install location {site}"
assert tp.__version__ == version, f"tp.__version__ {tp.__version__} != config.hpp's {version}"
if mode == "pip":
    from importlib.metadata import version as dist_version
    assert dist_version("tensorplay") == version, (dist_version("tensorplay"), version)
print(f"tensorplay {version} from {site}")
sys.argv = [sys.argv[0]]
unittest.main(module=None, argv=["run_installed", "discover", "-s", tests, "-t", tests,
                                 "-p", "test_*.py"])
EOF
echo "run_installed: tests took $(($(now) - t0)) s"
