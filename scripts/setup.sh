#!/usr/bin/env bash
# Installs everything crux needs on Debian bookworm and builds the module standalone against
# Debian's packaged ns-3 3.37. Idempotent; rerun after pulling. Usage: bash scripts/setup.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${CRUX_BUILD_DIR:-$here/build}

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  ns3 libns3-dev libgsl-dev      # ns-3 3.37 (ns3: helper programs its CMake config checks; libgsl: named by its targets)
  nlohmann-json3-dev libboost-dev libboost-graph-dev
  googletest libgtest-dev
  tshark                         # optional PCAP decode test
  python3 python3-pip python3-matplotlib
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

cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
echo "crux setup: built in $build"
