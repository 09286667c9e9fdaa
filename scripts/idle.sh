#!/usr/bin/env bash
# What novad and the source watcher cost while nothing happens (Linux: it
# reads /proc). Builds a scratch home over a tree of NOTES Markdown notes
# in 300 folders, starts novad and `novactl index watch` from BIN (default
# bin), and reports each process's CPU time, context switches and threads
# over SECONDS of idle: after start, after one note's edit has been synced,
# and while a file no source reads (an agent's history.log) is appended to
# twice a second. Run two at once, with other binaries and other PORTS, to
# compare builds on a shared machine.
#
#   scripts/idle.sh [BIN] [SECONDS]        environment: NOTES, PORTS, WORK
set -euo pipefail
BIN="$(cd "${1:-bin}" && pwd)"
DUR="${2:-120}"
NOTES="${NOTES:-3000}"
read -r SERVER_PORT FACADE_PORT <<<"${PORTS:-47136 47137}"
WORK="${WORK:-$(mktemp -d /tmp/nova-idle.XXXXXX)}"
mkdir -p "$WORK/home" "$WORK/notes"
chmod 700 "$WORK/home"
for ((i = 0; i < NOTES; i++)); do
  d="$WORK/notes/p$((i % 30))/d$((i % 300))"
  mkdir -p "$d"
  printf '# Note %d\n\nThe deploy of service %d moved to port %d after the review.\n' "$i" "$i" "$((3000 + i))" >"$d/n$i.md"
done
cat >"$WORK/home/config.yaml" <<EOF
server: {host: 127.0.0.1, port: $SERVER_PORT}
facade: {port: $FACADE_PORT}
sources:
  - {name: notes, kind: markdown, path: '$WORK/notes'}
EOF
export NOVA_HOME="$WORK/home"
"$BIN/novactl" index sync >/dev/null
"$BIN/novad" >"$WORK/novad.log" 2>&1 &
novad=$!
"$BIN/novactl" index watch >"$WORK/watch.log" 2>&1 &
watcher=$!
trap 'kill $novad $watcher 2>/dev/null; wait 2>/dev/null' EXIT
hz=$(getconf CLK_TCK)

# sample PID: CPU ticks, voluntary and involuntary switches (all threads), threads
sample() {
  local s
  s=($(sed 's/.*) //' "/proc/$1/stat"))
  echo "$((s[11] + s[12])) $(cat /proc/"$1"/task/*/status | awk '/^voluntary_ctxt/{v+=$2}/^nonvoluntary_ctxt/{n+=$2}END{print v, n}') $(awk '/^Threads/{print $2}' "/proc/$1/status")"
}
# phase NAME [COMMAND]: runs COMMAND (or sleeps) for DUR seconds between samples
phase() {
  local a b c d
  a=($(sample $novad)) b=($(sample $watcher))
  if [ $# -gt 1 ]; then "${@:2}"; else sleep "$DUR"; fi
  c=($(sample $novad)) d=($(sample $watcher))
  printf '%-12s novad   cpu %5d ms  switches %5d + %4d  threads %d\n' "$1" $(((c[0] - a[0]) * 1000 / hz)) $((c[1] - a[1])) $((c[2] - a[2])) "${c[3]}"
  printf '%-12s watcher cpu %5d ms  switches %5d + %4d  threads %d\n' "$1" $(((d[0] - b[0]) * 1000 / hz)) $((d[1] - b[1])) $((d[2] - b[2])) "${d[3]}"
}
churn() {
  for ((i = 0; i < DUR * 2; i++)); do
    echo "line $i" >>"$WORK/notes/p0/history.log"
    sleep 0.5
  done
}
echo "idle cost over ${DUR}s, $NOTES notes in $WORK ($BIN)"
sleep 10
phase after-start
echo "edited" >>"$WORK/notes/p0/d0/n0.md"
sleep 10
phase after-sync
phase unread-file churn
