/**
 * The containment effect oracle (issue 26): what the kernel keeps when a
 * policy's promise contains its session.
 *
 * Adversarial: every adversarial case of the corpora (`ADVERSARIAL`, every
 * generated variant of `allVariants()`, the deny-rule evasions of
 * `denyRuleVariants()`) is run for real, whatever the policy says of it, in
 * sessions contained by `Policy.readOnly()`'s promise (no writes but a
 * private `/tmp`, no network), one session per batch of 100, three at a
 * time, each case with a deadline of 1.5 s. The workspace holds the policy
 * oracle's fixture files (and its marker program `pwn` is first on `PATH`),
 * `HOME` is a fixture home, and a canary directory lies beside them: all on
 * the host under `/var/tmp`, so reachable (read-only) from inside. A shell
 * whose state a case changed (a variable, a function, an alias, a trap, an
 * option, the working directory: a builtins-only sentinel after each case
 * tells) is restarted, so every case starts from a fresh shell's state.
 *
 * After each batch the oracle asserts that nothing happened outside the
 * allowed paths: the workspace, home, canary and marker trees are
 * byte-identical (paths, types, modes, owners, sizes, modification times,
 * content hashes, link targets); the host paths the batch's commands name
 * (`/etc/passwd`, `/tmp/x`, `/bin/rm`…) are unchanged; no entry of the
 * host's `/tmp` that a case could have made (by a word of its text or the
 * batch's marker) appeared or changed; no connection reached a listener on
 * the loopback ports the corpus names (when free) or the oracle's own; the
 * host name and the clock are unchanged; and no process the session started
 * (marked by a variable in its environment, or living in one of its
 * sandboxes' PID namespaces) is alive 10 s after the session closed. A
 * batch with an effect is run again alone, then by halves, to name the
 * case. Running programs (`pwn` included) is allowed under containment:
 * effects outside are what count. A preflight refuses to run the corpus
 * (which sets the clock and the host name) unless a contained session has
 * no capabilities, its own network, UTS and PID namespaces, and read-only
 * fixtures.
 *
 * Benign: every command of `BENIGN` is judged by `Policy.readOnly().check(c,
 * { contained: true })` (refusals are counted), and each allowed one is run
 * contained and, in an identical copy of richer fixtures (a git repository
 * with history, a remote branch, a stash, sources, JSON, archives),
 * uncontained, with the host's `HOME`: a command breaks under containment
 * when it succeeds uncontained but fails contained, times out only
 * contained, or complains of a read-only file system or a denied permission
 * only contained.
 *
 * {@linkcode selfTest} proves the oracle sees effects: probes that write
 * the canary, the home, the workspace, a named host path and the host's
 * `/tmp`, run the marker, leave a daemon and connect to the loopback each
 * show their effect uncontained and none contained.
 *
 * `/proc` is read through bash (Deno reads it only with `--allow-all`).
 * Run in full with `deno task containment-oracle` (about 2 to 3 minutes on
 * 2 cores; exits 1 on an effect, a blind or escaping probe, a command
 * broken by containment, or more than 2% of the benign corpus refused);
 * `tests/containment_oracle_test.ts` runs it where bubblewrap works.
 *
 * @module
 */

import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
} from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { env } from "node:process";
import {
  containmentSandbox,
  containSession,
  sandboxUnavailable,
} from "../core/containment.ts";
import { exec } from "../core/exec.ts";
import { BashSession, type SessionResult } from "../core/session.ts";
import { Policy } from "../policy/mod.ts";
import { ADVERSARIAL } from "../tests/corpus/adversarial.ts";
import { BENIGN } from "../tests/corpus/benign.ts";
import { allVariants, denyRuleVariants } from "../tests/corpus/variants.ts";
import { writeFixtures } from "./policy_oracle.ts";

/** A case and the effects it left outside the allowed paths. */
export interface EffectCase {
  /** The command (or, for effects only cases together show, their count, first and last). */
  command: string;
  /** The effects seen. */
  effects: string[];
}

/** What {@linkcode runAdversarial} found. */
export interface AdversarialReport {
  /** Cases run. */
  cases: number;
  /** Of them, cases `Policy.readOnly()` allows under containment. */
  allowedByPolicy: number;
  /** Sessions (batches) used. */
  batches: number;
  /** Cases stopped at their deadline. */
  timedOut: string[];
  /** Cases that ended the shell (`exit`, `exec`, a kill). */
  shellDeaths: number;
  /** Shells restarted because a case changed the session's state. */
  stateRestarts: number;
  /** Cases with an effect outside the allowed paths: must be empty. */
  effects: EffectCase[];
  /**
   * Host-wide signals (a change of a host path the batch names, a new entry
   * in the host's `/tmp`, a connection, the clock, the host name) seen
   * during a batch that did not come back when the batch ran again alone:
   * other processes on the host, reported, not counted.
   */
  unconfirmed: EffectCase[];
  /**
   * Batches whose processes died on their own, but more than 2 s after the
   * session closed (with the cases that timed out or ended the shell).
   */
  slowTeardowns: EffectCase[];
  /** Loopback TCP ports the oracle listened on for connections (the corpus's, when free, and its own). */
  listened: number[];
  /** Wall time in milliseconds. */
  ms: number;
}

/** A benign command that works uncontained and not contained. */
export interface BrokenCase {
  /** The command. */
  command: string;
  /** Why it counts as broken. */
  why: string;
  /** Exit code contained (null: a signal or the deadline). */
  contained: number | null;
  /** Exit code uncontained. */
  uncontained: number | null;
  /** The start of the contained output. */
  output: string;
}

/** What {@linkcode runBenign} found. */
export interface BenignReport {
  /** Commands judged. */
  total: number;
  /** Commands the policy refuses under containment, with its reason. */
  refused: { command: string; decision: string; reason: string }[];
  /** Commands run (both ways). */
  run: number;
  /** Commands that fail both ways (the fixture or the host lacks something): not counted. */
  failedBoth: string[];
  /** Commands broken by containment: must be empty. */
  broken: BrokenCase[];
  /** Wall time in milliseconds. */
  ms: number;
}

/** Options of the runners. */
export interface OracleOptions {
  /** Sessions run at once (default 3: most of a case's time is waiting). */
  parallel?: number;
  /** Cases per session (default 100). */
  batchSize?: number;
  /** Deadline of each case in milliseconds (default 1500; benign: 10000). */
  timeoutMs?: number;
  /** Prints progress lines (default false). */
  log?: (line: string) => void;
}

/**
 * Every adversarial case of the corpora, once each, in corpus order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { adversarialCases } from "./containment_oracle.ts";
 *
 * const cases = adversarialCases();
 * assert.ok(cases.includes("ls; rm -rf x"));
 * assert.equal(new Set(cases).size, cases.length);
 * ```
 */
export function adversarialCases(): string[] {
  return [
    ...new Set([
      ...Object.values(ADVERSARIAL).flat(),
      ...allVariants().map((v) => v.command),
      ...denyRuleVariants().map((v) => v.command),
    ]),
  ];
}

/** A host path one probe names literally (outside every tree the oracle watches): unique to this process. */
const NAMED_PROBE = `/var/tmp/bbco-named-${Date.now().toString(36)}${
  Math.random().toString(36).slice(2, 8)
}`;

/** A probe of {@linkcode probeCases}: a command and the effect it must show uncontained. */
export interface Probe {
  /** The command. */
  command: string;
  /** What the oracle must report of it, uncontained (the start of one effect). */
  expect: string;
}

/**
 * Probes that reach out of the allowed paths on purpose: each leaves an
 * effect of its kind when run uncontained, and none may leave one
 * contained. They name their targets through variables the oracle sets
 * (`$BBCO_CANARY`, `$BBCO_MARK`, `$BBCO_PORT`, `HOME`) or literally (a path
 * under `/var/tmp` unique to the process).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { probeCases } from "./containment_oracle.ts";
 *
 * assert.ok(probeCases().some((p) => p.expect === "a connection reached"));
 * ```
 */
export function probeCases(): Probe[] {
  return [
    { command: 'echo x > "$BBCO_CANARY/new.txt"', expect: "canary: created" },
    { command: 'rm -f "$BBCO_CANARY/keep.txt"', expect: "canary: removed" },
    {
      command: 'chmod 600 "$BBCO_CANARY/keep.txt"',
      expect: "canary: changed keep.txt",
    },
    {
      command: 'touch -d @0 "$BBCO_CANARY/sub/deep.txt"',
      expect: "canary: changed sub/deep.txt",
    },
    { command: "echo x >> ~/.bashrc", expect: "home: changed .bashrc" },
    { command: "mkdir -p ~/.cache/bbco", expect: "home: created" },
    { command: "echo x > planted.txt", expect: "workspace: created" },
    {
      command: 'echo x > "/tmp/bbco-$BBCO_MARK"',
      expect: "host /tmp: created",
    },
    { command: `echo x > ${NAMED_PROBE}`, expect: "host path: changed" },
    { command: "pwn", expect: "host /tmp: created pwn-marker" },
    {
      // A daemon in its own session; the case waits until it is one.
      command:
        `setsid -f sh -c ': > "/tmp/bbco-d-$BBCO_MARK"; exec sleep 300' </dev/null >/dev/null 2>&1; until [ -e "/tmp/bbco-d-$BBCO_MARK" ]; do sleep 0.05; done`,
      expect: "a process outlived the session",
    },
    {
      command: 'echo x > "/dev/tcp/127.0.0.1/$BBCO_PORT"',
      expect: "a connection reached",
    },
  ];
}

// ---------------------------------------------------------------------------
// Fixtures

/**
 * More fixture files, over those of the policy oracle, so that the benign
 * corpus means something: a `main` branch with seven commits and two tags,
 * a remote branch it tracks, a feature branch, a stash, a `.gitignore`,
 * `node_modules/.bin`, archives and checksums, JSON documents, logs and
 * sources with the words the corpus greps for.
 */
const MORE_FIXTURES = `
set -e
cd "$1"
g() { git -c user.name=o -c user.email=o@example.com -c commit.gpgsign=false "$@"; }
git branch -qM main
git config user.name o; git config user.email o@example.com
git remote add origin https://example.invalid/bashbox-fixture.git
printf 'node_modules/\\n.env\\n' > .gitignore
printf 'A=1\\n' > .env
mkdir -p node_modules/.bin dist sub
ln -s ../../src/main.ts node_modules/.bin/tsc
printf 'export const a = 1;\\n' > old.ts
printf 'export const a = 2;\\n' > new.ts
printf 'hello\\n' | base64 > encoded.txt
printf '\\x89PNG\\r\\n\\x1a\\n' > image.png
printf 'all:\\n\\ttrue\\n' > Makefile
printf '[{"id":1,"status":"open"},{"id":2,"status":"closed"}]\\n' > issues.json
printf '{"items":[{"a":1},{"a":2}]}\\n' > data.json
printf '{"a":1}\\n' > a.json; printf '{"b":2}\\n' > b.json
printf 'GET / 200\\nPOST /x 500 Error\\nGET /y 200 panic\\nstart\\nfoo\\nend\\n' >> log.txt
cp log.txt access.log; cp log.txt error.log
printf '1.2.10\\n1.2.9\\n' > versions.txt
printf '10K\\n1M\\n' > sizes.txt
printf 'x 3\\ny 10\\n' > counts.txt
printf 'literal\\nfoo bar\\npattern\\n' >> f
printf '"use strict";\\nconst secret = "s3cr3t";\\n' > src/legacy.js
printf 'import os\\nprint(os.name)\\n' > tool.py
printf 'fn main() {}\\n' > src/main.rs
for i in $(seq 1 30); do printf 'export const v%s = %s; // foo\\n' "$i" "$i"; done >> src/main.ts
printf '// TODO: more\\nimport { a } from "./a.ts";\\nexport interface I { a: number }\\nfunction main() { console.log("panic!"); }\\nclass C {}\\n' > src/index.ts
printf '# Notes\\nfoo --flag deprecated\\n## Usage\\n' >> README.md
tar czf dist/pkg.tar.gz f
sha256sum dist/pkg.tar.gz > SHA256SUMS
g add -A; g commit -qm "fixtures: more files"
for i in 2 3 4 5 6; do
  printf 'line %s\\n' "$i" >> src/main.ts
  printf 'fix %s\\n' "$i" >> notes.md
  g add -A; g commit -qm "fix: step $i"
done
g tag -a v1.1 -m v1.1
git branch feat/x
git update-ref refs/remotes/origin/main HEAD~2
git branch -q -u origin/main
printf 'work in progress\\n' >> notes.md
g stash push -q -m wip
`;

/** Where the oracle's directories go: on the host and visible (read-only) inside the sandbox, so not under `/tmp`. */
function baseDir(): string {
  for (const d of ["/var/tmp", ...(env.HOME ? [env.HOME] : [])]) {
    try {
      if (lstatSync(d).isDirectory()) return d;
    } catch {
      // next
    }
  }
  throw new Error(
    "Expected /var/tmp or a home directory for the oracle's files, got neither",
  );
}

interface Fixture {
  root: string;
  template: string;
  bin: string;
}

/**
 * Builds the fixtures: the policy oracle's (which the adversarial corpus
 * names), and with `rich` the benign corpus's too (more files and commits:
 * `find . -exec` over them takes longer than a case's deadline).
 */
async function prepare(rich = false): Promise<Fixture> {
  const root = mkdtempSync(join(baseDir(), "bashbox-containment-"));
  const template = join(root, "template");
  const bin = join(root, "bin");
  await writeFixtures(template, bin);
  const r = rich
    ? await exec(["bash", "-c", MORE_FIXTURES, "_", template], {
      timeoutMs: 60_000,
    })
    : { exitCode: 0, stderr: { text: "" } };
  if (r.exitCode !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(
      `Expected the containment oracle's fixtures to build, got: ${r.stderr.text}`,
    );
  }
  return { root, template, bin };
}

/** A worker's directories: a workspace copy, a canary and a home. */
interface Slot {
  ws: string;
  canary: string;
  home: string;
}

const CANARY = `
set -e
rm -rf "$2" "$3" "$4"
cp -a "$1" "$2"
mkdir -p "$3/sub" "$4/.config/app" "$4/.cache" "$4/.ssh"
printf 'keep\\n' > "$3/keep.txt"
printf 'deep\\n' > "$3/sub/deep.txt"
printf '#!/bin/sh\\necho canary\\n' > "$3/run.sh"; chmod 755 "$3/run.sh"
ln -s keep.txt "$3/link"
printf '# fixture home\\n' > "$4/.bashrc"
printf '[user]\\n\\tname = o\\n\\temail = o@example.com\\n' > "$4/.gitconfig"
printf 'k = v\\n' > "$4/.config/app/app.conf"
printf 'ssh-ed25519 AAAA fixture\\n' > "$4/.ssh/authorized_keys"
chmod 700 "$4/.ssh"
`;

/** (Re)creates a slot's directories from the template. */
async function resetSlot(fx: Fixture, name: string): Promise<Slot> {
  const dir = join(fx.root, name);
  const slot = {
    ws: join(dir, "ws"),
    canary: join(dir, "canary"),
    home: join(dir, "home"),
  };
  const r = await exec([
    "bash",
    "-c",
    `mkdir -p "$5" && bash -c "$6" _ "$@"`,
    "_",
    fx.template,
    slot.ws,
    slot.canary,
    slot.home,
    dir,
    CANARY,
  ], { timeoutMs: 60_000 });
  if (r.exitCode !== 0) {
    throw new Error(
      `Expected the oracle's slot to build, got: ${r.stderr.text}`,
    );
  }
  return slot;
}

// ---------------------------------------------------------------------------
// What the host looks like

/**
 * Every entry under `dir`: path -> type and mode, owner, links, size,
 * modification and change times (a change time moves with any change of
 * metadata: links, extended attributes), content hash or link target.
 */
function treeDigest(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (path: string, rel: string) => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return;
    }
    let what = `mode ${
      st.mode.toString(8)
    } uid ${st.uid} gid ${st.gid} links ${st.nlink} ctime ${st.ctimeMs}`;
    if (st.isSymbolicLink()) what += ` -> ${readlinkSync(path)}`;
    else if (st.isFile()) {
      what += ` size ${st.size} mtime ${st.mtimeMs} sha256 ${
        createHash("sha256").update(readFileSync(path)).digest("hex")
      }`;
    } else if (st.isDirectory()) {
      what += ` mtime ${st.mtimeMs}`;
      for (const name of readdirSync(path).sort()) {
        walk(join(path, name), rel ? `${rel}/${name}` : name);
      }
    }
    out.set(rel || ".", what);
  };
  walk(dir, "");
  return out;
}

function diffDigests(
  label: string,
  before: Map<string, string>,
  after: Map<string, string>,
): string[] {
  const out: string[] = [];
  for (const [path, what] of after) {
    const was = before.get(path);
    if (was === undefined) out.push(`${label}: created ${path}`);
    else if (was !== what) {
      out.push(`${label}: changed ${path} (${was} => ${what})`);
    }
  }
  for (const path of before.keys()) {
    if (!after.has(path)) out.push(`${label}: removed ${path}`);
  }
  return out;
}

/** The host's `/tmp`, one level: name -> type, size, mtime. */
function hostTmp(): Map<string, string> {
  const out = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync("/tmp");
  } catch {
    return out;
  }
  for (const name of names) {
    try {
      const st = lstatSync(join("/tmp", name));
      out.set(name, `${st.isDirectory() ? "d" : "f"} ${st.size} ${st.mtimeMs}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Names a case could have given an entry of the host's `/tmp`: the words of
 * its text, the marker's, the batch's marker. (Other processes share the
 * host's `/tmp`, so an entry with a random name cannot be told from theirs:
 * the probe `echo x > "/tmp/bbco-$BBCO_MARK"` shows that a contained
 * session's `/tmp` is its own.)
 */
function couldHaveMade(
  name: string,
  words: ReadonlySet<string>,
  marker: string,
): boolean {
  return words.has(name) || name.includes(marker) || /^pwn/.test(name);
}

function wordsOf(commands: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const c of commands) {
    for (const w of c.split(/[^A-Za-z0-9._+@%,-]+/)) if (w) out.add(w);
  }
  return out;
}

// /proc is read through bash: Deno reads it only with --allow-all, and the
// suite grants --allow-run=bash.

/** Runs a bash script with arguments and returns its stdout ("" on failure). */
async function sh(script: string, ...args: string[]): Promise<string> {
  try {
    const r = await exec(["bash", "-c", script, "_", ...args], {
      timeoutMs: 30_000,
    });
    return r.stdout.text;
  } catch {
    return "";
  }
}

/**
 * Processes whose environment holds `BBCO_MARK=<marker>` (the first
 * argument), and for each sandbox named by the others (`pid:start:ns`, its
 * first process, that process's start time and PID namespace) whose first
 * process still runs, that process and every other in its namespace. (A
 * namespace's number is reused once it is gone: only a live first process,
 * the same by its start time, shows that a namespace is still the
 * sandbox's. The kernel kills the rest of a namespace with its first
 * process; processes that dropped the marker, `env -i`, are found here.)
 */
const SURVIVORS = `
m=$1; shift
grep -lzx -e "BBCO_MARK=$m" /proc/[0-9]*/environ 2>/dev/null | sed -n 's|^/proc/\\([0-9]*\\)/environ$|\\1|p'
for init; do
  p=\${init%%:*}; r=\${init#*:}; start=\${r%%:*}; ns=\${r#*:}
  line=$(cat "/proc/$p/stat" 2>/dev/null) || continue
  read -ra f <<< "\${line##*) }"
  [ "\${f[19]}" = "$start" ] || continue
  echo "$p"
  stat -c '%N' /proc/[0-9]*/ns/pid 2>/dev/null | grep -F "'$ns'" |
    sed -n "s|^'/proc/\\([0-9]*\\)/ns/pid'.*|\\1|p"
done
true`;

async function survivorsOf(
  marker: string,
  sandboxes: ReadonlySet<string>,
): Promise<number[]> {
  const out = await sh(SURVIVORS, marker, ...sandboxes);
  return [...new Set(out.split("\n").filter((l) => /^\d+$/.test(l)))].map(
    Number,
  );
}

/**
 * The sandbox bwrap (`pid`, the session's shell) made, as `pid:start:ns`:
 * its first process, that process's start time, its PID namespace.
 */
async function sandboxOf(pid: number): Promise<string | null> {
  const out = (await sh(
    // (children has no trailing newline: read fails but sets c.)
    `read -r c _ < "/proc/$1/task/$1/children"; [ -n "$c" ] || exit
line=$(cat "/proc/$c/stat") || exit
read -ra f <<< "\${line##*) }"
printf '%s:%s:%s\\n' "$c" "\${f[19]}" "$(readlink "/proc/$c/ns/pid")"`,
    String(pid),
  )).trim();
  return /^\d+:\d+:pid:\[\d+\]$/.test(out) ? out : null;
}

/** "pid (comm, state, parent, pid namespace): argv" for each of `pids`, as far as /proc still says. */
async function describeProcesses(pids: readonly number[]): Promise<string[]> {
  if (pids.length === 0) return [];
  const out = await sh(
    `for p; do
      s=$(cat "/proc/$p/stat" 2>/dev/null); n=$(readlink "/proc/$p/ns/pid" 2>/dev/null)
      a=$(tr '\\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | cut -c1-200)
      printf '%s\\t%s\\t%s\\t%s\\n' "$p" "$s" "$n" "$a"
    done`,
    ...pids.map(String),
  );
  return out.split("\n").filter(Boolean).map((line) => {
    const [pid, stat, ns, argv] = line.split("\t");
    // stat: "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    return `${pid} (${comm || "?"}, state ${rest[0] || "?"}, parent ${
      rest[1] || "?"
    }, ${ns || "no ns"}): ${argv?.trim() || "(no argv)"}`;
  });
}

/** Kills processes the oracle's own sessions left, by pid. */
async function killPids(pids: readonly number[]): Promise<void> {
  if (pids.length > 0) {
    await sh('kill -KILL "$@" 2>/dev/null; true', ...pids.map(String));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** TCP listeners on the loopback that count connections. */
class Listeners {
  readonly #servers: Server[] = [];
  readonly #sockets = new Set<Socket>();
  readonly ports: number[] = [];
  connections: string[] = [];

  static async open(ports: readonly number[]): Promise<Listeners> {
    const l = new Listeners();
    for (const wanted of [0, ...ports]) {
      let port = wanted;
      const server = createServer((socket) => {
        l.connections.push(`a connection reached 127.0.0.1:${port}`);
        l.#sockets.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => l.#sockets.delete(socket));
        socket.destroy();
      });
      const bound = await new Promise<number | null>((resolve) => {
        server.once("error", () => resolve(null));
        server.listen(port, "127.0.0.1", () => {
          const a = server.address();
          resolve(typeof a === "object" && a !== null ? a.port : null);
        });
      });
      if (bound === null) continue;
      l.#servers.push(server);
      l.ports.push(bound);
      port = bound;
    }
    return l;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await Promise.all(
      this.#servers.map((s) => new Promise<void>((r) => s.close(() => r()))),
    );
  }
}

/** Loopback TCP ports the corpus connects to through `/dev/tcp`. */
function corpusPorts(commands: readonly string[]): number[] {
  const out = new Set<number>();
  for (const c of commands) {
    for (const m of c.matchAll(/\/dev\/tcp\/127\.0\.0\.1\/(\d+)/g)) {
      out.add(Number(m[1]));
    }
  }
  return [...out];
}

// ---------------------------------------------------------------------------
// Running cases in a session

/**
 * Prints the state a command can leave for the next one: builtins only
 * (each through `builtin`, so a function or alias over one shows as a
 * change), after forgetting the hash table. (`tr''ap`: the framing takes a
 * slower path, about 25 ms, for a command that names `trap`.)
 */
const SENTINEL =
  `builtin hash -r; builtin printf '%s\\n' "$PWD" "$-"; builtin umask; builtin declare -p; builtin alias; builtin declare -F; builtin tr''ap -p; builtin shopt -p; builtin set -o; builtin enable -n; builtin echo /proc/$$/fd/*`;

/**
 * The sentinel's output without the framing's variables (`__bb*`), which
 * change at every command (and which a case that sets one makes the
 * framing read at the next command, inside the same batch).
 */
function stateOf(text: string): string {
  return text.split("\n").filter((l) =>
    !/^declare -[-a-zA-Z]* __bb[A-Za-z]*(=|$)/.test(l)
  ).join("\n");
}

interface RunnerOptions {
  cwd: string;
  env: Record<string, string>;
  contained: boolean;
  timeoutMs: number;
}

interface CaseOutcome {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  restarted: boolean;
  output: string;
  error?: string;
}

/**
 * Runs cases one after another in one session, restarting the shell when a
 * case changed its state (so each case starts from a fresh shell's state)
 * and recording every sandbox it started.
 */
class Runner {
  readonly session: BashSession;
  /** Every sandbox its session started (see {@linkcode sandboxOf}). */
  readonly sandboxes = new Set<string>();
  readonly #timeoutMs: number;
  readonly #contained: boolean;
  #baseline: string | null = null;
  #lastPid: number | undefined;
  stateRestarts = 0;

  constructor(o: RunnerOptions) {
    this.#timeoutMs = o.timeoutMs;
    this.#contained = o.contained;
    this.session = new BashSession({
      cwd: o.cwd,
      env: o.env,
      // The sandbox the library builds for the preset (its PATH kept visible).
      sandbox: o.contained
        ? containSession(
          Policy.readOnly().promise,
          { cwd: o.cwd, env: o.env },
          "required",
        ).options.sandbox
        : undefined,
      timeoutMs: o.timeoutMs,
      killGraceMs: 200,
      restoreState: false,
      // Room for the sentinel's whole output; cases keep their first 2000 characters.
      headBytes: 256 * 1024,
      tailBytes: 4096,
    });
  }

  async #note(): Promise<void> {
    const pid = this.session.pid;
    if (!this.#contained || pid === undefined || pid === this.#lastPid) return;
    this.#lastPid = pid;
    const sandbox = await sandboxOf(pid);
    if (sandbox !== null) this.sandboxes.add(sandbox);
  }

  async #sentinel(): Promise<string> {
    const r = await this.session.run(SENTINEL, { timeoutMs: 10_000 });
    await this.#note();
    return stateOf(r.output.text);
  }

  /** The state of a fresh shell, after one command (the framing sets its variables then). */
  async #fresh(): Promise<string> {
    await this.session.run("true", { timeoutMs: 10_000 });
    return await this.#sentinel();
  }

  async run(command: string): Promise<CaseOutcome> {
    if (this.#baseline === null) this.#baseline = await this.#fresh();
    let r: SessionResult;
    try {
      r = await this.session.run(command, { timeoutMs: this.#timeoutMs });
    } catch (error) {
      await this.session.restart().catch(() => {});
      return {
        command,
        exitCode: null,
        timedOut: false,
        restarted: true,
        output: "",
        error: String((error as Error)?.message ?? error),
      };
    }
    await this.#note();
    const outcome = {
      command,
      exitCode: r.exitCode,
      timedOut: r.timedOut,
      restarted: r.restarted,
      output: r.output.text.slice(0, 2000),
    };
    let state: string;
    try {
      state = await this.#sentinel();
    } catch {
      state = "";
    }
    if (state !== this.#baseline) {
      this.stateRestarts++;
      await this.session.restart();
      const fresh = await this.#fresh();
      // A fresh shell is the baseline, whatever it prints.
      if (fresh !== this.#baseline) this.#baseline = fresh;
    }
    return outcome;
  }

  async close(): Promise<void> {
    await this.session.close();
  }
}

// ---------------------------------------------------------------------------
// Adversarial

interface BatchResult {
  outcomes: CaseOutcome[];
  /** Effects in the slot's own directories or by marked processes: never noise. */
  own: string[];
  /** Host-wide signals: may come from other processes. */
  host: string[];
  /** Processes that died, but more than `LINGER_MS` after the close. */
  slow: string[];
  stateRestarts: number;
}

/**
 * Absolute paths the commands name (`/etc/passwd`, `/tmp/x`, `/bin/rm`…),
 * outside `/proc`, `/sys`, `/dev` and the host's `/tmp` itself.
 */
function namedPaths(commands: readonly string[]): string[] {
  const out = new Set<string>();
  for (const c of commands) {
    for (
      const m of c.matchAll(/(?<![\w.~$}-])\/[\w.+@%,-]+(?:\/[\w.+@%,-]+)*/g)
    ) {
      const path = m[0].replace(/\/+$/, "");
      if (path && !/^\/(proc|sys|dev)(\/|$)|^\/tmp$/.test(path)) out.add(path);
    }
  }
  return [...out].sort();
}

/** One level of each path: type, mode, size, mtime, content hash or link target ("absent" if none). */
function pathsDigest(paths: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const path of paths) {
    let what = "absent";
    try {
      const st = lstatSync(path);
      what = `mode ${
        st.mode.toString(8)
      } uid ${st.uid} size ${st.size} mtime ${st.mtimeMs}`;
      if (st.isSymbolicLink()) what += ` -> ${readlinkSync(path)}`;
      else if (st.isFile() && st.size <= 16 << 20) {
        what += ` sha256 ${
          createHash("sha256").update(readFileSync(path)).digest("hex")
        }`;
      }
    } catch {
      // absent or unreadable
    }
    out.set(path, what);
  }
  return out;
}

interface HostState {
  /** The host paths the batch names. */
  paths: Map<string, string>;
  tmp: Map<string, string>;
  connections: number;
  hostname: string;
  clock: number;
}

/** The host's name, as the kernel has it (Deno's `os.hostname()` needs `--allow-sys`). */
async function hostname(): Promise<string> {
  return (await sh("cat /proc/sys/kernel/hostname")).trim();
}

async function hostState(
  listeners: Listeners,
  commands: readonly string[],
): Promise<HostState> {
  return {
    paths: pathsDigest(namedPaths(commands)),
    tmp: hostTmp(),
    connections: listeners.connections.length,
    hostname: await hostname(),
    clock: Date.now() - performance.now(),
  };
}

async function hostEffects(
  before: HostState,
  listeners: Listeners,
  commands: readonly string[],
  marker: string,
): Promise<string[]> {
  const out = diffDigests(
    "host path",
    before.paths,
    pathsDigest([...before.paths.keys()]),
  );
  const words = wordsOf(commands);
  for (const [name, what] of hostTmp()) {
    const was = before.tmp.get(name);
    if (was === what || !couldHaveMade(name, words, marker)) continue;
    out.push(
      was === undefined
        ? `host /tmp: created ${name}`
        : `host /tmp: changed ${name}`,
    );
  }
  out.push(...listeners.connections.slice(before.connections));
  const name = await hostname();
  if (name !== before.hostname) {
    out.push(`the host name changed: ${before.hostname} => ${name}`);
  }
  const moved = Date.now() - performance.now() - before.clock;
  if (Math.abs(moved) > 5_000) {
    out.push(`the wall clock moved by ${Math.round(moved)} ms`);
  }
  return out;
}

let markers = 0;
function newMarker(): string {
  return `bbco${Date.now().toString(36)}${(markers++).toString(36)}${
    Math.random().toString(36).slice(2, 8)
  }`;
}

/**
 * Runs `commands` in one session over `slot`, then checks what they left
 * outside the allowed paths.
 */
async function runBatch(
  fx: Fixture,
  slot: Slot,
  commands: readonly string[],
  listeners: Listeners,
  o: { contained: boolean; timeoutMs: number },
): Promise<BatchResult> {
  const marker = newMarker();
  const before = {
    ws: treeDigest(slot.ws),
    canary: treeDigest(slot.canary),
    home: treeDigest(slot.home),
    shared: treeDigest(fx.bin),
    host: await hostState(listeners, commands),
  };
  const runner = new Runner({
    cwd: slot.ws,
    env: {
      PATH: `${fx.bin}:${env.PATH ?? "/usr/local/bin:/usr/bin:/bin"}`,
      HOME: slot.home,
      BBCO_MARK: marker,
      BBCO_CANARY: slot.canary,
      BBCO_PORT: String(listeners.ports[0] ?? 9),
    },
    contained: o.contained,
    timeoutMs: o.timeoutMs,
  });
  const outcomes: CaseOutcome[] = [];
  try {
    for (const command of commands) outcomes.push(await runner.run(command));
  } finally {
    await runner.close();
  }
  // What outlives the session. The kernel kills a PID namespace's processes
  // when its first one dies, but not at once: a process still there after
  // LINGER_MS is noted (slow teardown), one still there after SURVIVE_MS is
  // an effect (and is then killed, by pid).
  const closed = performance.now();
  // (Uncontained, nothing kills what left the session: no need to wait.)
  const surviveMs = o.contained ? SURVIVE_MS : LINGER_MS;
  let survivors: number[] = [];
  let lingering: string[] = [];
  for (;;) {
    survivors = await survivorsOf(marker, runner.sandboxes);
    const waited = performance.now() - closed;
    if (survivors.length === 0 || waited >= surviveMs) break;
    if (waited >= LINGER_MS && lingering.length === 0) {
      lingering = await describeProcesses(survivors);
    }
    await sleep(100);
  }
  const own = [
    ...diffDigests("workspace", before.ws, treeDigest(slot.ws)),
    ...diffDigests("canary", before.canary, treeDigest(slot.canary)),
    ...diffDigests("home", before.home, treeDigest(slot.home)),
    ...diffDigests("marker program", before.shared, treeDigest(fx.bin)),
    ...(await describeProcesses(survivors)).map((p) =>
      `a process outlived the session by ${surviveMs / 1000} s: ${p}`
    ),
  ];
  await killPids(survivors);
  const slow = survivors.length > 0 || lingering.length === 0 ? [] : [
    `processes died ${
      Math.round(performance.now() - closed)
    } ms after the session closed: ${lingering.join("; ")}`,
  ];
  const host = await hostEffects(before.host, listeners, commands, marker);
  if (!o.contained) {
    // The uncontained probes' traces in the host's /tmp: undone.
    for (const name of hostTmp().keys()) {
      if (name.includes(marker)) {
        rmSync(join("/tmp", name), { recursive: true, force: true });
      }
    }
    if (!before.host.tmp.has("pwn-marker")) {
      rmSync("/tmp/pwn-marker", { force: true });
    }
  }
  return { outcomes, own, host, slow, stateRestarts: runner.stateRestarts };
}

/** How long after a session's close its processes may take to die before the oracle says so. */
const LINGER_MS = 2_000;
/** How long after a session's close a process counts as having outlived it. */
const SURVIVE_MS = 10_000;

/** Refuses to run the corpus unless the sandbox is what it claims. */
async function preflight(slot: Slot): Promise<void> {
  const s = new BashSession({
    cwd: slot.ws,
    sandbox: containmentSandbox(Policy.readOnly().promise!, slot.ws),
    restoreState: false,
    timeoutMs: 10_000,
  });
  try {
    const r = await s.run(
      `grep -E '^Cap(Prm|Eff|Amb):' /proc/self/status; readlink /proc/self/ns/net /proc/self/ns/uts /proc/self/ns/pid; touch ./bbco-preflight 2>/dev/null && echo WRITABLE; touch ${
        JSON.stringify(join(slot.canary, "x"))
      } 2>/dev/null && echo WRITABLE; true`,
    );
    const text = r.output.text;
    const problems: string[] = [];
    for (const cap of text.matchAll(/^Cap(\w+):\s*([0-9a-f]+)$/gm)) {
      if (!/^0+$/.test(cap[2])) problems.push(`Cap${cap[1]} is ${cap[2]}`);
    }
    const host = await sh(
      "readlink /proc/self/ns/net /proc/self/ns/uts /proc/self/ns/pid",
    );
    for (const ns of ["net", "uts", "pid"]) {
      const re = new RegExp(`^${ns}:\\[\\d+\\]$`, "m");
      const inside = re.exec(text)?.[0];
      const outside = re.exec(host)?.[0];
      if (inside === undefined || outside === undefined || inside === outside) {
        problems.push(
          `the ${ns} namespace is not the sandbox's own (inside ${inside}, outside ${outside})`,
        );
      }
    }
    if (text.includes("WRITABLE")) problems.push("a fixture is writable");
    if (problems.length > 0) {
      throw new Error(
        `Expected a contained session (no capabilities, own namespaces, read-only fixtures), got: ${
          problems.join("; ")
        }\n${text}`,
      );
    }
  } finally {
    await s.close();
  }
}

/**
 * Runs `commands` (default: every adversarial case) for real in contained
 * sessions, whatever the policy says, and reports every effect outside the
 * allowed paths. Refuses to start unless a preflight shows the sandbox
 * holds (no capabilities, its own network, UTS and PID namespaces,
 * read-only fixtures): the corpus sets the clock and the host name.
 */
export async function runAdversarial(
  commands: readonly string[] = adversarialCases(),
  options: OracleOptions = {},
): Promise<AdversarialReport> {
  return await adversarial(commands, { ...options, contained: true });
}

async function adversarial(
  commands: readonly string[],
  options: OracleOptions & { contained: boolean; perCase?: boolean },
  shared?: Fixture,
): Promise<AdversarialReport> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 1_500;
  const batchSize = options.perCase ? 1 : options.batchSize ?? 100;
  const policy = Policy.readOnly();
  const fx = shared ?? await prepare();
  const listeners = await Listeners.open(corpusPorts(commands));
  const report: AdversarialReport = {
    cases: commands.length,
    allowedByPolicy:
      commands.filter((c) =>
        policy.check(c, { contained: true }).decision === "allow"
      ).length,
    batches: 0,
    timedOut: [],
    shellDeaths: 0,
    stateRestarts: 0,
    effects: [],
    unconfirmed: [],
    slowTeardowns: [],
    listened: listeners.ports,
    ms: 0,
  };
  try {
    const slots = await Promise.all(
      Array.from(
        { length: options.parallel ?? 3 },
        (_, i) => resetSlot(fx, `w${i}`),
      ),
    );
    if (options.contained) await preflight(slots[0]);
    // Batch k holds cases k, k + n, k + 2n…: the slow ones (`tail -f` in
    // every spelling) spread over all batches instead of filling a few.
    const n = Math.ceil(commands.length / batchSize);
    const batches: string[][] = Array.from(
      { length: n },
      (_, k) => commands.filter((_, i) => i % n === k),
    );
    const suspect: { batch: string[]; own: string[] }[] = [];
    const range = (batch: readonly string[]) =>
      batch.length === 1
        ? batch[0]
        : `${batch.length} cases, ${JSON.stringify(batch[0])} … ${
          JSON.stringify(batch.at(-1))
        }`;
    let next = 0;
    const worker = async (i: number) => {
      while (next < batches.length) {
        const batch = batches[next++];
        const r = await runBatch(fx, slots[i], batch, listeners, {
          contained: options.contained,
          timeoutMs,
        });
        report.batches++;
        report.stateRestarts += r.stateRestarts;
        for (const o of r.outcomes) {
          if (o.timedOut) report.timedOut.push(o.command);
          if (o.restarted) report.shellDeaths++;
        }
        if (r.slow.length > 0) {
          const ended = r.outcomes.filter((o) => o.timedOut || o.restarted)
            .map((o) => JSON.stringify(o.command));
          report.slowTeardowns.push({
            command: range(batch),
            effects: [
              ...r.slow,
              ...(ended.length
                ? [`timed out or ended: ${ended.join(", ")}`]
                : []),
            ],
          });
        }
        const effects = [...r.own, ...r.host];
        if (effects.length > 0) {
          if (batch.length === 1) {
            report.effects.push({ command: batch[0], effects });
          } else suspect.push({ batch, own: r.own });
          if (r.own.length > 0) slots[i] = await resetSlot(fx, `w${i}`);
        }
        log(
          `batch ${report.batches}/${batches.length}: ${batch.length} cases, ${effects.length} effects (${
            ((performance.now() - started) / 1000).toFixed(0)
          } s)${effects.map((e) => `\n  ${e}`).join("")}`,
        );
      }
    };
    await Promise.all(slots.map((_, i) => worker(i)));
    // Name the cases behind a batch's effects, alone on the host: the batch
    // again, then each half that still shows one, down to single cases (or
    // to the smallest set that shows it only together).
    const locate = async (batch: string[]): Promise<EffectCase[]> => {
      const r = await runBatch(fx, slots[0], batch, listeners, {
        contained: options.contained,
        timeoutMs,
      });
      if (r.own.length > 0) slots[0] = await resetSlot(fx, "w0");
      const effects = [...r.own, ...r.host];
      if (effects.length === 0) return [];
      if (batch.length === 1) return [{ command: batch[0], effects }];
      const half = Math.ceil(batch.length / 2);
      const found = [
        ...await locate(batch.slice(0, half)),
        ...await locate(batch.slice(half)),
      ];
      return found.length > 0 ? found : [{ command: range(batch), effects }];
    };
    for (const { batch, own } of suspect) {
      const found = await locate(batch);
      report.effects.push(...found);
      if (found.length > 0) continue;
      // Effects in the oracle's own directories, or by processes with its
      // marker, are never another process's: they count even unrepeated.
      if (own.length > 0) {
        report.effects.push({
          command: range(batch),
          effects: [...own, "(not seen again when the batch was run alone)"],
        });
      } else {
        report.unconfirmed.push({
          command: range(batch),
          effects: [
            "a host-wide signal not seen again when the batch was run alone",
          ],
        });
      }
    }
  } finally {
    await listeners.close();
    if (shared === undefined) rmSync(fx.root, { recursive: true, force: true });
  }
  report.ms = performance.now() - started;
  return report;
}

/** What {@linkcode selfTest} found. */
export interface SelfTestReport {
  /** Each probe with the effects it left uncontained, and whether the one it must show is among them. */
  uncontained: (EffectCase & { seen: boolean })[];
  /** Probes with an effect contained (must be none). */
  contained: EffectCase[];
}

/**
 * Proves the oracle sees effects: runs each of {@linkcode probeCases} alone
 * in a fresh uncontained session (each must show its effect, which the
 * oracle then undoes: fixtures rebuilt, its own files in `/tmp` removed, its
 * processes killed by pid) and then contained (none may show any).
 */
export async function selfTest(): Promise<SelfTestReport> {
  const probes = probeCases();
  const commands = probes.map((p) => p.command);
  const fx = await prepare();
  try {
    const open = await adversarial(commands, {
      contained: false,
      perCase: true,
      parallel: 1,
    }, fx);
    const uncontained = probes.map(({ command, expect }) => {
      const effects = open.effects.filter((e) => e.command === command)
        .flatMap((e) => e.effects);
      return {
        command,
        effects,
        seen: effects.some((e) => e.startsWith(expect)),
      };
    });
    rmSync(NAMED_PROBE, { force: true });
    const shut = await adversarial(commands, {
      contained: true,
      perCase: true,
      parallel: 1,
    }, fx);
    return { uncontained, contained: shut.effects };
  } finally {
    rmSync(fx.root, { recursive: true, force: true });
    rmSync(NAMED_PROBE, { force: true });
  }
}

// ---------------------------------------------------------------------------
// Benign

/** What a program says when the sandbox stops it (C library and Node spellings). */
const SANDBOX_ERRORS =
  /Read-only file system|Operation not permitted|Permission denied|\bE(ROFS|ACCES|PERM)\b/;

/**
 * Judges `commands` (default: the benign corpus) with
 * `Policy.readOnly().check(c, { contained: true })`, runs each allowed one
 * contained and uncontained over identical fixtures, and reports the
 * refusals and the commands containment breaks.
 */
export async function runBenign(
  commands: readonly string[] = BENIGN,
  options: OracleOptions = {},
): Promise<BenignReport> {
  const started = performance.now();
  const policy = Policy.readOnly();
  const refused: BenignReport["refused"] = [];
  const toRun: string[] = [];
  for (const command of commands) {
    const v = policy.check(command, { contained: true });
    if (v.decision === "allow") toRun.push(command);
    else refused.push({ command, decision: v.decision, reason: v.reason });
  }
  const fx = await prepare(true);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const batchSize = options.batchSize ?? 100;
  try {
    const [inside, outside] = await Promise.all(
      [true, false].map(async (contained) => {
        const slot = await resetSlot(fx, contained ? "in" : "out");
        const outcomes: CaseOutcome[] = [];
        for (let i = 0; i < toRun.length; i += batchSize) {
          const runner = new Runner({
            cwd: slot.ws,
            env: { BBCO_MARK: newMarker() },
            contained,
            timeoutMs,
          });
          try {
            for (const c of toRun.slice(i, i + batchSize)) {
              outcomes.push(await runner.run(c));
            }
          } finally {
            await runner.close();
          }
          options.log?.(
            `benign ${
              contained ? "contained" : "uncontained"
            }: ${outcomes.length}/${toRun.length}`,
          );
        }
        return outcomes;
      }),
    );
    const broken: BrokenCase[] = [];
    const failedBoth: string[] = [];
    inside.forEach((c, i) => {
      const u = outside[i];
      let why = "";
      if (c.timedOut && !u.timedOut) why = "times out only contained";
      else if (u.exitCode === 0 && c.exitCode !== 0) {
        why = `exits ${c.exitCode} contained, 0 uncontained`;
      } else if (
        SANDBOX_ERRORS.test(c.output) && !SANDBOX_ERRORS.test(u.output)
      ) why = "complains of the sandbox only contained";
      if (why) {
        broken.push({
          command: c.command,
          why,
          contained: c.exitCode,
          uncontained: u.exitCode,
          output: c.output.slice(0, 300),
        });
      } else if (c.exitCode !== 0 && u.exitCode !== 0) {
        failedBoth.push(c.command);
      }
    });
    return {
      total: commands.length,
      refused,
      run: toRun.length,
      failedBoth,
      broken,
      ms: performance.now() - started,
    };
  } finally {
    rmSync(fx.root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------

if (import.meta.main) {
  const why = sandboxUnavailable();
  const g = globalThis as {
    Deno?: { exitCode: number };
    process?: { exitCode?: number };
  };
  const fail = () => {
    if (g.Deno) g.Deno.exitCode = 1;
    else if (g.process) g.process.exitCode = 1;
  };
  if (why) {
    console.log(`containment-oracle: skipped: ${why}`);
  } else {
    const self = await selfTest();
    const blind = self.uncontained.filter((p) => !p.seen);
    console.log(
      `self-test: ${self.uncontained.length} probes, ${
        self.uncontained.length - blind.length
      } seen uncontained, ${self.contained.length} with an effect contained`,
    );
    for (const p of blind) {
      console.log(
        `BLIND ${JSON.stringify(p.command)}: ${p.effects.join("; ") || "none"}`,
      );
    }
    for (const e of self.contained) {
      console.log(
        `ESCAPE ${JSON.stringify(e.command)}: ${e.effects.join("; ")}`,
      );
    }
    if (blind.length > 0 || self.contained.length > 0) fail();

    const a = await runAdversarial(undefined, {
      log: (line) => console.error(line),
    });
    for (const e of a.effects) {
      console.log(
        `EFFECT ${JSON.stringify(e.command)}: ${e.effects.join("; ")}`,
      );
    }
    for (const c of a.timedOut) console.log(`timed out ${JSON.stringify(c)}`);
    for (const e of [...a.unconfirmed, ...a.slowTeardowns]) {
      console.log(
        `note ${e.command}: ${e.effects.join("; ")}`,
      );
    }
    console.log(
      `adversarial: ${a.cases} cases run contained (${a.allowedByPolicy} of them allowed by the policy), ${a.batches} sessions, ${a.timedOut.length} timed out, ${a.shellDeaths} ended the shell, ${a.stateRestarts} state restarts, ${a.effects.length} with an effect outside the allowed paths; listened on 127.0.0.1:${
        a.listened.join(",")
      } (${(a.ms / 1000).toFixed(0)} s)`,
    );
    if (a.effects.length > 0) fail();

    const b = await runBenign();
    for (const r of b.refused) {
      console.log(
        `REFUSED ${JSON.stringify(r.command)}: ${r.decision}: ${r.reason}`,
      );
    }
    for (const x of b.broken) {
      console.log(
        `BROKEN ${JSON.stringify(x.command)}: ${x.why}: ${
          JSON.stringify(x.output)
        }`,
      );
    }
    for (const c of b.failedBoth) {
      console.log(`fails both ways ${JSON.stringify(c)}`);
    }
    const pct = (100 * b.refused.length) / b.total;
    console.log(
      `benign: ${b.total} commands, ${b.refused.length} refused (${
        pct.toFixed(1)
      }%), ${b.run} run both ways, ${b.failedBoth.length} fail both ways, ${b.broken.length} broken by containment (${
        (b.ms / 1000).toFixed(0)
      } s)`,
    );
    if (b.broken.length > 0 || pct > 2) fail();
  }
}
