#!/usr/bin/env bash
# Run every Go fuzz target for the given time each (default 10s).
set -euo pipefail
cd "$(dirname "$0")/.."
t="${1:-10s}"
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($t)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$t" "$pkg"
  done
done
