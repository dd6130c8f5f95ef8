# Sourced by the multi-process tests: kill_rank <victim pid> <watched pid> <seconds>
# SIGKILLs the victim and waits up to <seconds> for the watched process (the
# launcher, or another rank) to end by itself; then sets killed_status to its
# exit status and killed_seconds to how long it took. Returns 1 (after
# SIGKILLing it) when it is still running.
kill_rank() {
  local victim=$1 watched=$2 seconds=$3 start=$SECONDS
  kill -KILL "$victim"
  for _ in $(seq 1 $((seconds * 10))); do kill -0 "$watched" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$watched" 2>/dev/null; then kill -KILL "$watched"; return 1; fi
  killed_status=0
  wait "$watched" || killed_status=$?
  killed_seconds=$((SECONDS - start))
}
