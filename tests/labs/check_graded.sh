#!/usr/bin/env bash
# Runs every graded test case of a lab's test program in its own process (as the grader does)
# and checks the outcome the build expects:
#
#   check_graded.sh --expect pass -- BIN     every case passes (the solutions)
#   check_graded.sh --expect fail -- BIN     every case fails (the untouched skeletons)
#   check_graded.sh --expect fail --may-pass REGEX -- BIN
#                                            every case fails, except that cases whose names match
#                                            REGEX (extended grep) may pass: on a GPU, a case that
#                                            catches a missing fence only when the hardware shows
#                                            the reordering
#   check_graded.sh --expect-reject "CASE" --message REGEX [--message REGEX...] -- BIN
#                                            the named case fails and its output matches every
#                                            REGEX (extended grep, case-insensitive): a wrong
#                                            solution is rejected with a message that points at
#                                            the mistake (only that case runs)
#   check_graded.sh --expect-pass-case "CASE" -- BIN
#                                            the named case passes and the simulator reports nothing
#                                            in it (a wrong solution's fixed twin: the advice of its
#                                            message, applied, fixes it; only that case runs)
#
# Every case must carry a [pts:N] tag. Options: --timeout SECONDS per case (default 300),
# --log DIR (keep each case's output there). Prints one line per case and a summary; exit 0 when
# the expectation holds.
set -uo pipefail

expect="" reject="" timeout_s=300 logdir="" may_pass=""
messages=()
while [ $# -gt 0 ]; do
  case "$1" in
    --expect) expect="$2"; shift 2 ;;
    --expect-reject) expect=reject; reject="$2"; shift 2 ;;
    --expect-pass-case) expect=pass-case; reject="$2"; shift 2 ;;
    --message) messages+=("$2"); shift 2 ;;
    --may-pass) may_pass="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --log) logdir="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "check_graded.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
bin="${1:-}"
case "$expect" in pass|fail|reject|pass-case) ;; *) echo "check_graded.sh: --expect pass|fail, --expect-reject CASE or --expect-pass-case CASE" >&2; exit 2 ;; esac
[ -x "$bin" ] || { echo "check_graded.sh: test program '$bin' not found or not executable (built?)" >&2; exit 2; }
[ -z "$logdir" ] || mkdir -p "$logdir"

# Catch2 2.x lists names with --list-test-names-only, 3.x with --list-tests --verbosity quiet.
# (Catch2 2.x exits with the number of cases listed, so only the output counts.)
names="$("$bin" --list-test-names-only 2>/dev/null)"
if [ -z "$names" ] || grep -qiE 'unrecognised|unknown|error' <<<"$names"; then
  names="$("$bin" --list-tests --verbosity quiet 2>/dev/null)"
fi
[ -n "$names" ] || { echo "check_graded.sh: cannot list the test cases of $bin" >&2; exit 2; }
mapfile -t cases < <(sed -e 's/[[:space:]]*$//' -e '/^$/d' <<<"$names")
[ ${#cases[@]} -gt 0 ] || { echo "check_graded.sh: $bin has no test cases" >&2; exit 2; }

if [ "$expect" = reject ] || [ "$expect" = pass-case ]; then
  found=0
  for c in "${cases[@]}"; do [ "$c" = "$reject" ] && found=1; done
  [ $found = 1 ] || { echo "check_graded.sh: $bin has no test case named '$reject'" >&2; exit 2; }
fi

# Each case's points: one listing per [pts:N] tag that --list-tags names, instead of one listing
# per case (a wrong solution's check runs one case of a dozen; the listings were most of its time).
declare -A pts_of=()
mapfile -t pts_tags < <("$bin" --list-tags 2>/dev/null | grep -oE '\[pts:[0-9]+\]' | sort -u)
for tag in "${pts_tags[@]+"${pts_tags[@]}"}"; do
  while IFS= read -r name; do
    name="${name%"${name##*[![:space:]]}"}"
    [ -n "$name" ] && [ -z "${pts_of[$name]+set}" ] && pts_of[$name]="${tag//[^0-9]/}"
  done < <("$bin" --list-test-names-only "$tag" 2>/dev/null)
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bad=0 passed=0 failed=0 pts_total=0 pts_passed=0 i=0
for c in "${cases[@]}"; do
  i=$((i + 1))
  pts="${pts_of[$c]:-}"
  if [ -z "$pts" ]; then
    echo "ERROR   '$c' has no [pts:N] tag: every graded case must say what it is worth"
    bad=1
    pts=0
  fi
  # A wrong solution (and its fixed twin) is checked on the case it names alone (the others' outcomes are not part of
  # what it declares; running them cost most of the labs' test time).
  if [ "$expect" = reject ] || [ "$expect" = pass-case ]; then [ "$c" != "$reject" ] && continue; fi
  out="$tmp/case$i.log"
  timeout "$timeout_s" "$bin" "$c" >"$out" 2>&1
  rc=$?
  [ -z "$logdir" ] || cp "$out" "$logdir/case$i.log"
  if grep -q "No test cases matched" "$out"; then
    echo "ERROR   '$c' could not be selected by name (avoid , [ ] * ~ \\ in case names)"
    bad=1
    continue
  fi
  pts_total=$((pts_total + pts))
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1)); pts_passed=$((pts_passed + pts)); verdict=PASS
  else
    failed=$((failed + 1)); verdict=FAIL
    [ $rc -eq 124 ] && verdict="FAIL (timed out after ${timeout_s}s)"
  fi
  printf '%-7s [pts:%s] %s\n' "$verdict" "$pts" "$c"
  case "$expect" in
    pass)
      if [ $rc -ne 0 ]; then
        echo "        expected to pass; its output (last 40 lines):"
        tail -n 40 "$out" | sed 's/^/        | /'
        bad=1
      fi ;;
    fail)
      if [ $rc -eq 0 ] && [ -n "$may_pass" ] && grep -qE -- "$may_pass" <<<"$c"; then
        echo "        passed on the untouched skeleton, which this backend allows for it (--may-pass /$may_pass/)"
      elif [ $rc -eq 0 ]; then
        echo "        expected to FAIL on the untouched skeleton, but it passed: the test does not discriminate"
        bad=1
      fi ;;
    pass-case)
      if [ $rc -ne 0 ]; then
        echo "        expected the fixed twin to pass here; its output (last 40 lines):"
        tail -n 40 "$out" | sed 's/^/        | /'
        bad=1
      elif grep -qE 'SyncLab (ERROR|WARNING)' "$out"; then
        echo "        passed, but the simulator reported something in it:"
        grep -E -m 3 'SyncLab (ERROR|WARNING)' "$out" | sed 's/^/        | /'
        bad=1
      fi ;;
    reject)
      if [ "$c" = "$reject" ]; then
        if [ $rc -eq 0 ]; then
          echo "        expected the grader to reject this wrong solution here, but the case passed"
          bad=1
        else
          # Catch2 may wrap long messages: match against the output with wrapped lines joined,
          # by a blank where the break was between words and by nothing after a hyphen (Catch2
          # 3 also breaks there: "--" / "rounds 2"). Catch2 also breaks inside a path, after
          # one of . / : , ; (".../roundtrip.\n   cu:66"), where the break cannot be told from a
          # sentence's end: a second joining removes those breaks, and either may match.
          joined="$(sed -e ':a' -e 'N' -e '$!ba' -e 's/-\n[[:space:]]\+/-/g' -e 's/\n[[:space:]]\+/ /g' "$out")"
          joined_tight="$(sed -e ':a' -e 'N' -e '$!ba' -e 's/\([-./:,;]\)\n[[:space:]]\+/\1/g' -e 's/\n[[:space:]]\+/ /g' "$out")"
          for m in "${messages[@]}"; do
            if ! grep -qiE -- "$m" <<<"$joined" && grep -qiE -- "$m" <<<"$joined_tight"; then
              joined_m="$joined_tight"
            else
              joined_m="$joined"
            fi
            if ! grep -qiE -- "$m" <<<"$joined_m"; then
              echo "        rejected, but the output does not match /$m/ (the message must point at the mistake):"
              tail -n 40 "$out" | sed 's/^/        | /'
              bad=1
            else
              echo "        rejected with a message matching /$m/:"
              grep -ioE -m 1 -- ".{0,80}($m).{0,60}" <<<"$joined_m" | head -n 1 | sed 's/^/        > /'
            fi
          done
        fi
      fi ;;
  esac
done
echo "$passed passed, $failed failed; $pts_passed of $pts_total points"
if [ $bad -ne 0 ]; then
  case "$expect" in
    pass) echo "check_graded.sh: some graded cases fail on the reference solutions" ;;
    fail) echo "check_graded.sh: some graded cases pass on the untouched skeletons" ;;
    reject) echo "check_graded.sh: the wrong solution was not rejected as declared" ;;
    pass-case) echo "check_graded.sh: the fixed twin of the wrong solution does not pass silently" ;;
  esac
  exit 1
fi
echo "check_graded.sh: as expected ($expect)"
