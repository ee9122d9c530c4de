import { equal, match, ok } from "node:assert/strict";
import { main } from "../cli.ts";
import { test } from "./_harness.ts";

async function cli(args: string[], lines?: string[]) {
  let out = "";
  let err = "";
  const code = await main(args, {
    out: (t) => out += t,
    err: (t) => err += t,
    env: {},
    lines: lines
      ? (async function* () {
        for (const l of lines) yield l;
      })()
      : undefined,
  });
  return { code, out, err };
}

test("main() run prints exactly the tool_result the model would get", async () => {
  const r = await cli(["run", "echo hi; echo err >&2"]);
  equal(r.code, 0);
  equal(r.out, "Exit code 0\nhi\nerr\n");
  const failed = await cli(["run", "exit 3"]);
  equal(failed.code, 1);
  match(failed.out, /^Exit code 3\n/);
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

test("main() demo runs the scripted conversation offline end to end", async () => {
  const r = await cli(["demo"]);
  equal(r.code, 0, r.err);
  match(r.out, /offline/);
  match(r.out, /✓ Hello from bashbox-demo-\w+, world!/);
  match(r.out, /✗ cat: missing.txt: No such file or directory/);
  match(r.out, /✗ TIMEOUT: the command ran longer than 1 s/);
  match(r.out, /✓ STATE=kept/);
  match(r.out, /✓ The bash session was restarted/);
  match(r.out, /✓ STATE=gone/);
  match(r.out, /\[stopped: end_turn\]/);
});

test("main() repl shows what the model sees after each line", async () => {
  const r = await cli(["repl"], ["cd /tmp", "pwd", "", "false"]);
  equal(r.code, 0);
  equal(
    r.out,
    "Exit code 0\n(no output)\nExit code 0\n/tmp\n\nExit code 1\n(no output)\n",
  );
});

test("main() --policy refuses what the policy refuses", async () => {
  const r = await cli([
    "run",
    "--policy",
    "readonly",
    "echo x > /tmp/bashbox-cli-policy",
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

test("main() --help prints usage", async () => {
  for (const args of [["--help"], ["-h"], ["help"]]) {
    const r = await cli(args);
    equal(r.code, 0);
    match(r.out, /Usage:/);
    match(r.out, /bashbox demo/);
  }
});

test("main() rejects bad flags and commands with exit code 2", async () => {
  const cases: [string[], RegExp][] = [
    [["--nope"], /Unknown option '--nope'/],
    [[], /Expected a command/],
    [["frobnicate"], /Unknown command "frobnicate"/],
    [["run"], /Expected one command after "run", got 0/],
    [["run", "a", "b"], /got 2/],
    [
      ["run", "--timeout", "soon", "true"],
      /Expected --timeout to be a positive whole number, got "soon"/,
    ],
    [["agent", "task"], /ANTHROPIC_API_KEY/],
    [["demo", "--api"], /ANTHROPIC_API_KEY/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    equal(r.code, 2, args.join(" "));
    match(r.err, message);
    ok(r.err.includes("--help"));
  }
});
