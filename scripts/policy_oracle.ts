/**
 * The effect oracle of the command policy: every command `Policy.readOnly()`
 * allows, from the adversarial corpus, the generated variants, the benign
 * corpus and commands generated from every option table (each option in its
 * short and long spelling, with the value `pwn`, so an option that names a
 * program runs the marker and one that names a file writes it), is run for
 * real inside bubblewrap (read-only root, a scratch copy of fixture files,
 * no network, a marker program `pwn` first on PATH) under `strace -f`. A
 * command has an effect when it opens a file for writing (other than
 * /dev/null and the standard streams), creates, removes or renames one,
 * runs a program outside the read-only set, connects over the network, or
 * sets the clock or the host name.
 *
 * Run in full with `deno task policy-oracle` (prints allowed / refused /
 * effect counts, exits 1 when an allowed command had an effect); the policy
 * tests run a bounded sample.
 *
 * @module
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exec } from "../core/exec.ts";
import { Policy } from "../policy/mod.ts";
import { gitTables } from "../policy/programs/git.ts";
import { READ_ONLY } from "../policy/programs/mod.ts";
import { BENIGN } from "../tests/corpus/benign.ts";
import { ADVERSARIAL } from "../tests/corpus/adversarial.ts";
import { allVariants } from "../tests/corpus/variants.ts";

/** Programs an allowed command may run: the read-only set and the helpers it starts. */
const HELPERS = [
  "env",
  "xargs",
  "timeout",
  "nice",
  "nohup",
  "stdbuf",
  "setsid",
  "ionice",
  "time",
  "bash",
  "sh",
  "dash",
  "gzip",
  "gunzip",
  "bzip2",
  "xz",
  "zstd",
  "lzip",
  "lzma",
  "lzop",
  "uncompress",
];

/** One command's outcome. */
export interface OracleCase {
  /** The command. */
  command: string;
  /** The effects seen (empty when none). */
  effects: string[];
}

/** What {@linkcode runOracle} found. */
export interface OracleReport {
  /** Commands judged. */
  total: number;
  /** Commands the policy allowed (and the oracle ran). */
  allowed: number;
  /** Commands the policy refused (ask or deny). */
  refused: number;
  /** Allowed commands with an effect: bypasses. */
  effects: OracleCase[];
}

/** Why the oracle cannot run here, or null when it can. */
export async function oracleUnavailable(): Promise<string | null> {
  const r = await exec([
    "bash",
    "-c",
    "command -v bwrap >/dev/null || { echo no-bwrap; exit; }; command -v strace >/dev/null || { echo no-strace; exit; }; bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net --unshare-pid --die-with-parent strace -f -qq -o /dev/null true && echo ok",
  ], { timeoutMs: 20_000 }).catch(() => null);
  const out = r?.stdout.text.trim();
  if (out === "ok") return null;
  if (out === "no-bwrap") return "bubblewrap (bwrap) is not installed";
  if (out === "no-strace") return "strace is not installed";
  return "bwrap with strace cannot run here (namespaces or ptrace not permitted)";
}

const FIXTURES = `
set -e
cd "$1"
printf 'alpha 1\\nbeta 2\\ngamma 3\\nalpha 4\\n' > f
cp f a; cp f b; cp f a.txt; cp f b.txt; cp f log.txt; cp f list.txt
cp f sorted.txt; cp f names.txt; cp f data.txt; cp f config.txt; cp f notes.md
cp f access.log; cp f error.log; cp f in; cp f file.txt; cp f versions.txt
cp f sizes.txt; cp f counts.txt; cp f paths.txt; cp f config; cp f log
printf 'a,b,c\\n1,2,3\\n' > data.csv; cp data.csv a.csv; cp data.csv b.csv
printf '{"name":"x","version":"1.0","scripts":{"t":"x"},"dependencies":{}}\\n' > package.json
cp package.json issues.json; cp package.json data.json
printf '# T\\n## A\\ntext\\n' > README.md
mkdir -p src tests dir1 dir2 sub d
printf 'export function main() {}\\n' > src/main.ts; cp src/main.ts src/index.ts; cp src/main.ts tests/a.ts
printf '\\x00\\x01binary\\x02' > data.bin; cp data.bin a.bin; cp data.bin b.bin; cp data.bin binary
tar cf a.tar f; gzip -c a.tar > a.tar.gz; cp a.tar.gz a.tgz
xxd f > dump
printf 'x\\n' > prog.awk; printf 'p\\n' > script.sed
git init -q . && git -c user.name=o -c user.email=o@o add -A && git -c user.name=o -c user.email=o@o commit -qm init && git tag v1
`;

const PWN = `#!/bin/sh
echo pwned > /tmp/pwn-marker 2>/dev/null
exit 0
`;

/**
 * Writes the oracle's fixture files into the directory `template` (created
 * if missing; a git repository with one commit, tagged `v1`) and the marker
 * program `pwn` into `bin` (it writes `/tmp/pwn-marker` and exits 0).
 */
export async function writeFixtures(
  template: string,
  bin: string,
): Promise<void> {
  const r = await exec([
    "bash",
    "-c",
    `mkdir -p "$1" "$2" && bash -c "$3" _ "$1" && printf '%s' "$4" > "$2/pwn" && chmod +x "$2/pwn"`,
    "_",
    template,
    bin,
    FIXTURES,
    PWN,
  ], { timeoutMs: 60_000 });
  if (r.exitCode !== 0) {
    throw new Error(
      `Expected the oracle fixtures to build, got: ${r.stderr.text}`,
    );
  }
}

/** Builds the fixture template and the marker directory; returns their paths. */
async function prepare(): Promise<
  { root: string; template: string; bin: string }
> {
  const root = mkdtempSync(join(tmpdir(), "bashbox-oracle-"));
  const template = join(root, "template");
  const bin = join(root, "bin");
  await writeFixtures(template, bin);
  return { root, template, bin };
}

const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/;
/**
 * git refreshes the stat cache of its index (`git diff`, `git describe
 * --dirty`) through index.lock: bookkeeping every read-only git use does,
 * not an effect of the command.
 */
const GIT_INDEX = /(^|\/)\.git\/index\.lock$/;
const HARMLESS_PATHS = new Set([
  "/dev/null",
  "/dev/tty",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/fd/1",
  "/dev/fd/2",
]);

/** Reads an strace log into the effects it shows. */
export function effectsOf(
  trace: string,
  allowedPrograms: ReadonlySet<string>,
): string[] {
  const effects = new Set<string>();
  const pending = new Map<string, string>();
  for (const line of trace.split("\n")) {
    const m = /^(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, pid, call] = m;
    let e: RegExpExecArray | null;
    if ((e = /^execve\("([^"]*)"/.exec(call))) {
      const prog = e[1].slice(e[1].lastIndexOf("/") + 1);
      if (prog === "pwn") effects.add("ran the pwn marker");
      if (/\) = 0$/.test(call)) {
        if (!allowedPrograms.has(prog)) effects.add(`ran ${e[1]}`);
      } else pending.set(pid, prog);
      continue;
    }
    if (/^<\.\.\. execve resumed>.*= 0$/.test(call)) {
      const prog = pending.get(pid);
      if (prog !== undefined && !allowedPrograms.has(prog)) {
        effects.add(`ran ${prog}`);
      }
      continue;
    }
    if (
      (e = /^(?:open|openat)\((?:AT_FDCWD|\d+), "([^"]*)", ([A-Z_|]+)/.exec(
        call,
      )) ||
      (e = /^open\("([^"]*)", ([A-Z_|]+)/.exec(call))
    ) {
      const path = e[1];
      if (
        WRITE_FLAGS.test(e[2]) && !HARMLESS_PATHS.has(path) &&
        !/\/sh-thd/.test(path) && !GIT_INDEX.test(path)
      ) {
        effects.add(`opened ${path} for writing`);
      }
      continue;
    }
    if (
      /^rename\("[^"]*\.git\/index\.lock", "[^"]*\.git\/index"\)/.test(call)
    ) continue;
    if (
      (e =
        /^(creat|truncate|unlink|unlinkat|rename|renameat|renameat2|mkdir|mkdirat|rmdir|symlink|symlinkat|link|linkat|chmod|fchmodat|utimensat|utimes|utime|mknod|mknodat)\((.*)/
          .exec(call))
    ) {
      if (e[1] === "utimensat" && /NULL, NULL/.test(e[2])) continue;
      effects.add(`${e[1]}(${e[2].slice(0, 60)}`);
      continue;
    }
    if ((e = /^connect\(\d+, \{sa_family=(AF_INET6?)/.exec(call))) {
      effects.add(`connect ${e[1]}`);
      continue;
    }
    if (
      (e =
        /^(clock_settime|settimeofday|clock_adjtime|sethostname|setdomainname)\(/
          .exec(call))
    ) {
      effects.add(e[1]);
    }
  }
  return [...effects];
}

const TRACE =
  "execve,connect,open,openat,creat,truncate,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,rmdir,symlink,symlinkat,link,linkat,chmod,fchmodat,utimensat,utimes,utime,mknod,mknodat,clock_settime,settimeofday,clock_adjtime,sethostname,setdomainname";

const RUN = `
s="$1/s"; t="$1/t"
rm -rf "$s" "$t"; mkdir -p "$t"; cp -a "$2" "$s"
exec bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp \\
  --bind "$s" /tmp/s --bind "$t" /tmp/t --ro-bind "$3" /tmp/pwnbin --chdir /tmp/s \\
  --unshare-net --unshare-pid --unshare-uts --unshare-ipc --cap-drop ALL \\
  --die-with-parent --new-session \\
  --setenv PATH /tmp/pwnbin:/usr/local/bin:/usr/bin:/bin --setenv GIT_OPTIONAL_LOCKS 0 \\
  --setenv HOME /tmp/s --setenv TMPDIR /tmp \\
  strace -f -qq -o /tmp/t/trace -e trace=${TRACE} bash -c "$4"
`;

/**
 * Judges `commands` with `Policy.readOnly()` and runs the allowed ones in
 * the sandbox, `parallel` at a time (`runAll` runs every command: the
 * oracle's own test that it sees effects).
 */
export async function runOracle(
  commands: readonly string[],
  options: { parallel?: number; timeoutMs?: number; runAll?: boolean } = {},
): Promise<OracleReport> {
  const policy = Policy.readOnly();
  const allowedPrograms = new Set([...READ_ONLY.keys(), ...HELPERS]);
  const { root, template, bin } = await prepare();
  const report: OracleReport = {
    total: 0,
    allowed: 0,
    refused: 0,
    effects: [],
  };
  const queue = [...new Set(commands)];
  report.total = queue.length;
  const toRun = queue.filter((c) => {
    const allowed = policy.check(c).decision === "allow";
    if (allowed) report.allowed++;
    else report.refused++;
    return allowed || options.runAll === true;
  });
  let next = 0;
  const worker = async (slot: number) => {
    const dir = join(root, `w${slot}`);
    while (next < toRun.length) {
      const command = toRun[next++];
      await exec(["bash", "-c", RUN, "_", dir, template, bin, command], {
        timeoutMs: options.timeoutMs ?? 10_000,
      });
      let trace = "";
      try {
        trace = readFileSync(join(dir, "t", "trace"), "utf8");
      } catch {
        trace = "";
      }
      if (trace === "") {
        report.effects.push({
          command,
          effects: ["no trace (the sandbox did not start)"],
        });
        continue;
      }
      const effects = effectsOf(trace, allowedPrograms);
      if (effects.length > 0) report.effects.push({ command, effects });
    }
  };
  try {
    await Promise.all(
      Array.from({ length: options.parallel ?? 2 }, (_, i) => worker(i)),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return report;
}

/** Commands generated from every option table: each option, short and long, with the value `pwn`. */
export function tableCommands(): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  for (const [name, program] of READ_ONLY) {
    if (seen.has(program) || !program.options) continue;
    seen.add(program);
    const t = program.options;
    const short = t.short ?? "";
    for (let i = 0; i < short.length; i++) {
      const c = short[i];
      if (c === ":" || c === "+" || c === "-") continue;
      const takes = short[i + 1] === ":" && short[i + 2] !== ":";
      out.push(takes ? `${name} -${c} pwn f` : `${name} -${c} f`);
      if (takes) out.push(`${name} f -${c}pwn`);
    }
    for (const l of t.long ?? []) {
      const base = l.replace(/=\??$/, "");
      if (base === "help" || base === "version") {
        out.push(`${name} --${base}`);
        continue;
      }
      if (l.endsWith("=")) {
        out.push(`${name} --${base}=pwn f`, `${name} f --${base} pwn`);
      } else if (l.endsWith("=?")) {
        out.push(`${name} --${base} f`, `${name} --${base}=pwn f`);
      } else out.push(`${name} --${base} f`);
    }
  }
  // git: every option of every distinct subcommand table.
  const tables = new Set<unknown>();
  for (const [sub, t] of gitTables()) {
    if (tables.has(t)) continue;
    tables.add(t);
    const short = t.short ?? "";
    for (let i = 0; i < short.length; i++) {
      const c = short[i];
      if (c === ":" || /[0-9]/.test(c)) continue;
      const takes = short[i + 1] === ":" && short[i + 2] !== ":";
      out.push(takes ? `git ${sub} -${c} pwn` : `git ${sub} -${c}`);
    }
    for (const l of t.long ?? []) {
      const base = l.replace(/=\??$/, "");
      out.push(
        l.endsWith("=") ? `git ${sub} --${base}=pwn` : `git ${sub} --${base}`,
      );
      if (l.endsWith("=?")) out.push(`git ${sub} --${base}=pwn`);
    }
  }
  // Grammar-read programs: their words in every position.
  for (
    const p of [
      "-print",
      "-ls",
      "-name pwn",
      "-newer f",
      "-printf %p",
      "-prune",
      "-quit",
      "-empty",
      "-type f",
      "-maxdepth 1",
      "-files0-from f",
    ]
  ) out.push(`find . ${p}`);
  for (
    const s of [
      "p",
      "=",
      "l",
      "q",
      "Q",
      "z",
      "F",
      "r f",
      "R f",
      "w /dev/stdout",
      "s/a/b/w /dev/stdout",
      "y/a/b/",
      "a x",
      "i\\\nx",
      "c x",
      "n;p",
      "N;P;D",
      "h;G",
      "x;g;H",
      "b",
      ":a;ta",
      "v",
    ]
  ) {
    out.push(`sed -n '${s}' f`, `sed '1${s}' f`);
  }
  for (
    const a of [
      '{ print > "/dev/stderr" }',
      'BEGIN { getline x < "f"; print x }',
      "{ n += NF } END { print n }",
      "/a/ { print $2 }",
      'BEGIN { printf "%s\\n", 1 > "/dev/stdout" }',
      "{ print (1 > 2) }",
      'END { close("f") }',
    ]
  ) out.push(`awk '${a}' f`, `mawk '${a}' f`);
  for (
    const g of [
      "log --oneline",
      "log -p",
      "log --stat",
      "show HEAD",
      "diff HEAD",
      "status",
      "branch -a",
      "tag -l",
      "describe --tags",
      "blame f",
      "grep -n alpha",
      "ls-files",
      "cat-file -p HEAD",
      "rev-parse HEAD",
      "config --list",
      "stash list",
      "reflog",
      "shortlog -sn HEAD",
      "for-each-ref",
      "worktree list",
      "log --format=%H -1",
      "diff --stat HEAD",
      "count-objects -v",
    ]
  ) out.push(`git ${g}`);
  for (
    const x of ["tf a.tar", "-tzf a.tar.gz", "--list -f a.tar", "-tvf a.tar"]
  ) out.push(`tar ${x}`);
  for (const x of ["-l 8 f", "-p f", "-i f", "-c 4 f f.hex -", "-s 2 f"]) {
    out.push(`xxd ${x}`);
  }
  return out;
}

/** Every command the full oracle judges. */
export function oracleCommands(): string[] {
  return [
    ...Object.values(ADVERSARIAL).flat(),
    ...allVariants().map((v) => v.command),
    ...BENIGN,
    ...tableCommands(),
  ];
}

if (import.meta.main) {
  const why = await oracleUnavailable();
  if (why) {
    console.log(`policy-oracle: skipped: ${why}`);
  } else {
    const commands = oracleCommands();
    const started = performance.now();
    const report = await runOracle(commands, { parallel: 2 });
    for (const e of report.effects) {
      console.log(
        `EFFECT ${JSON.stringify(e.command)}: ${e.effects.join("; ")}`,
      );
    }
    console.log(
      `policy-oracle: ${report.total} commands, ${report.allowed} allowed (run), ${report.refused} refused, ${report.effects.length} with an effect (${
        ((performance.now() - started) / 1000).toFixed(0)
      } s)`,
    );
    if (report.effects.length > 0) {
      const g = globalThis as {
        Deno?: { exitCode: number };
        process?: { exitCode?: number };
      };
      if (g.Deno) g.Deno.exitCode = 1;
      else if (g.process) g.process.exitCode = 1;
    }
  }
}
