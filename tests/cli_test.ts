import { deepEqual, equal, match, ok } from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliTerminal, main, VERSION } from "../cli/main.ts";
import { terminalProgram } from "../cli/_terminal_programs.ts";
import { ScreenGuard } from "../cli/_screen_guard.ts";
import { type ScriptedTurn, startFakeApi } from "../anthropic/fake_api.ts";
import { exec, sandboxUnavailable } from "../mod.ts";
import { execPath, runtime, test } from "./_harness.ts";

interface Key {
  /** Bytes typed. */
  data: string;
  /** Wait this long before typing them. */
  delayMs?: number;
}

/** A scripted terminal: `read()` hands out the keys one chunk at a time. */
function fakeTerminal(keys: Key[]): CliTerminal & { raw: boolean[] } {
  const raw: boolean[] = [];
  const queue = [...keys];
  const encoder = new TextEncoder();
  return {
    raw,
    setRaw: (on) => raw.push(on),
    read: async () => {
      const key = queue.shift();
      if (!key) return null;
      if (key.delayMs) await new Promise((r) => setTimeout(r, key.delayMs));
      return encoder.encode(key.data);
    },
  };
}

async function cli(
  args: string[],
  options: {
    lines?: string[];
    env?: Record<string, string>;
    terminal?: CliTerminal;
    name?: string;
    color?: boolean;
  } = {},
) {
  let out = "";
  let err = "";
  const lines = options.lines;
  const code = await main(args, {
    out: (t) => out += t,
    err: (t) => err += t,
    env: options.env ?? {},
    terminal: options.terminal,
    name: options.name,
    color: options.color,
    lines: lines
      ? (async function* () {
        for (const l of lines) yield l;
      })()
      : undefined,
  });
  return { code, out, err };
}

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "bashbox-cli-test-"));
}

test("main() run prints exactly the tool_result the model would get", async () => {
  const r = await cli(["run", "echo hi; echo err >&2"]);
  equal(r.code, 0);
  equal(r.out, "Exit code 0\nhi\nerr\n");
  const failed = await cli(["run", "exit 3"]);
  equal(failed.code, 1);
  match(failed.out, /^Exit code 3\n/);
});

test("main() run takes everything after its own options as the command", async () => {
  const cases: [string[], string][] = [
    [["run", "ls", "-d", "/"], "/\n"],
    [["run", "--", "ls", "-d", "/"], "/\n"],
    [["run", "echo a | tr a b"], "b\n"],
    [["run", "echo", "a", "|", "tr", "a", "b"], "b\n"],
    [["run", "--timeout", "5000", "printf", "%s-", "x", "y"], "x-y-"],
    [["--timeout", "5000", "run", "echo", "--timeout"], "--timeout\n"],
    [["run", "--cwd", "/", "--", "bashbox-no-such-program", "--version"], ""],
    [["run", "--timeout=5000", "echo", "-n", "z"], "z"],
    [["run", "echo", "--", "x"], "-- x\n"],
  ];
  for (const [args, output] of cases) {
    const r = await cli(args);
    if (args.includes("bashbox-no-such-program")) {
      // The words went to bash, not to the CLI's option parser.
      match(r.out, /bashbox-no-such-program: command not found/);
      continue;
    }
    equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
    equal(r.out, `Exit code 0\n${output}${output.endsWith("\n") ? "" : "\n"}`);
  }
  const json = await cli(["run", "--json", "--", "printf", "x"]);
  equal(JSON.parse(json.out).content, "Exit code 0\nx");
});

test("main() run --json prints the block", async () => {
  const r = await cli(["run", "--json", "printf x"]);
  equal(r.code, 0);
  const block = JSON.parse(r.out);
  equal(block.type, "tool_result");
  equal(block.content, "Exit code 0\nx");
  equal(block.is_error, undefined);
});

test("main() run honours --timeout and --cwd", async () => {
  const r = await cli([
    "run",
    "--timeout",
    "200",
    "--cwd",
    "/tmp",
    "pwd; sleep 5",
  ]);
  equal(r.code, 1);
  match(r.out, /^TIMEOUT: the command ran longer than 200 ms/);
  match(r.out, /\/tmp\n/);
});

test("main() reports a missing --cwd as a missing directory", async () => {
  const dir = scratch();
  try {
    writeFileSync(join(dir, "file"), "");
    for (const sub of ["run", "repl", "demo"]) {
      const args = sub === "run"
        ? [sub, "--cwd", join(dir, "nope"), "true"]
        : [sub, "--cwd", join(dir, "nope")];
      const r = await cli(args, { lines: [] });
      equal(r.code, 2, sub);
      match(
        r.err,
        new RegExp(
          `^bashbox ${sub}: Expected --cwd to be an existing directory, got ".*nope" \\(no such directory\\)`,
        ),
      );
      ok(!/program|Cannot run/.test(r.err), r.err);
    }
    const file = await cli(["run", "--cwd", join(dir, "file"), "true"]);
    equal(file.code, 2);
    match(
      file.err,
      /Expected --cwd to be a directory, got .* \(not a directory\)/,
    );
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("main() run keeps spill files in a named directory after it exits", async () => {
  const dir = scratch();
  try {
    const spill = join(dir, "spill");
    const r = await cli(["run", "--spill-dir", spill, "seq 1 200000"]);
    equal(r.code, 0);
    const named = /the full output is in (\S+): read it/.exec(r.out);
    ok(named, r.out.slice(0, 200));
    ok(named[1].startsWith(spill + "/"), named[1]);
    ok(existsSync(named[1]), "the file outlives the CLI's session");
    equal(readFileSync(named[1], "utf8").split("\n").length, 200001);
    // Default: a per-user directory in the temp dir, named in the help.
    const user = `bbtest${Date.now()}`;
    const byDefault = await cli(["run", "seq 1 200000"], {
      env: { USER: user },
    });
    const path = /the full output is in (\S+): read it/.exec(byDefault.out)
      ?.[1];
    ok(path?.startsWith(join(tmpdir(), `bashbox-spill-${user}`) + "/"), path);
    ok(existsSync(path!));
    rmSync(join(tmpdir(), `bashbox-spill-${user}`), { recursive: true });
    match((await cli(["--help"])).out, /bashbox-spill-\$USER; files stay/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("main() demo runs the scripted conversation offline end to end", async () => {
  // An API key in the environment does not take the demo online.
  const r = await cli(["demo"], { env: { ANTHROPIC_API_KEY: "sk-ant-x" } });
  equal(r.code, 0, r.err);
  match(r.out, /offline/);
  match(r.out, /✓ Hello from bashbox-demo-\w+, world!/);
  // The editor writes a test, the test fails, str_replace fixes the script
  // through the same session, and the test passes.
  match(r.out, /✎ create \/\S+\/bashbox-demo-\w+\/test_greet\.sh/);
  match(r.out, /✗ FAIL: Hello from bashbox-demo-\w+, tester!/);
  match(r.out, /✎ str_replace \/\S+\/greet\.sh/);
  match(r.out, /✓ PASS: Hi from bashbox-demo-\w+, tester!/);
  ok(
    r.out.indexOf("✗ FAIL:") < r.out.indexOf("✎ str_replace") &&
      r.out.indexOf("✎ str_replace") < r.out.indexOf("✓ PASS:"),
    "the test fails before the edit and passes after it",
  );
  match(r.out, /✗ cat: missing.txt: No such file or directory/);
  match(r.out, /✗ TIMEOUT: the command ran longer than 1 s/);
  match(r.out, /✓ STATE=kept/);
  match(r.out, /✓ The bash session was restarted/);
  match(r.out, /✓ STATE=gone/);
  // A secret in the output is redacted; a denied command is refused.
  match(r.out, /deploy key: \[REDACTED:aws-access-key\]/);
  ok(!r.out.includes("AKIAIOSFODNN7EXAMPLE"), "the whole key never shows");
  match(r.out, /refused by policy: "git push" is denied/);
  match(r.out, /\[stopped: end_turn\]/);
  ok(!r.out.includes("\x1b["), "no colour unless asked");
  const coloured = await cli(["demo"], { color: true });
  ok(coloured.out.includes("\x1b[32m✓\x1b[0m"));
  ok(coloured.out.includes("\x1b[31m✗\x1b[0m"));
});

test("main() repl shows what the model sees after each line", async () => {
  const r = await cli(["repl"], { lines: ["cd /tmp", "pwd", "", "false"] });
  equal(r.code, 0);
  equal(
    r.out,
    "Exit code 0\nWorking directory: /tmp\n(no output)\nExit code 0\n/tmp\nExit code 1\n(no output)\n",
  );
  match(r.err, /"exit" leaves/);
});

test("main() repl honours --policy, --audit, --cwd and --timeout", async () => {
  const dir = scratch();
  try {
    mkdirSync(join(dir, "keep"));
    const audit = join(dir, "audit.jsonl");
    const readonly = await cli([
      "repl",
      "--policy",
      "readonly",
      "--contain",
      "off",
      "--cwd",
      dir,
    ], { lines: ["rmdir keep", "ls"] });
    match(
      readonly.out,
      /refused by policy: rmdir is not one of the read-only programs this policy allows/,
    );
    if (sandboxUnavailable() === null) {
      const contained = await cli(
        ["repl", "--policy", "readonly", "--cwd", dir],
        { lines: ["rmdir keep"] },
      );
      match(contained.out, /Read-only file system/);
      match(contained.err, /the shell is contained/);
    }
    ok(existsSync(join(dir, "keep")), "readonly refused rmdir");
    const policy = join(dir, "policy.json");
    writeFileSync(
      policy,
      JSON.stringify({ allow: ["ls", "sleep", "cat"], deny: ["rmdir"] }),
    );
    const r = await cli([
      "repl",
      "--policy",
      policy,
      "--audit",
      audit,
      "--cwd",
      dir,
      "--timeout",
      "300",
    ], { lines: ["rmdir keep", "ls", "sleep 5 | cat"] });
    equal(r.code, 0, r.err);
    ok(existsSync(join(dir, "keep")), "readonly refused rmdir");
    match(r.out, /refused by policy: "rmdir" is denied/);
    match(r.out, /Exit code 0\naudit.jsonl\nkeep\npolicy.json\n/);
    match(r.out, /TIMEOUT: the command ran longer than 300 ms/);
    const records = readFileSync(audit, "utf8").trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    ok(records.some((x) => x.command === "rmdir keep"));
    ok(records.some((x) => x.command === "ls"));
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("main() repl leaves at exit and at the end of input", async () => {
  const r = await cli(["repl"], { lines: ["echo one", "exit", "echo two"] });
  equal(r.code, 0);
  match(r.out, /one/);
  ok(!r.out.includes("two"));
  equal((await cli(["repl"], { lines: ["exit 4"] })).code, 4);
});

test("main() repl on a terminal edits lines, keeps history and survives Ctrl-C", async () => {
  // Each key waits a little, so that it comes at the prompt, not as type-ahead.
  const terminal = fakeTerminal([
    { data: "export V=kept\r" },
    // left, Delete, Backspace: "echo $V"
    { data: "echo $Vxy\x1b[D\x1b[3~\x7f\r", delayMs: 300 },
    // history: up, up, down is the line before
    { data: "\x1b[A\x1b[A\x1b[B\r", delayMs: 300 },
    { data: "echo partial\x03", delayMs: 300 }, // Ctrl-C at the prompt drops it
    { data: "sleep 30; echo not-reached\r", delayMs: 300 },
    { data: "\x03", delayMs: 500 }, // Ctrl-C while the command runs
    { data: "echo after $V\r", delayMs: 300 },
    { data: "\x04", delayMs: 300 }, // Ctrl-D leaves
  ]);
  const started = performance.now();
  const r = await cli(["repl", "--cwd", "/tmp"], { terminal, env: {} });
  const took = performance.now() - started;
  equal(r.code, 0, r.err);
  ok(took < 10_000, `took ${took} ms: Ctrl-C did not stop sleep 30`);
  // deno-lint-ignore no-control-regex
  const text = r.out.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
  equal(text.match(/\r\nkept\r\n/g)?.length, 2, "edited line and history");
  ok(!text.includes("partial\r\n"), "the dropped line did not run");
  match(text, /\/tmp \[0\] \$ /, "prompt with cwd and last status");
  match(text, /\^C/);
  match(text, /ABORTED: the command was stopped/);
  ok(!text.includes("\r\nnot-reached\r\n"), "Ctrl-C stops the whole line");
  match(text, /\[130\] \$ /, "the prompt shows the interrupted status");
  match(text, /after kept/, "the session kept its state");
  equal(terminal.raw.join(","), "true,false", "raw mode restored");
  match(r.err, /Ctrl-C stops the running command; Ctrl-D or "exit" leaves/);
});

test("main() repl on a terminal streams output while the command runs", async () => {
  let firstSeenAt = 0;
  let out = "";
  const started = performance.now();
  const code = await main(["repl"], {
    out: (t) => {
      out += t;
      if (!firstSeenAt && out.includes("early")) {
        firstSeenAt = performance.now() - started;
      }
    },
    err: () => {},
    env: {},
    terminal: fakeTerminal([
      { data: "echo early; sleep 1; echo late\r" },
      { data: "seq 1 100000\r", delayMs: 1500 },
      { data: "exit\r", delayMs: 1500 },
    ]),
  });
  equal(code, 0);
  ok(firstSeenAt > 0 && firstSeenAt < 900, `first output at ${firstSeenAt} ms`);
  match(out, /late/);
  match(out, /\r\n100000\r\n/, "the whole output streams to the person");
  const kept = /Full output kept in (\S+)/.exec(out)?.[1];
  ok(kept && existsSync(kept), "the model's cut output is kept and named");
  rmSync(kept!);
});

async function withFakeApi(
  turns: ScriptedTurn[],
  fn: (env: Record<string, string>) => Promise<void>,
): Promise<Array<Record<string, unknown>>> {
  const api = await startFakeApi(turns);
  try {
    await fn({ ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: api.url });
  } finally {
    await api.close();
  }
  return api.requests;
}

function toolTurn(...commands: string[]): ScriptedTurn {
  return {
    content: commands.map((command, i) => ({
      type: "tool_use" as const,
      id: `toolu_${i}_${command.length}`,
      name: "bash",
      input: { command },
    })),
    stop_reason: "tool_use",
  };
}

const END: ScriptedTurn = {
  content: [{ type: "text", text: "done" }],
  stop_reason: "end_turn",
};

test("main() agent is readonly unless --allow-all, and refuses ask without a terminal", async () => {
  const dir = scratch();
  try {
    mkdirSync(join(dir, "victim"));
    // Uncontained, the parser refuses what it does not list (asked, and
    // refused without a terminal).
    await withFakeApi([toolTurn("rmdir victim", "ls"), END], async (env) => {
      const r = await cli(
        ["agent", "--contain", "off", "--cwd", dir, "clean", "up"],
        { env },
      );
      equal(r.code, 0, r.err);
      match(
        r.out,
        /✗ Error: The command was refused by policy: rmdir is not one of the read-only programs/,
      );
      match(r.out, /✓ victim/);
      match(r.err, /the shell is not contained: containment is turned off/);
      ok(existsSync(join(dir, "victim")));
    });
    // Contained (the default where bubblewrap works), the kernel refuses it.
    await withFakeApi([toolTurn("rmdir victim", "ls"), END], async (env) => {
      const r = await cli(["agent", "--cwd", dir, "clean", "up"], { env });
      equal(r.code, 0, r.err);
      if (sandboxUnavailable() === null) {
        match(r.err, /the shell is contained \(bubblewrap\)/);
        match(
          r.out,
          /✗ rmdir: failed to remove 'victim': Read-only file system/,
        );
      } else match(r.out, /refused by policy: rmdir/);
      ok(existsSync(join(dir, "victim")));
    });
    const requests = await withFakeApi(
      [toolTurn("rmdir victim"), END],
      async (env) => {
        const r = await cli(["agent", "--allow-all", "--cwd", dir, "go"], {
          env,
        });
        equal(r.code, 0, r.err);
        ok(!existsSync(join(dir, "victim")));
      },
    );
    equal((requests[0].messages as { content: string }[])[0].content, "go");
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("main() agent offers bash and the editor through one shell, under the policy", async () => {
  const dir = scratch();
  const edit = (id: string, input: Record<string, unknown>): ScriptedTurn => ({
    content: [{
      type: "tool_use",
      id,
      name: "str_replace_based_edit_tool",
      input,
    }],
    stop_reason: "tool_use",
  });
  const file = join(dir, "notes.txt");
  try {
    writeFileSync(file, "alpha\nbeta\n");
    // readonly (the default): view works, a write is refused with the reason.
    const requests = await withFakeApi([
      edit("toolu_v", { command: "view", path: file }),
      edit("toolu_w", {
        command: "str_replace",
        path: file,
        old_str: "beta",
        new_str: "gamma",
      }),
      END,
    ], async (env) => {
      const r = await cli(["agent", "--cwd", dir, "look"], { env });
      equal(r.code, 0, r.err);
      match(r.out, /✎ view \S+notes\.txt/);
      match(r.out, /✓ +2\tbeta/);
      match(r.out, /✎ str_replace \S+notes\.txt/);
      match(r.out, /✗ .*refused/i);
    });
    equal(readFileSync(file, "utf8"), "alpha\nbeta\n");
    const names = (requests[0].tools as { name: string }[]).map((t) => t.name);
    deepEqual(names, ["bash", "str_replace_based_edit_tool"]);
    // --allow-all: the edit lands, and bash in the same session sees it.
    await withFakeApi([
      edit("toolu_e", {
        command: "str_replace",
        path: file,
        old_str: "beta",
        new_str: "gamma",
      }),
      toolTurn("cat notes.txt"),
      END,
    ], async (env) => {
      const r = await cli(["agent", "--allow-all", "--cwd", dir, "edit"], {
        env,
      });
      equal(r.code, 0, r.err);
      match(r.out, /✓ gamma/);
    });
    equal(readFileSync(file, "utf8"), "alpha\ngamma\n");
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("main() agent asks on a terminal: y, n and always", async () => {
  const dir = scratch();
  try {
    for (const d of ["a", "b", "c", "d"]) mkdirSync(join(dir, d));
    await withFakeApi([
      toolTurn("rmdir a"),
      toolTurn("rmdir b"),
      toolTurn("rmdir c"),
      toolTurn("rmdir c"),
      END,
    ], async (env) => {
      const terminal = fakeTerminal([
        { data: "y\r" },
        { data: "maybe\rn\r" }, // an unclear answer is asked again
        { data: "always\r" },
      ]);
      // (Uncontained: contained, rmdir would run without asking, and fail.)
      const r = await cli(
        ["agent", "--contain", "off", "--cwd", dir, "tidy"],
        { env, terminal },
      );
      equal(r.code, 0, r.err);
      ok(!existsSync(join(dir, "a")), "y ran it");
      ok(existsSync(join(dir, "b")), "n refused it");
      ok(!existsSync(join(dir, "c")), "always ran it");
      ok(existsSync(join(dir, "d")));
      equal(r.err.match(/Allow this command\?/g)?.length, 4, r.err);
    });
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("main() agent without an API key fails before any request", async () => {
  const requests = await withFakeApi([END], async (env) => {
    const r = await cli(["agent", "do", "it"], {
      env: { ANTHROPIC_BASE_URL: env.ANTHROPIC_BASE_URL },
    });
    equal(r.code, 2);
    match(r.err, /^bashbox agent: agent needs ANTHROPIC_API_KEY/);
  });
  equal(requests.length, 0);
});

test("main() redacts secrets from the whole environment", async () => {
  const secret = "s3cr3t-value-" + Date.now();
  const r = await cli(["run", `echo ${secret}`], {
    env: { DEPLOY_TOKEN: secret },
  });
  ok(!r.out.includes(secret), r.out);
  match(r.out, /\[REDACTED/);
});

test("cli.ts redacts the same environment on Deno and on Bun", async () => {
  const secret = "s3cr3t-value-" + Date.now();
  for (const which of ["deno", "bun"]) {
    const argv = which === "deno"
      ? "deno run --allow-run=bash --allow-read --allow-write --allow-env cli/main.ts"
      : "bun cli/main.ts";
    const r = await exec(
      [
        "bash",
        "-c",
        `command -v ${which} >/dev/null || exit 99; ${argv} run 'echo $MY_API_KEY'`,
      ],
      { env: { MY_API_KEY: secret, NO_COLOR: "1" }, timeoutMs: 60_000 },
    );
    if (r.exitCode === 99) {
      console.log(`skipped part: ${which} is not on PATH`);
      continue;
    }
    equal(r.exitCode, 0, `${which}: ${r.stderr.text}`);
    ok(!r.stdout.text.includes(secret), `${which}: ${r.stdout.text}`);
    match(r.stdout.text, /\[REDACTED/, which);
  }
});

test("main() --version and --help", async () => {
  const v = await cli(["--version"]);
  equal(v.code, 0);
  equal(v.out, `bashbox ${VERSION}\n`);
  const config = JSON.parse(
    readFileSync(new URL("../deno.json", import.meta.url), "utf8"),
  );
  equal(VERSION, config.version);
  for (const args of [["--help"], ["-h"], ["help"], ["run", "--help"]]) {
    const r = await cli(args);
    equal(r.code, 0);
    match(r.out, /Usage:/);
    match(r.out, /bashbox demo/);
    match(r.out, /Ctrl-D or "exit"/);
  }
});

test("main() errors name the command as the user invoked it", async () => {
  const r = await cli(["run", "--nope", "x"], { name: "deno task cli" });
  equal(r.code, 2);
  equal(
    r.err,
    'deno task cli run: Unknown option "--nope"\nRun "deno task cli --help" for usage.\n',
  );
  const bare = await cli(["frobnicate"], { name: "bashbox" });
  match(bare.err, /^bashbox: Unknown command "frobnicate"/);
});

test("main() --policy refuses what the policy refuses", async () => {
  const r = await cli([
    "run",
    "--policy",
    "readonly",
    "echo x > bashbox-cli-policy.txt",
  ]);
  equal(r.code, 1);
  match(r.out, /refused by policy: Output redirection/);
  equal(
    (await cli(["run", "--policy", "readonly", "echo fine"])).out,
    "Exit code 0\nfine\n",
  );
  const bad = await cli(["run", "--policy", "/nonexistent/policy.json", "ls"]);
  equal(bad.code, 2);
  match(bad.err, /Expected --policy to be readonly, allow-all or a JSON file/);
});

test("main() rejects bad flags and commands with exit code 2", async () => {
  const cases: [string[], RegExp][] = [
    [["--nope"], /^bashbox: Unknown option "--nope"/],
    [[], /Expected a command/],
    [["frobnicate"], /Unknown command "frobnicate"/],
    [["run"], /^bashbox run: Expected a command after "run", got none/],
    [
      ["run", "-x", "true"],
      /Unknown option "-x" \(put the command after "--"\)/,
    ],
    [["run", "--timeout"], /Expected a value after "--timeout", got none/],
    [["repl", "extra"], /Expected no arguments after "repl", got "extra"/],
    [["repl", "--json"], /Option "--json" does not apply to "repl"/],
    [["run", "--api", "true"], /Option "--api" does not apply to "run"/],
    [["run", "--json=yes", "true"], /takes no value/],
    [
      ["run", "--timeout", "soon", "true"],
      /Expected --timeout to be a positive whole number, got "soon"/,
    ],
    [["agent", "task"], /ANTHROPIC_API_KEY/],
    [["agent"], /Expected a task after "agent", got none/],
    [
      ["agent", "--allow-all", "--policy", "readonly", "t"],
      /Expected --policy or --allow-all, got both/,
    ],
    [["demo", "--api"], /ANTHROPIC_API_KEY/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    equal(r.code, 2, args.join(" "));
    match(r.err, message);
    ok(r.err.includes("--help"));
  }
});

const anthropicSource = readFileSync(
  new URL("../anthropic/mod.ts", import.meta.url),
  "utf8",
);

test(
  "cli.ts run works by path without the import map (no SDK until agent or demo)",
  async () => {
    const dir = scratch();
    try {
      const r = await exec(
        [
          "bash",
          "-c",
          runtime === "deno"
            ? `cd "$DIR" && deno run --no-config --no-lock --allow-run=bash --allow-read --allow-write --allow-env "$CLI" run echo ok`
            : `cd "$DIR" && "$BIN" "$CLI" run echo ok`,
        ],
        {
          env: {
            DIR: dir,
            BIN: execPath(),
            CLI: new URL("../cli/main.ts", import.meta.url).pathname,
          },
          timeoutMs: 60_000,
        },
      );
      equal(r.exitCode, 0, r.stderr.text);
      equal(r.stdout.text, "Exit code 0\nok\n");
    } finally {
      rmSync(dir, { recursive: true });
    }
  },
  {
    skip: /^import [^;]*from "@anthropic-ai\/sdk/m.test(anthropicSource) &&
      "anthropic.ts still imports the SDK when it loads (its own change in issue 12)",
  },
);

const haveScript =
  (await exec(["bash", "-c", "command -v script"])).exitCode === 0;

test(
  "cli.ts repl on a real terminal: Ctrl-C stops the command, the REPL goes on",
  async () => {
    const run = runtime === "deno"
      ? "deno run --allow-run=bash --allow-read --allow-write --allow-env cli/main.ts"
      : `"${execPath()}" cli/main.ts`;
    const keys = [
      "sleep 1.5; printf 'export V=kept\\r'",
      "sleep 0.7; printf 'sleep 30; echo not-reached\\r'",
      "sleep 1; printf '\\003'",
      "sleep 0.7; printf 'echo after $V\\r'",
      "sleep 0.7; printf '\\004'; sleep 0.5",
    ].join("; ");
    const started = performance.now();
    const r = await exec([
      "bash",
      "-c",
      `cd "$ROOT" && (${keys}) | script -qfec "${run} repl --cwd /tmp" /dev/null`,
    ], {
      env: {
        ROOT: new URL("..", import.meta.url).pathname,
        NO_COLOR: "1",
      },
      timeoutMs: 30_000,
    });
    ok(performance.now() - started < 20_000, "sleep 30 was interrupted");
    equal(r.exitCode, 0, r.stdout.text + r.stderr.text);
    const text = r.stdout.text.replaceAll("\r", "");
    match(text, /\^CABORTED: the command was stopped \(exit code 130\)\n/);
    match(text, /\nafter kept\n/);
    ok(!text.includes("\nnot-reached\n"));
    ok(!text.includes("\x1b[3"), "NO_COLOR");
  },
  {
    timeoutMs: 60_000,
    skip: !haveScript && "util-linux script (to get a PTY) is not installed",
  },
);

/** Runs `bash -c script` and says whether it exited 0. */
async function has(script: string): Promise<boolean> {
  return (await exec(["bash", "-c", script])).exitCode === 0;
}

// A program that needs the terminal, in many spellings: each is refused with
// piped input, and nothing of its line runs.
const TERMINAL_LINES: [string, string][] = [];
{
  const programs: [string, string][] = [
    ["vim", "notes.txt"],
    ["vi", ""],
    ["nvim", "-O a b"],
    ["nano", "f"],
    ["emacs", "-nw f"],
    ["less", "+G log.txt"],
    ["more", "log.txt"],
    ["man", "ls"],
    ["top", "-d 1"],
    ["htop", ""],
    ["watch", "-n 1 date"],
    ["tmux", ""],
    ["tmux", "attach -t work"],
    ["screen", "-S work"],
    ["ssh", "-p 2222 user@example.invalid"],
    ["python3", ""],
    ["python3", "-i script.py"],
    ["node", ""],
    ["irb", ""],
    ["psql", "-U me mydb"],
    ["mysql", "-u root"],
    ["sqlite3", "data.db"],
  ];
  const spellings = [
    (p: string, a: string) => `${p} ${a}`,
    (p: string, a: string) => `FOO=1 ${p} ${a}`,
    (p: string, a: string) => `command ${p} ${a}`,
    (p: string, a: string) => `env TERM=xterm ${p} ${a}`,
    (p: string, a: string) => `/usr/bin/${p} ${a}`,
    (p: string, a: string) => `'${p}' ${a}`,
    (p: string, a: string) => `\\${p} ${a}`,
    (p: string, a: string) => `nice -n 5 ${p} ${a}`,
    (p: string, a: string) => `time ${p} ${a}`,
    (p: string, a: string) => `cd . && ${p} ${a}`,
    (p: string, a: string) => `{ ${p} ${a}; }`,
    (p: string, a: string) => `(${p} ${a})`,
    (p: string, a: string) => `if true; then ${p} ${a}; fi`,
    (p: string, a: string) => `for i in 1; do ${p} ${a}; done`,
    (p: string, a: string) => `timeout 60 ${p} ${a}`,
  ];
  let n = 0;
  for (const [program, args] of programs) {
    for (const spell of spellings) {
      // Every spelling of a few programs, one of the others (in turn).
      if (
        !["vim", "less", "top", "python3"].includes(program) &&
        spellings.indexOf(spell) !== n % spellings.length
      ) continue;
      TERMINAL_LINES.push([program, spell(program, args).trim()]);
    }
    n++;
  }
  TERMINAL_LINES.push(["less", "git log | less"]);
  TERMINAL_LINES.push(["less", "less < log.txt"]);
  TERMINAL_LINES.push(["vim", "echo x | vim -"]);
  TERMINAL_LINES.push(["sudoedit", "sudo -e /etc/hosts"]);
}

test("terminalProgram() finds the program that needs the terminal in every spelling, and not in lines that do not", () => {
  for (const [program, line] of TERMINAL_LINES) {
    equal(terminalProgram(line)?.program, program, line);
  }
  for (
    const line of [
      "echo vim",
      "vim --version",
      "vim -es -c q file",
      "less f | grep x",
      "man ls > ls.txt",
      "man ls | head",
      "top -bn1",
      "top -b -n 1 | head",
      "python3 -c 'print(1)'",
      "python3 script.py",
      "echo 'print(1)' | python3",
      "python3 < script.py",
      "node -e 1",
      "psql -c 'select 1'",
      "ssh host uptime",
      "ssh -N -L 8080:localhost:80 host",
      "tmux ls",
      "tmux new -d -s x",
      "screen -ls",
      "vim &",
      "f() { vim; }",
      "command -v vim",
      "$EDITOR notes.txt",
      "git log",
      "cat file",
      "echo 'vim'",
      "grep -r less .",
      "if [ -x /usr/bin/vim ]; then echo yes; fi",
    ]
  ) {
    equal(terminalProgram(line), null, line);
  }
});

test("main() repl with piped input refuses a line that needs a terminal, says why and what to do, and runs none of it", async () => {
  const dir = scratch();
  try {
    const audit = join(dir, "audit.jsonl");
    const lines = TERMINAL_LINES.map(([, line], i) =>
      `touch ${dir}/ran-${i} && ${line}`
    );
    const r = await cli(["repl", "--cwd", dir, "--audit", audit], {
      lines: [...lines, "echo still here"],
    });
    equal(r.code, 0, r.err);
    const answers = r.out.split(/\n(?=Error: |Exit code )/);
    equal(answers.length, lines.length + 1, r.out);
    TERMINAL_LINES.forEach(([program], i) => {
      const text = answers[i];
      match(text, new RegExp(`^Error: ${program} `), text);
      match(text, /so the line was not run/, text);
      match(text, /bashbox (repl|run)`/, text);
      ok(!existsSync(join(dir, `ran-${i}`)), `${lines[i]} ran`);
    });
    match(answers.at(-1)!, /^Exit code 0\nstill here\n$/);
    match(r.out, /full-screen program: it needs a terminal/);
    match(r.out, /process_start with "tty": true/);
    match(r.out, /pages its text on a terminal/);
    match(r.out, /reads its commands from a terminal when it gets no script/);
    // Each line was judged and audited like any other.
    const records = readFileSync(audit, "utf8").trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    equal(
      records.filter((x) => x.event === "end" && x.isError).length,
      lines.length,
    );
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("main() repl judges a line that needs a terminal by the policy first", async () => {
  const dir = scratch();
  try {
    const policy = join(dir, "policy.json");
    writeFileSync(
      policy,
      JSON.stringify({ allow: ["less", "echo"], deny: ["vim"] }),
    );
    const r = await cli(
      ["repl", "--policy", policy, "--contain", "off", "--cwd", dir],
      { lines: ["FOO=1 vim notes.txt", "less notes.txt", "top"] },
    );
    equal(r.code, 0, r.err);
    const [vim, less, top] = r.out.trimEnd().split("\n");
    match(vim, /^Error: The command was refused by policy: .*vim/);
    match(less, /^Error: less pages its text on a terminal/);
    // Not allowed, and no one to ask (piped input): refused.
    match(top, /^Error: The command was refused by policy: /);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test("main() repl on a terminal keeps the colours of a command's output but nothing that takes the screen", async () => {
  let out = "";
  const code = await main(["repl"], {
    out: (t) => out += t,
    err: () => {},
    env: {},
    terminal: fakeTerminal([
      {
        data:
          "printf '\\033[?1049h\\033[2J\\033[H\\033]0;title\\007\\033(0\\033[31mred\\033[1A up\\033[?25l\\033c\\n'\r",
      },
      { data: "exit\r", delayMs: 1500 },
    ]),
  });
  equal(code, 0);
  // What the command printed: after the line as typed.
  const typed = out.lastIndexOf("\\033c\\n'");
  ok(typed > 0, JSON.stringify(out));
  out = out.slice(out.indexOf("\r\n", typed) + 2);
  ok(out.includes("\x1b[31mred up\r\n"), JSON.stringify(out));
  for (
    const taken of [
      "\x1b[?1049h",
      "\x1b[2J",
      "\x1b[H",
      "]0;title",
      "\x1b(0",
      "\x1b[1A",
      "\x1b[?25l",
      "\x1bc",
    ]
  ) {
    ok(!out.includes(taken), `${JSON.stringify(taken)} reached the terminal`);
  }
  // The colour it left on is reset before the status and the prompt.
  ok(out.includes("red up\r\n\x1b[0mExit code 0"), JSON.stringify(out));
});

test("ScreenGuard.push() keeps text, colours and line edits whatever the chunking, and drops the rest", () => {
  const input = "a\x1b[1;32mgreen\x1b[0m 10%\r\x1b[K20%\b\t\x1b[3D\x1b[5G|" +
    "\x1b[2J\x1b[10;5H\x1b[?1049h\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\" +
    "\x1bP1$r\x1b\\\x9b31mc1\x07\x0e\x1b(B\x1b7\x1b8end\n";
  const want =
    "a\x1b[1;32mgreen\x1b[0m 10%\r\x1b[K20%\b\t\x1b[3D\x1b[5G|link\x1b[31mc1\\x07\\x0eend\n";
  for (let size = 1; size <= input.length; size++) {
    const guard = new ScreenGuard();
    let got = "";
    for (let i = 0; i < input.length; i += size) {
      got += guard.push(input.slice(i, i + size));
    }
    equal(got, want, `chunks of ${size}`);
    equal(guard.flush(), "\x1b[0m", "the colour left on is reset");
  }
});

const haveVi = await has("command -v vi");
const haveLess = await has("command -v less");
const havePython = await has("python3 -c 'import pty'");

test(
  "main() repl on a terminal hosts a REPL: the terminal's size and resizes, keys and Ctrl-C go to it, and the shell keeps its state",
  async () => {
    let size = { cols: 101, rows: 31 };
    const listeners: (() => void)[] = [];
    let out = "";
    const seen = (text: string) => out.includes(text);
    const until = async (text: string) => {
      for (let i = 0; i < 200 && !seen(text); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const queue: string[] = [];
    let wake: (() => void) | null = null;
    const type = (text: string) => {
      queue.push(text);
      wake?.();
    };
    const terminal: CliTerminal & { raw: boolean[] } = {
      raw: [],
      setRaw(on) {
        this.raw.push(on);
      },
      read: async () => {
        while (queue.length === 0) {
          await new Promise<void>((r) => wake = r);
        }
        const text = queue.shift()!;
        return text === "\0end" ? null : new TextEncoder().encode(text);
      },
      size: () => size,
      onResize: (listener) => {
        listeners.push(listener);
        return () => listeners.splice(listeners.indexOf(listener), 1);
      },
    };
    const done = main(["repl", "--cwd", "/tmp"], {
      out: (t) => out += t,
      err: () => {},
      env: { TERM: "xterm-256color" },
      terminal,
    });
    await until("$ ");
    type("export V=kept\r");
    await until("[0] $ ");
    type("python3 -q\r");
    await until(">>> ");
    type("import os, signal; print(os.get_terminal_size())\r");
    await until("columns=101, lines=31");
    size = { cols: 120, rows: 40 };
    listeners.forEach((l) => l());
    await new Promise((r) => setTimeout(r, 500));
    type("print(os.get_terminal_size(), os.environ.get('PAGER'))\r");
    await until("columns=120, lines=40");
    type("while True: pass\r\r");
    await new Promise((r) => setTimeout(r, 500));
    type("\x03");
    await until("KeyboardInterrupt");
    type("exit(3)\r");
    await until("Exit code 3");
    type("echo after $V\r");
    await until("after kept");
    type("\0end");
    equal(await done, 0);
    // deno-lint-ignore no-control-regex
    const text = out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
    match(text, /columns=101, lines=31/);
    match(text, /columns=120, lines=40\) None/, "the person's PAGER (none)");
    match(text, /KeyboardInterrupt/);
    match(text, /Exit code 3/);
    match(text, /\[3\] \$ /, "the prompt shows the program's status");
    match(text, /\r\nafter kept\r\n/, "the shell kept its state");
    ok(!/restarted/.test(text), "the shell was not restarted");
    equal(listeners.length, 0, "resizes are no longer followed");
    equal(terminal.raw.join(","), "true,false", "raw mode restored");
  },
  {
    timeoutMs: 60_000,
    skip: !havePython && "python3 (with its pty module) is not installed",
  },
);

test(
  "cli.ts repl on a real terminal hosts vi and less: keys reach them, Ctrl-C does not restart the shell, the prompt and the shell's state come back",
  async () => {
    const dir = scratch();
    try {
      const run = runtime === "deno"
        ? "deno run --allow-run=bash --allow-read --allow-write --allow-env cli/main.ts"
        : `"${execPath()}" cli/main.ts`;
      writeFileSync(
        join(dir, "long.txt"),
        Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join("\n"),
      );
      const keys = [
        "sleep 2; printf 'export V=kept\\r'",
        ...(haveVi
          ? [
            "sleep 1; printf 'vi notes.txt\\r'",
            "sleep 2; printf '\\003'", // Ctrl-C: to vi, not the shell
            "sleep 0.5; printf 'ihello from vi\\033'",
            "sleep 0.5; printf ':wq\\r'",
          ]
          : []),
        ...(haveLess
          ? [
            "sleep 2; printf 'less long.txt\\r'",
            "sleep 2; printf 'G'",
            "sleep 1; printf '\\003'",
            "sleep 0.5; printf 'q'",
          ]
          : []),
        "sleep 2; printf 'echo after $V; cat notes.txt\\r'",
        "sleep 1.5; printf '\\004'; sleep 0.5",
      ].join("; ");
      const r = await exec([
        "bash",
        "-c",
        `cd "$ROOT" && (${keys}) | script -qfec "${run} repl --cwd '$DIR'" /dev/null`,
      ], {
        env: {
          ROOT: new URL("..", import.meta.url).pathname,
          DIR: dir,
          NO_COLOR: "1",
        },
        timeoutMs: 45_000,
      });
      equal(r.exitCode, 0, r.stdout.text + r.stderr.text);
      const text = r.stdout.text.replaceAll("\r", "");
      if (haveVi) {
        ok(
          text.includes("\x1b[?1049h"),
          "vi drew on the terminal's own screen",
        );
        equal(readFileSync(join(dir, "notes.txt"), "utf8"), "hello from vi\n");
      }
      if (haveLess) {
        match(text, /line 300/, "less paged to the end");
      }
      equal(
        text.match(/Exit code 0\n/g)?.length,
        1 + (haveVi ? 1 : 0) + (haveLess ? 1 : 0) + 1,
        text,
      );
      match(text, /\nafter kept\n/, "the shell kept its state");
      ok(!/restarted|ABORTED/.test(text), "Ctrl-C did not stop the shell");
      ok(!text.includes("[130]"), "no line was interrupted");
    } finally {
      rmSync(dir, { recursive: true });
    }
  },
  {
    timeoutMs: 60_000,
    skip:
      (!haveScript && "util-linux script (to get a PTY) is not installed") ||
      (!haveVi && !haveLess && "neither vi nor less is installed"),
  },
);
