#!/usr/bin/env bash
# Index a folder of memory (DIR, default the sample shipped in the repo) into
# a scratch runtime home and serve it with novad in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${DIR:-sample/memory}"
if [ ! -d "$DIR" ]; then
  echo "run: DIR=$DIR is not a directory" >&2
  exit 2
fi
DIR="$(cd "$DIR" && pwd)"
export NOVA_HOME="${NOVA_HOME:-$PWD/.nova-run}"
mkdir -p "$NOVA_HOME"
if [ ! -f "$NOVA_HOME/config.yaml" ] || [ "${RESET_CONFIG:-1}" = 1 ]; then
  cat > "$NOVA_HOME/config.yaml" <<YAML
# Written by scripts/run.sh for DIR=$DIR
sources:
  - {name: notes, kind: markdown, path: "$DIR"}
  - {name: records, kind: jsonl, path: "$DIR"}
YAML
fi
echo "Nova home: $NOVA_HOME  (memory from $DIR)"
./bin/novactl index sync
echo
echo "Serving. In another terminal try:"
echo "  NOVA_HOME=$NOVA_HOME ./bin/novactl search \"why was the dashboard port unavailable\""
echo "  NOVA_HOME=$NOVA_HOME ./bin/novactl tui"
echo
exec ./bin/novad
