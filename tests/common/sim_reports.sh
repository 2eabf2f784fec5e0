# sim_reports.sh: shell functions shared by the scripts that run a program on the simulator and
# judge its "========= SyncLab" reports (tests/fixtures/check_fixture.sh, tests/checks/run_check.sh).
# Source it; it defines functions only.
#
# The caller sets: runner (synclab-run), program, model, sched, pct_depth, device (each may be
# empty), envs (array of VAR=VALUE), run_timeout (seconds), tmp (a scratch directory), src_base
# (the base name of the program's .cu source).

# sim_run_once SEED [ARGS...]: runs the program once with --seed SEED ("none": no --seed) and
# program arguments ARGS; leaves stdout/stderr in $tmp/out and $tmp/err and sets status,
# timed_out (1 when the run timeout killed it) and cmd_text (the command, for messages).
sim_run_once() {
  local cmd=("$runner")
  [ -n "${model:-}" ] && cmd+=(--model "$model")
  [ -n "${sched:-}" ] && cmd+=(--sched "$sched")
  [ "$1" != none ] && cmd+=(--seed "$1")
  [ -n "${pct_depth:-}" ] && cmd+=(--pct-depth "$pct_depth")
  [ -n "${device:-}" ] && cmd+=(--device "$device")
  shift
  cmd+=(-- "$program" "$@")
  cmd_text="${envs[*]:+${envs[*]} }${cmd[*]}"
  env ${envs[@]+"${envs[@]}"} timeout -k 5 "$run_timeout" "${cmd[@]}" >"$tmp/out" 2>"$tmp/err"
  status=$?
  timed_out=0
  if [ $status -eq 124 ] || [ $status -eq 137 ]; then timed_out=1; fi
}

# sim_list_reports: the reports of the last run, one per line:
#   SEVERITY KIND AT_LINE OTHER_LINES TITLE...
# AT_LINE is the first line of $src_base on the report's first "at" line (0: none there);
# OTHER_LINES are the other lines of $src_base the report names, comma separated ("-": none).
# Summary lines are not reports.
sim_list_reports() {
  cat "$tmp/out" "$tmp/err" | awk -v base="$src_base" '
    function lines_in(text,    n, w, i, word, file, out) {
      out = ""
      n = split(text, w, /[ \t,;()]+/)
      for (i = 1; i <= n; i++) {
        word = w[i]
        sub(/[.:]+$/, "", word)
        if (match(word, /:[0-9]+$/) == 0) continue
        file = substr(word, 1, RSTART - 1)
        if (file == base || substr(file, length(file) - length(base)) == "/" base)
          out = out (out == "" ? "" : ",") substr(word, RSTART + 1)
      }
      return out
    }
    function flush() {
      if (have) print sev, kind, (at == "" ? 0 : at), (others == "" ? "-" : others), title
      have = 0
    }
    /^========= SyncLab SUMMARY:/ { flush(); next }
    /^========= SyncLab [A-Z]+ \([a-z]+\):/ {
      flush()
      have = 1; at = ""; others = ""
      sev = $3; kind = $4; gsub(/[():]/, "", kind)
      title = $0; sub(/^========= SyncLab [A-Z]+ \([a-z]+\): */, "", title)
      next
    }
    have && /^=========     at / && at == "" {
      n = split(lines_in($0), l, ",")
      if (n > 0) {
        at = l[1]
        for (i = 2; i <= n; i++) others = others (others == "" ? "" : ",") l[i]
        next
      }
    }
    have && /^=========     / {
      s = lines_in($0)
      if (s != "") others = others (others == "" ? "" : ",") s
      next
    }
    have { flush() }
    END { flush() }'
}

# sim_show_run: the command, its output and how it ended.
sim_show_run() {
  echo "\$ $cmd_text"
  echo "--- stdout"; cat "$tmp/out"
  echo "--- stderr"; cat "$tmp/err"
  if [ "${timed_out:-0}" -eq 1 ]; then
    echo "--- killed after $run_timeout s (no report ended the run)"
  else
    echo "--- exit status $status"
  fi
}
