#!/bin/sh
# `wave-rules report --out` against `find . -type f` on the same tree, side by
# side (bench/pair.mjs: A B A B ..., GNU time for cpu), on two trees:
#   - generated: 100,000 files and 500 rules (bench/report-tree.mjs);
#   - rolldown: the corpus's rolldown tree (14,061 files, empty, its rule
#     files as they are), when ../shared/corpus is there.
# Prints each tree's size, the page's size, then the pairs.
# Usage: bench/report.sh [wave-rules] [corpus] [runs]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-target/release/wave-rules}")
corpus=${2:-${WAVE_CORPUS:-../shared/corpus}}
runs=${3:-10}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/home"

one() { # name workdir [extra args]
  name=$1; w=$2; shift 2
  (cd "$w" && "$bin" report --home "$dir/home" --out "$dir/$name.html" "$@" | tail -1)
  echo "$name: $(find "$w" -type f | wc -l) files, $(find "$w" -type d | wc -l) dirs; page $(wc -c < "$dir/$name.html") bytes"
  node "$here/pair.mjs" -n "$runs" -- \
    "cd '$w' && exec '$bin' report --home '$dir/home' --out '$dir/$name.html' $* > /dev/null" \
    "cd '$w' && exec find . -type f > /dev/null"
}

mkdir -p "$dir/generated"
node "$here/report-tree.mjs" "$dir/generated" 100000 500
mkdir -p "$dir/generated/.git"
one generated "$dir/generated"

list="$corpus/trees/rolldown__rolldown.txt"
if [ -f "$list" ]; then
  w="$dir/rolldown"
  mkdir -p "$w/.git"
  (cd "$w" && grep '/' "$list" | sed 's|/[^/]*$||' | sort -u | tr '\n' '\0' | xargs -0 mkdir -p \
    && grep -v '^$' "$list" | tr '\n' '\0' | xargs -0 touch)
  grep -P '\trolldown/rolldown\t' "$corpus/rules/MANIFEST.tsv" | while IFS="$(printf '\t')" read -r sys repo path rest; do
    cp "$corpus/rules/$sys/rolldown__rolldown__$(echo "$path" | sed 's|/|__|g')" "$w/$path"
  done
  one rolldown "$w" --sources all
else
  echo "skipped the rolldown tree: no $list"
fi
