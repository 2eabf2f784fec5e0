#!/usr/bin/env bash
# checker_names.sh: the checker names are one list. Compares the list each place shows with the
# parser's own (the message for an unknown name): synclab-run --help, synclab-run's error, the
# error of a program started with a bad SYNCLAB_CHECK, the README's SYNCLAB_CHECK row and the
# table of docs/checkers.md.
#
#   checker_names.sh --run SYNCLAB_RUN --program PROG --readme README.md --docs docs/checkers.md
# Exit status 0 when every list is the same, 1 otherwise (naming the lists that differ).
set -u
run="" program="" readme="" docs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --run) run=$2; shift 2 ;;
    --program) program=$2; shift 2 ;;
    --readme) readme=$2; shift 2 ;;
    --docs) docs=$2; shift 2 ;;
    *) echo "checker_names.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
for f in "$run" "$program"; do [ -x "$f" ] || { echo "FAILED: $f is missing (did it build?)"; exit 1; }; done
for f in "$readme" "$docs"; do [ -f "$f" ] || { echo "FAILED: $f is missing"; exit 1; }; done

# "a, b, c" -> "a b c", sorted (the order is not what is compared).
normalize() { tr -s ', ' '\n\n' | sed '/^$/d' | sort | paste -sd' '; }
# The names after "comma-separated list of " up to the end of the line or " (".
after_list_of() { grep -m1 -o 'comma-separated list of [a-z, ]*' | sed 's/^comma-separated list of //' | normalize; }

# The parser, through synclab-run's check of --check.
parser="$("$run" --check no-such-checker -- true 2>&1 >/dev/null | after_list_of)"
# The parser inside simcudart, reading SYNCLAB_CHECK at the program's start.
program_err="$(SYNCLAB_CHECK=no-such-checker "$program" 2>&1 >/dev/null | after_list_of)"
# --help: the --check option's line, then one indented "NAME: what" line per checker.
help_text="$("$run" --help)"
help_line="$(grep -- '--check' <<<"$help_text" | after_list_of)"
help_each="$(awk '/--check/ { on = 1; next } on && /^ +[a-z]+: / { sub(/^ +/, ""); sub(/:.*/, ""); print; next } on { exit }' <<<"$help_text" | normalize)"
# README: the SYNCLAB_CHECK row's names in backquotes after "list of".
readme_row="$(grep -m1 '^| `SYNCLAB_CHECK`' "$readme" | cut -d'|' -f3 | sed 's/.*list of//' | grep -o '`[a-z]*`' | tr -d '`' | normalize)"
# docs/checkers.md: the rows of its first table that name one checker ("| `race` | ...").
docs_rows="$(grep -E '^\| `[a-z]+` \|' "$docs" | grep -vE '^\| `(all|none)` ' | sed -E 's/^\| `([a-z]+)`.*/\1/' | normalize)"

fail=0
echo "parser (synclab-run --check): $parser"
[ -n "$parser" ] || { echo "FAILED: synclab-run's error for an unknown checker names no list"; fail=1; }
for pair in "program's SYNCLAB_CHECK error:$program_err" "synclab-run --help, --check line:$help_line" \
            "synclab-run --help, one line per checker:$help_each" "README.md SYNCLAB_CHECK row:$readme_row" \
            "docs/checkers.md table:$docs_rows"; do
  where=${pair%%:*} names=${pair#*:}
  if [ "$names" = "$parser" ]; then
    echo "$where: $names"
  else
    echo "FAILED: $where lists '$names', the parser '$parser'"
    fail=1
  fi
done
[ $fail = 0 ] && echo OK
exit $fail
