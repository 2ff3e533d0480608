#!/bin/sh
# Export of 1,000 rules to every target, against `cp` of the same bytes.
# Usage: bench/export.sh [path/to/wave-rules]   (default: target/release/wave-rules)
# Builds a tree of 1,000 .wave/rules files (always, paths, topics, exclusions),
# exports once to learn the bytes written, then times the two in turn
# (bench/pair.mjs: whole processes, GNU time for cpu), pairwise:
#   A: rm the generated files, `wave-rules export --to all`
#   B: rm a copy, `cp -r` the same generated files (same count, same bytes)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-target/release/wave-rules}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
w="$dir/work"
mkdir -p "$w/.wave/rules" "$dir/home"
i=0
while [ $i -lt 1000 ]; do
  case $((i % 4)) in
    0) printf 'Rule %d: always.\n' $i ;;
    1) printf -- '---\npaths: src/m%d/**/*.ts\n---\nRule %d: TypeScript of module %d.\n' $i $i $i ;;
    2) printf -- '---\ntopics: [t%d, k%d]\n---\nRule %d: topic.\n' $i $i $i ;;
    3) printf -- '---\npaths: ["lib/p%d/**", "!lib/p%d/gen/**"]\ndescription: Package %d\n---\nRule %d.\n' $i $i $i $i ;;
  esac > "$w/.wave/rules/r$i.md"
  i=$((i + 1))
done
cd "$w"
"$bin" export --to all --home "$dir/home" > /dev/null
outs=".cursor .github .windsurf .kiro .clinerules .continue .claude AGENTS.md GEMINI.md"
mkdir -p "$dir/generated"
cp -r $outs "$dir/generated/"
echo "files: $(find "$dir/generated" -type f | wc -l), bytes: $(du -sb "$dir/generated" | cut -f1)"
node "$here/pair.mjs" -n 10 -- \
  "cd '$w' && rm -rf $outs && exec '$bin' export --to all --home '$dir/home' > /dev/null" \
  "rm -rf '$dir/copy' && exec cp -r '$dir/generated' '$dir/copy'"
