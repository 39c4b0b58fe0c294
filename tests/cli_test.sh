#!/usr/bin/env bash
# CLI behaviour: translations on stdout one per line, clear errors and non-zero exits for bad
# input and bad models, attention JSON written. Usage: cli_test.sh HEED_BINARY TINY_MODEL
set -u
heed="$1"; model="$2"; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

out=$("$heed" translate -m "$model" --max-length 20 "A simple text editor" "This package contains the development files.")
check "two texts give two lines" '[ "$(printf "%s\n" "$out" | wc -l)" = 2 ]'
check "greedy output is the golden" '[ "$(printf "%s\n" "$out" | head -1)" = "Une égumentation de calisémentation de che" ]'

ids=$("$heed" translate -m "$model" --max-length 20 --ids "A simple text editor")
check "--ids: the text, one tab, then the target ids" '[ "$(printf "%s" "$ids" | cut -f1)" = "Une égumentation de calisémentation de che" ] && printf "%s" "$ids" | grep -Pq "^[^\t]*\t[0-9]+( [0-9]+)*$"'

out=$(printf 'A simple text editor\n\nThis package\n' | "$heed" translate -m "$model" 2>"$tmp/err"); rc=$?
check "stdin: one output line per input line" '[ "$(printf "%s\n" "$out" | wc -l)" = 3 ]'
check "stdin: empty line is an error naming the line" 'grep -q "line 2: empty text" "$tmp/err" && [ $rc = 1 ]'

printf 'abc\xff\n' | "$heed" translate -m "$model" >/dev/null 2>"$tmp/err"; rc=$?
check "invalid UTF-8 rejected" 'grep -q "not valid UTF-8" "$tmp/err" && [ $rc = 1 ]'

long=$(printf 'word %.0s' $(seq 1 400))
"$heed" translate -m "$model" "$long" >/dev/null 2>"$tmp/err"; rc=$?
check "over-long text rejected" 'grep -q "too long" "$tmp/err" && [ $rc = 1 ]'

"$heed" translate -m /nonexistent.heed hello >/dev/null 2>"$tmp/err"; rc=$?
check "unreadable model" 'grep -q "cannot open model file" "$tmp/err" && [ $rc = 1 ]'

head -c 1000 "$model" > "$tmp/cut.heed"
"$heed" translate -m "$tmp/cut.heed" hello >/dev/null 2>"$tmp/err"; rc=$?
check "truncated model" 'grep -q "heed: error:" "$tmp/err" && [ $rc = 1 ]'

"$heed" translate -m "$model" --beam x hello >/dev/null 2>"$tmp/err"; rc=$?
check "bad option value" 'grep -q "expects an integer" "$tmp/err" && [ $rc = 2 ]'
"$heed" frobnicate >/dev/null 2>"$tmp/err"; rc=$?
check "unknown command" 'grep -q "unknown command" "$tmp/err" && [ $rc = 2 ]'

"$heed" translate -m "$model" --beam 3 --attention "$tmp/a.json" "A simple text editor" >/dev/null; rc=$?
check "attention JSON written" '[ $rc = 0 ] && grep -q "\"cross\"" "$tmp/a.json" && grep -q "\"encoderSelf\"" "$tmp/a.json"'

"$heed" info -m "$model" > "$tmp/info"; rc=$?
check "info prints config and parameters" '[ $rc = 0 ] && grep -q "\"parameters\": 55680" "$tmp/info"'
check "info prints the directions line" 'grep -qx "directions: en-fr" "$tmp/info"'

"$heed" translate -m "$model" --to de hello >/dev/null 2>"$tmp/err"; rc=$?
check "--to a language the model lacks: error listing its directions" 'grep -q "cannot translate into .de. (its directions: en-fr)" "$tmp/err" && [ $rc != 0 ]'
out=$("$heed" translate -m "$model" --max-length 20 --to fr "A simple text editor")
check "--to its one target is the default" '[ "$out" = "Une égumentation de calisémentation de che" ]'
exit $fail
