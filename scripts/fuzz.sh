#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) with cargo-fuzz on
# nightly, seeded from ../shared/corpus (copied into fuzz/corpus/, which is not
# committed). Prints per-target executions and a total.
#   scripts/fuzz.sh 120            # all targets, 2 minutes each
#   scripts/fuzz.sh 60 pattern     # one target
# Needs: rustup toolchain nightly, `cargo install cargo-fuzz`.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-60}"
shift || true
TARGETS=("${@:-parse pattern topics load}")
TARGETS=(${TARGETS[@]})
SHARED="${SHARED_CORPUS:-../shared/corpus}"

seed() {
  local target=$1 dir=fuzz/corpus/$1
  mkdir -p "$dir"
  [ -d "$SHARED/rules" ] || return 0
  case $target in
    parse|load)
      find "$SHARED/rules" -type f -size -64k | while read -r f; do
        cp "$f" "$dir/$(sha1sum "$f" | cut -c1-16)"
      done ;;
    pattern)
      # Every quoted glob of the corpus rules' frontmatter, one per seed.
      grep -rhoE "(\"|')[^\"']*[*{}/][^\"']*(\"|')" "$SHARED/rules" 2>/dev/null | tr -d "\"'" | sort -u | head -2000 |
        while IFS= read -r g; do printf '%s\nsrc/app/main.ts' "$g" > "$dir/$(printf '%s' "$g" | sha1sum | cut -c1-16)"; done ;;
    topics)
      printf 'customer\nsql\nügyfél\0list the Customers with MySQL' > "$dir/seed1"
      printf 'a\naa\naaa\0aaaa aa a' > "$dir/seed2" ;;
  esac
}

total=0
for t in "${TARGETS[@]}"; do
  seed "$t"
  log=$(mktemp)
  cargo +nightly fuzz run "$t" "fuzz/corpus/$t" -- -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=4096 -timeout=10 2>&1 | tee "$log" | grep -E '^(#[0-9]+.*(DONE|pulse))|panicked|ERROR|SUMMARY' || true
  runs=$(grep -oE 'Done [0-9]+ runs' "$log" | grep -oE '[0-9]+' | tail -1)
  echo "fuzz $t: ${runs:-0} runs in ${SECONDS_EACH}s"
  total=$((total + ${runs:-0}))
  if grep -q 'SUMMARY\|panicked' "$log"; then echo "fuzz $t: FOUND A PROBLEM (artifacts in fuzz/artifacts/$t)"; rm -f "$log"; exit 1; fi
  rm -f "$log"
done
echo "fuzz total: $total runs"
