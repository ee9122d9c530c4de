/**
 * The guardian: one small bash per host that kills what the host started
 * should the host die where no code of it runs (SIGKILL, the OOM killer, a
 * crash). It reads a pipe whose write end only the host holds, so its
 * `read` blocks at no cost while the host lives and sees EOF the moment the
 * host is gone, however it went. The host tells it each process group it
 * tracks (`+ <pgid>`) and each one that ended (`- <pgid>`); every process
 * the host starts also carries `BASHBOX_GUARD=<token>` in its environment,
 * which `setsid`, a double fork and `nohup` keep. At EOF the guardian kills
 * the listed groups, every process of their sessions, every process with
 * the mark, and every process of the sessions those are in; then it removes
 * the directories it was told of (`d <path>`, forgotten with `u <path>`):
 * a process's runner there holds the session's exported variables.
 *
 * The sweep itself ({@linkcode guardSweep}, in `_sweep.ts`) reads `/proc`
 * where it can and lists with `ps` elsewhere (macOS), as the session sweeps
 * do; the host's `BASHBOX_NO_PROC=1` forces `ps` on Linux.
 *
 * Pure: scripts and a small state machine; the runtime layer spawns it.
 * Internal module: only `_runtime.ts` and `core/_launch.ts` import it.
 *
 * @module
 */

import { guardSweep } from "./_sweep.ts";

/** The variable every process the host starts carries (value: the host's token). */
export const GUARD_VARIABLE = "BASHBOX_GUARD";

/**
 * The guardian's script (POSIX sh): `$1` is the host's token. It ignores the
 * signals a terminal or a group kill sends (it runs in a session of its own
 * anyway), keeps the list of live groups from the lines the host writes,
 * and at EOF runs {@linkcode guardSweep} (`/proc` where it is readable,
 * unless `noProc`; else `ps`).
 */
export function guardianScript(noProc: boolean): string {
  // (Directories, one a line, are split on newlines with globbing off.)
  return `trap '' INT TERM HUP QUIT PIPE TSTP TTIN TTOU USR1 USR2 ALRM
t=${GUARD_VARIABLE}=$1 s=" " ds= nl='
'
while IFS= read -r l; do
  op=\${l%% *} id=\${l#* }
  case $op in
    [+-]) case $id in ''|0*|1|*[!0-9]*) continue ;; esac ;;
    [du]) case $id in /*) ;; *) continue ;; esac ;;
  esac
  case $op in
    +) s="$s$id " ;;
    -) k=" "; for x in $s; do [ "$x" = "$id" ] || k="$k$x "; done; s=$k ;;
    d) ds="$ds$id$nl" ;;
    u) k=; o=$IFS; IFS=$nl; set -f
       for x in $ds; do [ "$x" = "$id" ] || k="$k$x$nl"; done
       set +f; IFS=$o; ds=$k ;;
  esac
done
${guardSweep(noProc)}
IFS=$nl; set -f
for x in $ds; do rm -rf -- "$x" 2>/dev/null; done
exit 0`;
}

/** A running guardian, as the runtime layer started it. */
export interface GuardianPipe {
  /** Writes to its stdin without waiting; never throws. */
  write(bytes: Uint8Array): void;
  /** Settles when the guardian exits. */
  readonly exited: Promise<unknown>;
}

/** Starts `argv` as a guardian with environment `env`, or null when it cannot. */
export type GuardianSpawner = (
  argv: readonly string[],
  env: Record<string, string>,
) => GuardianPipe | null;

const encoder = new TextEncoder();

/**
 * Most guardians one host starts: one, and a few more should someone kill
 * it; a guardian that keeps dying is not restarted for every new group.
 */
const MAX_STARTS = 8;

const DEFAULT_PATH = ["/usr/local/bin", "/usr/bin", "/bin"];

/** A random token of 16 hex digits. */
export function guardToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Options of {@linkcode Guardian}. */
export interface GuardianOptions {
  /** The host's PATH (its absolute entries go first in the guardian's). */
  readonly path?: string;
  /** Sweep with `ps`, never `/proc` (default false: `/proc` where readable). */
  readonly noProc?: boolean;
}

/**
 * The host's side of the guardian: started on the first group, told of every
 * group after, restarted (with the whole list) should someone kill it.
 */
export class Guardian {
  /** The host's token: the value of {@linkcode GUARD_VARIABLE}. */
  readonly token: string = guardToken();
  readonly #spawn: GuardianSpawner;
  readonly #groups: () => Iterable<number>;
  readonly #path: string | undefined;
  readonly #script: string;
  #pipe: GuardianPipe | null = null;
  /** Directories to remove at the host's death. */
  readonly #dirs = new Set<string>();
  /** Programs that could not be started as a guardian. */
  readonly #failed = new Set<string>();
  /** Guardians started so far (not counting programs that failed to start). */
  #starts = 0;

  /**
   * `spawn` starts the guardian's bash; `groups` lists the groups the host
   * tracks (sent to a guardian as it starts).
   */
  constructor(
    spawn: GuardianSpawner,
    groups: () => Iterable<number>,
    options: GuardianOptions = {},
  ) {
    this.#spawn = spawn;
    this.#groups = groups;
    this.#path = options.path;
    this.#script = guardianScript(options.noProc ?? false);
  }

  /**
   * Makes sure a guardian runs, started with `shell` (any POSIX shell; the
   * host's bash) if none does; true when one runs.
   */
  ensure(shell: string): boolean {
    if (this.#pipe !== null) return true;
    if (this.#failed.has(shell)) return false;
    if (this.#starts >= MAX_STARTS) return false;
    // (An environment of its own: no BASH_ENV, nothing for bash to read
    // first, no mark; the host's PATH, absolute entries only, for grep, ps
    // and awk. SHLVL: a bash whose stdin is a socket, as Node's and Bun's
    // pipes are, and that has none reads ~/.bashrc as if sshd had started
    // it: a user's pyenv init ran in every guardian.)
    const path = [...(this.#path ?? "").split(":"), ...DEFAULT_PATH]
      .filter((dir, i, all) => dir.startsWith("/") && all.indexOf(dir) === i);
    const pipe = this.#spawn(
      [shell, "-c", this.#script, "bashbox-guardian", this.token],
      { PATH: path.join(":"), LC_ALL: "C", SHLVL: "1" },
    );
    if (pipe === null) {
      this.#failed.add(shell);
      return false;
    }
    this.#starts++;
    this.#pipe = pipe;
    const forget = () => {
      if (this.#pipe === pipe) this.#pipe = null;
    };
    pipe.exited.then(forget, forget);
    const lines = [...this.#groups()].map((pgid) => `+ ${pgid}\n`).join("") +
      [...this.#dirs].map((dir) => `d ${dir}\n`).join("");
    if (lines !== "") pipe.write(encoder.encode(lines));
    return true;
  }

  /** Tells the guardian that group `pgid` is live (`shell` starts one if needed). */
  add(pgid: number, shell: string): void {
    if (this.#pipe === null) {
      this.ensure(shell); // it learns of every live group as it starts
      return;
    }
    this.#pipe.write(encoder.encode(`+ ${pgid}\n`));
  }

  /** Tells the guardian that group `pgid` ended. */
  remove(pgid: number): void {
    this.#pipe?.write(encoder.encode(`- ${pgid}\n`));
  }

  /**
   * Has the guardian remove directory `dir` (an absolute path without a
   * newline) should the host die before {@linkcode Guardian.keepDirectory};
   * `shell` starts a guardian if none runs.
   */
  removeAtDeath(dir: string, shell: string): void {
    if (!dir.startsWith("/") || dir.includes("\n")) {
      throw new TypeError(
        `Expected an absolute path without a newline, got ${
          JSON.stringify(dir)
        }`,
      );
    }
    this.#dirs.add(dir);
    if (this.#pipe === null) {
      this.ensure(shell); // it learns of every directory as it starts
      return;
    }
    this.#pipe.write(encoder.encode(`d ${dir}\n`));
  }

  /** The host removed `dir` itself (or keeps it): the guardian forgets it. */
  keepDirectory(dir: string): void {
    if (!this.#dirs.delete(dir)) return;
    this.#pipe?.write(encoder.encode(`u ${dir}\n`));
  }
}
