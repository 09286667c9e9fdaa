#!/usr/bin/env bash
# Write novactl's shell completion scripts into DIR (default: completions/),
# under the names the release archives and the Homebrew formula use. Run by
# goreleaser before it builds (make dist); the scripts come from novactl
# itself, so they list exactly its commands and flags.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${1:-completions}"
mkdir -p "$DIR"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/novactl" ./cmd/novactl
"$tmp/novactl" completion bash > "$DIR/novactl.bash"
"$tmp/novactl" completion zsh > "$DIR/_novactl"
"$tmp/novactl" completion fish > "$DIR/novactl.fish"
