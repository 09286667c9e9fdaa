#!/usr/bin/env bash
# Index a folder of memory (DIR, default the sample shipped in the repo) into
# a scratch runtime home and serve it with novad in the foreground.
#
# DIR may be a folder of Markdown notes and JSONL records, a Claude Code
# projects folder (~/.claude/projects), a Codex sessions folder
# (~/.codex/sessions, or one day of it), an OpenClaw state directory
# (~/.openclaw), a Hermes home (~/.hermes), a Gemini CLI home (~/.gemini),
# Cursor's projects folder (~/.cursor/projects, or one project of it) or a
# folder of repositories Aider ran in (~/src), and may hold unzipped
# ChatGPT or Claude.ai data exports: the kinds of source are chosen from
# what the folder holds.
#
# NOVA_SERVER_PORT and NOVA_FACADE_PORT, when set, are written into the
# scratch config.yaml, so that the novactl commands printed below reach
# this novad from another terminal.
#
# A NOVA_HOME set in the shell wins over the scratch home. Its config.yaml
# is rewritten only when an earlier run wrote it (the header line below);
# any other is the user's, and the run stops rather than lose its sources:
# RESET_CONFIG=1 replaces it knowingly, RESET_CONFIG=0 indexes the sources
# it names.
set -euo pipefail
DIR="${DIR:-sample/memory}"
# A "~" the shell did not expand: zsh leaves it in make run DIR=~/notes,
# and so does any shell when the value is quoted.
case "$DIR" in
"~") DIR="$HOME" ;;
"~/"*) DIR="$HOME/${DIR#"~/"}" ;;
esac
cd "$(dirname "$0")/.."
# Every refusal names the way on: a new user's first DIR= is often a typo.
instead="give the folder that holds your notes or transcripts, or leave DIR out to index the sample in sample/memory"
if [ ! -d "$DIR" ]; then
  if [ -e "$DIR" ]; then
    echo "run: DIR=$DIR is not a directory: $instead" >&2
  else
    echo "run: DIR=$DIR does not exist: $instead" >&2
  fi
  exit 2
fi
DIR="$(cd "$DIR" && pwd)"

# What the folder holds decides the sources. An OpenClaw state directory,
# a Hermes home, a Gemini CLI home or Cursor's projects folder is one
# source of its own kind
# (sessions and the agent's Markdown memory; its other files are not
# memory, and a Gemini recording is not a Claude Code transcript for
# carrying a sessionId). So is a folder of repositories that holds Aider
# chat histories (.aider.chat.history.md in a repository's root, looked
# for three levels down, outside hidden folders and node_modules): the
# repositories' Markdown is their documentation, not notes. Otherwise
# Markdown is always read.
agent_home=""
if [ -n "$(find "$DIR/agents" -mindepth 3 -maxdepth 3 -path '*/sessions/*.jsonl*' -print -quit 2>/dev/null)" ]; then
  agent_home=openclaw
elif [ -f "$DIR/state.db" ] || [ -f "$DIR/memories/MEMORY.md" ]; then
  agent_home=hermes
elif [ -n "$(find "$DIR/tmp" -mindepth 3 -maxdepth 4 -type f -path "$DIR/tmp/*/chats/*" \( -name 'session-*.json' -o -name '*.jsonl' \) -print -quit 2>/dev/null)" ]; then
  agent_home=gemini
elif [ -n "$(find "$DIR/" -mindepth 2 -maxdepth 5 -type f -path '*/agent-transcripts/*' -name '*.jsonl' -print -quit 2>/dev/null)" ]; then
  # Cursor's transcripts carry no sessionId: read as JSONL records,
  # every line would be refused.
  agent_home=cursor
elif [ -n "$(find "$DIR/" -mindepth 1 -maxdepth 3 \( -type d \( -name '.?*' -o -name node_modules \) -prune \) -o -type f -name '.aider.chat.history.md' -print -quit 2>/dev/null)" ]; then
  agent_home=aider
fi
has_codex=0 has_claude=0
if [ -n "$(find "$DIR/" -type f \( -name 'rollout-*.jsonl' -o -name 'rollout-*.jsonl.zst' \) -print -quit 2>/dev/null)" ]; then
  has_codex=1
fi
# A Claude Code transcript is a .jsonl file whose lines carry a sessionId
# (and is not a Codex rollout); a file of JSONL records does not.
n=0
while IFS= read -r -d '' f; do
  # (Not head | grep: under pipefail, head killed by grep's early exit
  # would make a match count as none.)
  if grep -q '"sessionId"' < <(head -c 65536 "$f" 2>/dev/null); then
    has_claude=1
    break
  fi
  n=$((n + 1))
  if [ "$n" -ge 200 ]; then break; fi
done < <(find "$DIR/" -type f -name '*.jsonl' ! -name 'rollout-*' -print0 2>/dev/null)
# An unzipped ChatGPT or Claude.ai data export is a conversations*.json
# (a browser's copy may be "conversations (1).json") at any depth, a JSON
# list whose first conversation has a mapping (ChatGPT) or chat_messages
# (Claude.ai): another program's conversations.json is not one.
has_chats=0
n=0
while IFS= read -r -d '' f; do
  if grep -q -e '"mapping"' -e '"chat_messages"' < <(head -c 65536 "$f" 2>/dev/null); then
    has_chats=1
    break
  fi
  n=$((n + 1))
  if [ "$n" -ge 200 ]; then break; fi
done < <(find "$DIR/" -type f -name 'conversations*.json' -print0 2>/dev/null)
# A downloaded export is a zip, which is not read: its central directory
# (at its end) names conversations.json. Looked for two levels down, as
# in a Downloads folder.
zipped=""
if [ "$has_chats" = 0 ]; then
  while IFS= read -r -d '' f; do
    if grep -a -q -F 'conversations.json' < <(tail -c 16777216 "$f" 2>/dev/null); then
      zipped="$f"
      break
    fi
  done < <(find "$DIR/" -maxdepth 2 -type f -iname '*.zip' -print0 2>/dev/null)
fi
# (doctor's wording for a chat-export source that lists nothing.)
unzip_hint="a downloaded export is a zip: unzip it there"
has_notes=0
if [ -n "$(find "$DIR/" -type f \( -name '*.md' -o -name '*.markdown' -o -name '*.canvas' -o -name '*.jsonl' -o -name '*.ndjson' -o -name '*.jsonl.zst' \) -print -quit 2>/dev/null)" ]; then
  has_notes=1
fi
if [ -z "$agent_home" ] && [ "$has_notes" = 0 ] && [ "$has_chats" = 0 ]; then
  if [ -n "$zipped" ]; then
    echo "run: DIR=$DIR holds nothing to index but $zipped, a ChatGPT or Claude.ai export still zipped, which is not read: $unzip_hint (into a folder of its own), then make run DIR= that folder" >&2
    exit 2
  fi
  echo "run: DIR=$DIR holds nothing to index: no Markdown notes (.md), JSONL records (.jsonl), Claude Code transcripts, Codex rollouts or unzipped ChatGPT/Claude.ai exports; $instead" >&2
  exit 2
fi
if [ -n "$zipped" ]; then
  echo "run: $zipped is a ChatGPT or Claude.ai export still zipped, which is not read: $unzip_hint, then run again" >&2
fi

# YAML single quotes keep any path as it is; a quote in it is doubled.
q() { printf "'%s'" "${1//\'/\'\'}"; }
export NOVA_HOME="${NOVA_HOME:-$PWD/.nova-run}"
header="# Written by scripts/run.sh"
# (A file that cannot be read is not known to be this script's either.)
written_here() {
  local first=""
  IFS= read -r first < "$1" 2>/dev/null || true
  [[ "$first" == "$header"* ]]
}
# A novad that serves this home already (another make run, still running)
# keeps it: this run would rewrite its config.yaml (and the ports the
# commands it printed use) and sync under it, and then its own novad would
# refuse the home. Its lock file names its pid (a line of JSON).
lock="$NOVA_HOME/state/novad.lock"
if [ -s "$lock" ]; then
  pid=$(sed -n 's/.*"pid": *\([0-9][0-9]*\).*/\1/p' "$lock" 2>/dev/null | head -n 1)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && ps -p "$pid" -o comm= 2>/dev/null | grep -q novad; then
    echo "run: a novad (pid $pid) already serves $NOVA_HOME, from another make run: search it from another terminal with NOVA_HOME=$(printf '%q' "$NOVA_HOME") ./bin/novactl search \"...\", or stop it (Ctrl-C where it runs) and run again" >&2
    exit 75
  fi
fi
if [ -z "${RESET_CONFIG:-}" ] && [ -s "$NOVA_HOME/config.yaml" ] && ! written_here "$NOVA_HOME/config.yaml"; then
  echo "run: $NOVA_HOME/config.yaml was not written by make run (it lacks the \"$header\" line), and this run would replace it and the sources it names: unset NOVA_HOME to index DIR into the scratch home .nova-run; or RESET_CONFIG=1 make run to replace that file knowingly; or RESET_CONFIG=0 make run to index the sources it names" >&2
  exit 2
fi
# The home holds what memory says: private, as Nova keeps it (0700, 0600),
# whatever the shell's umask.
umask 077
mkdir -p "$NOVA_HOME"
kinds="Markdown notes"
if [ ! -f "$NOVA_HOME/config.yaml" ] || [ "${RESET_CONFIG:-1}" = 1 ]; then
  {
    echo "$header for DIR=$DIR"
    # (A port that is not a number is left to the environment, where
    # novactl and novad name the variable in their error.)
    if [[ "${NOVA_SERVER_PORT:-}" =~ ^[0-9]+$ ]]; then echo "server: {port: $NOVA_SERVER_PORT}"; fi
    if [[ "${NOVA_FACADE_PORT:-}" =~ ^[0-9]+$ ]]; then echo "facade: {port: $NOVA_FACADE_PORT}"; fi
    echo "sources:"
    if [ "$agent_home" = openclaw ]; then
      echo "  - {name: openclaw, kind: openclaw, path: $(q "$DIR")}"
      kinds="OpenClaw sessions and workspace memory"
    elif [ "$agent_home" = hermes ]; then
      echo "  - {name: hermes, kind: hermes, path: $(q "$DIR")}"
      kinds="Hermes sessions and memory"
    elif [ "$agent_home" = gemini ]; then
      echo "  - {name: gemini, kind: gemini, path: $(q "$DIR")}"
      kinds="Gemini CLI chat recordings and GEMINI.md"
    elif [ "$agent_home" = cursor ]; then
      echo "  - {name: cursor, kind: cursor, path: $(q "$DIR")}"
      kinds="Cursor agent transcripts"
    elif [ "$agent_home" = aider ]; then
      echo "  - {name: aider, kind: aider, path: $(q "$DIR")}"
      kinds="Aider chat histories"
    elif [ "$has_notes" = 0 ]; then
      # Only exports: no notes source to hold nothing.
      kinds=""
    else
      echo "  - {name: notes, kind: markdown, path: $(q "$DIR")}"
    fi
    if [ -n "$agent_home" ] || [ "$has_notes" = 0 ]; then
      :
    elif [ "$has_claude" = 1 ]; then
      # Every .jsonl here is a transcript: none is read as records.
      echo "  - {name: claude, kind: claude-code, path: $(q "$DIR"), exclude: ['rollout-*']}"
      kinds="$kinds, Claude Code transcripts"
    elif [ "$has_codex" = 1 ]; then
      echo "  - {name: records, kind: jsonl, path: $(q "$DIR"), exclude: ['rollout-*']}"
      kinds="$kinds, JSONL records"
    else
      echo "  - {name: records, kind: jsonl, path: $(q "$DIR")}"
      kinds="$kinds, JSONL records"
    fi
    if [ -z "$agent_home" ] && [ "$has_codex" = 1 ]; then
      echo "  - {name: codex, kind: codex, path: $(q "$DIR")}"
      kinds="$kinds, Codex rollouts"
    fi
    # An export is read whatever else the folder is: none of the other
    # kinds reads conversations*.json.
    if [ "$has_chats" = 1 ]; then
      echo "  - {name: chats, kind: chat-export, path: $(q "$DIR")}"
      kinds="${kinds:+$kinds, }ChatGPT/Claude.ai exports"
    fi
  } > "$NOVA_HOME/config.yaml"
  # (An earlier run's file keeps its mode through the truncation.)
  chmod 600 "$NOVA_HOME/config.yaml"
else
  kinds="the sources of $NOVA_HOME/config.yaml (RESET_CONFIG=0)"
fi
echo "Nova home: $NOVA_HOME  (memory from $DIR: $kinds)"
# A port taken (an installed novad on the default ones, another make run)
# let the index build, then novad retried for seconds and gave up on a
# log line: say it first, with the variables README gives for it. The
# address is the effective one (config.yaml, then NOVA_*; novad binds both
# ports on server.host); a port taken after this check is still refused by
# novad itself.
# (An invalid config.yaml has no values: index sync below says what is
# wrong with it.)
if host=$(./bin/novactl config get server.host 2>/dev/null); then
  for part in server facade; do
    port=$(./bin/novactl config get "$part.port" 2>/dev/null) || continue
    # (Something accepts a connection there: the port is taken.)
    if [ -n "$host" ] && [[ "$port" =~ ^[1-9][0-9]*$ ]] && (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
      echo "run: $host:$port ($part.port) is in use, by an installed novad, another make run or another program: give this run two free ports, e.g. NOVA_SERVER_PORT=4037 NOVA_FACADE_PORT=4036 make run" >&2
      exit 75
    fi
  done
fi
./bin/novactl index sync
# Commands to paste: the home quoted for the shell (a clone under
# "My Projects" has a space), and the sample's question only for the sample.
home=$(printf '%q' "$NOVA_HOME")
query="why was the dashboard port unavailable"
if [ "$DIR" != "$PWD/sample/memory" ]; then
  query="a question your memory answers"
fi
echo
echo "Serving until you press Ctrl-C. In another terminal try:"
echo "  NOVA_HOME=$home ./bin/novactl search \"$query\""
echo "  NOVA_HOME=$home ./bin/novactl doctor"
echo "  NOVA_HOME=$home ./bin/novactl tui"
echo
exec ./bin/novad
