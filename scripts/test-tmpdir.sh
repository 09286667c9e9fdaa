#!/usr/bin/env bash
# Print a fresh directory in memory for the tests' temporary files, or
# nothing (the tests then use TMPDIR as it is).
#
# Every generation a test builds is written and fsynced as a real one is:
# about 30 ms an fsync on a virtual disk, and the index package's tests
# alone make thousands (one seed of the incremental-equals-rebuild test
# 675), so on Linux most of their time was waiting on the disk. In a
# tmpfs an fsync returns at once; what the tests check is the same.
# NOVA_TEST_TMPDIR=DIR picks the place instead, NOVA_TEST_TMPDIR=- keeps
# TMPDIR.
set -euo pipefail

case "${NOVA_TEST_TMPDIR:-}" in
-) exit 0 ;;
"") ;;
*) mkdir -p "$NOVA_TEST_TMPDIR" && dir=$(mktemp -d "$NOVA_TEST_TMPDIR/nova-test.XXXXXX") && chmod 755 "$dir" && echo "$dir"; exit 0 ;;
esac

shm=/dev/shm
# A tmpfs we may write and run programs from (tests run the novad and
# novactl they build there), with room for the largest test corpora.
[ -d "$shm" ] && [ -w "$shm" ] || exit 0
grep -qs "^[^ ]* $shm tmpfs " /proc/mounts || exit 0
grep -s "^[^ ]* $shm tmpfs " /proc/mounts | grep -q noexec && exit 0
free_kib=$(df -Pk "$shm" | awk 'NR == 2 { print $4 }')
[ "${free_kib:-0}" -ge $((4 * 1024 * 1024)) ] || exit 0
# A run killed before it could remove its directory left it in memory:
# those of this user's older than a day go now.
find "$shm" -maxdepth 1 -name 'nova-test.*' -user "$(id -u)" -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
dir=$(mktemp -d "$shm/nova-test.XXXXXX")
# Open to others as /tmp is: run as root, the e2e tests run novactl as
# nobody from a directory of their own in it. What each test writes is
# its own (Go makes t.TempDir 0700).
chmod 755 "$dir"
echo "$dir"
