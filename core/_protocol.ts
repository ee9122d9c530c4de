/**
 * The text protocol between the host and the session's bash, in one place:
 * how bash is started (the bootstrap line and the prompt-like launcher), the
 * init script, the per-call lines, the sentinel needle and the trailer. The
 * printf format that writes a frame, the needle the host looks for and the
 * parser of the trailer are defined here together, so they cannot drift.
 * Pure: strings in, strings out (no runtime APIs; the parser is pure too).
 *
 * Internal module.
 *
 * @module
 */

import { parse, RESERVED_WORDS } from "../shell/parse.ts";

const encoder = new TextEncoder();

/** Fds the shell keeps for its sentinels, so `exec >file` cannot redirect them. */
export const SENTINEL_OUT_FD = 19;
/** The stderr copy of the frame, in separate mode. */
export const SENTINEL_ERR_FD = 18;
/** Holds the command's stderr while the framing runs with stderr closed (xtrace on). */
export const TRACE_SAVE_FD = 16;
/**
 * Where bash reads its script (the host's pipe): opened as \`0\` from
 * /dev/fd and moved as high as bash puts it (255 is taken by an interactive
 * shell's terminal descriptor). The framing reads a call's command and id
 * from it as data, in one read(2) each.
 */
const SCRIPT_FD = 254;
/**
 * Starts the session's bash the way a prompt behaves: interactive (an error
 * such as \`set -u\`'s unbound variable ends the command line, not the shell;
 * messages read \`bash: nope: command not found\`), yet reading its commands
 * as a script from the host's pipe, so it prints no prompts, job numbers or
 * terminal errors. The script is opened as \`0\` from /dev/fd (a login
 * shell's by its absolute name: see bootstrapLine), so
 * \`$BASH_SOURCE\` names no path (the usual \`dirname "\${BASH_SOURCE[0]}"\` is
 * \`.\`). A socket cannot be opened by path: where stdin is one (Bun, some
 * transports) a \`cat\` relays it through a pipe. It ignores the signals a
 * command may send its whole group (\`kill 0\`, \`trap 'kill 0' EXIT\`) as an
 * interactive bash does, so the shell never loses its input. Deno's
 * stdin is a pipe and Node's a FIFO the host writes (see openStdinFifo), so
 * no relay runs there. The working directory is handed to
 * the init script in BASHBOX_CWD, and its stderr on fd 3 (bash's start-up
 * complaints about job control go to /dev/null).
 */
const PROMPT_LAUNCHER =
  'BASHBOX_CWD=$PWD;export BASHBOX_CWD;b=$1;s=$2;shift 2;if [ "$s" = 0 ];then cd /dev/fd||exit 96;fi;exec 3>&2 2>/dev/null;if [ -p 0 ];then exec -a bash "$b" "$@" --noediting -i "$s";fi;exec -a bash "$b" "$@" --noediting -i "$s" 0< <(trap "" INT TERM HUP QUIT USR1 USR2 ALRM;PATH=/usr/bin:/bin exec cat)';

/**
 * The names on the lines of a call, which bash reads one byte at a time:
 * short, and of a shape no one names a command (\`_+\`), each an alias
 * with a function of the same name (for a command that turns aliases off;
 * defined once, at start: posix mode refuses to define such names).
 */
const LINE = {
  /** The take step: the command follows as data, its length the word. */
  take: "_+p",
  /** The take step for a command as one ANSI-C quoted word. */
  takeWord: "_+P",
  /** The take step for a command of plain words (see {@linkcode plainWords}). */
  takePlain: "_+w",
  /** The take step of the other routes (see {@linkcode route}). */
  takeOther: "_+k",
  /** The same, for a command as one ANSI-C quoted word. */
  takeOtherWord: "_+K",
  /** The runner, xtrace off. */
  run: "_+E",
  /** The runner that turns xtrace on for the command. */
  runTraced: "_+X",
  /** The frame; the call's id follows as data. */
  frame: "_+z",
} as const;
/**
 * The framing's own aliases: the runners, the command's unit (set by the
 * take step of every call) and the frame. Their count is how the take step
 * tells that they are all there, and their names (noted at start) that the
 * user has none of their own.
 */
const FRAMING_ALIASES = [
  LINE.take,
  LINE.takeWord,
  LINE.takePlain,
  LINE.takeOther,
  LINE.takeOtherWord,
  LINE.run,
  LINE.runTraced,
  "__bbC",
  LINE.frame,
];
/**
 * A command as one ANSI-C quoted word (`$'…'`): backslash, quote and control
 * characters escaped, everything else as it is.
 */
export function ansiC(text: string): string {
  return `$'${
    text.replace(
      // deno-lint-ignore no-control-regex
      /[\\'\x00-\x1f\x7f]/g,
      (c) =>
        c === "\\" || c === "'"
          ? `\\${c}`
          : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
    )
  }'`;
}

const ID_CHARS =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@";
const ID_LENGTH = 11;
const idPool = new Uint8Array(ID_LENGTH * 256);
let idNext = idPool.length;
/** A fresh random call id (11 characters, 66 bits). */
export function randomId(): string {
  if (idNext === idPool.length) {
    crypto.getRandomValues(idPool);
    idNext = 0;
  }
  // 66 random bits a call (11 characters of 6 bits): the needle a command
  // would have to print to end itself early. It is kept in no variable.
  let id = "";
  for (let i = 0; i < ID_LENGTH; i++) id += ID_CHARS[idPool[idNext++] & 63];
  return id;
}

/** Quotes a string for bash. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** What the init script depends on. */
export interface InitOptions {
  /** stderr is its own stream (else merged into stdout). */
  separate: boolean;
  /** The ulimit lines run first (may be empty). */
  limits: string;
  /** Lines run first on a remote shell (environment, cwd). */
  remoteSetup: readonly string[];
  /** The shell is remote: it reports its process group and session. */
  transport: boolean;
}

/**
 * The brackets the check parses a command in: groups and subshells in a
 * random order, a new one per session, so that a command the host's parser
 * misreads cannot close them by accident (it would need this session's
 * exact sequence of closers; any other sequence is a syntax error, found
 * before anything runs).
 */
function checkNest(depth: number): { open: string; close: string } {
  const bits = crypto.getRandomValues(new Uint8Array(depth));
  const kinds = [...bits].map((b) => (b & 1 ? ["{", "}"] : ["(", ")"]));
  return {
    open: kinds.map(([o]) => o).join("\n"),
    close: kinds.map(([, c]) => c).reverse().join("\n"),
  };
}

/** The script the session's bash runs once at start (after the bootstrap line). */
export function initScript(options: InitOptions): string {
  const nest = checkNest(8);
  // (The nest's text is kept in two variables, so that the take's body,
  // which bash copies on every call, stays small.)
  const check = 'builtin eval "$__bbT$__bbc$__bbZ"';
  // bash reads its script through its own copy of stdin (fd 254, so
  // `$BASH_SOURCE` is empty, as at a prompt); the init script makes the
  // shell's stdin /dev/null once, so every command reads end of file there
  // without a redirection of its own on each call.
  // The framing's own descriptors are closed for the command: it cannot
  // see or close them, and its background jobs do not hold them.
  const closed = ` ${SENTINEL_OUT_FD}>&-${
    options.separate ? ` ${SENTINEL_ERR_FD}>&-` : ""
  }`;
  // What a call costs does not depend on what the session holds: every
  // step below is a fixed number of builtins, whatever options, traps,
  // functions or aliases the user set, and none forks (only a command the
  // host's parser refuses, or a deadline's interrupt, pays for a child).
  //
  // Each call's first line takes the command, which follows it as data
  // (no byte of it is parsed as script; see callLines), with the status of
  // the call before and the host's word on its route. Every command is
  // called through \`builtin\`, so functions named like builtins cannot
  // break the framing. The status is kept in __bbq and handed to the
  // command (\`$?\` carries over) by a function that returns it on the
  // left of \`&&\`: a failure there fires no ERR trap and no errexit, the
  // command's own failures do, as at a prompt. The framing needs nothing
  // of the user's traps: no ERR trap of its own is ever set.
  // A step that fails (a descriptor the command closed, a variable it made
  // read-only) ends the shell at once: the result says restarted, and
  // nothing is left to run twice.
  //
  // The command line is then parsed by bash's own parser at the top level,
  // as at a prompt (\`set -x\` shows \`+ echo hi\`, not the \`++\` of an
  // eval), through an alias (__bbC) set to it in a group: a group, so that
  // the framing's descriptors are closed for it; an alias, so that no byte
  // of it is read from the input (text that leaves a quote open cannot eat
  // the frame). A group is a compound command: the ERR trap fires once,
  // for the command that failed, and errexit follows bash's own rules for
  // lists, \`!\` and conditions. A command goes this way only when it parses
  // as a complete command: by the host's parser first (so that its braces
  // balance and it cannot close the check's wrapper and run in it), then by
  // bash's own, in eight groups and subshells behind \`true||\` (see
  // checkNest), so that nothing of it runs. Should bash refuse what the
  // host's parser took (an alias of the user's gone wrong, or \`}\` as a
  // \`case\` pattern, which bash refuses inside a group; a \`case\` wrapper
  // would take it, but xtrace shows a \`case\`), bash's message is shown
  // and nothing runs (status 2). A command the host's parser refuses is
  // checked by \`bash -n\` in a child (with extglob if the session has it):
  // a syntax error is shown as \`bash -c\` words it (lines counted from the
  // command's first line) and nothing runs (status 2).
  //
  // Anything else runs through eval, which reads a line at a time as a
  // prompt does: every command once the user has aliases of their own (a
  // user's alias could expand to a here-document, whose body bash would
  // read from its input), a command that defines aliases or turns on
  // extglob (bash applies them from the next line on, and a group is parsed
  // whole first), here-documents (bash reads their bodies from its input,
  // never from an alias) and what \`bash -n\` took but the host's parser
  // did not. The eval's own status would fire the user's ERR trap a second
  // time and end a shell under errexit after a failure bash exempts, so
  // the command is followed, inside the eval, by a group that keeps its
  // status in __bbe (stderr closed: xtrace does not show it): the eval
  // itself then returns 0 and the frame takes __bbe. That is only safe
  // when the check has shown the command to end outside a here-document
  // (a here-document left open would read the group as its body): where
  // the check cannot tell (aliases or extglob being defined, an open
  // here-document, a command only \`bash -n\` reads), the eval runs bare.
  // (On the top level, a command that ends in a backslash has it doubled
  // by the host: the same literal backslash bash takes at the end of an
  // eval.)
  //
  // (An interactive bash under errexit exits on a syntax error in an eval,
  // even in a condition: errexit is off while the check runs. An
  // assignment to a variable the user made read-only abandons the line:
  // __bbC is first made the refusal, before any assignment, so that a step
  // that fails, such as a function call past a user's FUNCNEST or such an
  // assignment, never leaves the previous command to run again; the
  // refusal then finds the framing's variable that is read-only (any of
  // them, by the names bash lists), and the shell exits. (declare, which
  // fails instead of abandoning, cost bash more than the rest of the step:
  // it is kept for the rare steps.) Words that look like assignments are
  // quoted, for \`set -k\`. __bbA is set once a user's alias was seen, so that the
  // aliases are counted only while there are none of the user's; a
  // command that mentions aliases has their names compared on the next
  // call.)
  const status = "__bbc+=$__bbS";
  // (The eval's unit and the refusal's are kept in __bbU and __bbO: under
  // xtrace they run in a group whose stderr is closed, so that only the
  // command's own lines are traced, as the runner's comment below says.)
  const evaluate = `builtin alias "__bbC=$__bbU"`;
  // (Two take steps, each of the routes it serves only, so that the body
  // bash copies on every call stays small: the common one for the top
  // level (and, once the user has aliases, eval after the same check);
  // the other, which the host names, for the routes below.)
  // (The status of the call before comes second, where it is not 0.)
  // (After an abandoned line (see restore) stderr is put back here, before
  // the next command: the frame's group, which closes it, would undo it
  // there. Here, not on the frame's line: bash parses an alias's text every
  // time, and copies a function's body, which costs it less.)
  const enter =
    `builtin alias "__bbC=$__bbO";[[ -z $__bbR ]]||{ command exec 2>&${
      options.separate ? SENTINEL_ERR_FD : SENTINEL_OUT_FD
    };__bbR=; };__bbq=\${2:-0} __bbY= __bbe= __bbW=;[[ $__bbA == 1 || -z $__bbA && \${#BASH_ALIASES[@]} == ${FRAMING_ALIASES.length} ]]||__bbo;case $- in *e*)builtin set +e;__bbW=1;;esac;`;
  // The take step returns the status of the call before: the runner's
  // line that follows starts with it as \`$?\` (where it is not 0 the
  // take's line ends in \`&&:\`, so that the failure fires no ERR trap and
  // no errexit; see callLines).
  const leave =
    '[[ -z $__bbW ]]||{ builtin set -e;__bbW=; };builtin return "$__bbq"; }';
  // (With aliases of the user's: eval after the check. Else at the top
  // level: after the check, or without it for a command of plain words,
  // which leaves bash's parser no room to read it otherwise than the
  // host's did; see plainWords.)
  const aliased =
    `if ${check};then ${status};${evaluate};else builtin eval '';fi`;
  const topLevel = `builtin alias "__bbC={
$__bbc
}"`;
  const common =
    `${enter}if [[ -n $__bbA ]];then ${aliased};elif ${check};then ${topLevel};else builtin eval '';fi;${leave}`;
  const plain =
    `${enter}if [[ -n $__bbA ]];then ${aliased};else ${topLevel};fi;${leave}`;
  const rare =
    `${enter}if [[ $3 == e ]];then __bbA=?;if ${check} 2>&-;then ${status};else builtin eval '';fi;${evaluate};elif [[ $3 == c || -n $__bbA ]];then if ${check} 2>&-;then ${status};${evaluate};else __bby;fi;else __bby;fi;${leave}`;
  // The command comes as data after the take's line, its length in bytes
  // the line's first word: read takes it in one go (bash reads its script
  // one byte at a time). read counts characters, so a command of other
  // characters than ASCII comes as one ANSI-C quoted word instead.
  const read =
    `builtin read -r -N "$1" -u ${SCRIPT_FD} __bbc||builtin exit 113;`;
  const word = 'builtin printf -v __bbc %s "$1"||builtin exit 113;';
  const take = [
    `__bbp(){ ${read}${common}`,
    `__bbw(){ ${read}${plain}`,
    `__bbP(){ ${word}${common}`,
    `__bbk(){ ${read}${rare}`,
    `__bbK(){ ${word}${rare}`,
  ].join("\n");
  // (Should the framing's own aliases be gone — \`unalias -a\` — they are
  // made again here: the call's next lines (the runner, the frame) are read
  // after this step, so they expand again; as functions the runner would
  // run the command inside a function, where \`declare\` makes a local.)
  // (The user has aliases of their own unless the names are the framing's,
  // as noted at start in __bbAK. Each call counts them, which is cheaper;
  // after a command that mentions aliases (__bbA is ? then) the names are
  // compared: a count alone misses an alias of the user's made in place of
  // one of the framing's it removed.)
  const userAliases =
    `__bbo(){ [[ \${#BASH_ALIASES[@]} -ge ${FRAMING_ALIASES.length} ]]||builtin eval "$__bbRA";if [[ "\${!BASH_ALIASES[*]}" == "$__bbAK" ]];then __bbA=;else __bbA=1;fi; }`;
  // (\`bash -n\` exits 0 after some syntax errors in \`[[ ]]\`: its
  // message tells; it warns of a here-document left open, and a command it
  // took may end in one, or in a backslash, so the eval then runs bare. A
  // check that ended inside an open quote leaves bash's parser unable to
  // expand an alias on the next line it reads, unless another eval runs
  // first: hence the empty ones.)
  const fallback =
    `__bby(){ builtin eval '';__bbY=;[[ $BASHOPTS != *extglob* ]]||__bbY=extglob;if __bbY=$(BASH_ENV= ENV= builtin exec -a bash "$__bbB" --noprofile --norc -nO "\${__bbY:-nullglob}" 2>&1 <<<"$__bbc")&&[[ $__bbY != *'syntax error'* ]];then [[ $__bbY == *here-document* || $__bbc == *'\\' ]]||${status};${evaluate};fi; }`;
  // The refusal returns 0 (so that no ERR trap and no errexit take it for
  // a failing command) and hands the frame its status, 2, in __bbe.
  const syntaxError =
    `__bbN(){ builtin set -- \${!__bb@};while (($#));do [[ \${!1@a} != *r* ]]||builtin exit 113;builtin shift;done;__bbe=2;[[ -z $__bbY ]]||builtin printf '%s\\n' "$__bbY" >&17; } 17>&2 2>&-`;
  // Should stdout lead into a pipe that is not the session's (\`exec >
  // >(tee log)\`), what the command printed reaches the host through that
  // relay, after the frame: the trailer says so (flag !) and the host keeps
  // reading until the output is quiet.
  // The frame goes to fd ${SENTINEL_OUT_FD}, which the command cannot touch
  // (it is closed for the command and restored after it); where stdout is
  // that same pipe (the common case) it is written there, without a
  // redirection. Should fd ${SENTINEL_OUT_FD} be gone anyway (a command
  // that closed bash's saved copy), the shell exits. The trailer holds the
  // status, \`$-\` (with an x where the frame turned xtrace off) and the
  // working directory.
  const print = (relay: string, target: string) =>
    `builtin printf '%s\\0' "$__bbh"$'\\036'"$1 $-$__bbX${relay} $PWD"${target}||builtin exit 113`;
  const errFrame = options.separate
    ? `;builtin printf '%s\\036\\0' "$__bbh" >&${SENTINEL_ERR_FD}||builtin exit 113`
    : "";
  const evalPlain = 'command eval "$__bbc"';
  const evalTraced =
    `{ command eval "$__bbc" 2>&${TRACE_SAVE_FD} ${TRACE_SAVE_FD}>&-;} ${TRACE_SAVE_FD}>&2 2>&-`;
  const refuseTraced =
    `{ __bbN 2>&${TRACE_SAVE_FD} ${TRACE_SAVE_FD}>&-;} ${TRACE_SAVE_FD}>&2 2>&-`;
  // An error that abandons the command line (a call past FUNCNEST) skips
  // the undoing of the line's redirections, the runner's and the command's:
  // fd ${SENTINEL_OUT_FD} (and ${SENTINEL_ERR_FD}) stay closed, and stdout or
  // stderr may still lead where the abandoned command sent them (a file,
  // /dev/null). The frame then finds the session's own pipes among the
  // shell's descriptors (bash's leftover saved copies) by the inode it noted
  // at start (/proc/$$/fdinfo, no fork), and puts ${SENTINEL_OUT_FD}, ${SENTINEL_ERR_FD},
  // stdout and (at the next take step, see enter) stderr back: the
  // next command writes where every command does. Where the inode cannot be
  // read (no /proc, an old kernel) and stdout is still a pipe or socket, the
  // frame takes ${SENTINEL_OUT_FD} back from there; otherwise the shell
  // exits and the result says restarted. (\`command exec\`: the
  // redirections of \`builtin exec\` are undone after it, as any simple
  // command's.)
  // (bash's leftover copies, close-on-exec, are closed on the way: each
  // abandoned line leaves some, and they would creep into the framing's
  // own descriptor numbers.)
  const restore =
    `builtin local __bbs1 __bbs2 __bbs3 __bbs4 __bbs5 __bbs6=;for __bbs1 in /proc/$$/fdinfo/*;do __bbs3= __bbs5=0;while builtin read -r __bbs2 __bbs4;do case $__bbs2 in ino:)__bbs3=$__bbs4;;flags:)__bbs5=$__bbs4;;esac;done <"$__bbs1";__bbs1=\${__bbs1##*/};[[ -n $__bbs3 && ( $__bbs3 == "$__bbIO" || $__bbs3 == "$__bbIE" ) ]]||builtin continue;if [[ $__bbs3 == "$__bbIO" && ! -e /proc/$$/fd/${SENTINEL_OUT_FD} ]];then command exec ${SENTINEL_OUT_FD}>&$__bbs1 1>&$__bbs1;__bbR=1;${
      options.separate
        ? `elif [[ $__bbs3 == "$__bbIE" && ! -e /proc/$$/fd/${SENTINEL_ERR_FD} ]];then command exec ${SENTINEL_ERR_FD}>&$__bbs1;`
        : ""
    }fi;(( __bbs1 > 2 && __bbs1 != ${SENTINEL_OUT_FD} && __bbs1 != ${SENTINEL_ERR_FD} && __bbs1 < 254 && 8#$__bbs5 & 8#2000000 ))&&__bbs6+=" $__bbs1";done 2>/dev/null;for __bbs1 in $__bbs6;do command exec {__bbs1}>&-;done 2>/dev/null`;
  // (Everything in one function: a call from it would fail past a user's
  // FUNCNEST, and the frame would not come. The common path runs five
  // builtins; what an interrupt (errexit turned off for the rest of the
  // command: __bbK) or xtrace needs is behind one test; the frame for a
  // stdout that is not the session's pipe is an eval of text kept in
  // __bbFW: bash copies a function's body on every call, so that rare step
  // stays out of it, and an eval is no call. (The xtrace step stays in the
  // body: under xtrace it runs every call, and its eval would cost more
  // than the copy. Once the frame has turned xtrace off before, that step
  // only runs \`set +x\`: nothing is assigned, so nothing needs the check
  // that the framing's variables are not read-only.)
  // A prompt drops finished jobs from the job table once the command has
  // ended, before it shows the next prompt; a shell that reads a script
  // named on its command line (as this one does) keeps them, so that
  // \`jobs\` would list a finished \`ls\` as job 1 and \`kill %1\` aim at
  // it. \`jobs -n\` (stdout closed here, stderr in the frame's group: no
  // notice is printed) marks them seen, and bash then removes them; the
  // statuses stay with \`wait PID\`. A background job that ends between
  // two calls is listed as Done by a \`jobs\` of the next, as at a terminal
  // where it ended while the next line was being typed.
  const frameTrace =
    `if [[ $__bbX == x && -z $__bbK && $- == *x* ]];then builtin set +x;else builtin declare -g "__bbK=$__bbK" "__bbX=$__bbX" "__bbU=$__bbU" "__bbO=$__bbO"||builtin exit 113;[[ -z $__bbK ]]||{ builtin set -e;__bbK=; };if [[ $- == *x* ]];then builtin set +x;[[ -n $__bbX ]]||__bbX=x __bbU=$__bbu __bbO=$__bbo;elif [[ -n $__bbX ]];then __bbX= __bbU=$__bbv __bbO=__bbN;fi;fi`;
  const frameElsewhere =
    `if [[ ! -e /proc/$$/fd/${SENTINEL_OUT_FD} ]]&&{ builtin eval "$__bbRS";[[ -e /proc/$$/fd/${SENTINEL_OUT_FD} ]]||{ [[ -p /proc/$$/fd/1 || -S /proc/$$/fd/1 ]]&&command exec ${SENTINEL_OUT_FD}>&1; }; };then ${
      print("", "")
    };elif [[ -p /proc/$$/fd/1 ]];then ${
      print("!", ` >&${SENTINEL_OUT_FD}`)
    };else ${print("", ` >&${SENTINEL_OUT_FD}`)};fi`;
  const frameEnd =
    `__bbf(){ builtin jobs -n >&-;builtin read -r -N ${ID_LENGTH} -u ${SCRIPT_FD} __bbh||builtin exit 113;if [[ $- == *x* || -n $__bbK$__bbX ]];then ${frameTrace};fi;if [[ /proc/$$/fd/1 -ef /proc/$$/fd/${SENTINEL_OUT_FD} ]];then ${
      print("", "")
    };else builtin eval "$__bbFW";fi${errFrame}; }`;
  // Under \`set -x\` the framing's own commands must not be traced: xtrace
  // is on only while the command runs. The frame (in a group whose stderr
  // is closed, so that a trace line written there is lost) turns it off
  // and says so; the next call's runner (${LINE.runTraced}, the host's
  // pick) has it turned on again by the function that hands the command
  // its \`$?\` (its own stderr closed), in an \`if\` whose branches are the
  // command: neither is traced. An eval or a refusal runs in a group whose
  // stderr is closed, the command getting its stderr back from fd
  // ${TRACE_SAVE_FD} (see __bbU and __bbO).
  // (Where aliases are off, the traced runner's function calls __bbC, a
  // function: the call is made with stderr closed.)
  const runners: [string, string][] = [
    [LINE.run, `__bbC${closed}`],
    [
      LINE.runTraced,
      `if __bbS "$__bbq";then __bbC${closed};else __bbC${closed};fi`,
    ],
  ];
  const hidden = ` 2>&${TRACE_SAVE_FD} ${TRACE_SAVE_FD}>&-${closed}`;
  const runnerFunctions: [string, string][] = [
    runners[0],
    [
      LINE.runTraced,
      `{ if __bbS "$__bbq";then __bbC${hidden};else __bbC${hidden};fi;} ${TRACE_SAVE_FD}>&2 2>&-`,
    ],
  ];
  // (The frame's group has its stderr closed, so xtrace never shows it.)
  const takes: [string, string][] = [
    [LINE.take, "__bbp"],
    [LINE.takeWord, "__bbP"],
    [LINE.takePlain, "__bbw"],
    [LINE.takeOther, "__bbk"],
    [LINE.takeOtherWord, "__bbK"],
  ];
  const frameAlias: [string, string] = [
    LINE.frame,
    `{ __bbf "\${__bbe:-$?}";} 2>&-`,
  ];
  return [
    "exec 2>&3 3>&- 0</dev/null",
    'builtin cd -- "$BASHBOX_CWD"||builtin exit 97;builtin unset BASHBOX_CWD OLDPWD',
    // Interactive behaviour without a terminal's trappings.
    "set +o history +H +m",
    "shopt -s execfail",
    ...options.remoteSetup,
    ...(options.transport
      ? [
        `printf 'BASHBOX_PGID=%s\\n' "$(cut -d' ' -f5,6 /proc/$$/stat 2>/dev/null || { set -- $(ps -o pgid= -o sid= -p $$ 2>/dev/null); case $2 in ''|0|*[!0-9]*) set -- "$1" "$1" ;; esac; echo "$1 $2"; })"`,
      ]
      : []),
    ...(options.limits ? [options.limits.trimEnd()] : []),
    // Descriptors the host left open (not close-on-exec) are not the
    // commands' business: keep only stdin, stdout and stderr.
    `for __bbF in /dev/fd/*;do __bbF=\${__bbF##*/};case $__bbF in 0|1|2|254|255|*[!0-9]*);;*)builtin eval "exec $__bbF>&-" 2>/dev/null;;esac;done;unset __bbF`,
    `exec ${SENTINEL_OUT_FD}>&1 ${
      options.separate ? `${SENTINEL_ERR_FD}>&2` : "2>&1"
    }`,
    // The inodes of the session's pipes, for the frame's repair after an
    // abandoned line (see restore); empty where /proc cannot tell.
    `__bbIO= __bbIE= __bbR=;{ while builtin read -r __bbF __bbL;do [[ $__bbF != ino: ]]||__bbIO=$__bbL;done </proc/$$/fdinfo/${SENTINEL_OUT_FD};${
      options.separate
        ? `while builtin read -r __bbF __bbL;do [[ $__bbF != ino: ]]||__bbIE=$__bbL;done </proc/$$/fdinfo/${SENTINEL_ERR_FD};`
        : ""
    } } 2>/dev/null;unset __bbF __bbL`,
    // An interrupt stops the rest of the command line, as Ctrl-C does at a
    // prompt: the INT handler makes a DEBUG trap (with extdebug) skip every
    // command but bashbox's own (a framing name other than the runner and
    // the command's unit), and swaps in framing functions that undo it
    // first (and leave extdebug as the user had it). A user's ERR trap is
    // set aside until then (as at a prompt, where Ctrl-C fires none). The
    // normal path pays nothing for this.
    // (Inverted twice, so that under errexit the skip is not a failure.)
    "__bbd(){ ! [[ $BASH_COMMAND == __bb[!CE]* || $BASH_COMMAND == _+[pPkKwz]* || ${FUNCNAME[1]} == __bb[!CE] || ${FUNCNAME[1]} == _+[pPkKwz] ]]; }",
    '__bbs(){ builtin return "$1"; }',
    '__bbS(){ builtin set -x;builtin return "$1"; } 2>&-',
    `__bbu(){ __bbI=;[[ -n $__bbG ]]||builtin shopt -u extdebug;${take};${frameEnd};[[ -z $__bbV ]]||{ builtin eval "$__bbV";__bbV=; };if [[ -n $__bbM ]];then builtin trap __bbg DEBUG;else builtin trap - DEBUG;fi; }`,
    `__bbi(){ __bbI=1;[[ -z $__bbJ ]]||__bbj;__bbG=;[[ $BASHOPTS != *extdebug* ]]||__bbG=1;[[ $- != *e* ]]||{ builtin set +e;__bbK=1; };__bbV=$(builtin trap -p ERR);case $__bbV in ""|"trap -- - ERR")__bbV=;;*)builtin trap '' ERR;;esac;__bbp(){ __bbu;__bbp "$@"; };__bbP(){ __bbu;__bbP "$@"; };__bbw(){ __bbu;__bbw "$@"; };__bbk(){ __bbu;__bbk "$@"; };__bbK(){ __bbu;__bbK "$@"; };__bbf(){ __bbu;__bbf 130; };builtin shopt -s extdebug;builtin trap "builtin break 1000 2>/dev/null;! __bbd" DEBUG; }`,
    // A user's INT trap (kept by __bbn, below) runs first, as at a prompt;
    // the framing's handler stays, so a deadline still stops the command.
    // (Under \`set -T\` a user's DEBUG trap also fires in the command
    // substitutions that read the traps: what it printed before \`trap --\`
    // is not part of the trap.)
    `__bbn(){ builtin local __bbt __bbL;__bbL=$1;__bbt=$(builtin trap -p INT);[[ $__bbt == "trap -- "* || $__bbt != *"trap -- "* ]]||__bbt="trap -- \${__bbt#*"trap -- "}";[[ $__bbL == "trap -- "* || $__bbL != *"trap -- "* ]]||__bbL="trap -- \${__bbL#*"trap -- "}";__bbt=\${__bbt% INT};__bbt=\${__bbt% SIGINT};case $__bbt in "trap -- '__bbi'");;""|"trap -- -")__bbJ=;builtin trap __bbi INT;;*)__bbJ=$__bbt;builtin trap __bbi INT;;esac;case $__bbL in "trap -- '__bbg' DEBUG");;""|"trap -- - DEBUG")__bbM=;;*)__bbM=$__bbL;builtin trap __bbg DEBUG;;esac; }`,
    // A user's DEBUG trap runs through a filter that skips the framing's own
    // commands, so it sees the user's commands only (also inside the
    // framing's functions and command substitutions, where \`set -T\` or
    // extdebug makes it fire).
    `__bbg(){ [[ $BASH_COMMAND != *__bb* && $BASH_COMMAND != _+* && $BASH_COMMAND != "builtin trap "* && \${FUNCNAME[1]-} != __bb* && \${FUNCNAME[1]-} != _+* ]]||builtin return 0;builtin local __bbH;__bbH="\${__bbM#trap -- }";__bbH=\${__bbH% DEBUG};builtin eval "__bbH=$__bbH";builtin eval "$__bbH"; }`,
    `__bbj(){ builtin local __bbH;__bbH="\${__bbJ#trap -- }";builtin eval "__bbH=$__bbH";builtin eval "$__bbH"; }`,
    "trap __bbi INT",
    "PS1= PS2= PS0= PROMPT_COMMAND= HISTFILE=",
    "history -c",
    "unset MAILCHECK",
    'export LANG="${LANG:-C.UTF-8}"',
    `__bbT=${shellQuote(`true||${nest.open}\n`)} __bbZ=${
      shellQuote(`\n${nest.close}`)
    } __bbS=$'\\n{ __bbe=$?;} 2>&-'`,
    "BASH_ARGV0=bash __bbB=$BASH __bbY= __bbh= __bbq=0 __bbK= __bbc= __bbI= __bbG= __bbJ= __bbM= __bbe= __bbA= __bbV= __bbW= __bbX= __bbO=__bbN",
    `__bbRS=${shellQuote(restore)} __bbFW=${shellQuote(frameElsewhere)}`,
    `__bbU=${shellQuote(evalPlain)} __bbv=${shellQuote(evalPlain)} __bbu=${
      shellQuote(evalTraced)
    } __bbo=${shellQuote(refuseTraced)}`,
    take,
    userAliases,
    fallback,
    syntaxError,
    frameEnd,
    // The per-call line stays short (bash reads it one byte at a time): the
    // alias expands in memory. Should a command turn aliases off, the
    // function of the same name still ends the command.
    // (The function first: once the alias exists, the name would expand.)
    ...runnerFunctions.map(([name, body]) => `${name}(){ ${body}; }`),
    // (Where aliases are off, the runners' functions call this one.)
    // (Its own stderr is closed, so that xtrace does not show the eval.)
    `__bbC(){ command eval "$__bbc" 2>&17 17>&-; } 17>&2 2>&-`,
    `${frameAlias[0]}(){ ${frameAlias[1]}; }`,
    ...takes.map(([name, body]) => `${name}(){ ${body} "$@"; }`),
    "shopt -s expand_aliases",
    `alias ${
      [...takes, ...runners, ["__bbC", "__bbN"], frameAlias].map((
        [name, body],
      ) => `${name}=${shellQuote(body)}`).join(" ")
    }`,
    // (The names of the framing's aliases as bash lists them; where a
    // profile made aliases of its own, none: the user has aliases.)
    `[[ \${#BASH_ALIASES[@]} == ${FRAMING_ALIASES.length} ]]&&__bbAK="\${!BASH_ALIASES[*]}"||__bbAK=-`,
    // (What __bbo runs to make the framing's aliases again; not __bbC, which
    // the take step has just set.)
    `__bbRA=${
      shellQuote(
        `builtin alias ${
          [...takes, ...runners, frameAlias].map(([name, body]) =>
            `${name}=${shellQuote(body)}`
          ).join(" ")
        }`,
      )
    }`,
    "",
  ].join("\n");
}

/** The first line the plain bash reads: it execs the session's shell. */
export function bootstrapLine(login: boolean): string {
  // A login shell runs the profile before it opens the script, so the
  // profile would see /dev/fd as its directory, and one that changes
  // directory would leave \`0\` unfound: a login shell opens its script by
  // its absolute name and starts in the session's directory (its
  // \`$BASH_SOURCE\` at the top level then reads /dev/fd/0).
  return `exec "$BASH" -c ${shellQuote(PROMPT_LAUNCHER)} bash "$BASH" ${
    login ? "/dev/fd/0 --login" : "0 --noprofile --norc"
  }\n`;
}

/**
 * The argv that starts the prompt-like shell directly (what
 * {@linkcode bootstrapLine} does through a plain bash first, which a
 * transport needs and a local or sandboxed shell does not: one bash start
 * less). `--norc` before `-c`: a bash whose stdin looks like a network
 * connection would read ~/.bashrc.
 */
export function launcherArgv(shell: string, login: boolean): string[] {
  return [
    shell,
    "--noprofile",
    "--norc",
    "-c",
    PROMPT_LAUNCHER,
    "bash",
    shell,
    ...(login ? ["/dev/fd/0", "--login"] : ["0", "--noprofile", "--norc"]),
  ];
}

/** The line that ends the init script: the start-up frame. */
export function initFrame(id: string): string {
  return `__bbf 0\n${id}`;
}

/** How a call is framed. */
export interface CallMode {
  /** xtrace was on after the last call: the runner turns it on again for the command. */
  xtrace: boolean;
  /** `$?` after the last call (its frame's status), handed to the command. */
  status: number;
}

/**
 * The lines of one call: the command as an ANSI-C quoted word (with the
 * host's word on its route, see {@linkcode route}), the alias that runs it,
 * then the frame on a line of its own. Should bash drop the rest of the
 * command's line (an error that abandons the command line), the frame still
 * comes, once, with bash's status. The frame's group has its stderr closed,
 * so xtrace never shows it; xtrace is on only while the command runs. The
 * lines are the same whatever the session holds (but the runner's name
 * under xtrace): what a call costs depends on the command alone.
 */
export function callLines(command: string, id: string, mode: CallMode): string {
  const { word, text } = route(command);
  // (ASCII as data after the line, read in one go; anything else as one
  // ANSI-C quoted word, since read counts characters of the locale.)
  // deno-lint-ignore no-control-regex
  const ascii = /^[\x00-\x7f]*$/.test(text);
  // (The status is left out where it is 0 and no word follows: bash reads
  // the line one byte at a time.)
  const args = word
    ? ` ${mode.status} ${word}`
    : mode.status === 0
    ? ""
    : ` ${mode.status}`;
  // (A take step hands the status on as its own: where it is not 0, \`&&:\`
  // keeps it from firing an ERR trap or errexit.)
  const handOn = mode.status === 0 ? "" : "&&:";
  const take = ascii
    ? `${
      word ? LINE.takeOther : plainWords(text) ? LINE.takePlain : LINE.take
    } ${text.length}${args}${handOn}`
    : `${word ? LINE.takeOtherWord : LINE.takeWord} ${
      ansiC(text)
    }${args}${handOn}`;
  const data = ascii ? text : "";
  // A command that may change the INT trap is followed by __bbn, which
  // puts the framing's handler back (keeping the user's to run first).
  // (The DEBUG trap is read here, at the top level: a function sees none.)
  const rearm = mayTouchInterrupt(command)
    ? ';{ __bbr=$?;__bbn "$(builtin trap -p DEBUG)";__bbs "$__bbr"&&:;} 2>&-'
    : "";
  // Functions named \`builtin\` or \`command\` would turn every later command
  // (and the framing's own) into calls of theirs: a command that defines
  // one has them removed right after it, before any framing step needs them
  // (three ways, so that one more shadowed name does not stop it).
  const unshadow = DEFINES_BUILTIN_OR_COMMAND.test(command)
    ? ';{ __bbr=$?;builtin unset -f builtin command;command unset -f builtin command;unset -f builtin command;__bbs "$__bbr"&&:;} >/dev/null 2>&1'
    : "";
  // (Both steps hand the command's status on to the frame: \`&&:\` keeps
  // a failure from firing an ERR trap or errexit; after an eval, the frame
  // takes the status from __bbe. The command is taken on a line of its
  // own: the alias it sets applies from the next line bash reads.)
  // The frame's line names an alias that runs it in a group with stderr
  // closed; the call's id follows as data (read after the command, so it
  // is in no variable while the command runs). Under xtrace the line is
  // such a group itself, in case the command turned aliases off.
  // (Its empty line before puts bash's parser back in command position:
  // after a command line that ended inside an open quote, `{` would read as
  // a word. A name is not a reserved word: the frame's alias, or its
  // function, is found after such a line too.)
  const [runner, frame] = mode.xtrace
    ? [LINE.runTraced, `\n{ ${LINE.frame};} 2>&-`]
    : [LINE.run, LINE.frame];
  return `${take}\n${data}${runner}${unshadow}${rearm}\n${frame}\n${id}`;
}

/**
 * Which way the take step runs a command, as the word after it, and the
 * text it is handed:
 * - none: at the top level, once bash's check in the nest takes it (with
 *   aliases of the user's, through eval after the same check);
 * - `c`, a here-document: through eval after a quiet check (bash -n, should
 *   the check fail: a here-document left open, or a syntax error);
 * - `e`, a command that defines aliases or turns on extglob (whether or not
 *   the host's parser reads it): through eval, line by line, checked
 *   quietly only to know how it ends;
 * - `n`, a command the host's parser refuses (or of comments only): bash -n
 *   in a child first (with aliases of the user's, after the quiet check).
 *
 * The routes with a word go through the other take step (see {@linkcode
 * LINE}). On the top level a trailing backslash (literal at the end of an
 * eval, as of `bash -c`) is doubled, so that the group's closing line still
 * closes it and the command means the same; elsewhere such a command fails
 * the check (or is seen by bash -n) and its eval runs bare.
 */
export function route(command: string): { word: string; text: string } {
  if (DEFINES_READING.test(command)) return { word: "e", text: command };
  if (!parses(command)) return { word: "n", text: command };
  if (command.replaceAll("<<<", "").includes("<<")) {
    return { word: "c", text: command };
  }
  const backslash = /(?:^|[^\\])(?:\\\\)*\\$/.test(command);
  return { word: "", text: backslash ? `${command}\\` : command };
}

/**
 * Words and operators only: no quote, expansion, bracket, brace, comment,
 * backslash, newline, here-document or reserved word, so bash's parser
 * reads the command as the host's did (\`ls -la /tmp\`, \`npm test 2>&1 |
 * tail -5\`, \`cd src && make\`); such a command skips bash's check.
 */
export function plainWords(command: string): boolean {
  if (!PLAIN.test(command) || /<<|&>>/.test(command)) return false;
  // Redirections of the plain forms only (\`2>&1\`, \`>/dev/null\`,
  // \`< in.txt\`), each ending where a word may: after them no \`<\` or
  // \`>\` may remain (\`> 2>&1\` reads a target to bash that it is not).
  if (command.replace(REDIRECTION, " ").replace(/[^<>]/g, "") !== "") {
    return false;
  }
  // (A \`[\` only as a word of its own, the test command: after a name,
  // bash's lexer reads it as an array subscript, up to a \`]\` it may find
  // lines later.)
  return !command.split(/[\s|&;<>]+/).some((w) =>
    RESERVED_WORDS.has(w) || (w !== "[" && w.includes("["))
  );
}

const REDIRECTION =
  /(?<=^|[\s|&;])\d?(?:[<>]&(?:\d|-)|(?:>>?|<|&>|>\|)[ \t]*(?![\d&|;<>\s])[^\s|&;<>]+)(?=$|[\s|&;])/g;
const PLAIN = /^[A-Za-z0-9_./:=,+@%^~*?[\]\t |&;<>-]+$/;

/** Changes how bash reads the lines after it: aliases, extglob. */
const DEFINES_READING = /alias|BASH_ALIASES|extglob/;

/**
 * The host's parser reads the command as a complete script of at least one
 * command (a line of comments only goes the long way, through eval).
 */
function parses(command: string): boolean {
  try {
    return parse(command).body.length > 0;
  } catch {
    return false;
  }
}

/** A definition of a function named `builtin` or `command`. */
const DEFINES_BUILTIN_OR_COMMAND =
  /(?:^|[\s;&|(){}])(?:function\s+)?(?:builtin|command)\s*\(\s*\)|\bfunction\s+(?:builtin|command)\b/;

/** A command that may set or reset the INT trap (itself or by sourcing a file). */
export function mayTouchInterrupt(command: string): boolean {
  return /\btrap\b|\bsource\b|(?:^|[\s;&|(){}])\.\s/.test(command);
}

/** The bytes that start a call's frame on stdout (and stderr): id, then RS. */
export function needle(id: string): Uint8Array {
  return encoder.encode(`${id}\x1e`);
}

/** What a frame's trailer says. */
export interface Trailer {
  /** `$?` after the command. */
  status: number;
  /** errexit was on. */
  errexit: boolean;
  /** xtrace was on. */
  xtrace: boolean;
  /** `$PWD` after the command. */
  cwd: string;
  /** stdout led into another pipe: its output may come after the frame. */
  relayed: boolean;
}

/**
 * Reads a trailer (`<status> <$-><!> <cwd>`, as `__bbf` prints it after the
 * needle: `!` when stdout led into another pipe); null when it does not
 * read right, which never passes for success.
 */
export function parseTrailer(text: string): Trailer | null {
  const m = /^(\d{1,3}) ([A-Za-z]*)(!?) /.exec(text);
  if (!m) return null;
  return {
    status: Number(m[1]),
    errexit: m[2].includes("e"),
    xtrace: m[2].includes("x"),
    relayed: m[3] === "!",
    cwd: text.slice(m[0].length),
  };
}
