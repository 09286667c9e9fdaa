#!/bin/sh
# Regenerates the Chinese data of the lexical analyzer (licences in
# lexical/data/NOTICE), from the Go modules' own copies:
#   lexical/data/zh-dict.txt.gz  "word frequency" lines for the Chinese
#       segmenter (lexical/segment.go): the words with a corpus frequency
#       of at least 10 from gse's simplified dictionary
#       (108 972 of 352 279 entries, 630 KB compressed; the gse package
#       itself would add its 32 MB of embedded dictionaries to novactl).
#   lexical/data/t2s.tsv.gz  traditional -> simplified characters (the
#       first candidate of OpenCC's TSCharacters table).
set -eu
cd "$(dirname "$0")/.."
gse=$(go mod download -json github.com/go-ego/gse@v0.80.3 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
cc=$(go mod download -json github.com/longbridgeapp/opencc@v0.3.13 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
awk '$2 >= 10 { print $1 " " $2 }' "$gse/data/dict/zh/s_1.txt" | gzip -9n > lexical/data/zh-dict.txt.gz
awk -F'\t' '{ split($2, c, " "); if (length($1) > 0 && c[1] != $1) print $1 "\t" c[1] }' "$cc/dictionary/TSCharacters.txt" | LC_ALL=C sort | gzip -9n > lexical/data/t2s.tsv.gz
for f in lexical/data/zh-dict.txt.gz lexical/data/t2s.tsv.gz; do
	echo "$(gzip -dc "$f" | wc -l) lines, $(wc -c < "$f") bytes: $f"
done
