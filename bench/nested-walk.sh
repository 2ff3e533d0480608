#!/bin/sh
# The nested AGENTS.md walk on the rolldown tree of the corpus, against
# `find . -name AGENTS.md`. Usage: bench/nested-walk.sh [wave-rules] [corpus]
# The tree is made from ../shared/corpus/trees/rolldown__rolldown.txt (every
# tracked file, empty; AGENTS.md files get one line).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-target/release/wave-rules}")
corpus=${2:-${WAVE_CORPUS:-../shared/corpus}}
list="$corpus/trees/rolldown__rolldown.txt"
[ -f "$list" ] || { echo "skipped: no $list"; exit 0; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
w="$dir/rolldown"
mkdir -p "$w" "$dir/home"
(cd "$w" && grep '/' "$list" | sed 's|/[^/]*$||' | sort -u | tr '\n' '\0' | xargs -0 mkdir -p \
  && grep -v '^$' "$list" | tr '\n' '\0' | xargs -0 touch)
find "$w" -name AGENTS.md -exec sh -c 'echo "Agents rule." > "$1"' _ {} \;
echo "files: $(find "$w" -type f | wc -l), dirs: $(find "$w" -type d | wc -l), AGENTS.md: $(find "$w" -name AGENTS.md | wc -l)"
echo "wave-rules list --sources agents-md:"; (cd "$w" && "$bin" list --sources agents-md --home "$dir/home" | tail -3)
node "$here/pair.mjs" -n 10 -- \
  "cd '$w' && exec '$bin' list --sources agents-md --home '$dir/home'" \
  "cd '$w' && exec find . -name AGENTS.md"
