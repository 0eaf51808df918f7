#!/usr/bin/env bash
# Installs everything crux needs on Debian bookworm and builds the module standalone against
# Debian's packaged ns-3 3.37. Idempotent; rerun after pulling. Usage: bash scripts/setup.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${CRUX_BUILD_DIR:-$here/build}

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  clang-format                   # ns-3's .clang-format check of the sources (ctest check-format)
  ccache                         # compiler cache: rebuilds in fresh clones reuse earlier objects
  time                           # /usr/bin/time: CPU seconds of scripts/compare-evaluators.sh and bench/ (ctest check-compare-evaluators)
  ns3 libns3-dev libgsl-dev      # ns-3 3.37 (ns3: helper programs its CMake config checks; libgsl: named by its targets)
  nlohmann-json3-dev libboost-dev libboost-graph-dev
  googletest libgtest-dev
  libprotobuf-dev protobuf-compiler  # Chakra execution traces (model/workload/chakra-et.proto)
  libgoogle-perftools-dev        # tcmalloc, the allocator of the programs (CMakeLists.txt CRUX_TCMALLOC)
  tshark                         # optional PCAP decode test
  openmpi-bin libopenmpi-dev     # ns-3's distributed simulator (MPI) in the in-tree build (scripts/intree.sh)
  python3 python3-pip python3-matplotlib python3-venv python3-dev  # venv + headers: cppyy build
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "crux setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  # tshark asks whether non-root users may capture; answer no, non-interactively.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Python bindings (bindings/python/crux): cppyy 2.4.2 (the version ns-3 3.37 needs) and pytest in
# a virtual environment of Debian's Python (bookworm's system Python is "externally managed",
# PEP 668). Run Python scripts and tests with $build/venv/bin/python. CMake looks for this venv.
venv=$build/venv
if ! "$venv/bin/python" -c 'import cppyy, pytest; assert cppyy.__version__ == "2.4.2"' 2>/dev/null; then
  echo "crux setup: installing cppyy==2.4.2 and pytest into $venv (compiles for about a minute)"
  [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q cppyy==2.4.2 pytest
fi
# Sweeps (scripts/sweep.py): Dask's distributed scheduler (local cluster, or a running scheduler),
# dask-jobqueue (SLURM/PBS/SGE/LSF/HTCondor batch jobs as Dask workers); matplotlib for every
# figure (scripts/plot) and pandas for the result data frames (bindings/python/crux/results.py),
# pinned so that every clone runs the same engine and draws the same figures (PyYAML comes with
# Dask).
SWEEP_PACKAGES=(dask==2026.8.0 distributed==2026.8.0 dask-jobqueue==0.9.0 matplotlib==3.11.2
                pandas==3.1.1)
if ! "$venv/bin/python" -c 'import distributed, dask_jobqueue, matplotlib, pandas, yaml
assert (distributed.__version__, dask_jobqueue.__version__, matplotlib.__version__,
        pandas.__version__) == ("2026.8.0", "0.9.0", "3.11.2", "3.1.1")' 2>/dev/null; then
  echo "crux setup: installing ${SWEEP_PACKAGES[*]} into $venv"
  "$venv/bin/python" -m pip install -q "${SWEEP_PACKAGES[@]}"
fi
# The doc check (ctest check-doc, test/check-doc.py): docutils builds every doc/*.rst with
# warnings as errors; pinned like the packages above.
DOC_PACKAGES=(docutils==0.23.1)
if ! "$venv/bin/python" -c 'import docutils; assert docutils.__version__ == "0.23.1"' 2>/dev/null; then
  echo "crux setup: installing ${DOC_PACKAGES[*]} into $venv"
  "$venv/bin/python" -m pip install -q "${DOC_PACKAGES[@]}"
fi

# ccache with paths taken relative to the clone (CCACHE_BASEDIR) and without the working
# directory in the hash, so another clone of the same commit hits the cache.
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$here;CCACHE_NOHASHDIR=true;ccache"
cmake --build "$build" -j"$(nproc)"
echo "crux setup: built in $build"
