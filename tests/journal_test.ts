import { deepStrictEqual, equal, match, ok } from "node:assert/strict";
import { BashSession } from "../mod.ts";
import { SessionPool } from "../core/pool.ts";
import {
  changedSections,
  knownNames,
  mayChangeState,
  SECTIONS,
} from "../core/_journal.ts";
import { formatResult } from "../egress/format.ts";
import { test } from "./_harness.ts";

/** State of every kind a journal keeps. */
const SETUP = [
  "mkdir -p /tmp/bb-journal-a/b",
  "cd /tmp/bb-journal-a",
  "pushd b >/dev/null",
  "export BB_J=$'it\\'s \"$HOME\"\\n\\xff'",
  "bb_plain=kept",
  'bb_f() { echo "f:$1"; }',
  "alias bbll='echo alias-ran'",
  "set -o pipefail",
  "shopt -s globstar",
  "umask 0027",
].join(" && ");
/** Prints that state back, one item a line. */
const PROBE =
  'pwd; dirs -l -p | tr "\\n" " "; echo; printf "%q\\n" "$BB_J" "$bb_plain"; bb_f x; echo "$OLDPWD"; [[ -o pipefail ]] && echo pipefail; shopt -q globstar && echo globstar; umask\n' +
  "bbll";
const EXPECTED = [
  "/tmp/bb-journal-a/b",
  "/tmp/bb-journal-a/b /tmp/bb-journal-a ",
  "$'it\\'s \"$HOME\"\\n\\377'",
  "kept",
  "f:x",
  "/tmp/bb-journal-a",
  "pipefail",
  "globstar",
  "0027",
  "alias-ran",
  "",
].join("\n");

async function setUp(s: BashSession): Promise<void> {
  const r = await s.run(SETUP);
  equal(r.exitCode, 0, r.output.text);
  equal((await s.run(PROBE)).output.text, EXPECTED);
}

function restoredAll(r: { restarted: boolean; restored?: unknown }): void {
  equal(r.restarted, true);
  const restored = r.restored as {
    cwd?: string;
    variables: string[];
    functions: string[];
    aliases: string[];
    options: string[];
    failed: string[];
    lost: string[];
  };
  ok(restored, "the result says what was restored");
  equal(restored.cwd, "/tmp/bb-journal-a/b");
  deepStrictEqual(restored.variables.sort(), ["BB_J", "bb_plain"]);
  deepStrictEqual(restored.functions, ["bb_f"]);
  deepStrictEqual(restored.aliases, ["bbll"]);
  deepStrictEqual(restored.options.sort(), [
    "set -o pipefail",
    "shopt -s globstar",
  ]);
  deepStrictEqual(restored.failed, []);
  ok(restored.lost.includes("background jobs"));
  ok(restored.lost.includes("traps"));
}

test("mayChangeState() tells commands that run a program from ones that change the shell", () => {
  const none = knownNames(null);
  for (
    const command of [
      "ls -la",
      "grep -r x . | wc -l",
      "git status && echo ok",
      "(cd /tmp && export X=1)",
      'echo "$HOME" $(cd /; pwd)',
      "cat <<EOF\nhi\nEOF",
      "X=1 ls",
      "[[ $a == b ]]",
    ]
  ) equal(mayChangeState(command, none), false, command);
  for (
    const command of [
      "cd /tmp",
      "x=1",
      "f() { :; }",
      "export A=1",
      "source ~/.venv/bin/activate",
      ". ./env.sh",
      'eval "$x"',
      "for i in 1 2; do :; done",
      "echo ${x:=1}",
      "echo $((n+=1))",
      "((n++))",
      "$cmd arg",
      "builtin cd /",
      "command -p cd /",
      "printf -v x %s 1",
      "read -r line",
      "set -e",
      "shopt -s extglob",
      "alias l=ls",
      "umask 077",
      "ulimit -n 100",
      "pushd /tmp",
      "exec 3>/tmp/x",
      "ls; cd /",
      "echo 'unclosed",
    ]
  ) equal(mayChangeState(command, none), true, command);
  const known = { functions: new Set(["up"]), aliases: new Set(["ll"]) };
  equal(mayChangeState("up 2", known), true);
  equal(mayChangeState("ll", known), true);
});

const CAUSES: [string, string, Record<string, unknown>][] = [
  ["exit", "exit 3", {}],
  ["exec bash", "exec bash --norc", {}],
  ["kill -9 $$", "kill -9 $$", {}],
  ["a crash (SIGSEGV)", "kill -SEGV $$", {}],
  ["deadline escalation", "trap '' INT TERM; sleep 30", { timeoutMs: 200 }],
];
for (const [cause, command, options] of CAUSES) {
  test(`BashSession.run() restores the state after ${cause}`, async () => {
    await using s = new BashSession({ killGraceMs: 300 });
    await setUp(s);
    const died = await s.run(command, options);
    restoredAll(died);
    match(
      formatResult(died),
      /restarted and its state restored: working directory \/tmp\/bb-journal-a\/b; variables/,
    );
    const back = await s.run(PROBE);
    equal(back.output.text, EXPECTED);
    equal(back.restarted, false);
    equal(back.restored, undefined);
  });
}

test("BashSession.run() restores the state when the shell died between commands", async () => {
  await using s = new BashSession();
  await setUp(s);
  await s.run("(sleep 0.2; kill -9 $$) >/dev/null 2>&1 &");
  await new Promise((r) => setTimeout(r, 600));
  const r = await s.run(PROBE);
  restoredAll(r);
  equal(r.output.text, EXPECTED);
});

test("BashSession.run() restores twice in a row with no drift", async () => {
  await using s = new BashSession();
  await setUp(s);
  const dump =
    "declare -p BB_J bb_plain; declare -f bb_f; alias; set +o; shopt -p; umask; dirs -l -p";
  const before = (await s.run(dump)).output.text;
  const first = await s.run("exit");
  const once = (await s.run(dump)).output.text;
  const second = await s.run("exit");
  const twice = (await s.run(dump)).output.text;
  equal(once, before);
  equal(twice, before);
  deepStrictEqual(second.restored, first.restored);
});

test("BashSession.run() keeps values of any shape byte for byte", async () => {
  await using s = new BashSession();
  const set = [
    "q=$'single \\' double \" dollar $ backtick ` backslash \\\\ end'",
    "nl=$'line1\\nline2\\n\\n'",
    "bad=$'\\xff\\xfe\\x80 invalid \\xc3'",
    "ctl=$'\\x01\\x1d\\x1e\\x7f\\t'",
    "utf='héllo wörld ✓'",
    "declare -a arr=('a b' $'c\\nd' '' \"e'f\")",
    "declare -A map=([k 1]=v1 [$'k\\n2']=\"v'2\")",
    "declare -i num=42",
    "declare -r ro=fixed",
    "declare -l low=MiXeD",
    "export EXP_EMPTY=",
    "big=$(head -c 300000 /dev/zero | tr '\\0' x)",
    "f_odd() { printf '%s\\n' \"it's\" 'a \"b\"' $'\\xff'; cat <<'EOF'\n$not expanded\nEOF\n}",
  ].join("\n");
  equal((await s.run(set)).exitCode, 0);
  const show =
    'declare -p q nl bad ctl utf arr map num ro low EXP_EMPTY | od -An -c; declare -f f_odd | od -An -c; f_odd | od -An -c; echo ${#big} $(printf %s "$big" | cksum)';
  const before = (await s.run(show)).output.text;
  const r = await s.run("exit");
  ok(r.restored?.variables.includes("bad"));
  ok(r.restored?.variables.includes("big"));
  equal((await s.run(show)).output.text, before);
});

test("BashSession.run() restores what it can when a replay partly fails, and says what not", async () => {
  await using s = new BashSession();
  const setup = [
    "mkdir -p /tmp/bb-journal-gone",
    "cd /tmp/bb-journal-gone",
    "export KEEP=1",
    "shopt -s extglob",
    "bb_glob() { case $1 in +(a|b)) echo ab;; esac; }",
    "shopt -u extglob",
    "bb_ok() { echo ok; }",
    "rmdir /tmp/bb-journal-gone",
  ].join("\n");
  equal((await s.run(setup)).exitCode, 0);
  const r = await s.run("exit");
  equal(r.restarted, true);
  const restored = r.restored!;
  deepStrictEqual(restored.functions, ["bb_ok"]);
  ok(restored.variables.includes("KEEP"));
  equal(restored.cwd, undefined);
  ok(
    restored.failed.some((f) => f.startsWith("function bb_glob")),
    restored.failed.join("; "),
  );
  ok(
    restored.failed.some((f) =>
      f.startsWith("working directory /tmp/bb-journal-gone")
    ),
    restored.failed.join("; "),
  );
  match(formatResult(r), /Not restored: .*function bb_glob/);
  const after = await s.run(
    "echo $KEEP; bb_ok; type bb_glob >/dev/null 2>&1 || echo no-glob",
  );
  equal(after.output.text, "1\nok\nno-glob\n");
  // The journal is now what the shell holds: a second restart has nothing failing.
  const again = await s.run("exit");
  deepStrictEqual(again.restored?.failed, []);
});

test("BashSession.run() journals without showing it: output, $?, xtrace, DEBUG traps", async () => {
  await using s = new BashSession();
  const seen: string[] = [];
  const onOutput = (c: Uint8Array) => seen.push(new TextDecoder().decode(c));
  const r = await s.run("set -x; export BB_T=1; false", { onOutput });
  equal(r.output.text, "+ export BB_T=1\n+ BB_T=1\n+ false\n");
  const next = await s.run("echo $?", { onOutput });
  equal(next.output.text, "+ echo 1\n1\n");
  await s.run("set +x; trap 'echo \"dbg:$BASH_COMMAND\"' DEBUG", { onOutput });
  const traced = await s.run("export BB_U=2", { onOutput });
  // (The user's trap sees the user's command, never the journal's builtins.)
  match(traced.output.text, /dbg:export BB_U=2\n$/);
  ok(!/builtin|declare|__bb/.test(traced.output.text), traced.output.text);
  match((await s.run("trap - DEBUG; echo $BB_U")).output.text, /\n2\n$/);
  ok(!seen.join("").includes("declare"), seen.join(""));
});

test("BashSession.run() restores nothing with restoreState: false", async () => {
  await using s = new BashSession({ restoreState: false });
  await s.run("cd /tmp && export X=1");
  const r = await s.run("exit");
  equal(r.restarted, true);
  equal(r.restored, undefined);
  match(formatResult(r), /its state .* was lost/);
  equal((await s.run("echo ${X:-unset}")).output.text, "unset\n");
  equal(s.journal, undefined);
});

test("BashSession.restart() starts from a fresh state (the journal is cleared)", async () => {
  await using s = new BashSession();
  await s.run("export X=1");
  await s.restart();
  const r = await s.run("echo ${X:-unset}");
  equal(r.output.text, "unset\n");
  equal(r.restored, undefined);
});

test("SessionPool restores an evicted conversation's state", async () => {
  await using pool = new SessionPool({ max: 1 });
  await pool.run("a", "cd /tmp && export BB_POOL=kept && bb_p() { echo p; }");
  await pool.run("b", "true"); // evicts a
  const r = await pool.run("a", "echo $PWD $BB_POOL; bb_p");
  equal(r.restarted, true);
  equal(r.output.text, "/tmp kept\np\n");
  equal(r.restored?.cwd, "/tmp");
  deepStrictEqual(r.restored?.functions, ["bb_p"]);
  match(formatResult(r), /state restored/);
});

test("changedSections() names only what a command may change", () => {
  const none = { functions: new Set<string>(), aliases: new Set<string>() };
  const cases: [string, string][] = [
    ["ls -la", ""],
    ["cd /tmp", "VD"],
    ["cd /tmp && make", "VD"],
    ["export X=1", "V"],
    ["X=1", "V"],
    ["declare -f g", "VFG"],
    ["unset -f g", "FG"],
    ["unset -v x", "V"],
    ["f() { :; }", "FG"],
    ["alias ll='ls -l'", "A"],
    ["shopt -s extglob; set -o pipefail", "O"],
    ["umask 077", "U"],
    ["ulimit -n 512", "SH"],
    ["pushd /tmp", "VD"],
    ["(cd /tmp; export X=1)", ""],
    ["source ./env.sh", SECTIONS],
    ['eval "$x"', SECTIONS],
    ["$cmd", SECTIONS],
    ["for i in 1 2; do cd /; done", "VD"],
  ];
  for (const [command, want] of cases) {
    equal(changedSections(command, none), want, command);
  }
  const known = { functions: new Set(["up"]), aliases: new Set(["ll"]) };
  equal(changedSections("up 2", known), SECTIONS);
  equal(changedSections("ll", known), SECTIONS);
});

test("BashSession keeps the whole state when each command changes one part of it", async () => {
  await using s = new BashSession({ cwd: "/tmp" });
  // Each command re-takes only its part; the journal keeps the rest.
  const steps = [
    "bb_f() { echo from-f; }",
    "export BB_A=1",
    "cd /",
    "alias bb_ll='echo from-alias'",
    "shopt -s extglob",
    "BB_B=two",
    "umask 027",
    "cd /usr",
  ];
  for (const step of steps) equal((await s.run(step)).exitCode, 0, step);
  const r = await s.run("kill -9 $$");
  equal(r.restarted, true);
  const check = await s.run(
    "bb_f; bb_ll; echo $BB_A $BB_B $PWD $OLDPWD; shopt -q extglob && echo ext; umask",
  );
  equal(
    check.output.text,
    "from-f\nfrom-alias\n1 two /usr /\next\n0027\n",
  );
});
