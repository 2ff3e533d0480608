#!/usr/bin/env bash
# Measures the hostile inputs of issue 9 against the release CLI (and a Node
# script for the package-only findings): wall time and peak RSS from
# /usr/bin/time -v. Usage: scripts/measure-hostile.sh [path/to/wave-rules]
set -uo pipefail
cd "$(dirname "$0")/.."
BIN="${1:-target/release/wave-rules}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
R="$W/p/.wave/rules"
mkdir -p "$R" "$W/home"

measure() { # name, then the command
  local name=$1; shift
  /usr/bin/time -v "$@" >"$W/out" 2>"$W/time"
  local code=$?
  local wall rss
  wall=$(grep 'Elapsed (wall clock)' "$W/time" | awk '{print $NF}')
  rss=$(grep 'Maximum resident set size' "$W/time" | awk '{print $NF}')
  printf '%-44s exit %-3s wall %-8s peak %6d KB  %s\n' "$name" "$code" "$wall" "$rss" "$(grep -ohE '(error|warning)\[(limit|symlink-[a-z]+|unreadable|too-large)\][^$]{0,70}' "$W/out" | head -1)"
}
rule() { rm -rf "$R"; mkdir -p "$R"; printf '%s' "$2" > "$R/$1"; }
v() { measure "$1" "$BIN" validate --workdir "$W/p" --home "$W/home"; }

python3 - "$W" <<'PY'
import sys, os
w = sys.argv[1]
def put(name, text): open(os.path.join(w, name), 'w').write(text)
put('f1', "---\npaths:\n  - '" + "{a," * 10000 + "b" + "}" * 10000 + "'\n---\nx")
put('f1b', "---\npaths:\n  - '" + "{a," * 1000 + "b" + "}" * 1000 + "'\n---\nx")
put('f2a', "---\npaths:\n  - '" + "[[:" * 2500 + "'\n---\nx")
put('f2b', "---\npaths:\n  - '" + "[[:" * 1360 + "'\n---\nx")
put('f2c', "---\npaths:\n  - '" + "[" * 100000 + "'\n---\nx")
put('f2d', "---\npaths:\n  - '" + "{" * 100000 + "'\n---\nx")
put('f4', "---\npaths:\n  - '{" + "0" * 65536 + "..1}'\n---\nx")
put('f5a', "---\npaths:\n  - '{" + "0" * 20000 + "..1023}'\n---\nx")
put('f5b', "---\npaths:\n  - '{1..1000}x{" + ",".join(str(i) for i in range(20000)) + "}'\n---\nx")
put('f5c', "---\npaths:\n  - '{" + "0" * 4000 + "..1023}'\n---\nx")
put('f11a', "---\n" + "".join(f"k{i}: v\n" for i in range(20000)) + "---\nx")
put('f11b', "---\npaths:\n" + "".join(f"  - src/d{i:05}/**\n" for i in range(12000)) + "---\nx")
put('f11c', "---\npaths:\n" + "".join(f"  - src/d{i:05}/**/*.ts\n" for i in range(500)) + "---\nx")
put('f9', "---\n\"a\\n::error ::injected\\u001b[31m\": 1\n---\nbody")
PY
for f in f1 f1b f2a f2b f2c f2d f4 f5a f5b f5c f11a f11b f11c f9; do
  rule "$f.md" "$(cat "$W/$f")"
  v "finding $f ($(wc -c < "$W/$f") bytes)"
done
grep -c '^::' "$W/out" | sed 's/^/finding 9: lines starting a workflow command in text output: /'

# 3: a link to a secret, and outside the project
rm -rf "$R"; mkdir -p "$R" "$W/team"; echo 'API_KEY=secret' > "$W/p/.env"; echo 'team rule' > "$W/team/t.md"
ln -s ../../.env "$R/notes.md"; ln -s "$W/team" "$R/team"; echo ok > "$R/ok.md"
measure "finding 3 validate --strict" "$BIN" validate --strict --workdir "$W/p" --home "$W/home"
grep -E 'symlink' "$W/out" | sed 's/^/    /'
measure "finding 3 with --allow-dir team" "$BIN" validate --workdir "$W/p" --home "$W/home" --allow-dir "$W/team"
tail -1 "$W/out" | sed 's/^/    /'

# 7: FIFO and /dev/zero given to validate, and inside the rules directory
rm -rf "$R"; mkdir -p "$R"; mkfifo "$W/fifo.md"; ln -s /dev/zero "$W/zero.md"; ln -s /dev/zero "$R/zero.md"; mkfifo "$R/fifo.md"
measure "finding 7 validate fifo.md zero.md" timeout 60 "$BIN" validate --workdir "$W/p" --home "$W/home" "$W/fifo.md" "$W/zero.md"
measure "finding 7 rules dir with fifo + /dev/zero link" timeout 60 "$BIN" validate --workdir "$W/p" --home "$W/home"

# 12: 100,000 rule files
rm -rf "$R"; mkdir -p "$R"
python3 -c "
import os,sys
r=sys.argv[1]
for i in range(100000): open(os.path.join(r,f'r{i:06}.md'),'w').write('---\npaths: src/d%d/**\n---\nrule %d\n'%(i,i))
" "$R"
measure "finding 12 list (100,000 files)" "$BIN" list --workdir "$W/p" --home "$W/home"
grep -c . "$W/out" | sed 's/^/    lines printed: /'
