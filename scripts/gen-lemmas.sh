#!/bin/sh
# Regenerates lexical/data/lemmas.tsv.zst, the lemma table of irregular
# English word forms, from WordNet 3.0's exception lists (Debian package
# wordnet-base; licence in lexical/data/NOTICE).
#
# Kept: verb and noun exceptions whose form and lemma are single
# lower-case ASCII words (bought->buy, drew->draw, children->child).
# Dropped: a form that WordNet's sense-tagged corpus uses as a noun in its
# own right at least twice (ground, left, wound): mapping it to the verb
# would lose the common noun; and a form with two lemmas (the first wins).
set -eu
# The table is compressed with the zstd CLI (Debian and Homebrew package
# zstd), level 19, from a file so that the frame records its size.
WN=${WN:-/usr/share/wordnet}
out=$(dirname "$0")/../lexical/data/lemmas.tsv.zst
awk '
FILENAME ~ /index\.noun$/ { n = $4; tag[$1] = $(6 + n); next }
{
	if (NF < 2 || $1 == $2 || $1 !~ /^[a-z]+$/ || $2 !~ /^[a-z]+$/ || length($1) < 3) next
	if (($1 in tag) && tag[$1] >= 2) next
	if ($1 in seen) next
	seen[$1] = 1
	print $1 "\t" $2
}' "$WN/index.noun" "$WN/verb.exc" "$WN/noun.exc" | LC_ALL=C sort > "$out.txt"
zstd -19 -q -f --rm "$out.txt" -o "$out"
echo "$(zstd -dcq "$out" | wc -l) lemmas, $(wc -c < "$out") bytes: $out"
