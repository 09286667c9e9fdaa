#!/usr/bin/env bash
# Index a folder of memory (DIR, default the sample shipped in the repo) into
# a scratch runtime home and serve it with novad in the foreground.
#
# NOVA_SERVER_PORT and NOVA_FACADE_PORT, when set, are written into the
# scratch config.yaml, so that the novactl commands printed below reach
# this novad from another terminal.
set -euo pipefail
DIR="${DIR:-sample/memory}"
# A "~" the shell did not expand: zsh leaves it in make run DIR=~/notes,
# and so does any shell when the value is quoted.
case "$DIR" in
"~") DIR="$HOME" ;;
"~/"*) DIR="$HOME/${DIR#"~/"}" ;;
esac
cd "$(dirname "$0")/.."
if [ ! -d "$DIR" ]; then
  echo "run: DIR=$DIR is not a directory" >&2
  exit 2
fi
DIR="$(cd "$DIR" && pwd)"
# YAML single quotes keep any path as it is; a quote in it is doubled.
q() { printf "'%s'" "${1//\'/\'\'}"; }
export NOVA_HOME="${NOVA_HOME:-$PWD/.nova-run}"
mkdir -p "$NOVA_HOME"
if [ ! -f "$NOVA_HOME/config.yaml" ] || [ "${RESET_CONFIG:-1}" = 1 ]; then
  {
    echo "# Written by scripts/run.sh for DIR=$DIR"
    # (A port that is not a number is left to the environment, where
    # novactl and novad name the variable in their error.)
    if [[ "${NOVA_SERVER_PORT:-}" =~ ^[0-9]+$ ]]; then echo "server: {port: $NOVA_SERVER_PORT}"; fi
    if [[ "${NOVA_FACADE_PORT:-}" =~ ^[0-9]+$ ]]; then echo "facade: {port: $NOVA_FACADE_PORT}"; fi
    echo "sources:"
    echo "  - {name: notes, kind: markdown, path: $(q "$DIR")}"
    echo "  - {name: records, kind: jsonl, path: $(q "$DIR")}"
  } > "$NOVA_HOME/config.yaml"
fi
echo "Nova home: $NOVA_HOME  (memory from $DIR)"
./bin/novactl index sync
echo
echo "Serving. In another terminal try:"
echo "  NOVA_HOME=$NOVA_HOME ./bin/novactl search \"why was the dashboard port unavailable\""
echo "  NOVA_HOME=$NOVA_HOME ./bin/novactl tui"
echo
exec ./bin/novad
