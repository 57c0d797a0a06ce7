# Shared by the CTest shell checks of accellab-cli (tests/core/*/cli_*_checks.sh), sourced after
# they set `cli` (the binary) and `case_name`. Gives $tmp (removed on exit) and:
#   fail MESSAGE...               print the case, the message and what the last command wrote; exit 1
#   run STATUS ARGS...            run the CLI (stdout to $tmp/out, stderr to $tmp/err); its exit
#                                 status must be STATUS
#   bad NAME ARGS...              the CLI must fail and name NAME (an option, key or value) on
#                                 stderr; with bad_prints_nothing=1 it must print no result either
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL [$case_name]: $*"
  for f in out err py; do
    [ -s "$tmp/$f" ] && { echo "--- $f"; tail -40 "$tmp/$f"; }
  done
  exit 1
}

run() {
  want=$1; shift
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" -eq "$want" ] || fail "accellab-cli $* exited $got, expected $want"
}

bad() {
  name=$1; shift
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" -ne 0 ] || fail "accellab-cli $* succeeded, expected an error"
  grep -q -- "$name" "$tmp/err" || fail "accellab-cli $*: the error does not name '$name'"
  if [ "${bad_prints_nothing:-0}" = 1 ] && [ -s "$tmp/out" ]; then
    fail "accellab-cli $*: printed a result despite the error"
  fi
  return 0
}
