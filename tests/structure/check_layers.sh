#!/bin/sh
# The layers' rule, checked from the includes: what the files under FROM reach, directly or
# through the headers they include (followed transitively inside the source tree), must not
# include a header under FORBIDDEN. Usage: check_layers.sh SOURCE_ROOT FROM FORBIDDEN
# (e.g. core/train core/sim: the trainer does not depend on the simulator). Exit 1 names the
# chain that breaks the rule.
set -eu
root=$1 from=$2 forbidden=$3
cd "$root"
[ -d "$from" ] || { echo "check_layers: no folder '$from' under $root" >&2; exit 2; }

seen=$(mktemp) queue=$(mktemp) next=$(mktemp)
trap 'rm -f "$seen" "$queue" "$next"' EXIT
# "file<TAB>how it was reached"
find "$from" -name '*.cpp' -o -name '*.h' | sort | while read -r f; do printf '%s\t%s\n' "$f" "$f"; done > "$queue"
: > "$seen"
while [ -s "$queue" ]; do
  : > "$next"
  while IFS="$(printf '\t')" read -r file chain; do
    grep -qxF "$file" "$seen" && continue
    echo "$file" >> "$seen"
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file"); do
      case "$inc" in
        "$forbidden"/*)
          echo "FAIL: $chain -> $inc ($from must not depend on $forbidden)"
          exit 1 ;;
      esac
      [ -f "$inc" ] && printf '%s\t%s\n' "$inc" "$chain -> $inc" >> "$next"
    done
  done < "$queue"
  cp "$next" "$queue"
done
echo "ok: nothing under $from reaches $forbidden ($(wc -l < "$seen") files followed)"
