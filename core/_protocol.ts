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

import { parse } from "../shell/parse.ts";

const encoder = new TextEncoder();

/** Fds the shell keeps for its sentinels, so `exec >file` cannot redirect them. */
export const SENTINEL_OUT_FD = 19;
/** The stderr copy of the frame, in separate mode. */
export const SENTINEL_ERR_FD = 18;
/** Holds the command's stderr while the framing runs with stderr closed (xtrace on). */
export const TRACE_SAVE_FD = 16;
/**
 * Starts the session's bash the way a prompt behaves: interactive (an error
 * such as \`set -u\`'s unbound variable ends the command line, not the shell;
 * messages read \`bash: nope: command not found\`), yet reading its commands
 * as a script from the host's pipe, so it prints no prompts, job numbers or
 * terminal errors. The script is opened as \`0\` from /dev/fd, so
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
  'BASHBOX_CWD=$PWD;export BASHBOX_CWD;cd /dev/fd||exit 96;exec 3>&2 2>/dev/null;b=$1;shift;if [ -p 0 ];then exec -a bash "$b" "$@" --noediting -i 0;fi;exec -a bash "$b" "$@" --noediting -i 0 0< <(trap "" INT TERM HUP QUIT USR1 USR2 ALRM;PATH=/usr/bin:/bin exec cat)';

/** E: fast, X: careful (ERR traps, errexit); a trailing x: xtrace is on. */
const FRAMING_ALIASES = ["__bbE", "__bbX", "__bbEx", "__bbXx"] as const;
/**
 * The frame's aliases, each with its body: z for the fast path, Z for the
 * careful one (it hands the user's ERR trap to the frame). The call line
 * names one with the call's id as its only word, so the text bash reads one
 * byte at a time stays short.
 */
const FRAME_ALIASES = {
  __bbz: '__bbf "$?" ""',
  __bbZ: '__bbf "$?" "${__bbW:+$(builtin trap -p ERR)}"',
} as const;
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
  const nest = checkNest(12);
  const errFrame = (id: string) =>
    options.separate
      ? `&&builtin printf '%s\\036\\0' "${id}" >&${SENTINEL_ERR_FD}`
      : "";
  // bash reads its script through its own copy of stdin (fd 254, so
  // `$BASH_SOURCE` is empty, as at a prompt); the init script makes the
  // shell's stdin /dev/null once, so every command reads end of file there
  // without a redirection of its own on each call.
  // The framing's own descriptors are closed for the command: it cannot
  // see or close them, and its background jobs do not hold them.
  const closed = ` ${SENTINEL_OUT_FD}>&-${
    options.separate ? ` ${SENTINEL_ERR_FD}>&-` : ""
  }`;
  // Each call's line hands the command over as one ANSI-C quoted word
  // (no byte of it is parsed as script), with the call's id. Every command
  // is called through \`builtin\`, so functions named like builtins cannot
  // break the framing. The status of each command is kept in __bbq and
  // handed to the next (\`$?\` carries over) through an \`if\` condition,
  // and the command runs through \`command eval\`: neither the framing nor
  // the eval's own status fires a user's ERR trap a second time. A step
  // that fails (a descriptor the command closed, a variable it made
  // read-only) ends the shell at once: the result says restarted, and
  // nothing is left to run twice.
  //
  // The command line is then parsed by bash's own parser at the top level,
  // as at a prompt (\`set -x\` shows \`+ echo hi\`, not the \`++\` of an
  // eval), through an alias (__bbC) set to it in a group: a group, so that
  // the framing's descriptors are closed for it; an alias, so that no byte
  // of it is read from the input (text that leaves a quote open cannot eat
  // the frame). A command goes this way only when it parses as a complete
  // command: by the host's parser first (so that its braces balance and it
  // cannot close the check's wrapper and run in it), then by bash's own, in
  // twelve groups and subshells behind \`true||\` (see checkNest), so that
  // nothing of it runs. Should bash refuse what the host's parser took (an
  // alias of the user's gone wrong, or \`}\` as a \`case\` pattern, which
  // bash refuses inside a group; a \`case\` wrapper would take it, but
  // xtrace shows a \`case\`), bash's message is shown and nothing runs
  // (status 2). A command the host's parser refuses is checked by
  // \`bash -n\` in a child (with extglob if the session has it): a syntax
  // error is shown as \`bash -c\` words it (lines counted from the
  // command's first line) and nothing runs (status 2). Anything else runs
  // through eval: a command that bash -n takes but the host's parser did
  // not, every command once the user has aliases of their own, a command
  // that defines aliases or turns on extglob (bash applies them from the
  // next line on, and a group is parsed whole first), here-documents (bash
  // reads their bodies from its input, never from an alias) and a command
  // that ends in a backslash (literal at the end of an eval, as of
  // \`bash -c\`; it would join the group's brace).
  const take =
    `__bbp(){ builtin printf -v __bbc %s "$1"||builtin exit 113;__bbS= __bbY=;builtin alias "__bbC=__bbN";if [[ \${#BASH_ALIASES[@]} != 7 ]]&&__bbo||[[ $__bbc == *alias* || $__bbc == *BASH_ALIASES* || $__bbc == *extglob* || $__bbc == *'\\' ]]||{ [[ $__bbc == *'<<'* ]]&&__bbh; };then builtin alias '__bbC=command eval "$__bbc"';elif [[ -n \${2-} ]];then __bby;elif builtin eval "true||${nest.open}
$__bbc
${nest.close}";then builtin alias "__bbC={
$__bbc
}";else builtin eval '';__bbY=;builtin alias "__bbC=__bbN";fi; }`;
  // (__bbC is first made the refusal, so that a step that fails, such as a
  // function call past a user's FUNCNEST, never leaves the previous command
  // to run again. Words that look like assignments are quoted, for
  // \`set -k\`. A user's alias could expand to anything, which the check
  // could not tell: 7 is the count of the framing's own aliases.)
  const userAliases =
    `__bbo(){ builtin local __bbH;for __bbH in "\${!BASH_ALIASES[@]}";do [[ $__bbH == __bb[EXzZC]* ]]||builtin return 0;done;builtin return 1; }`;
  // (\`<<<\` is a here-string, read from the command line itself.)
  const hereDocument =
    `__bbh(){ builtin local __bbH;__bbH=\${__bbc//'<<<'/};[[ $__bbH == *'<<'* ]]; }`;
  // (\`bash -n\` exits 0 after some syntax errors in \`[[ ]]\`: its
  // message tells. A check that ended inside an open quote leaves bash's
  // parser unable to expand an alias on the next line it reads, unless
  // another eval runs first: hence the empty ones.)
  const fallback =
    `__bby(){ builtin eval '';builtin alias '__bbC=command eval "$__bbc"';__bbY=;[[ $BASHOPTS != *extglob* ]]||__bbY=extglob;__bbY=$(BASH_ENV= ENV= builtin exec -a bash "$__bbB" --noprofile --norc -nO "\${__bbY:-nullglob}" 2>&1 <<<"$__bbc")&&[[ $__bbY != *'syntax error'* ]]&&builtin return 0;builtin alias "__bbC=__bbN"; }`;
  const syntaxError =
    `__bbN(){ __bbS=1;[[ -z $__bbY ]]||builtin printf '%s\\n' "$__bbY" >&17;builtin return 2; } 17>&2 2>&-`;
  // Should stdout lead into a pipe that is not the session's (\`exec >
  // >(tee log)\`), what the command printed reaches the host through that
  // relay, after the frame: the trailer says so (flag r) and the host keeps
  // reading until the output is quiet.
  // The frame goes to fd ${SENTINEL_OUT_FD}, which the command cannot touch
  // (it is closed for the eval and restored after it); should it be gone
  // anyway (a command that closed bash's saved copy), the shell exits.
  const frameEnd =
    `__bbf(){ [[ -z $__bbW$__bbK ]]||__bbv "$2";builtin printf -v __bbq %s "$1"||builtin exit 113;[[ /proc/$$/fd/1 -ef /proc/$$/fd/${SENTINEL_OUT_FD} || ! -p /proc/$$/fd/1 ]]&&__bbR=||__bbR=r;builtin printf '%s\\036%d%s %s\\0' "$3" "$1" "\${-//[^ex]/}$__bbR" "$PWD" >&${SENTINEL_OUT_FD}${
      errFrame("$3")
    }||builtin exit 113; }`;
  const frameMode =
    '__bbv(){ [[ -z $__bbW ]]||__bbw "$1";[[ -z $__bbK ]]||{ builtin set -e;__bbK=; }; }';
  // Under \`set -e\` a prompt does not exit when the command line as a whole
  // fails from a list or a \`!\` (bash's errexit rules), but the eval that
  // runs it would: for that call an ERR trap of ours turns errexit off just
  // when the eval itself fails (before bash looks at the flag), hands every
  // other failure to the user's own ERR trap, and is replaced by it again
  // afterwards. The normal path (no errexit) pays one [[ ]] for this.
  // A function cannot remove the ERR trap (bash puts back, on return, the
  // trap it had on entry unless the function set a new one), so where no
  // user trap is to come back, the next call removes ours at the top level
  // (__bbD). In posix mode \`trap -p ERR\` names an unset trap \`-\`.
  const errexit = [
    `__bbe(){ case $1 in "trap -- - ERR"|"trap -- '__bbT' ERR")__bbU=;;*)__bbU=$1;;esac;[[ -z $__bbU && $- != *e* ]]||{ builtin trap __bbT ERR;__bbW=1; }; }`,
    `__bbT(){ if [[ $BASH_COMMAND == 'command eval "$__bbc"'* || -n $__bbS || -n $__bbI || $? == 130 ]];then [[ $- != *e* ]]||{ builtin set +e;__bbK=1; };elif [[ -n $__bbU ]];then builtin local __bbH;__bbH="\${__bbU#trap -- }";__bbH=\${__bbH% ERR};builtin eval "__bbH=$__bbH";builtin eval "$__bbH";fi; }`,
    `__bbw(){ __bbW=;if [[ $1 == "trap -- '__bbT' ERR" ]];then if [[ -n $__bbU ]];then builtin eval "$__bbU";else __bbD=1;fi;fi; }`,
  ];
  // (Traps are read at the top level: a function does not see the ERR trap.)
  // bash parses the alias anew on every call, so the common case gets a
  // short one (__bbE); the host picks the careful one (__bbX) once errexit
  // was on, or the session's commands mention traps or shell options.
  // Under \`set -x\` the framing's own commands must not be traced: the
  // host wraps the call in a group whose stderr is closed (a trace line
  // written there is lost), and the eval gets the command's stderr back
  // from fd ${TRACE_SAVE_FD} (closed again for the command itself). Without
  // xtrace only the frame is wrapped, in case the command turns it on.
  const evalQuiet = `__bbC 2>&${TRACE_SAVE_FD} ${TRACE_SAVE_FD}>&-${closed}`;
  const evalPlain = `__bbC${closed}`;
  const run = (evaluate: string) =>
    `if __bbs "$__bbq";then ${evaluate};else ${evaluate};fi`;
  const runTraps = (evaluate: string) =>
    `[[ -z $__bbD ]]||{ builtin trap - ERR;__bbD=; };__bbe "$(builtin trap -p ERR)";if __bbs "$__bbq";then ${evaluate};else ${evaluate};fi`;
  // Each runner's body, computed once for its function and its alias.
  const runners = FRAMING_ALIASES.map((name): [string, string] => {
    const evaluate = name.endsWith("x") ? evalQuiet : evalPlain;
    return [
      name,
      name.startsWith("__bbX") ? runTraps(evaluate) : run(evaluate),
    ];
  });
  return [
    "exec 2>&3 3>&- 0</dev/null",
    'builtin cd -- "$BASHBOX_CWD"||builtin exit 97;builtin unset BASHBOX_CWD OLDPWD',
    // Interactive behaviour without a terminal's trappings.
    "set +o history +H +m",
    "shopt -s execfail",
    ...options.remoteSetup,
    ...(options.transport
      ? [
        `printf 'BASHBOX_PGID=%s\\n' "$(cut -d' ' -f5,6 /proc/$$/stat 2>/dev/null || ps -o pgid=,sid= -p $$)"`,
      ]
      : []),
    ...(options.limits ? [options.limits.trimEnd()] : []),
    // Descriptors the host left open (not close-on-exec) are not the
    // commands' business: keep only stdin, stdout and stderr.
    `for __bbF in /proc/$$/fd/*;do __bbF=\${__bbF##*/};case $__bbF in 0|1|2|254|255|*[!0-9]*);;*)builtin eval "exec $__bbF>&-" 2>/dev/null;;esac;done;unset __bbF`,
    `exec ${SENTINEL_OUT_FD}>&1 ${
      options.separate ? `${SENTINEL_ERR_FD}>&2` : "2>&1"
    }`,
    // An interrupt stops the rest of the command line, as Ctrl-C does at a
    // prompt: the INT handler makes a DEBUG trap (with extdebug) skip every
    // command but bashbox's own, and swaps in framing functions that undo
    // it first (and leave extdebug as the user had it). The normal path
    // pays nothing for this.
    // (Inverted twice, so that under errexit the skip is not a failure.)
    "__bbd(){ ! [[ $BASH_COMMAND == __bb[pfsuigvTwzZnjgyNoh]* || ${FUNCNAME[1]} == __bb[pfsuigvTwzZnjgyNoh] ]]; }",
    '__bbs(){ builtin return "$1"; }',
    `__bbu(){ __bbI=;[[ -n $__bbG ]]||builtin shopt -u extdebug;${take};${frameEnd};if [[ -n $__bbM ]];then builtin trap __bbg DEBUG;else builtin trap - DEBUG;fi; }`,
    '__bbi(){ __bbI=1;[[ -z $__bbJ ]]||__bbj;__bbG=;[[ $BASHOPTS != *extdebug* ]]||__bbG=1;[[ $- != *e* ]]||{ builtin set +e;__bbK=1; };__bbp(){ __bbu;__bbp "$@"; };__bbf(){ __bbu;__bbf 130 "$2" "$3"; };builtin shopt -s extdebug;builtin trap "builtin break 1000 2>/dev/null;! __bbd" DEBUG; }',
    // A user's INT trap (kept by __bbn, below) runs first, as at a prompt;
    // the framing's handler stays, so a deadline still stops the command.
    // (Under \`set -T\` a user's DEBUG trap also fires in the command
    // substitutions that read the traps: what it printed before \`trap --\`
    // is not part of the trap.)
    `__bbn(){ builtin local __bbt __bbA;__bbA=$1;__bbt=$(builtin trap -p INT);[[ $__bbt == "trap -- "* || $__bbt != *"trap -- "* ]]||__bbt="trap -- \${__bbt#*"trap -- "}";[[ $__bbA == "trap -- "* || $__bbA != *"trap -- "* ]]||__bbA="trap -- \${__bbA#*"trap -- "}";__bbt=\${__bbt% INT};__bbt=\${__bbt% SIGINT};case $__bbt in "trap -- '__bbi'");;""|"trap -- -")__bbJ=;builtin trap __bbi INT;;*)__bbJ=$__bbt;builtin trap __bbi INT;;esac;case $__bbA in "trap -- '__bbg' DEBUG");;""|"trap -- - DEBUG")__bbM=;;*)__bbM=$__bbA;builtin trap __bbg DEBUG;;esac; }`,
    // A user's DEBUG trap runs through a filter that skips the framing's own
    // commands, so it sees the user's commands only (also inside the
    // framing's functions and command substitutions, where \`set -T\` or
    // extdebug makes it fire).
    `__bbg(){ [[ $BASH_COMMAND != *__bb* && $BASH_COMMAND != "builtin trap "* && \${FUNCNAME[1]-} != __bb* ]]||builtin return 0;builtin local __bbH;__bbH="\${__bbM#trap -- }";__bbH=\${__bbH% DEBUG};builtin eval "__bbH=$__bbH";builtin eval "$__bbH"; }`,
    `__bbj(){ builtin local __bbH;__bbH="\${__bbJ#trap -- }";builtin eval "__bbH=$__bbH";builtin eval "$__bbH"; }`,
    "trap __bbi INT",
    "PS1= PS2= PS0= PROMPT_COMMAND= HISTFILE=",
    "history -c",
    "unset MAILCHECK",
    'export LANG="${LANG:-C.UTF-8}"',
    "BASH_ARGV0=bash __bbB=$BASH __bbY= __bbR= __bbq=0 __bbW= __bbK= __bbU= __bbc= __bbI= __bbD= __bbG= __bbJ= __bbM=",
    ...errexit,
    take,
    userAliases,
    hereDocument,
    fallback,
    syntaxError,
    frameMode,
    frameEnd,
    // The per-call line stays short (bash reads it one byte at a time): the
    // alias expands in memory. Should a command turn aliases off, the
    // function of the same name still ends the command.
    // (The function first: once the alias exists, the name would expand.)
    ...runners.map(([name, body]) => `${name}(){ ${body}; }`),
    // (Where aliases are off, the runners' functions call this one.)
    // (Its own stderr is closed, so that xtrace does not show the eval.)
    `__bbC(){ command eval "$__bbc" 2>&17 17>&-; } 17>&2 2>&-`,
    ...Object.entries(FRAME_ALIASES).map(([name, body]) =>
      `${name}(){ ${body} "$1"; }`
    ),
    "shopt -s expand_aliases",
    `alias ${
      [...runners, ...Object.entries(FRAME_ALIASES)].map(([name, body]) =>
        `${name}=${shellQuote(body)}`
      ).join(" ")
    }`,
    "",
  ].join("\n");
}

/** The first line the plain bash reads: it execs the session's shell. */
export function bootstrapLine(login: boolean): string {
  return `exec "$BASH" -c ${shellQuote(PROMPT_LAUNCHER)} bash "$BASH" ${
    login ? "--login" : "--noprofile --norc"
  }\n`;
}

/** The line that ends the init script: the start-up frame. */
export function initFrame(id: string): string {
  return `__bbf 0 '' ${id}\n`;
}

/** How a call is framed. */
export interface CallMode {
  /** errexit was on or the session touched traps or options: the careful path. */
  careful: boolean;
  /** xtrace was on after the last call: the framing runs with stderr closed. */
  xtrace: boolean;
}

/**
 * The two lines of one call: the command as an ANSI-C quoted word and the
 * alias that runs it, then the frame on a line of its own. Should bash drop
 * the rest of the command's line (an error that abandons the command line),
 * the frame still comes, once, with bash's status. The frame's group has its
 * stderr closed, so xtrace never shows it; under xtrace so has the first
 * line's (the command gets its stderr back from {@linkcode TRACE_SAVE_FD}).
 */
export function callLines(command: string, id: string, mode: CallMode): string {
  // (A second word tells bash the host's parser refused the command.)
  const take = `__bbp ${ansiC(command)}${parses(command) ? "" : " 1"}`;
  const alias = `__bb${mode.careful ? "X" : "E"}${mode.xtrace ? "x" : ""}`;
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
  // a failure from firing an ERR trap or errexit. The command is taken on a
  // line of its own: the alias it sets applies from the next line bash
  // reads.)
  const line = mode.xtrace
    ? `{ ${take};} 2>&-\n{ ${alias}${unshadow}${rearm};} ${TRACE_SAVE_FD}>&2 2>&-\n`
    : `${take}\n${alias}${unshadow}${rearm}\n`;
  const frame = `{ __bb${mode.careful ? "Z" : "z"} ${id};} 2>&-\n`;
  // (The empty line puts bash's parser back in command position: after a
  // command line that ended inside an open quote, \`{\` would read as a word.)
  return `${line}\n${frame}`;
}

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

/**
 * A command that may touch traps or shell options (and so should take the
 * careful path from now on): one that names \`trap\`, \`set\`, \`shopt\`,
 * \`eval\` or \`source\` as a word of its own, runs \`.\`, or names errexit or
 * the option variables. (A dot in a file name, "set" inside a word such as
 * \`set-url\` or \`reset\`, is not one: the careful path costs a fork a call.)
 */
export function mayTouchTraps(command: string): boolean {
  return TOUCHES_TRAPS.test(command);
}

const TOUCHES_TRAPS =
  /(?:^|[^\w.\-/])(?:trap|set|shopt|eval|source)(?=[\s;&|)}`"']|$)|errexit|BASHOPTS|SHELLOPTS|(?:^|[\s;&|(){}`])\.(?:\s|$)/;

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
 * Reads a trailer (`<status><flags> <cwd>`, as `__bbf` prints it after the
 * needle); null when it does not read right, which never passes for success.
 */
export function parseTrailer(text: string): Trailer | null {
  const m = /^(\d{1,3})([exr]*) /.exec(text);
  if (!m) return null;
  return {
    status: Number(m[1]),
    errexit: m[2].includes("e"),
    xtrace: m[2].includes("x"),
    relayed: m[2].includes("r"),
    cwd: text.slice(m[0].length),
  };
}
