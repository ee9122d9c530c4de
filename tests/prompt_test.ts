// It looks like a prompt: what a command sees of the session ($BASH_SOURCE,
// $0, bash's messages, xtrace, descriptors, locale warnings) is what it would
// see at an interactive bash prompt, never bashbox's machinery. Each rule is
// checked over generated variants.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BashSession, exec } from "../mod.ts";
import { test } from "./_harness.ts";
import { gone, marker } from "./_procs.ts";

async function texts(
  session: BashSession,
  commands: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const command of commands) {
    out.push((await session.run(command)).output.text);
  }
  return out;
}

test("BashSession.run() shows no script path in $BASH_SOURCE or $0", async () => {
  await using s = new BashSession({ cwd: "/tmp" });
  const probes = [
    "case ${BASH_SOURCE[0]} in */*) echo path;; *) echo none;; esac",
    'dirname -- "${BASH_SOURCE[0]:-.}"',
    'echo "[$0]"',
    'echo "[${0##*/}]"',
    "eval 'dirname -- \"${BASH_SOURCE[0]:-.}\"'",
    '(dirname -- "${BASH_SOURCE[0]:-.}"; echo "[$0]")',
    "bash -c 'echo \"[$0]\"'",
  ];
  const expected = [
    "none\n",
    ".\n",
    "[bash]\n",
    "[bash]\n",
    ".\n",
    ".\n[bash]\n",
    "[bash]\n",
  ];
  // Before and after other calls.
  deepEqual(await texts(s, probes), expected);
  await s.run("cd /; cd /tmp; false");
  deepEqual(await texts(s, probes), expected);
  // No trace of how the shell was started in the directory stack.
  equal((await s.run('echo "[${OLDPWD:-}]"')).output.text, "[/]\n");
  // The common idiom keeps the session where it is.
  for (
    const idiom of [
      'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
      'SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]:-$0}")" &>/dev/null && pwd)',
      'SCRIPT_DIR="$(dirname "$(readlink -f "${BASH_SOURCE[0]:-.}")")"',
    ]
  ) {
    const r = await s.run(`${idiom}; echo "$SCRIPT_DIR"; pwd`);
    ok(!r.output.text.includes("/dev/fd"), r.output.text);
    ok(!r.output.text.includes("/proc/"), r.output.text);
    equal(r.output.text.split("\n")[1], "/tmp", idiom);
    equal(r.cwd, "/tmp");
  }
});

test("BashSession.run() reports bash's errors as a prompt does", async () => {
  await using s = new BashSession();
  // Word for word what an interactive bash prints: no script name, no line.
  const cases: Array<[string, RegExp]> = [
    ["nope_cmd_x", /^bash: nope_cmd_x: command not found\n$/],
    [
      "cd /nonexistent-dir",
      /^bash: cd: \/nonexistent-dir: No such file or directory\n$/,
    ],
    ["echo a\nnope_two", /^a\nbash: nope_two: command not found\n$/],
    ["declare -i n=1/0", /^bash: declare: 1\/0: division by 0/],
    ["echo $((1+))", /^bash: 1\+: syntax error/],
    [
      "set -u; echo $unset_var_q; set +u",
      /^bash: unset_var_q: unbound variable\n$/,
    ],
    ["echo ${unset_var_r:?say why}", /^bash: unset_var_r: say why\n$/],
    [
      "exec /nonexistent/prog",
      /^bash: \/nonexistent\/prog: No such file or directory\n$/,
    ],
    // A syntax error reads as \`bash -c\` words it, its line counted from
    // the command's first line.
    [
      "if true; then",
      /^bash: line 2: syntax error: unexpected end of file\n$/,
    ],
    [
      "if then",
      /^bash: line 1: syntax error near unexpected token `then'\nbash: line 1: `if then'\n$/,
    ],
  ];
  for (let round = 0; round < 3; round++) {
    for (const [command, expected] of cases) {
      const r = await s.run(command);
      match(r.output.text, expected, command);
      ok(!/\/dev\/fd|\/proc\//.test(r.output.text), r.output.text);
    }
  }
});

test("BashSession.run() survives errors that make bash drop the rest of the line", async () => {
  // bash abandons the whole command line on these (and so would drop the
  // frame): each call still ends at once with bash's status, state kept.
  const makers = ["declare -i", "typeset -i", "declare -ix", "export -n"];
  const expressions = ["1/0", "5%0", "2**-1", "1/(3-3)"];
  await using s = new BashSession({ timeoutMs: 5000 });
  await s.run("cd /tmp; KEEP=kept");
  for (const maker of makers) {
    for (const expr of expressions) {
      const command = maker === "export -n"
        ? `declare -i v; v="${expr}"; echo after`
        : `${maker} "v=${expr}"; echo after`;
      const r = await s.run(command);
      equal(r.timedOut, false, command);
      equal(r.restarted, false, command);
      equal(r.exitCode, 1, `${command}: ${r.output.text}`);
      match(r.output.text, /division by 0|exponent less than 0/, command);
      ok(!r.output.text.includes("after"), "the rest of the line is dropped");
      const next = await s.run('echo "$KEEP $PWD"');
      equal(next.output.text, "kept /tmp\n", command);
    }
  }
});

test("BashSession.run() under set -x traces the command and nothing of the framing", async () => {
  for (const stderr of ["merge", "separate"] as const) {
    await using s = new BashSession({ stderr });
    const trace = async (command: string): Promise<string> => {
      const r = await s.run(command);
      return stderr === "separate" ? r.stderr!.text : r.output.text;
    };
    for (
      const on of [
        "set -x",
        "set -o xtrace",
        "set -ex; set +e",
        "shopt -so xtrace",
        "set -vx; set +v",
      ]
    ) {
      const first = await trace(`${on}; echo hi`);
      ok(!first.includes("__bb"), first);
      // Exactly as at a prompt: one level of \`+\`, as bash's own parser
      // reads the command line (not the two levels of an eval).
      match(first, /^\+ echo hi$/m);
      ok(!/^\+\+/m.test(first), first);
      // xtrace stays on: later calls show their own commands only.
      for (const command of ["echo two", "true", "x=1", "false"]) {
        const out = await trace(command);
        ok(!out.includes("__bb"), `${on} / ${command}: ${out}`);
        const traced = out.split("\n").filter((l) => l.startsWith("+"));
        equal(traced.length, 1, `${on} / ${command}: ${out}`);
        equal(traced[0], `+ ${command}`);
      }
      const off = await trace("set +x");
      ok(!off.includes("__bb"), off);
      equal(await trace("echo quiet"), stderr === "separate" ? "" : "quiet\n");
    }
    // A PS4 of the user's own is used for the user's commands.
    const custom = await trace("PS4='>> '; set -x; echo mine; set +x");
    ok(!custom.includes("__bb"), custom);
    match(custom, /^>> echo mine$/m);
    // Nesting shows as it does at a prompt: one more level per command
    // substitution, eval or subshell, counted from one.
    const nested = await trace(
      "PS4='+ '; set -x; echo \"$(echo sub)\"; eval 'echo ev'; set +x",
    );
    ok(!nested.includes("__bb"), nested);
    const levels = nested.split("\n").filter((l) => l.startsWith("+"));
    deepEqual(levels, [
      "++ echo sub",
      "+ echo sub",
      "+ eval 'echo ev'",
      "++ echo ev",
      "+ set +x",
    ]);
    // errexit and an ERR trap together with xtrace: still nothing of ours.
    const careful = await trace(
      "trap 'echo trapped' ERR; set -x; false; set +x; trap - ERR",
    );
    ok(!careful.includes("__bb"), careful);
  }
});

test("BashSession.run() commands inherit only stdin, stdout and stderr", async () => {
  for (const stderr of ["merge", "separate"] as const) {
    await using s = new BashSession({ stderr });
    for (
      const command of [
        "ls /proc/self/fd",
        "(ls /proc/self/fd)",
        "ls /proc/self/fd | cat",
        "bash -c 'ls /proc/$$/fd'",
      ]
    ) {
      const r = await s.run(command);
      const fds = r.output.text.trim().split(/\s+/).map(Number);
      // The listing's own directory handle (3) is the only other one.
      const extra = fds.filter((fd) => fd > 3);
      deepEqual(extra, [], `${command}: ${r.output.text}`);
    }
    // Background jobs do not hold the framing's descriptors either.
    const bg = await s.run(
      "bash -c 'sleep 0.1; ls /proc/$$/fd; :' & wait",
    );
    deepEqual(bg.output.text.trim().split(/\s+/).sort(), ["0", "1", "2"]);
  }
});

test("BashSession.run() warns about a missing locale once, when it is set", async () => {
  for (
    const set of [
      "export LC_ALL=zz_QQ.UTF-8",
      "export LANG=zz_QQ.UTF-8 LC_ALL=zz_QQ.UTF-8",
      "LC_ALL=zz_QQ.UTF-8",
    ]
  ) {
    await using s = new BashSession();
    const first = await s.run(set);
    match(first.output.text, /setlocale/);
    // ASCII and non-ASCII commands afterwards: no more warnings.
    for (
      const command of ["echo a", "echo é", "echo 日本", "echo b", "echo ü"]
    ) {
      const r = await s.run(command);
      ok(
        !r.output.text.includes("setlocale"),
        `${set} / ${command}: ${r.output.text}`,
      );
      equal(r.output.text, `${command.slice(5)}\n`);
    }
  }
});

test("BashSession.run() keeps the session through errors that end only a non-interactive shell", async () => {
  // bash exits a script on these; a prompt reports them and goes on.
  const unset = [
    "$u1",
    "${u1}",
    '"$u1"',
    "${u1[2]}",
    "${#u1}",
    "${u1%x}",
    "${u1/a/b}",
  ];
  const commands = [
    ...unset.map((e) => `set -u; echo ${e}; echo rest`),
    ...unset.map((e) => `set -o nounset; : ${e}; echo rest`),
    "echo ${u2:?not set}; echo rest",
    "echo ${u2?}; echo rest",
    ': "${u2:?}"; echo rest',
    "exec /nonexistent/prog",
    "exec -a name /nonexistent/prog",
    "exec ./not-a-program-here",
  ];
  await using s = new BashSession({ cwd: "/tmp", timeoutMs: 5000 });
  await s.run("KEEP=kept; cd /");
  for (const command of commands) {
    const r = await s.run(command);
    equal(r.restarted, false, `${command}: ${r.output.text}`);
    equal(r.timedOut, false, command);
    ok(r.exitCode !== 0, `${command}: exit code ${r.exitCode}`);
    match(r.output.text, /^bash: /, command);
    ok(!r.output.text.includes("rest"), `${command}: the line stops there`);
    await s.run("set +u");
    const next = await s.run('echo "$KEEP $PWD"');
    equal(next.output.text, "kept /\n", command);
  }
  // set -e; false still ends the shell, as at a prompt.
  const fatal = await s.run("set -e; false");
  equal(fatal.restarted, true);
});

test("BashSession.run() timeout stops a loop of builtins as Ctrl-C does, and keeps the state", async () => {
  const loops = [
    (body: string) => `while :; do ${body}; done`,
    (body: string) => `until false; do ${body}; done`,
    (body: string) => `for ((;;)); do ${body}; done`,
    (body: string) => `for a in 1 2 3; do while true; do ${body}; done; done`,
    (body: string) => `f_loop() { while :; do ${body}; done; }; f_loop`,
  ];
  const bodies = [":", "x=$((x+1))", "[[ -n y ]]", "printf -v y %s z"];
  // A grace long enough that an escalation would show as restarted.
  await using s = new BashSession({ killGraceMs: 5000 });
  await s.run("KEEP=kept; cd /tmp");
  for (const loop of loops) {
    for (const body of bodies) {
      const command = `${loop(body)}; echo not-reached`;
      const r = await s.run(command, { timeoutMs: 200 });
      equal(r.timedOut, true, command);
      equal(r.restarted, false, `${command}: escalated`);
      equal(r.exitCode, 130, command);
      ok(!r.output.text.includes("not-reached"), command);
      equal((await s.run('echo "$KEEP $PWD"')).output.text, "kept /tmp\n");
    }
  }
});

test("BashSession.run() timeout stops a loop of programs; the shell is kept or, at worst, restarted", async () => {
  // When the interrupt lands while bash waits for a child, bash may not run
  // the interrupt's handler at once; the escalation then ends the shell.
  // Either way the call ends and nothing after the loop runs.
  await using s = new BashSession({ killGraceMs: 1000 });
  for (
    const command of [
      "while :; do sleep 0.01; done; echo not-reached",
      "until false; do /bin/true; done; echo not-reached",
      "for ((;;)); do sleep 0.01; x=1; done; echo not-reached",
    ]
  ) {
    await s.run("KEEP=kept");
    const r = await s.run(command, { timeoutMs: 200 });
    equal(r.timedOut, true, command);
    ok(!r.output.text.includes("not-reached"), command);
    const next = (await s.run('echo "${KEEP:-lost}"')).output.text;
    // (Kept either way: a restart brings the state back from the journal.)
    equal(next, "kept\n", command);
  }
});

test("BashSession.run() survives a command that signals its whole group, as a prompt's shell does", async () => {
  // An interactive bash ignores SIGTERM and SIGQUIT and handles SIGINT: so
  // must everything that feeds it, or the next command is never read.
  const senders = [
    "kill 0",
    "kill -TERM -- -$$",
    "kill -QUIT 0",
    "kill -INT 0",
    "pkill -P $$; true",
    "( trap 'kill 0' EXIT; sleep 0.1 & wait )",
    "bash -c 'kill -TERM 0'",
  ];
  await using s = new BashSession({ timeoutMs: 10_000 });
  const dir = (await s.run("mktemp -d")).output.text.trim();
  await s.run(`cd ${dir}; KEEP=1`);
  for (const [i, sender] of senders.entries()) {
    const sent = await s.run(sender);
    equal(sent.restarted, false, sender);
    const next = await s.run(`echo ran-${i} > mark-${i}; echo "$KEEP"`);
    equal(next.restarted, false, `${sender}: the next command`);
    equal(next.output.text, "1\n", sender);
    equal((await s.run(`cat mark-${i}`)).output.text, `ran-${i}\n`, sender);
  }
  await s.run(`rm -r ${dir}`);
});

test("BashSession.run() shows a command's output in its own result when stdout goes through a relay", async () => {
  // `exec > >(tee -a log)` and the like: the output comes back through
  // another process after the frame; at a prompt it shows under the command.
  const relays: [string, (s: string) => string][] = [
    ["exec > >(tee -a relay.log) 2>&1", (s) => s],
    ["exec 1> >(cat)", (s) => s],
    ["exec > >(sed -u 's/^/| /')", (s) => `| ${s}`],
    [
      "exec > >(while IFS= read -r l; do printf '%s\\n' \"$l\"; done)",
      (s) => s,
    ],
  ];
  for (const [relay, shown] of relays) {
    await using s = new BashSession();
    const dir = (await s.run("mktemp -d")).output.text.trim();
    await s.run(`cd ${dir}`);
    await s.run(relay);
    for (let i = 0; i < 4; i++) {
      const cmd = i % 2 === 0 ? `echo line-${i}` : `sleep 0.1; echo line-${i}`;
      const r = await s.run(cmd);
      equal(r.output.text, `${shown(`line-${i}`)}\n`, `${relay}; ${cmd}`);
    }
    await s.close();
    await exec(["bash", "-c", 'rm -r -- "$0"', dir]);
  }
});

test("BashSession.run() answers a syntax error of any kind at once, as bash -c words it, running none of it", async () => {
  await using s = new BashSession({ timeoutMs: 10_000 });
  await s.run("cd /tmp; KEEP=kept; false");
  // Every way a command line can be left open or closed too often: quotes
  // and expansions left open (as a word or as the line), compound
  // commands left open, operators with nothing after them, and closers
  // with nothing to close.
  const wordOpens = ["'", '"', "`", "$(", "${", "$((", "$'", "("];
  const lineOpens = [
    ...wordOpens,
    "{",
    "if true; then",
    "for i in 1; do",
    "while false; do",
    "case x in",
    "f() {",
    "[[ -n x",
  ];
  const closes = ["fi", "done", "esac", "}", ")", "then", "do", ";;", "else"];
  const broken = [
    ...wordOpens.map((o) => `echo ${o}`),
    ...lineOpens.map((o) => `${o} echo`),
    ...["|", "&&", "||"].map((op) => `echo a ${op}`),
    ...closes.map((c) => `echo a; ${c}`),
    ...closes.map((c) => `${c} echo`),
  ];
  for (const [i, body] of broken.entries()) {
    // On the first line, or after lines that would run if they were read.
    for (const lead of ["", "echo RAN_A\n", "echo RAN_B\necho RAN_C\n"]) {
      const command = `${lead}${body}`;
      const r = await s.run(command);
      const where = `${JSON.stringify(command)} (${i}): ${r.output.text}`;
      equal(r.timedOut, false, where);
      equal(r.restarted, false, where);
      equal(r.exitCode, 2, where);
      // bash's message, with the line counted in the command itself.
      // (bash names no line for an error inside \`[[ ]]\`.)
      match(
        r.output.text,
        /^bash: (line \d+: )?(syntax error|unexpected EOF)/,
        where,
      );
      const line = /^bash: line (\d+): /.exec(r.output.text)?.[1];
      ok(line === undefined || Number(line) >= lead.split("\n").length, where);
      ok(!/eval|__bb|\/dev\/fd/.test(r.output.text), where);
      ok(!r.output.text.includes("RAN_"), "nothing of it ran: " + where);
      // $? is bash's status for a syntax error; the state is kept.
      equal((await s.run('echo "$? $KEEP $PWD"')).output.text, "2 kept /tmp\n");
    }
  }
  // The same error twice reads the same (no numbers growing per call).
  const once = (await s.run("if then")).output.text;
  equal((await s.run("if then")).output.text, once);
});

test("BashSession.run() runs every command line once, by bash's own parser", async () => {
  await using s = new BashSession();
  await s.run("n=0");
  const bodies = [
    "n=$((n+1))",
    "{ n=$((n+1)); }",
    "if true; then n=$((n+1)); fi",
    "for i in 1; do n=$((n+1)); done",
    "case x in x) n=$((n+1));; esac",
    "f() { n=$((n+1)); }; f",
    "[[ -n x ]] && n=$((n+1))",
    "false || n=$((n+1))",
    "echo '}' >/dev/null; n=$((n+1))",
    'echo "fi done esac" >/dev/null; n=$((n+1))',
    "n=$((n+1)) # a comment } fi",
    "cat >/dev/null <<EOF\n}\nfi\nEOF\nn=$((n+1))",
    "cat >/dev/null <<-'EOF'\n\t$(nope)\n\tEOF\nn=$((n+1))",
    "x=$(cat <<<'}') && n=$((n+1))",
    "echo a \\\n  b >/dev/null; n=$((n+1))",
    "n=$((n+1))\n",
    "\n\nn=$((n+1))",
  ];
  let expected = 0;
  for (const body of bodies) {
    for (const xtrace of [false, true]) {
      expected++;
      const r = await s.run(xtrace ? `set -x\n${body}\nset +x` : body);
      equal(r.exitCode, 0, `${JSON.stringify(body)}: ${r.output.text}`);
      const count = await s.run('echo "$n"');
      equal(count.output.text, `${expected}\n`, JSON.stringify(body));
    }
  }
  // An alias defined and used in one command line applies from its next
  // line on, as at a prompt; across calls, too.
  const alias = await s.run(
    "shopt -s expand_aliases; alias zz_say='echo said'\nzz_say one",
  );
  equal(alias.output.text, "said one\n");
  equal((await s.run("zz_say two")).output.text, "said two\n");
  // Here-documents read their bodies, under xtrace too.
  const here = await s.run("cat <<EOF\nline $((1+1))\nEOF");
  equal(here.output.text, "line 2\n");
  const traced = await s.run("set -x; cat <<'EOF'\nquoted $x\nEOF\nset +x");
  match(traced.output.text, /^quoted \$x$/m);
  ok(!traced.output.text.includes("__bb"), traced.output.text);
});

test("BashSession.run(): a command whose braces close too often runs nothing of its rest", async () => {
  // A command that closes more than it opens could, if checked inside a
  // wrapper, close the wrapper and run its rest there: it is refused as
  // a syntax error before bash reads any of it.
  await using s = new BashSession({ timeoutMs: 10_000 });
  const dir = mkdtempSync(join(tmpdir(), "bashbox-prompt-"));
  try {
    const closers = ["}", ")", "fi", "done", "esac"];
    let k = 0;
    for (let depth = 1; depth <= 3; depth++) {
      for (const closer of closers) {
        const marker = `${dir}/ran_${k++}`;
        const command = `echo a\n${
          Array(depth).fill(closer).join("\n")
        }\ntouch ${marker}\nf() { g() { :`;
        const r = await s.run(command);
        equal(r.restarted, false, command);
        equal(r.exitCode, 2, `${command}: ${r.output.text}`);
        equal(existsSync(marker), false, command);
      }
    }
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("BashSession.run(): what changes how bash reads later lines still applies, line by line", async () => {
  await using s = new BashSession({ timeoutMs: 10_000 });
  // extglob, turned on in an earlier call or earlier in the same one.
  await s.run("shopt -s extglob");
  for (
    const [command, expected] of [
      ["case ab in @(ab|cd)) echo m1;; esac", "m1\n"],
      ["[[ x == @(x|y) ]] && echo m2", "m2\n"],
      ["case q in !(a)) echo m3;; esac", "m3\n"],
    ]
  ) {
    equal((await s.run(command)).output.text, expected, command);
  }
  await s.run("shopt -u extglob");
  equal(
    (await s.run("shopt -s extglob\ncase ab in @(ab|cd)) echo m4;; esac"))
      .output.text,
    "m4\n",
  );
  // Aliases of the user's: one that ends in a here-document, one that
  // opens a compound command, one defined through BASH_ALIASES.
  await s.run("shopt -s expand_aliases; alias h='cat <<EOF'");
  const here = await s.run("h\nhello from h\nEOF");
  equal(here.timedOut, false);
  equal(here.restarted, false);
  equal(here.output.text, "hello from h\n");
  await s.run("alias T='if true; then'");
  equal((await s.run("T echo yes; fi")).output.text, "yes\n");
  equal(
    (await s.run("BASH_ALIASES[ll_q]='echo LL'\nll_q")).output.text,
    "LL\n",
  );
  // An alias that closes a brace cannot make a command run twice.
  const dir = mkdtempSync(join(tmpdir(), "bashbox-alias-"));
  try {
    await s.run("BASH_ALIASES[end_q]='}'; BASH_ALIASES[begin_q]='{'");
    await s.run(`echo start; end_q; echo RAN >>${dir}/f; begin_q :`);
    const ran = await s.run(`cat ${dir}/f 2>/dev/null | wc -l`);
    ok(Number(ran.output.text.trim()) <= 1, ran.output.text);
  } finally {
    rmSync(dir, { recursive: true });
  }
  equal((await s.run("echo ok")).output.text, "ok\n");
});

test("BashSession.run(): a syntax error fires no ERR trap and shows no framing under xtrace", async () => {
  await using s = new BashSession();
  await s.run("trap 'echo ERR_FIRED' ERR");
  for (const broken of ["fi", "if then", "echo 'open", "done; echo x"]) {
    const r = await s.run(broken);
    equal(r.exitCode, 2, broken);
    ok(!r.output.text.includes("ERR_FIRED"), r.output.text);
  }
  equal((await s.run("false")).output.text, "ERR_FIRED\n");
  await s.run("trap - ERR; set -x");
  for (const broken of ["fi", "if then", "echo 'open"]) {
    const r = await s.run(broken);
    ok(!/__bb|builtin|^\+/m.test(r.output.text), r.output.text);
    match(r.output.text, /^bash: line 1: /);
  }
  // With aliases off, the framing's eval is not traced either.
  await s.run("set +x; shopt -u expand_aliases; set -x");
  const off = (await s.run("echo hi")).output.text;
  ok(!/__bb|command eval/.test(off), off);
  match(off, /^\++ echo hi$/m);
});

test("BashSession.run() leaves BASH_REMATCH, IFS and $? to the user", async () => {
  await using s = new BashSession();
  await s.run("[[ abc =~ (b) ]]");
  equal(
    (await s.run('echo "[${BASH_REMATCH[1]}]" $((1<<2))')).output.text,
    "[b] 4\n",
  );
  equal(
    (await s.run("cat <<EOF\n[${BASH_REMATCH[1]}]\nEOF")).output.text,
    "[b]\n",
  );
  // Any IFS: the status still carries over.
  for (const ifs of ["1", "0", "2", " 1", "1234567890", ""]) {
    await s.run(`IFS='${ifs}'`);
    await s.run("(exit 1)");
    equal((await s.run('echo "$?"')).output.text, "1\n", `IFS='${ifs}'`);
    await s.run("unset IFS");
  }
  // A line of comments only runs nothing and fails nothing.
  const comment = await s.run("# just a note\n# and another");
  equal(comment.exitCode, 0);
  equal(comment.output.text, "");
});

test("BashSession.run() keeps its framing under settings that change how words read", async () => {
  await using s = new BashSession({ timeoutMs: 10_000 });
  const dir = mkdtempSync(join(tmpdir(), "bashbox-settings-"));
  try {
    // Each setting, then commands of every route (top level, here-document,
    // one the host's parser refuses, a syntax error), each run exactly once.
    const settings: Array<[string, string]> = [
      ["set -k", "set +k"],
      ["IFS=n", "unset IFS"],
      ["IFS=-", "unset IFS"],
      ["IFS=0123456789", "unset IFS"],
      ["FUNCNEST=1", "unset FUNCNEST"],
      ["set -T; trap 'echo D' DEBUG", "trap - DEBUG; set +T"],
      [
        "shopt -s extdebug; trap 'echo D' DEBUG",
        "trap - DEBUG; shopt -u extdebug",
      ],
    ];
    for (const [i, [on, off]] of settings.entries()) {
      await s.run(on);
      const routes = [
        `echo ran >>${dir}/a${i}`,
        `cat >>${dir}/b${i} <<EOF\nran\nEOF`,
        `declare -A m=([k]=v); echo ran >>${dir}/c${i}`,
        "if then",
      ];
      for (const command of routes) {
        const r = await s.run(command);
        equal(r.timedOut, false, `${on} / ${command}`);
        equal(r.restarted, false, `${on} / ${command}`);
      }
      await s.run(off);
      for (const f of ["a", "b", "c"]) {
        const lines = (await s.run(`cat ${dir}/${f}${i} 2>/dev/null`)).output
          .text;
        // Once, or (a deeper setting refusing the framing's nesting) never;
        // never twice, never the previous command again.
        ok(lines === "ran\n" || lines === "", `${on} / ${f}: ${lines}`);
      }
      equal((await s.run("echo ok")).output.text, "ok\n", on);
    }
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("BashSession.run() hands on the command's status after the steps that follow some commands", async () => {
  await using s = new BashSession();
  // Commands that touch traps, source files or define `command` are
  // followed by steps of the framing's own; the status is still theirs.
  for (
    const [command, status] of [
      ["source /nonexistent/file", 1],
      [". /nonexistent/file", 1],
      ["echo trap >/dev/null; false", 1],
      ["trap 'echo E' ERR; (exit 7)", 7],
      ["trap - ERR; (exit 3)", 3],
      ['command(){ builtin command "$@"; }; (exit 4)', 4],
      ["trap - INT; (exit 5)", 5],
    ] as const
  ) {
    const r = await s.run(command);
    equal(r.exitCode, status, `${command}: ${r.output.text}`);
    equal((await s.run('echo "$?"')).output.text, `${status}\n`, command);
  }
});

test("BashSession.run(): finished jobs leave the job table once each command ends, as at a prompt", async () => {
  await using s = new BashSession({ cwd: "/tmp" });
  // Foreground commands of every shape, then a background job: %1 is that
  // job, `kill %1` ends it, `wait -n` returns its status.
  const foreground = [
    "ls >/dev/null",
    "true | cat >/dev/null",
    "(exit 3)",
    "cat </dev/null; ls -d / >/dev/null",
    'x=$(ls /); : "$x"',
    "for i in 1 2; do /bin/true; done",
    "{ ls / | head -1; } >/dev/null",
  ];
  for (const command of foreground) {
    const mark = marker();
    equal((await s.run(command)).restarted, false, command);
    await s.run(`sleep ${mark} &`);
    equal(
      (await s.run("jobs")).output.text.trim().split("\n").length,
      1,
      `only the sleep is a job after ${command}`,
    );
    const killed = await s.run("kill %1; wait %1; echo $?");
    equal(killed.output.text.trim().split("\n").at(-1), "143", command);
    deepEqual(await gone(mark), [], `kill %1 ended the sleep after ${command}`);
    equal((await s.run("jobs")).output.text, "", command);
    // A finished background job is gone from the table too; its status
    // stays with wait PID.
    const r = await s.run("(exit 7) & p=$!");
    equal(r.exitCode, 0);
    await s.run("sleep 0.1");
    equal((await s.run("jobs")).output.text, "", command);
    equal((await s.run("wait $p; echo $?")).output.text, "7\n", command);
  }
  // wait -n waits for the next job, not a finished foreground one.
  await s.run("ls >/dev/null");
  equal((await s.run("(exit 5) & wait -n; echo $?")).output.text, "5\n");
  // A background job that ends between two commands is listed once, as
  // Done, by the next command's jobs (at a terminal: it ended while the
  // next line was typed), then it is gone.
  // (The job sleeps first, so that it is still running when its own
  // command's frame comes.)
  for (const status of [0, 4]) {
    await s.run(`(sleep 0.5; exit ${status}) &`);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const listed = (await s.run("jobs")).output.text;
    ok(
      new RegExp(
        `^\\[1\\]\\+ +${
          status ? "Exit 4" : "Done"
        } +\\( *sleep 0\\.5; exit ${status} *\\)\\n$`,
      ).test(listed),
      JSON.stringify(listed),
    );
    equal((await s.run("jobs")).output.text, "");
  }
});

test("BashSession.run(): a call past FUNCNEST abandons the command line, not the shell", async () => {
  await using s = new BashSession({ cwd: "/tmp" });
  await s.run("keep=yes");
  // Nesting depths and limits: each call past the limit prints bash's
  // message, ends the line with status 1, and the session goes on.
  for (const [limit, depth] of [[1, 2], [2, 3], [3, 5], [1, 4]]) {
    const defs = Array.from(
      { length: depth },
      (_, i) => `f${i}(){ ${i + 1 < depth ? `f${i + 1}` : ":"}; }`,
    ).join("; ");
    const r = await s.run(`${defs}; FUNCNEST=${limit}; f0; echo after`);
    match(r.output.text, /maximum function nesting level exceeded/);
    ok(!r.output.text.includes("after"), "the rest of the line is abandoned");
    equal(r.exitCode, 1);
    equal(r.restarted, false, `limit ${limit}, depth ${depth}`);
    equal((await s.run("echo $keep")).output.text, "yes\n");
    await s.run("unset FUNCNEST");
  }
});

test("BashSession.run(): a call past FUNCNEST abandons the line with its redirections, never the shell (both stderr modes)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bashbox-funcnest-"));
  try {
    // Where the abandoned call's output was sent: the session's streams, a
    // file, /dev/null, the other stream; bash leaves such redirections in
    // place when it abandons a line, the session puts its own back.
    const tails = [
      "f0",
      `f0 > ${dir}/out`,
      "f0 2>/dev/null",
      `{ f0; } > ${dir}/out 2>&1`,
      "f0 >&2",
      `f0 2> ${dir}/err >/dev/null`,
      "echo x | f0",
    ];
    for (const stderr of ["merge", "separate"] as const) {
      await using s = new BashSession({ cwd: dir, stderr });
      await s.run("keep=yes; f0(){ f1; }; f1(){ f2; }; f2(){ :; }");
      for (const [i, tail] of tails.entries()) {
        for (const limit of [1, 2]) {
          const what = `${stderr}: ${tail}, FUNCNEST=${limit}`;
          const r = await s.run(`FUNCNEST=${limit}; ${tail}; echo after`);
          equal(r.restarted, false, what);
          if (!tail.includes("|")) {
            equal(r.exitCode, 1, what);
            ok(!r.output.text.includes("after"), what);
          }
          await s.run("unset FUNCNEST");
          // The next command writes where every command does.
          const next = await s.run(
            `echo "out ${i}"; echo "err ${i}" >&2; echo $keep`,
          );
          equal(next.restarted, false, what);
          if (stderr === "merge") {
            equal(next.output.text, `out ${i}\nerr ${i}\nyes\n`, what);
          } else {
            equal(next.output.text, `out ${i}\nyes\n`, what);
            equal(next.stderr?.text, `err ${i}\n`, what);
          }
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("BashSession.run(): after the aliases are gone, commands still run at the top level (declare is global, local fails)", async () => {
  // Ways a command removes every alias (the framing's among them).
  const removers = [
    "unalias -a",
    "alias ll='ls -l'; unalias -a",
    "unalias -a; alias g='echo gg'",
    "BASH_ALIASES=()",
    "for a in $(alias | sed -n 's/^alias \\([^=]*\\)=.*/\\1/p'); do unalias \"$a\"; done",
  ];
  for (const [i, remover] of removers.entries()) {
    await using s = new BashSession();
    const r = await s.run(remover);
    equal(r.restarted, false, remover);
    // What is true only at the top level, each in a command of its own.
    await s.run(`declare v${i}=top; typeset -i n${i}=4`);
    equal(
      (await s.run(`echo "$v${i} $n${i} \${#FUNCNAME[@]}"`)).output.text,
      `top 4 0\n`,
      remover,
    );
    match(
      (await s.run("local z=1")).output.text,
      /local: can only be used in a function/,
      remover,
    );
    match(
      (await s.run("return 3")).output.text,
      /return: can only `return' from a function or sourced script/,
      remover,
    );
  }
});

test("BashSession({ login: true }): the profile runs in the session's directory, and may change it", async () => {
  const home = mkdtempSync(join(tmpdir(), "bashbox-login-"));
  try {
    const elsewhere = join(home, "project");
    for (const d of [elsewhere, join(home, "a b"), join(home, "é")]) {
      mkdirSync(d, { recursive: true });
    }
    // The profile records where it ran, then changes directory (as many
    // do, into a project).
    writeFileSync(
      join(home, ".bash_profile"),
      `export PROFILE_PWD=$PWD\ncd '${elsewhere}' || exit\n`,
    );
    for (const cwd of [home, join(home, "a b"), join(home, "é"), "/tmp"]) {
      await using s = new BashSession({
        login: true,
        cwd,
        env: { HOME: home },
      });
      const r = await s.run(
        'printf "%s|%s|" "$PROFILE_PWD" "$PWD"; shopt -q login_shell && echo login',
      );
      equal(r.exitCode, 0, cwd);
      equal(r.output.text, `${cwd}|${cwd}|login\n`, cwd);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
