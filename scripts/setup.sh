#!/bin/bash
# Set up a Debian 12 machine for tlc: install the packages of
# scripts/debian-packages.txt, build tlc in build/ (installed into build/_inst),
# and compile the bundled example kernel to CUDA (and with nvcc to an object
# file for sm_90a when nvcc is there).
#
# Usage: bash scripts/setup.sh      (as root, or with sudo available)
# Environment: JOBS=N parallel make jobs (default 2); TLC_SKIP_APT=1 skips apt-get.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
jobs=${JOBS:-2}

mapfile -t packages < <(sed 's/#.*//; /^[[:space:]]*$/d' scripts/debian-packages.txt)

install_packages() {
	local sudo=
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null; then
			echo "setup: not root and no sudo: install these packages yourself: ${packages[*]}" >&2
			return 1
		fi
		sudo=sudo
	fi
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
}

if [ "${TLC_SKIP_APT:-0}" = 1 ]; then
	echo "==> skipping apt-get (TLC_SKIP_APT=1)"
elif command -v apt-get >/dev/null; then
	echo "==> installing packages: ${packages[*]}"
	install_packages
else
	echo "setup: no apt-get: make sure these (or their equivalents) are installed: ${packages[*]}" >&2
fi

if [ -d /usr/local/cuda/bin ]; then
	export PATH="/usr/local/cuda/bin:$PATH"
fi

echo "==> building tlc in build/"
./autogen.sh
mkdir -p build
cd build
../configure --enable-werror --prefix="$top/build/_inst"
make -j"$jobs"
# installing into build/_inst puts etc/tlc.ini and the plugins where the
# compiled-in default paths point, so build/tlc runs without any environment
make install

cd "$top"
echo "==> compiling examples/elementwise_add.tl"
build/tlc examples/elementwise_add.tl --emit=cu -o build/elementwise_add.cu
echo "    wrote build/elementwise_add.cu"
if command -v nvcc >/dev/null; then
	nvcc -gencode=arch=compute_90a,code=sm_90a -c build/elementwise_add.cu -o build/elementwise_add.o
	echo "    nvcc: wrote build/elementwise_add.o (sm_90a)"
else
	echo "    nvcc not found: skipped compiling the CUDA source"
fi
echo "==> done: run the tests with: bash scripts/test.sh"
