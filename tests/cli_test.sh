#!/usr/bin/env bash
# CLI behaviour: translations on stdout one per line, clear errors and non-zero exits for bad
# input and bad models, attention JSON written.
#
#   cli_test.sh HEED TINY_MODEL [OTHER_HEED]
#
# With OTHER_HEED (npx heed: web/cli/heed.mjs), each case below also runs OTHER_HEED with the
# same arguments and stdin and checks that it prints the same stdout and stderr, byte for byte,
# and exits the same ("same as HEED: ..."); an --attention file must hold the same JSON (floats
# within 1e-4: the native kernels and WebAssembly's round differently), a convert -o file the
# same bytes. The streaming cases (endless or slow stdin, a 700 MB line) run on each CLI.
set -u
cli="$1"; model="$2"; other="${3:-}"; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec 3>&1 </dev/null  # why: reports go to fd 3, so a case's $(...) captures only its output
fail=0
: > "$tmp/failed"
check() { if eval "$2"; then echo "ok   $1" >&3; else echo "FAIL $1" >&3; echo "$1" >> "$tmp/failed"; fi; }

# heed ARGS...: HEED on the case's stdin, and OTHER_HEED too when given, compared.
heed() {
  [ -z "$other" ] && { "$cli" "$@"; return; }
  cat > "$tmp/in"
  local prev="" attention="" written=""
  for a in "$@"; do
    [ "$prev" = --attention ] && attention="$a"
    { [ "$prev" = -o ] || [ "$prev" = --out ]; } && written="$a"
    prev="$a"
  done
  "$other" "$@" <"$tmp/in" >"$tmp/out2" 2>"$tmp/err2"; local rc2=$?
  [ -n "$attention" ] && [ -f "$attention" ] && mv "$attention" "$tmp/attention2"
  [ -n "$written" ] && [ -f "$written" ] && mv "$written" "$tmp/written2"
  "$cli" "$@" <"$tmp/in" >"$tmp/out1" 2>"$tmp/err1"; local rc1=$?
  local same=1
  cmp -s "$tmp/out1" "$tmp/out2" || { same=0; diff "$tmp/out1" "$tmp/out2" | head -5 >&3; }
  cmp -s "$tmp/err1" "$tmp/err2" || { same=0; diff "$tmp/err1" "$tmp/err2" | head -5 >&3; }
  [ "$rc1" = "$rc2" ] || { same=0; echo "exit $rc1 != $rc2" >&3; }
  if [ -n "$attention" ] && [ -f "$attention" ]; then
    python3 "$here/cli_json_close.py" "$attention" "$tmp/attention2" 1e-4 >&3 || same=0
  fi
  if [ -n "$written" ] && [ -f "$written" ]; then cmp -s "$written" "$tmp/written2" || same=0; fi
  local what="$(basename "$other") = $(basename "$cli"): $*"
  check "${what:0:150}" "[ $same = 1 ]"
  cat "$tmp/out1"; cat "$tmp/err1" >&2
  return $rc1
}

out=$(heed translate -m "$model" --max-length 20 "A simple text editor" "This package contains the development files.")
check "two texts give two lines" '[ "$(printf "%s\n" "$out" | wc -l)" = 2 ]'
check "greedy output is the golden" '[ "$(printf "%s\n" "$out" | head -1)" = "Une égumentation de calisémentation de che" ]'

ids=$(heed translate -m "$model" --max-length 20 --ids "A simple text editor")
check "--ids: the text, one tab, then the target ids" '[ "$(printf "%s" "$ids" | cut -f1)" = "Une égumentation de calisémentation de che" ] && printf "%s" "$ids" | grep -Pq "^[^\t]*\t[0-9]+( [0-9]+)*$"'

out=$(printf 'A simple text editor\n\nThis package\n' | heed translate -m "$model" 2>"$tmp/err"); rc=$?
check "stdin: one output line per input line" '[ "$(printf "%s\n" "$out" | wc -l)" = 3 ]'
check "stdin: empty line is an error naming the line" 'grep -q "line 2: empty text" "$tmp/err" && [ $rc = 1 ]'

printf 'abc\xff\n' | heed translate -m "$model" >/dev/null 2>"$tmp/err"; rc=$?
check "invalid UTF-8 rejected" 'grep -q "not valid UTF-8" "$tmp/err" && [ $rc = 1 ]'

long=$(printf 'word %.0s' $(seq 1 400))
heed translate -m "$model" "$long" >/dev/null 2>"$tmp/err"; rc=$?
check "over-long text rejected" 'grep -q "too long" "$tmp/err" && [ $rc = 1 ]'

heed translate -m /nonexistent.heed hello >/dev/null 2>"$tmp/err"; rc=$?
check "unreadable model" 'grep -q "cannot open model file" "$tmp/err" && [ $rc = 1 ]'

head -c 1000 "$model" > "$tmp/cut.heed"
heed translate -m "$tmp/cut.heed" hello >/dev/null 2>"$tmp/err"; rc=$?
check "truncated model" 'grep -q "heed: error:" "$tmp/err" && [ $rc = 1 ]'

heed translate -m "$model" --beam x hello >/dev/null 2>"$tmp/err"; rc=$?
check "bad option value" 'grep -q "expects an integer" "$tmp/err" && [ $rc = 2 ]'
heed frobnicate >/dev/null 2>"$tmp/err"; rc=$?
check "unknown command" 'grep -q "unknown command" "$tmp/err" && [ $rc = 2 ]'

heed translate -m "$model" --beam 3 --attention "$tmp/a.json" "A simple text editor" >/dev/null; rc=$?
check "attention JSON written" '[ $rc = 0 ] && grep -q "\"cross\"" "$tmp/a.json" && grep -q "\"encoderSelf\"" "$tmp/a.json"'

# the option table (src/cli/cli.json): each option goes with its commands, the usage names them all
heed info -m "$model" --beam 2 >/dev/null 2>"$tmp/err"; rc=$?
check "info --beam 2: the option goes with translate only (exit 2)" 'grep -q "^heed: --beam goes with the translate command$" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" -o "$tmp/x.heed" hello >/dev/null 2>"$tmp/err"; rc=$?
check "-o goes with the convert command (exit 2)" 'grep -q "^heed: -o goes with the convert command$" "$tmp/err" && [ $rc = 2 ]'
heed convert -m "$model" >/dev/null 2>"$tmp/err"; rc=$?
check "convert -m: -m goes with the other commands (exit 2)" 'grep -q "^heed: -m goes with the translate, info and bench commands$" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --window >/dev/null 2>"$tmp/err"; rc=$?
check "a flag without its value (exit 2)" 'grep -q "^heed: --window needs a value$" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --bogus hello >/dev/null 2>"$tmp/err"; rc=$?
check "an unknown option (exit 2)" 'grep -q "^heed: unknown option --bogus$" "$tmp/err" && [ $rc = 2 ]'
heed translate --vocab v.spm hello >/dev/null 2>"$tmp/err"; rc=$?
check "a rule of the table: no model given (exit 2)" 'grep -q "^heed: no model given" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "" hello >/dev/null 2>"$tmp/err"; rc=$?
check "-m '': no model given (exit 2)" 'grep -q "^heed: no model given" "$tmp/err" && [ $rc = 2 ]'
heed >/dev/null 2>"$tmp/err"; rc=$?
check "no command: the usage (exit 2)" 'grep -q "^heed: missing command$" "$tmp/err" && grep -q "^usage:$" "$tmp/err" && [ $rc = 2 ]'
unlisted=""
for f in $(python3 -c 'import json, sys; print(" ".join(o["flags"][0] for o in json.load(open(sys.argv[1]))["options"]))' "$here/../src/cli/cli.json"); do
  grep -q -- "$f\b" "$tmp/err" || unlisted="$unlisted $f"
done
check "the usage names every option of the table (first flag)${unlisted:+; not:$unlisted}" '[ -z "$unlisted" ]'
heed translate -m "$model" --max-length 20 -- -x "A simple text editor" > "$tmp/out"; rc=$?
check "after --, a dash is text" '[ $rc = 0 ] && [ "$(wc -l < "$tmp/out")" = 2 ]'

# stdin is translated as it arrives, not read whole first (each CLI on its own: stdin never ends)
streaming() {
  local heed="$1" name; name="$(basename "$1")"
  out=$(timeout 60 sh -c "yes 'A simple text editor' | '$heed' translate -m '$model' --max-length 8 | head -3"); rc=$?
  check "$name: endless stdin: the first lines come out (yes | heed | head -3)" '[ $rc = 0 ] && [ "$(printf "%s\n" "$out" | wc -l)" = 3 ]'
  { echo "A simple text editor"; sleep 10; } | timeout 6 "$heed" translate -m "$model" --max-length 8 \
    --attention "$tmp/live.json" > "$tmp/live.out"
  check "$name: a line is printed while stdin is still open" '[ "$(wc -l < "$tmp/live.out")" = 1 ]'
  # --attention is written one translation at a time
  check "$name: --attention holds the first translation before the input ends" 'grep -q "\"encoderSelf\"" "$tmp/live.json"'
  # an over-long line is refused without being read whole (peak RSS stays far below it;
  # measured, not capped with ulimit -v, which the ASan build's shadow memory would break)
  { echo "A simple text editor"; head -c 700000000 /dev/zero | tr '\0' a; echo; echo "This package"; } |
    python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024, file=sys.stderr)
sys.exit(rc)' "$heed" translate -m "$model" --max-length 8 > "$tmp/big.out" 2>"$tmp/err"; rc=$?
  check "$name: a 700 MB line: refused by number, the lines around it translated, peak RSS < 400 MB" '[ $rc = 1 ] && grep -q "line 2: text is too long (more than 20000 bytes)" "$tmp/err" && [ "$(wc -l < "$tmp/big.out")" = 3 ] && [ -n "$(sed -n 3p "$tmp/big.out")" ] && [ "$(tail -1 "$tmp/err")" -lt 400 ]'
}
streaming "$cli"
[ -n "$other" ] && streaming "$other"
printf 'A simple text editor\nThis package\n' | heed translate -m "$model" --max-length 8 --attention "$tmp/two.json" >/dev/null
check "--attention from stdin: a JSON array with one element per line" '[ "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$tmp/two.json")" = 2 ]'
printf 'A simple text editor. It reads the manual.\n' | heed translate -m "$model" --max-length 8 --attention "$tmp/para.json" >/dev/null
check "--attention: a line of two sentences gives two elements, numbered" '[ "$(python3 -c "import json,sys; print([(e[\"sentence\"], e[\"sentences\"]) for e in json.load(open(sys.argv[1]))])" "$tmp/para.json")" = "[(0, 2), (1, 2)]" ]'
heed translate -m /dev/zero hello >/dev/null 2>"$tmp/err"; rc=$?
check "-m /dev/zero is refused, not read" 'grep -q "not a regular file" "$tmp/err" && [ $rc = 1 ]'
# an option error is reported once, before any input, with exit 2
printf 'a\nb\nc\n' | heed translate -m "$model" --beam 0 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--beam 0: one error, exit 2, nothing translated" '[ $rc = 2 ] && [ "$(grep -c "beam size" "$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ]'
heed translate -m "$model" --max-length 1024 "A simple text editor" >/dev/null 2>"$tmp/err"; rc=$?
check "--max-length over the model's positions: said on stderr" '[ $rc = 0 ] && grep -q "max-length 1024 is capped at 64" "$tmp/err"'

heed info -m "$model" > "$tmp/info"; rc=$?
check "info prints config and parameters" '[ $rc = 0 ] && grep -q "\"parameters\": 55680" "$tmp/info"'
check "info prints the directions line" 'grep -qx "directions: en-fr" "$tmp/info"'

heed translate -m "$model" --to de hello >/dev/null 2>"$tmp/err"; rc=$?
check "--to a language the model lacks: one error listing its directions, exit 2" 'grep -q "cannot translate into .de. (its directions: en-fr)" "$tmp/err" && [ "$(grep -c "cannot translate" "$tmp/err")" = 1 ] && [ $rc = 2 ]'
out=$(heed translate -m "$model" --max-length 20 --to fr "A simple text editor")
check "--to its one target is the default" '[ "$out" = "Une égumentation de calisémentation de che" ]'

plain=$(heed translate -m "$model" --max-length 20 "A simple text editor")
local=$(heed translate -m "$model" --max-length 20 --window 0 --ablate cross:0:1 "A simple text editor"); rc=$?
check "surgery (--window, --ablate) changes the translation" '[ $rc = 0 ] && [ "$local" != "$plain" ]'
heed translate -m "$model" --ablate enc:9:0 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--ablate of a layer the model lacks: one error naming the field, exit 2" 'grep -q "interventions.ablate\[0\].layer" "$tmp/err" && [ "$(grep -c interventions "$tmp/err")" = 1 ] && [ $rc = 2 ]'
heed translate -m "$model" --ablate mid:0:1 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--ablate of an unknown block: parse error, exit 2" 'grep -q "the block must be enc, dec or cross, got .mid." "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --temperature -1 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--temperature must be positive (exit 2)" 'grep -q "interventions.temperature" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --temperature 1e-50 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--temperature 1e-50 underflows a float: refused as std::stof does (exit 2)" 'grep -q "expects a number, got .1e-50." "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --temperature 1.5 --max-length 20 "A simple text editor" >/dev/null; rc=$?
check "--temperature 1.5 translates" '[ $rc = 0 ]'
heed translate -m "$model" --no-positions --attention "$tmp/s.json" "A simple text editor" >/dev/null; rc=$?
check "--attention records the surgery" '[ $rc = 0 ] && grep -q "\"noPositions\":true" "$tmp/s.json"'
heed translate -m "$model" --sparse 99 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--sparse with too many random blocks: exit 2 naming the field" 'grep -q "interventions.sparse.randomBlocks" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --sparse 2 --seed 7 --window 2 --attention "$tmp/sp.json" "A simple text editor" >/dev/null; rc=$?
check "--sparse 2 --seed 7 runs and is recorded" '[ $rc = 0 ] && grep -q "\"sparse\":{\"block\":4,\"enabled\":true,\"randomBlocks\":2,\"seed\":7}" "$tmp/sp.json"'
favor=$(heed translate -m "$model" --max-length 20 --linear favor:64:3 "A simple text editor"); rc=$?
again=$(heed translate -m "$model" --max-length 20 --linear favor:64:3 "A simple text editor")
check "--linear favor:64:3 runs, is reproducible and differs from softmax" '[ $rc = 0 ] && [ "$favor" = "$again" ] && [ "$favor" != "$plain" ]'
heed translate -m "$model" --linear elu --attention "$tmp/l.json" "A simple text editor" >/dev/null; rc=$?
check "--attention records --linear and the costs" '[ $rc = 0 ] && grep -q "\"linear\":{\"features\":256,\"kind\":\"elu\",\"seed\":1}" "$tmp/l.json" && grep -q "\"costs\":\[{\"block\":\"encoder\",\"layer\":0,\"macs\":" "$tmp/l.json"'
heed translate -m "$model" --linear favor hello >/dev/null 2>"$tmp/err"; rc=$?
check "--linear favor without features: parse error, exit 2" 'grep -q "expects favor:FEATURES\[:SEED\], elu or none" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --linear favor:5000 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--linear favor:5000: exit 2 naming the field" 'grep -q "interventions.linear.features must be an integer in \[1, 4096\], got 5000" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --linear elu --window 1 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--linear with --window is refused (exit 2)" 'grep -q "cannot be combined with interventions.window" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --costs "A simple text editor" >/dev/null 2>"$tmp/err"; rc=$?
check "--costs prints one line per block and layer" '[ $rc = 0 ] && [ "$(grep -c "^  \(encoder\|decoder\|cross\) [0-9]*: " "$tmp/err")" = 6 ]'
heed translate -m "$model" --threads 2 --no-split --beam 2 "A simple text editor. It reads the manual." "A game" >"$tmp/out"; rc=$?
check "--threads 2 --no-split --beam 2 translates" '[ $rc = 0 ] && [ "$(wc -l < "$tmp/out")" = 2 ]'
# int8 compute and the output shortlist: the shipped en-fr model is int8 with a shortlist
enfr="$(dirname "$model")/../en-fr.heed"
heed info -m "$enfr" > "$tmp/info8"; heed info -m "$enfr" --compute f32 > "$tmp/info32"
check "info: int8 weights stay int8 (--compute f32 widens them)" 'grep -q "\"compute\": \"int8\"" "$tmp/info8" && grep -q "\"compute\": \"f32\"" "$tmp/info32" && grep -q "\"shortlists\"" "$tmp/info8"'
heed translate -m "$enfr" --compute f16 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--compute f16 is refused" 'grep -q "expects int8 or f32" "$tmp/err" && [ $rc = 2 ]'
a=$(heed translate -m "$enfr" --shortlist "A simple text editor for the terminal."); rc=$?
check "--shortlist translates" '[ $rc = 0 ] && [ -n "$a" ]'
heed translate -m "$model" --shortlist hello >/dev/null 2>"$tmp/err"; rc=$?
check "--shortlist on a model without one: an error naming it, exit 2" 'grep -q "no output shortlist" "$tmp/err" && [ $rc = 2 ]'

# one call's budget: a TEXT argument over 20,000 bytes is refused even when each sentence is short
para=$(printf 'Ab cd. %.0s' $(seq 1 2900))
heed translate -m "$model" --max-length 4 "$para" "A simple text editor" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a 20,300-byte TEXT of short sentences: refused by number before any work, the next translated" '[ $rc = 1 ] && grep -q "text 1: text is too long (20300 bytes; at most 20000)" "$tmp/err" && [ "$(wc -l < "$tmp/out")" = 2 ] && [ -z "$(head -1 "$tmp/out")" ] && [ -n "$(sed -n 2p "$tmp/out")" ]'
many=$(printf 'Ab. %.0s' $(seq 1 1100))
heed translate -m "$model" --max-length 4 "$many" >/dev/null 2>"$tmp/err"; rc=$?
check "a TEXT of 1,100 sentences: over the call's 1,024, refused" '[ $rc = 1 ] && grep -q "at most 1024 sentences (got 1100)" "$tmp/err"'
heed translate -m "$model" --sparse 2 --seed -1 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--seed -1 is refused, not wrapped (exit 2)" 'grep -q "seed must be an integer in \[0, 4294967295\], got .-1." "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --sparse 2 --seed 4294967296 hello >/dev/null 2>"$tmp/err"; rc=$?
check "--seed 2^32 is refused (exit 2)" 'grep -q "seed must be an integer" "$tmp/err" && [ $rc = 2 ]'
heed translate -m "$model" --forced-prefix 3 "A simple text editor" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--forced-prefix starting with </s>: refused with a reason (exit 2), no empty line" 'grep -q "is </s>: a translation that ends before its first piece is empty" "$tmp/err" && [ $rc = 2 ] && [ ! -s "$tmp/out" ]'
first=$(heed translate -m "$model" --max-length 20 --ids "A simple text editor" | cut -f2 | cut -d' ' -f1-2 | tr ' ' ,)
heed translate -m "$model" --max-length 20 --forced-prefix "$first," "A simple text editor" >"$tmp/out"; rc=$?
check "--forced-prefix of the greedy ids (a trailing comma adds none) gives the greedy translation" '[ $rc = 0 ] && [ "$(cat "$tmp/out")" = "$plain" ]'
# control strings typed into the text (the four-way model's target tokens are <2de> <2en> <2fr>)
multi="$(dirname "$model")/../multi.heed"
for control in '<2de>' '<2fr>' '<2en>' '<s>' '</s>' '<pad>'; do
  for text in "$control This package contains the development files." "Please read $control the manual." "A simple text editor $control"; do
    ids=$(heed translate -m "$multi" --to de --max-length 24 --ids "$text" | cut -f2)
    check "typed '$control' ($text): no control piece in the output ids" '! printf " %s " "$ids" | grep -Eq " (0|2|4|5|6) "'
  done
done
# read as text, a typed target token neither switches the language nor cuts the sentence short
# (the model of 76,135 updates does stop after "Please read <2fr>", a miss of its own that the
# control check counts; the older one wrote "... <2fr> das Handbuch.")
out=$(heed translate -m "$multi" --to de --ids "Open the <2fr> settings and choose a new password."); rc=$?
check "'Open the <2fr> settings and choose a new password.' keeps its words, in German" '[ $rc = 0 ] && printf "%s" "$out" | grep -q "<2fr> Einstellungen und"'
# the copy guard: a run of another script the model begins is written whole (unguarded, its
# greedy search drops a κ of a man page's "mandb(λνκκυφγ)", its three sentences taken as one);
# --no-copy-guard gives the model's own text
greek="It is extremely important that this format is followed, and that there is a backslash before the single dash which follows the item name. This syntax is used by the mandb(λνκκυφγ) program to create a database of short descriptions for the whatis(1) and apropos(1) commands. (See lexgrog(1) for further details on the syntax of the NAME section.)"
out=$(heed translate -m "$multi" --to fr --no-split "$greek"); rc=$?
check "copy guard (default): 'λνκκυφγ' comes through whole" '[ $rc = 0 ] && printf "%s" "$out" | grep -q "λνκκυφγ"'
out=$(heed translate -m "$multi" --to fr --no-split --no-copy-guard "$greek"); rc=$?
check "--no-copy-guard: the model's own 'λνκυφγ'" '[ $rc = 0 ] && printf "%s" "$out" | grep -q "(λνκυφγ)"'

# a Marian bundle (tests/data/marian/ssru: an SSRU decoder, a lexical shortlist)
m="$here/data/marian/ssru"
heed convert --marian "$m/model.bin" --vocab "$m/vocab.spm" --shortlist "$m/lex.s2t.bin" -o "$tmp/m.heed" 2>"$tmp/err" >"$tmp/out"; rc=$?
check "convert: the summary on stderr, the file written" '[ $rc = 0 ] && grep -q "^heed: Marian model .*: float32 weights, SSRU decoder, lexical shortlist$" "$tmp/err" && grep -q "^wrote .*m.heed (" "$tmp/out" && [ -s "$tmp/m.heed" ]'
heed translate --marian "$m/model.bin" --vocab "$m/vocab.spm" --shortlist "$m/lex.s2t.bin" --max-length 12 "a b c" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "translate --marian --shortlist" '[ $rc = 0 ] && [ -s "$tmp/out" ] && grep -q "SSRU decoder" "$tmp/err"'
heed translate --marian "$m/none.bin" --vocab "$m/vocab.spm" hello >/dev/null 2>"$tmp/err"; rc=$?
check "--marian of a missing file: named (exit 1)" 'grep -q "cannot open Marian model .*none.bin. (not a regular file)" "$tmp/err" && [ $rc = 1 ]'
heed info --marian "$m/model.bin" >/dev/null 2>"$tmp/err"; rc=$?
check "--marian without --vocab (exit 2)" 'grep -q "^heed: --marian needs its vocabulary" "$tmp/err" && [ $rc = 2 ]'

# bench: its rows, timings aside (each CLI on its own: the numbers differ from run to run)
bench_rows() {
  "$1" bench -m "$model" > "$tmp/bench"; local rc=$?
  sed -E 's/[0-9]+\.[0-9] /N /g; s/, x[0-9]+\)/, xN)/; s/ +/ /g' "$tmp/bench"; return $rc
}
bench_rows "$cli" > "$tmp/bench1"; rc=$?
check "bench: a row per mode, sentences/s and words/s" '[ $rc = 0 ] && [ "$(grep -c "^greedy, one sentence at a time N sentences/s N words/s (16 sentences, 143 words, xN)$" "$tmp/bench1")" = 1 ]'
if [ -n "$other" ]; then
  bench_rows "$other" > "$tmp/bench2"
  check "$(basename "$other") = $(basename "$cli"): bench, timings aside" 'cmp -s "$tmp/bench1" "$tmp/bench2"'
fi

[ -s "$tmp/failed" ] && fail=1
exit $fail
