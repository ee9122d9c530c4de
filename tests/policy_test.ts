import {
  deepStrictEqual,
  equal,
  match,
  notEqual,
  ok,
  throws,
} from "node:assert/strict";
import { BashTool, limitsScript, Policy, redactSecrets } from "../mod.ts";
import { test } from "./_harness.ts";
import { ADVERSARIAL as BYPASSES } from "./corpus/adversarial.ts";

/** Commands the read-only preset must keep allowing. */
const BENIGN = [
  "ls -la",
  "echo 'a | b; c && rm x'",
  'echo "a > b"',
  "cat <<'EOF'\n$(rm x) `rm x` > f\nEOF",
  "git log --oneline -5 | head",
  "git status --short",
  "git diff HEAD~1 -- README.md",
  "git show --stat HEAD",
  "git branch -a",
  "git config --get user.name",
  "git -C sub log -1",
  "awk 'NR>1 && NR<5' f",
  "awk -F: '{print $1}' /etc/passwd",
  "awk '$3 > 100 { n++ } END { print n }' f",
  "echo {a,b}.txt",
  "ls *.ts",
  "cat f | grep -n x | wc -l",
  "grep -rn TODO --include='*.ts' . | head -20",
  "find . -name '*.md' -type f",
  "find . -maxdepth 2 -newer f -print",
  "sed -n '1,20p' f",
  "sed 's/foo/bar/g' f",
  "sed -e 's|a|b|' -e '/x/d' f",
  "sort f | uniq -c | sort -rn",
  "head -n 5 f; tail -n 5 f",
  "wc -l *.ts 2>/dev/null",
  "ls 2>&1 | head",
  "cd src && ls",
  "pwd",
  "echo $HOME $((1 + 2))",
  "diff a b",
  "rg -n 'fn main' src",
  "tar -tzf a.tar.gz",
  "du -sh .",
  "printf '%s\\n' a b",
  "test -f f && echo yes",
  "[ -d d ] || echo no",
  "[[ -n $x && $x == y* ]]",
  'for f in *.ts; do wc -l "$f"; done',
  "if [ -f f ]; then cat f; else echo none; fi",
  "cat f | xargs grep x",
  "timeout 5 cat f",
  'echo "$(ls | wc -l)"',
  "stat -c %s f",
  "cut -d: -f1 f | tr a-z A-Z",
  "jq .name package.json",
  "env",
  "true",
  "ls # a comment",
];

test("Policy.readOnly() allows none of the bypass corpus", () => {
  const policy = Policy.readOnly();
  const allowed: string[] = [];
  let n = 0;
  for (const [family, commands] of Object.entries(BYPASSES)) {
    for (const c of commands) {
      n++;
      const r = policy.check(c);
      if (r.decision === "allow") {
        allowed.push(`${family}: ${JSON.stringify(c)}`);
      }
      ok(r.reason.length > 0);
    }
  }
  ok(n >= 150, `corpus has ${n} cases`);
  deepStrictEqual(allowed, []);
});

test("Policy.readOnly() keeps the benign corpus allowed", () => {
  const policy = Policy.readOnly();
  const refused = BENIGN
    .map((c) => ({ c, r: policy.check(c) }))
    .filter(({ r }) => r.decision !== "allow")
    .map(({ c, r }) => `${JSON.stringify(c)}: ${r.decision}: ${r.reason}`);
  deepStrictEqual(refused, []);
});

test("Policy.check() lists the argv of every simple command", () => {
  const r = Policy.readOnly().check('cd /tmp && ls -l $(pwd) | grep "a b"');
  // In the order bash runs them: a substitution before its command.
  deepStrictEqual(r.commands, [
    ["cd", "/tmp"],
    ["pwd"],
    ["ls", "-l", "$(pwd)"],
    ["grep", "a b"],
  ]);
});

test("Policy rules: deny wins over ask, ask over allow; prefixes and :*", () => {
  const p = new Policy({
    allow: ["git status", "npm run test:*", "ls", "make*"],
    ask: ["git push"],
    deny: ["rm", "git push --force"],
  });
  equal(p.check("git status").decision, "allow");
  equal(p.check("git status --short").decision, "allow");
  equal(p.check("git stash").decision, "ask");
  equal(p.check("npm run test").decision, "allow");
  equal(p.check("npm run test:unit").decision, "allow");
  equal(p.check("npm run build").decision, "ask");
  equal(p.check("makefile-gen").decision, "allow");
  equal(p.check("git push origin").decision, "ask");
  equal(p.check("git push --force").decision, "deny");
  equal(p.check("ls && rm -rf /").decision, "deny");
  equal(p.check("ls | git push").decision, "ask");
  match(p.check("rm x").reason, /"rm" is denied/);
  // A non-literal argument matches deny rules (fail closed) but not allow rules.
  equal(p.check("git push $flag").decision, "deny");
  equal(p.check("git $sub").decision, "ask");
  equal(new Policy({ default: "deny" }).check("anything").decision, "deny");
  throws(() => new Policy({ allow: [""] }), /non-empty string/);
  throws(() => new Policy({ default: "maybe" as "allow" }), /default/);
});

test("Policy fails closed on parse errors, non-literal names, paths and oversize input", () => {
  const p = new Policy({ allow: ["ls", "/usr/bin/env"], default: "allow" });
  equal(p.check("ls 'unterminated").decision, "deny");
  match(p.check("ls 'unterminated").reason, /does not parse/);
  notEqual(p.check("$cmd x").decision, "allow");
  notEqual(p.check("$(printf ls)").decision, "allow");
  notEqual(p.check("l? x").decision, "allow");
  equal(p.check("/usr/bin/env").decision, "allow");
  equal(p.check("x".repeat(200_000)).decision, "deny");
  match(p.check("x".repeat(200_000)).reason, /too long/);
  equal(p.check("echo $(".repeat(100)).decision, "deny");
  equal(p.check(42 as unknown as string).decision, "deny");
});

test("Policy unwraps wrappers and checks the wrapped command", () => {
  const p = new Policy({
    allow: ["ls", "timeout", "env", "xargs", "nice"],
    deny: ["rm"],
  });
  equal(p.check("timeout -s KILL 5 ls").decision, "allow");
  equal(p.check("timeout 5 rm x").decision, "deny");
  equal(p.check("env A=1 B=2 ls").decision, "allow");
  equal(p.check("env -u X -- rm x").decision, "deny");
  equal(p.check("xargs -0 -n 1 rm").decision, "deny");
  equal(p.check("nice -n 5 nice rm").decision, "deny");
  notEqual(p.check("env --frobnicate ls").decision, "allow");
});

test("Policy refuses session-state attacks spread over two calls", () => {
  const p = Policy.readOnly();
  // Each first step is refused, so the second step cannot be abused.
  for (
    const [first, second] of [
      ["alias ls='rm -rf /'", "ls"],
      ["hash -p /tmp/evil ls", "ls"],
      ["trap 'rm -rf /' DEBUG", "ls"],
      ["export PATH=/tmp/evil", "ls"],
      ["ls() { rm -rf /; }", "ls"],
    ]
  ) {
    notEqual(p.check(first).decision, "allow", first);
    equal(p.check(second).decision, "allow");
  }
  // A variable holding a subscript is harmless until arithmetic reads it,
  // and arithmetic on names is never allowed.
  equal(p.check("x='a[$(rm -rf /)]'").decision, "allow");
  notEqual(p.check("echo $((x))").decision, "allow");
  notEqual(p.check("(( x ))").decision, "allow");
});

test("Policy.allowAll() allows everything but keeps deny rules", () => {
  const p = Policy.allowAll({ deny: ["rm"], ask: ["curl"] });
  equal(
    Policy.allowAll().check("eval $(make) && bash -c x && alias a=b").decision,
    "allow",
  );
  equal(p.check("make && bash -c x && alias a=b").decision, "allow");
  // What cannot be resolved could be rm: never allowed while rules exist.
  equal(p.check("eval $(make)").decision, "ask");
  equal(p.check("ls; rm -rf x").decision, "deny");
  equal(p.check("curl x").decision, "ask");
  equal(p.check("echo 'unterminated").decision, "deny");
});

test("BashTool refuses what the read-only preset refuses, before running it", async () => {
  await using tool = new BashTool({ policy: Policy.readOnly() });
  const refused = await tool.handle({
    id: "p1",
    // (Under containment a write to /tmp goes to the private scratch /tmp and
    // is allowed; a write anywhere else is refused before it runs.)
    input: { command: "echo pwned > bashbox-policy-test.txt" },
  });
  equal(refused.is_error, true);
  match(String(refused.content), /refused by policy: Output redirection/);
  const ok1 = await tool.handle({
    id: "p2",
    input: { command: "echo fine | wc -c" },
  });
  equal(ok1.content, "Exit code 0\n5\n");
});

test("redactSecrets() replaces known token shapes", () => {
  const cases: [string, string][] = [
    ["AKIAIOSFODNN7EXAMPLE", "aws-access-key"],
    ["ghp_" + "a".repeat(36), "github-token"],
    ["github_pat_" + "A1_".repeat(10), "github-token"],
    ["sk-ant-api03-" + "x".repeat(40), "anthropic-key"],
    ["sk-proj-" + "y".repeat(40), "openai-key"],
    ["xoxb-1234567890-abcdef", "slack-token"],
    ["AIza" + "b".repeat(35), "google-api-key"],
    ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", "jwt"],
    [
      "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
      "private-key",
    ],
  ];
  for (const [secret, kind] of cases) {
    equal(
      redactSecrets(`before ${secret} after`),
      `before [REDACTED:${kind}] after`,
      kind,
    );
  }
  equal(
    redactSecrets("git clone https://user:s3cr3tpass@example.com/x.git"),
    "git clone https://user:[REDACTED:url-credentials]@example.com/x.git",
  );
  equal(
    redactSecrets("nothing secret here, sk-short"),
    "nothing secret here, sk-short",
  );
});

test("redactSecrets() replaces the values of sensitive environment variables", () => {
  const env = {
    DB_PASSWORD: "correct-horse",
    API_TOKEN: "tok12345678",
    SHORT_KEY: "abc",
    HOME: "/root/home-dir",
  };
  equal(
    redactSecrets("pw=correct-horse t=tok12345678 k=abc h=/root/home-dir", {
      env,
    }),
    "pw=[REDACTED:env:DB_PASSWORD] t=[REDACTED:env:API_TOKEN] k=abc h=/root/home-dir",
  );
});

test("redactSecrets() stays linear on large adversarial input", () => {
  const inputs = [
    "a".repeat(1_000_000),
    "eyJ".repeat(300_000),
    "eyJaaaaa.".repeat(100_000),
    "sk-".repeat(300_000),
    "https://u:".repeat(100_000),
    "-----BEGIN PRIVATE KEY-----\n".repeat(30_000),
    "ghp_" + "a".repeat(1_000_000),
  ];
  for (const input of inputs) {
    const started = performance.now();
    redactSecrets(input);
    // A generous bound: catastrophic backtracking takes minutes, not seconds.
    ok(
      performance.now() - started < 10_000,
      `${input.slice(0, 12)}… took too long`,
    );
  }
});

test("limitsScript() turns limits into ulimit lines", () => {
  equal(
    limitsScript({
      cpuSeconds: 5,
      memoryBytes: 512 * 1024 * 1024,
      fileSizeBytes: 1024 * 1024,
      processes: 64,
      openFiles: 128,
    }),
    "ulimit -t 6; ulimit -S -t 5\nulimit -v 524288\nulimit -f 1024\nulimit -u 64\nulimit -n 128\n",
  );
  equal(limitsScript({}), "");
  throws(() => limitsScript({ cpuSeconds: -1 }), /limits.cpuSeconds/);
  throws(() => limitsScript({ openFiles: Infinity }), /limits.openFiles/);
});

test("Policy() refuses options it does not know or of the wrong type, naming the key", () => {
  const cases: [unknown, RegExp][] = [
    [
      { deni: ["rm"] },
      /Unknown policy option "deni": expected one of allow, ask, deny, default/,
    ],
    [
      { allow: "ls" },
      /Expected allow to be an array of rules \(strings\), got "ls"/,
    ],
    [
      { ask: ["git push", 7] },
      /Expected ask\[1\] to be a rule \(a string\), got 7/,
    ],
    [[], /Expected the policy options to be an object, got an array/],
    [{ default: "maybe" }, /Expected default to be "allow", "ask" or "deny"/],
  ];
  for (const [options, message] of cases) {
    throws(() => new Policy(options as never), message);
  }
  equal(
    new Policy({ allow: ["ls"], default: "deny" }).check("ls").decision,
    "allow",
  );
});
