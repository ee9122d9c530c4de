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
 * The guardian's sweep ({@linkcode guardSweep}) finds what a dead host
 * started: every process with the host's environment mark and the rest of
 * their sessions, or (where `ps` reports no session ids: macOS) their
 * descendants and process groups.
 *
 * Pure: scripts only; `_runtime.ts` runs them (and `_guardian.ts` builds the
 * guardian's script around {@linkcode guardSweep}).
 * Internal module: only `_runtime.ts` and `_guardian.ts` import it.
 *
 * @module
 */

/**
 * Shell code that sets `P` when `/proc` is to be read: where it is readable,
 * unless `noProc` (the host's `BASHBOX_NO_PROC=1`: the path macOS takes,
 * forced for the tests). The choice is made where the script runs, so a
 * remote side without `/proc` takes the `ps` path whatever the host has.
 */
function procSwitch(noProc: boolean): string {
  return noProc ? "P=" : 'P=; [ -r "/proc/$$/stat" ] && P=1';
}

/**
 * A `ps` listing of every process, one a line: pid, ppid, process group,
 * session, state, then its command line followed by its environment
 * (`NAME=value` words). `axeww` is one BSD-style word: procps (Linux) reads
 * its `e` as "show the environment"; macOS's ps reads a first argument
 * without a dash as the old BSD options, where `e` is `-E` (its `-e` alone
 * would mean `-A`). Both show the environment of the user's own processes
 * only (root's: every process's), which are the ones looked for. `sess` is
 * the session id on procps; macOS's kernel fills no session there (0 for
 * every process). (Checked here with procps-ng 4.0; macOS from its ps(1)
 * and its source, not run.)
 */
const PS_ENV =
  "ps axeww -o pid= -o ppid= -o pgid= -o sess= -o stat= -o command= 2>/dev/null";

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
${procSwitch(noProc)}
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
 * `/proc/<pid>/environ`; without, `ps` with the environment (see `PS_ENV`),
 * read by awk (bash's `read` takes a pipe one byte a call: four times
 * slower here). Shared by the local and remote sides.
 */
export function markSweep(noProc: boolean): string {
  return `t=BASHBOX_PROCESS=$1 sig=$2
${procSwitch(noProc)}
for r in 1 2 3 4 5 6; do
  n=0
  if [ -n "$P" ]; then
    l=$(grep -lzxF -- "$t" /proc/[0-9]*/environ 2>/dev/null)
  else
    l=$(${PS_ENV} | awk -v t="$t" '$5 !~ /^Z/ && index($0 " ", " " t " ") { print $1 }')
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

/**
 * The /proc side of the guardian's sweep (one round): the marked processes
 * (`grep` over every `/proc/<pid>/environ`), then the groups in `$s`, then
 * every process whose session is in `$s`.
 */
const GUARD_PROC_ROUND =
  `  for f in $(grep -lzxF -- "$t" /proc/[0-9]*/environ 2>/dev/null); do
    p=\${f#/proc/}; p=\${p%/environ}
    [ "$p" = "$$" ] && continue
    IFS= read -r l 2>/dev/null <"/proc/$p/stat" || continue
    l=\${l##*) }; set -- $l
    case $s in *" $4 "*) ;; *) [ "$4" -gt 1 ] && [ "$4" != "$m" ] && s="$s$4 " ;; esac
    kill -s KILL "$p" 2>/dev/null && n=$((n+1))
  done
  for p in $s; do kill -s KILL -- "-$p" 2>/dev/null && n=$((n+1)); done
  for d in /proc/[0-9]*; do
    [ "\${d#/proc/}" = "$$" ] && continue
    IFS= read -r l 2>/dev/null <"$d/stat" || continue
    l=\${l##*) }; set -- $l
    [ "$1" = Z ] && continue
    case $s in *" $4 "*) kill -s KILL "\${d#/proc/}" 2>/dev/null && n=$((n+1)) ;; esac
  done`;

/**
 * The `ps` side of the guardian's sweep (one round): one `PS_ENV` listing,
 * read by awk, which prints `S<id>` for each group or session to add to
 * `$s`, then the pids to kill. Where the `sess` column holds session ids
 * (some process is its own session's leader: procps), the targets are as on
 * the /proc side: the marked processes and every process whose session is in
 * `$s`, the marked ones' sessions added. Where it does not (macOS: 0), they
 * are the marked processes, every process of the groups in `$s`, their
 * descendants, and every process of those descendants' groups, followed
 * until nothing is added. Never itself, its own group or session, pid 1, a
 * zombie. Then it kills the groups in `$s`.
 */
const GUARD_PS_ROUND = `  for x in $(${PS_ENV} |
    awk -v t="$t" -v s="$s" -v me="$$" -v nosid="$N" '
    { n++; P[n] = $1; Q[n] = $2; G[n] = $3; E[n] = $4; Z[n] = $5
      if ($1 == me) { mg = $3; ms = $4 }
      if ($5 !~ /^Z/ && index($0 " ", " " t " ")) M[$1] = 1
      if ($1 == $4 && $1 > 1 && !nosid) sid = 1 }
    END {
      k = split(s, L, " "); for (i = 1; i <= k; i++) S[L[i]] = 1
      if (sid) {
        for (i = 1; i <= n; i++)
          if ((P[i] in M) && E[i] > 1 && E[i] != ms && !(E[i] in S)) {
            S[E[i]] = 1; print "S" E[i]
          }
        for (i = 1; i <= n; i++) if ((E[i] in S) && E[i] != ms) D[P[i]] = 1
      } else {
        do { c = 0
          for (i = 1; i <= n; i++) {
            if (P[i] == me || P[i] <= 1 || G[i] == mg) continue
            if (!(P[i] in D) && ((P[i] in M) || (Q[i] in D) || (G[i] in S))) {
              D[P[i]] = 1; c = 1
            }
            if ((P[i] in D) && G[i] > 1 && !(G[i] in S)) {
              S[G[i]] = 1; print "S" G[i]; c = 1
            }
          }
        } while (c)
      }
      for (i = 1; i <= n; i++)
        if (P[i] != me && P[i] > 1 && Z[i] !~ /^Z/ && ((P[i] in M) || (P[i] in D)))
          print P[i]
    }'); do
    case $x in
      S*) s="$s\${x#S} " ;;
      *) kill -s KILL "$x" 2>/dev/null && n=$((n+1)) ;;
    esac
  done
  for p in $s; do kill -s KILL -- "-$p" 2>/dev/null && n=$((n+1)); done`;

/**
 * POSIX sh (with awk and `ps`, or GNU grep and `/proc`) that SIGKILLs every
 * process whose environment holds the entry `$t` (`NAME=token`), every
 * process group listed in `$s` (ids between spaces, `" 12 34 "`), and every
 * process of those sessions and of the sessions the marked processes are in;
 * it repeats while it finds any (children forked meanwhile), at most eight
 * rounds. It skips itself and zombies; its own session is never a target.
 * The caller sets `t` and `s`. With `/proc` (unless `noProc`) it reads
 * `/proc/<pid>/environ` and `/proc/<pid>/stat`; without, one `ps` listing
 * with the environment per round. Where that `ps` reports no session ids
 * (macOS; `noSessionIds` forces it, for tests), the sessions are replaced by
 * the marked processes' descendants and process groups: an unmarked process
 * (`env -i`) that left its group and whose parent is gone is not found
 * there. Shared by the host's guardian and the remote side's control
 * channel.
 */
export function guardSweep(noProc: boolean, noSessionIds = false): string {
  return `N=${noSessionIds ? 1 : ""} m=
${procSwitch(noProc)}
if [ -n "$P" ]; then IFS= read -r l </proc/$$/stat; l=\${l##*) }; set -- $l; m=$4; fi
for r in 1 2 3 4 5 6 7 8; do
  n=0
  if [ -n "$P" ]; then
${GUARD_PROC_ROUND}
  else
${GUARD_PS_ROUND}
  fi
  [ $n -gt 0 ] || break
done`;
}
