#!/usr/bin/env bash
# npm run build:targets [-- TARGET...]
#
# Cross-builds, on a Linux x64 host, every target this machine can build and
# puts each binary in its npm/<platform>/ package (`napi artifacts`), with
# the `wave-rules` executable beside each Linux addon:
#   x86_64-unknown-linux-gnu   glibc 2.17 (cargo-zigbuild, Zig from PyPI)
#   aarch64-unknown-linux-gnu  glibc 2.17 (cargo-zigbuild)
#   x86_64-unknown-linux-musl  (cargo-zigbuild)
#   aarch64-unknown-linux-musl (cargo-zigbuild)
#   wasm32-wasip1-threads      (rustc's own WASI linker, emnapi from npm)
# With arguments, builds only those targets (the release workflow builds one
# per job). macOS and Windows binaries are built on their own runners by
# .github/workflows/release.yml.
#
# Needs: rustup (adds the targets), python3 (a venv in target/cross-venv gets
# ziglang and cargo-zigbuild pinned in scripts/cross-requirements.txt) and
# `npm install` done. CPU-heavy (one release build with LTO per target), so it
# is not part of .ci/run: see docs/platforms.md "Builds and CI".
set -euo pipefail
cd "$(dirname "$0")/.."

all=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl wasm32-wasip1-threads)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

out=target/napi-artifacts
rm -rf "$out"
mkdir -p "$out"

need_zig=0
for t in "${targets[@]}"; do
  case "$t" in *linux*) need_zig=1 ;; esac
done
if [ "$need_zig" = 1 ]; then
  venv=target/cross-venv
  if [ ! -x "$venv/bin/cargo-zigbuild" ] || ! cmp -s scripts/cross-requirements.txt "$venv/requirements.txt"; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/cross-requirements.txt
    cp scripts/cross-requirements.txt "$venv/requirements.txt"
  fi
  # cargo-zigbuild runs `python3 -m ziglang` when no `zig` is on PATH: the
  # venv's python3 comes first, so that is the pinned Zig.
  export PATH="$PWD/$venv/bin:$PATH"
fi

rustup target add "${targets[@]}" >/dev/null

for t in "${targets[@]}"; do
  echo "== $t"
  start=$(date +%s)
  case "$t" in
    *-linux-gnu) npx napi build --platform --release --no-js --dts "$t.d.ts" -o "$out" --target "$t.2.17" --cross-compile ;;
    *-linux-musl) npx napi build --platform --release --no-js --dts "$t.d.ts" -o "$out" --target "$t" --cross-compile ;;
    wasm32-*) npx napi build --platform --release --no-js --dts "$t.d.ts" -o "$out" --target "$t" ;;
    *) npx napi build --platform --release --no-js --dts "$t.d.ts" -o "$out" --target "$t" ;;
  esac
  # The CLI's native executable for the platform package (the npm bin,
  # bin/wave-rules, execs it): same toolchain, same glibc floor.
  case "$t" in
    *-linux-gnu) cargo zigbuild --release -q -p wave-rules --target "$t.2.17"
      node scripts/platform-exe.mjs "$t" --no-build ;;
    *-linux-musl) cargo zigbuild --release -q -p wave-rules --target "$t"
      node scripts/platform-exe.mjs "$t" --no-build ;;
  esac
  echo "== $t built in $(($(date +%s) - start)) s"
done

# Into npm/<platform>/: each package's `files` that this run built. (`napi
# artifacts`, which the release workflow's publish job runs, insists on every
# configured target, and macOS/Windows are not built here.)
node -e '
const fs = require("fs"), path = require("path")
const [out] = process.argv.slice(1)
for (const dir of fs.readdirSync("npm")) {
  const { files } = JSON.parse(fs.readFileSync(path.join("npm", dir, "package.json"), "utf8"))
  if (!files.some((f) => /\.(node|wasm)$/.test(f) && fs.existsSync(path.join(out, f)))) continue
  for (const f of files) {
    if (!fs.existsSync(path.join(out, f))) continue
    fs.copyFileSync(path.join(out, f), path.join("npm", dir, f))
    console.log(`npm/${dir}/${f}`)
  }
}' "$out"

# The glibc floor of the gnu binaries.
node scripts/check-glibc.mjs
ls -l npm/*/*.node npm/*/*.wasm 2>/dev/null || true
node scripts/sizes.mjs
