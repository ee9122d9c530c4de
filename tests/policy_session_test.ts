import { deepEqual, ok } from "node:assert/strict";
import { Policy } from "../mod.ts";
import type { Decision } from "../policy/mod.ts";
import { test } from "./_harness.ts";

/**
 * The policies every class is checked under: the preset, and a custom
 * allow-list of programs whose words it still judges (wrappers, shells,
 * git's options that run programs).
 */
const STRICT: [string, Policy][] = [
  ["readOnly", Policy.readOnly()],
  [
    "custom",
    new Policy({
      allow: ["echo", "cat", "ls", "git", "env", "xargs", "sh", "bash"],
    }),
  ],
];

/** A custom allow-list that allows the builtins which take names. */
const BUILTINS = new Policy({
  allow: [
    "echo",
    "ls",
    "read",
    "unset",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "printf",
    "mapfile",
    "readarray",
    "getopts",
    "wait",
    "alias",
    "unalias",
    "let",
    "exec",
    "eval",
    "bash",
  ],
});

/** The commands of `commands` some policy allows (each with why). */
function allowedOf(
  commands: readonly string[],
  policies: [string, Policy][] = STRICT,
): string[] {
  const out: string[] = [];
  for (const [name, p] of policies) {
    for (const c of commands) {
      const r = p.check(c);
      if (r.decision === "allow") out.push(`${name}: ${JSON.stringify(c)}`);
    }
  }
  return out;
}

/** The commands whose decision under `policy` is not `want`. */
function notDecided(
  policy: Policy,
  commands: readonly string[],
  want: Decision,
): string[] {
  return commands
    .map((c) => ({ c, r: policy.check(c) }))
    .filter(({ r }) => r.decision !== want)
    .map(({ c, r }) => `${JSON.stringify(c)}: ${r.decision}: ${r.reason}`);
}

// --- Values the session carries ---------------------------------------

const TILDES = ["~-", "~+", "~-1", "~+2", "~1", "~-/x", "~+/sub/f"];

/** Programs with an option that writes or runs, the word where an option may stand. */
const TILDE_PROGRAMS = [
  (t: string) => `git log ${t} -1`,
  (t: string) => `git show ${t}`,
  (t: string) => `git diff ${t}`,
  (t: string) => `sort ${t} f`,
  (t: string) => `sort f ${t}`,
  (t: string) => `sed -n ${t} f`,
  (t: string) => `sed ${t} 1p f`,
  (t: string) => `tar ${t} -tf a.tar`,
  (t: string) => `find . ${t}`,
  (t: string) => `rg x ${t}`,
  (t: string) => `printf ${t} x`,
  (t: string) => `xxd ${t} f`,
  (t: string) => `env ${t} ls`,
  (t: string) => `xargs ${t} echo`,
  (t: string) => `OLDPWD=--output=x; git log ${t} -1`,
];

test("Policy reads ~- and ~+ (and ~N, ~+N, ~-N) as values an earlier call may have set", () => {
  const commands = TILDES.flatMap((t) => TILDE_PROGRAMS.map((f) => f(t)));
  ok(commands.length > 100, `${commands.length} variants`);
  deepEqual(allowedOf(commands), []);
  // Where no option can do harm, an unknown word is still allowed; ~ and
  // ~user are home directories.
  deepEqual(
    notDecided(Policy.readOnly(), [
      "ls ~-",
      "cat ~+/f",
      "cd ~-",
      "git log ~/x",
      "sort ~/f",
      "git log -1 -- ~-",
      "sort -- ~+",
      "ls ~root",
    ], "allow"),
    [],
  );
});

const ARITH_NAMES = ["a", "b", "c", "d", "e", "f", "A", "F", "x", "_", "ab"];

const ARITH_CONTEXTS = [
  (n: string) => `echo $((${n}))`,
  (n: string) => `echo $((${n} + 1))`,
  (n: string) => `echo $((1 ? ${n} : 0))`,
  (n: string) => `echo $(($${n}))`,
  (n: string) => `((${n}))`,
  (n: string) => `echo $[${n}]`,
  (n: string) => `x=$((${n}))`,
  (n: string) => `x=$((${n})) ls`,
  (n: string) => `cat <<E\n$((${n}))\nE`,
  (n: string) => `echo "\${z[@]:${n}}"`,
  (n: string) => `echo "\${z:${n}:1}"`,
  (n: string) => `echo "\${z:0:${n}}"`,
  (n: string) => `echo "\${z[${n}]}"`,
  (n: string) => `z[${n}]=1`,
  (n: string) => `let ${n}`,
  (n: string) => `for ((i = ${n}; i < 1; i++)); do :; done`,
  (n: string) => `[[ ${n} -eq 1 ]]`,
  (n: string) => `declare -i ${n}`,
  (n: string) => `echo "\${!${n}}"`,
];

test("Policy refuses arithmetic on any variable, whatever its name looks like", () => {
  const commands = ARITH_NAMES.flatMap((n) => ARITH_CONTEXTS.map((f) => f(n)));
  ok(commands.length > 200, `${commands.length} variants`);
  deepEqual(allowedOf(commands), []);
  // Any command may run through it, so deny rules ask too, and a rule that
  // allows let does not allow what its arithmetic runs.
  deepEqual(
    allowedOf(commands.filter((c) => !c.startsWith("declare")), [
      ["allowAll+deny", Policy.allowAll({ deny: ["rm"] })],
      ["let", new Policy({ allow: ["let", "echo", "cat"], deny: ["rm"] })],
    ]),
    [],
  );
  // The reason names the word.
  const r = Policy.readOnly().check("echo $((a))");
  ok(r.reason.includes("Arithmetic on a "), r.reason);
  // Constants only: allowed.
  deepEqual(
    notDecided(Policy.readOnly(), [
      "echo $((1 + 2))",
      "echo $((0x1f + 2#101))",
      "echo $((16#ff))",
      'echo "${z:1:2}"',
      'echo "${z[@]:1}"',
      'echo "${z: -1}"',
      "echo ${z[0]}",
    ], "allow"),
    [],
  );
});

// --- Names reserved for the framing ------------------------------------

const RESERVED_VARIABLES = ["__bbJ", "__bbM", "__bbU", "__bb", "__bbzz"];

const VARIABLE_FORMS = [
  (n: string) => `${n}=1`,
  (n: string) => `${n}=1 ls`,
  (n: string) => `${n}+=x`,
  (n: string) => `${n}[0]=1`,
  (n: string) => `unset ${n}`,
  (n: string) => `unset -v ${n}`,
  (n: string) => `declare ${n}=1`,
  (n: string) => `declare -g ${n}`,
  (n: string) => `typeset ${n}`,
  (n: string) => `local ${n}`,
  (n: string) => `export ${n}=1`,
  (n: string) => `export ${n}`,
  (n: string) => `readonly ${n}`,
  (n: string) => `read ${n}`,
  (n: string) => `read -r -a ${n}`,
  (n: string) => `read -a${n}`,
  (n: string) => `printf -v ${n} x`,
  (n: string) => `printf -v${n} x`,
  (n: string) => `mapfile ${n}`,
  (n: string) => `readarray -t ${n}`,
  (n: string) => `getopts ab ${n}`,
  (n: string) => `wait -p ${n}`,
  (n: string) => `for ${n} in 1; do :; done`,
  (n: string) => `echo \${${n}:=1}`,
  (n: string) => `echo \${${n}=1}`,
  (n: string) => `: $((${n} = 1))`,
  (n: string) => `((${n}++))`,
  (n: string) => `let ${n}=1`,
  (n: string) => `exec {${n}}>/dev/null`,
  (n: string) => `${n}() { :; }`,
  (n: string) => `function ${n} { :; }`,
  (n: string) => `bash -c '${n}=1'`,
  (n: string) => `eval ${n}=1`,
  (n: string) => `command unset ${n}`,
  (n: string) => `builtin declare ${n}`,
  (n: string) => `ls; ${n}=x`,
];

const RESERVED_ALIASES = ["_+p", "_+E", "_+z", "_+X"];

const ALIAS_FORMS = [
  (n: string) => `alias '${n}=ls'`,
  (n: string) => `alias ${n}=ls`,
  (n: string) => `unalias ${n}`,
  (n: string) => `unset -f ${n}`,
  (n: string) => `${n}() { :; }`,
];

test("Policy refuses every command that touches a name reserved for the framing, under every policy", () => {
  const commands = [
    ...RESERVED_VARIABLES.flatMap((n) => VARIABLE_FORMS.map((f) => f(n))),
    ...RESERVED_ALIASES.flatMap((n) => ALIAS_FORMS.map((f) => f(n))),
  ];
  ok(commands.length > 150, `${commands.length} variants`);
  const policies: [string, Policy][] = [
    ...STRICT,
    ["builtins", BUILTINS],
    ["allowAll", Policy.allowAll()],
    ["allowAll+deny", Policy.allowAll({ deny: ["rm"] })],
  ];
  const wrong: string[] = [];
  for (const [name, p] of policies) {
    for (const c of commands) {
      const r = p.check(c);
      if (r.decision !== "deny" || !r.reason.includes("reserved")) {
        wrong.push(`${name}: ${JSON.stringify(c)}: ${r.decision}: ${r.reason}`);
      }
    }
  }
  deepEqual(wrong, []);
  // Names that only look alike, and reading the framing's values, are fine.
  deepEqual(
    notDecided(Policy.allowAll(), [
      "bb=1",
      "_bb=1",
      "x__bb=1",
      "echo $__bbJ",
      "a_+b=1 ls",
      "printf '%s\\n' __bbJ",
      "echo __bbJ=1",
    ], "allow"),
    [],
  );
  // A name known only at run time is asked about where rules guard.
  deepEqual(allowedOf(['unset "$n"', 'declare "$n=1"', 'read -r "$n"']), []);
});
