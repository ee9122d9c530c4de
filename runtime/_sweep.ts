/**
 * Finding and signalling the processes of a session, and the processes that
 * carry an environment mark, with or without `/proc`: the shell scripts the
 * host (and the remote side of a transport) runs for it.
 *
 * With `/proc` (Linux), a session sweep walks the session leader's
 * descendants (`/proc/<pid>/task/<tid>/children`) and the children of the
 * leader's ancestors (where orphans of the session are re-parented), so its
 * cost follows the session's own processes, not the machine's. Without
 * `/proc` (macOS, BSD) one `ps -A` per round lists what it needs: the
 * session id where `ps` reports one (`sess` on Linux's procps), else the
 * leader's descendants and their process groups.
 *
 * Pure: scripts only; `_runtime.ts` runs them.
 * Internal module: only `_runtime.ts` imports it.
 *
 * @module
 */

/**
 * Shell code that reads a process's `/proc/<pid>/stat` (`st <pid>`: false
 * when it is gone; `a` state, `b` ppid, `c` process group, `d` session, `e`
 * start time) and its children (`kids <pid>`: into `k`).
 */
const PROC_HELPERS = `st() {
  IFS= read -r l 2>/dev/null <"/proc/$1/stat" || return 1
  l=\${l##*) }; set -- $l; a=$1 b=$2 c=$3 d=$4 e=\${20}
}
kids() {
  k=
  for f in /proc/$1/task/*/children; do
    x=; IFS= read -r x 2>/dev/null <"$f"; k="$k $x"
  done
}`;

/**
 * The /proc side of a session sweep (one round). The first round checks the
 * leader: in mode `gone` (the host already reaped it) a live process with
 * its pid is someone else's, so nothing is signalled; in mode `live` its
 * start time is kept, and a later round that finds another start time stops
 * (the pid was reused). While the leader lives, the round walks its
 * descendants and the children of its ancestors (the host excepted: it is
 * no subreaper, and its children are the other sessions); once it is gone,
 * the ancestors found before; without them, every process.
 */
const PROC_ROUND = `if st "$s"; then
  if [ -z "$t" ]; then
    [ "$m" = gone ] && break
    t=$e
    q=$b
    while [ "$q" -gt 0 ] 2>/dev/null && st "$q"; do
      { [ "$q" != "$PPID" ] || [ "$q" = 1 ]; } && [ "$q" != "$$" ] && A="$A $q"
      [ "$q" = 1 ] && break
      q=$b
    done
  elif [ "$e" != "$t" ]; then
    break
  fi
fi
if [ -n "$t" ] && [ -e "/proc/$$/task/$$/children" ]; then
  o=
  for q in $A; do
    kids "$q"
    for x in $k; do st "$x" && [ "$d" = "$s" ] && o="$o $x"; done
  done
  q="$s $o" seen=" "
  while [ -n "$q" ]; do
    set -- $q; p=$1; shift; q="$*"
    case $seen in *" $p "*) continue ;; esac
    seen="$seen$p "
    st "$p" || continue
    [ "$p" = "$s" ] && [ "$e" != "$t" ] && continue
    kids "$p"; q="$q $k"
    [ "$d" = "$s" ] && [ "$c" != "$g" ] && [ "$a" != Z ] && [ "$p" != "$$" ] &&
      kill -s "$sig" "$p" 2>/dev/null && n=$((n+1))
  done
else
  for q in /proc/[0-9]*; do
    p=\${q#/proc/}
    [ "$p" = "$$" ] && continue
    st "$p" || continue
    [ "$d" = "$s" ] && [ "$c" != "$g" ] && [ "$a" != Z ] &&
      kill -s "$sig" "$p" 2>/dev/null && n=$((n+1))
  done
fi`;

/**
 * The `ps` side of a session sweep (one round): one `ps -A` listing, read by
 * awk. Where its `sess` column is a session id (some process is its own
 * session's leader: procps), the members are the processes with session
 * `$s`. Where it is not (macOS prints a kernel pointer, or 0), they are the
 * leader's descendants and every process in their process groups. The
 * leader is checked as on the /proc side, by `lstart`; awk prints `X` when
 * the sweep must stop, `T <lstart>` the first time it sees the leader, then
 * the pids to signal.
 */
const PS_ROUND =
  `for x in $(ps -A -o pid= -o ppid= -o pgid= -o sess= -o stat= -o lstart= 2>/dev/null |
  awk -v s="$s" -v g="$g" -v m="$m" -v t="$t" -v me="$$" -v nosid="$N" '
  { n++; P[n] = $1; Q[n] = $2; G[n] = $3; E[n] = $4; Z[n] = $5
    l = $6; for (i = 7; i <= NF; i++) l = l "_" $i
    if ($1 == $4 && $1 > 1 && !nosid) sid = 1
    if ($1 == s) lt = l }
  END {
    if (lt != "") {
      if (t == "") { if (m == "gone") { print "X"; exit } print "T" lt }
      else if (lt != t) { print "X"; exit }
    }
    if (!sid) {
      if (lt != "") D[s] = 1
      K[s] = 1
      do { c = 0
        for (i = 1; i <= n; i++) if ((Q[i] in D) && !(P[i] in D)) { D[P[i]] = 1; c = 1 }
      } while (c)
      for (i = 1; i <= n; i++) if (P[i] in D) K[G[i]] = 1
    }
    for (i = 1; i <= n; i++) {
      if (P[i] == me || Z[i] ~ /^Z/ || G[i] == g) continue
      if (sid ? E[i] == s : ((P[i] in D) || (G[i] in K))) print P[i]
    }
  }'); do
  case $x in
    X) break 2 ;;
    T*) t=\${x#T} ;;
    *) kill -s "$sig" "$x" 2>/dev/null && n=$((n+1)) ;;
  esac
done`;

/**
 * bash that signals every live process of session `$1` whose process group
 * is not `$2`, with signal `$3`; for KILL it repeats while it finds any
 * (children forked meanwhile). `$4` is `gone` when the caller has already
 * reaped the session's leader (a process with that pid is then someone
 * else's, and the sweep signals nothing), else `live`. Uses `/proc` where
 * it is readable (unless `noProc`), else `ps`. Shared by the local and
 * remote sides. `noSessionIds` (for tests) makes the `ps` side ignore
 * session ids, as it does on macOS.
 */
export function sessionSweep(noProc: boolean, noSessionIds = false): string {
  return `s=$1 g=$2 sig=$3 m=\${4:-live} t= A= N=${noSessionIds ? 1 : ""}
${noProc ? "P=" : 'P=; [ -r "/proc/$$/stat" ] && P=1'}
${PROC_HELPERS}
for r in 1 2 3 4 5 6; do
  n=0
  if [ -n "$P" ]; then
${PROC_ROUND}
  else
${PS_ROUND}
  fi
  [ "$sig" = KILL ] && [ $n -gt 0 ] || break
done
:`;
}

/**
 * bash that signals every process whose environment holds
 * `BASHBOX_PROCESS=$1`, with signal `$2`; for KILL it repeats while it finds
 * any (children forked meanwhile). With `/proc` it reads
 * `/proc/<pid>/environ`; without, `ps` with the environment (`e`: shown for
 * the user's own processes, which are the ones it looks for). Shared by the
 * local and remote sides.
 */
export function markSweep(noProc: boolean): string {
  return `t=BASHBOX_PROCESS=$1 sig=$2
${noProc ? "P=" : 'P=; [ -r "/proc/$$/environ" ] && P=1'}
for r in 1 2 3 4 5 6; do
  n=0
  if [ -n "$P" ]; then
    l=$(grep -lzxF -- "$t" /proc/[0-9]*/environ 2>/dev/null)
  else
    l=$(ps axeww -o pid= -o command= 2>/dev/null | while IFS= read -r x; do
      case "$x " in *" $t "*) x=\${x#"\${x%%[! ]*}"}; echo "\${x%% *}" ;; esac
    done)
  fi
  for p in $l; do
    p=\${p#/proc/}; p=\${p%/environ}
    [ "$p" = "$$" ] && continue
    kill -s "$sig" "$p" 2>/dev/null && n=$((n+1))
  done
  [ "$sig" = KILL ] && [ $n -gt 0 ] || break
done
:`;
}
