"""SQLite FTS5's bm25() over the same entries: the peer most memory tools use.

Reads one JSON document on stdin:
  {"entries": [{"id", "topic", "text"}...], "queries": [{"id", "prompt", "files"}...], "limit": 10}
and prints {"<query id>": ["<entry id>", ...best first]} on stdout.

The table has the topic, the entry's title (first line) and its text as
columns (bm25 weights 3, 2, 1, the weights our index gives the same fields),
tokenizer 'porter unicode61' (case folding, diacritics removed, the Porter
stemmer). A query is every word of the prompt and the path words of its
files (the folders, the name's parts split at `_`, `-` and `.`, the
extension: `services/billing/stripe/webhook_test.go` gives services,
billing, stripe, webhook, test, go), quoted, joined with OR (FTS5's default AND finds nothing for a whole prompt).
Python's sqlite3 (SQLite 3.40 here, FTS5 built in) runs it: Node 20 has no
SQLite.
"""
import json
import re
import sqlite3
import sys


def title(text):
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        line = re.sub(r"^([-*+]|\d+[.)])\s+", "", line)
        if line:
            return line[:80]
    return ""


def main():
    doc = json.load(sys.stdin)
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE m USING fts5(id UNINDEXED, topic, title, body, tokenize='porter unicode61')"
    )
    db.executemany(
        "INSERT INTO m(id, topic, title, body) VALUES (?, ?, ?, ?)",
        [(e["id"], e["topic"], title(e["text"]), e["text"]) for e in doc["entries"]],
    )
    limit = int(doc.get("limit", 10))
    out = {}
    for q in doc["queries"]:
        words = re.findall(r"\w+", q["prompt"])
        words += re.findall(r"[^\W_]+", " ".join(q.get("files", [])))
        words = sorted(set(w.lower() for w in words))
        if not words:
            out[q["id"]] = []
            continue
        match = " OR ".join('"%s"' % w.replace('"', '""') for w in words)
        rows = db.execute(
            "SELECT id FROM m WHERE m MATCH ? ORDER BY bm25(m, 0.0, 3.0, 2.0, 1.0) LIMIT ?",
            (match, limit),
        ).fetchall()
        out[q["id"]] = [r[0] for r in rows]
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
