import { deepStrictEqual, equal, ok, throws } from "node:assert/strict";
import mvdan from "mvdan-sh";
import { exec } from "../mod.ts";
import { literal, parse, ParseError, type Script } from "../shell/parse.ts";
import { test } from "./_harness.ts";
import { COLLECTED, generated } from "./corpus/commands.ts";

const CORPUS = [...COLLECTED, ...generated(400)];

/** bash -n's verdict (true: valid syntax) on each command, from one bash. */
async function bashVerdicts(commands: string[]): Promise<boolean[]> {
  const input = commands.map((c) => c + "\0").join("");
  const r = await exec(
    `while IFS= read -r -d '' c; do bash -n -c "$c" 2>/dev/null && echo 1 || echo 0; done`,
    { stdin: input, timeoutMs: 60_000 },
  );
  const out = r.stdout.text.trim().split("\n").map((l) => l === "1");
  equal(out.length, commands.length, r.stderr.text);
  return out;
}

function ours(command: string): boolean {
  try {
    parse(command);
    return true;
  } catch (e) {
    if (e instanceof ParseError) return false;
    throw e;
  }
}

/**
 * Disagreements with bash -n that are known, each with the reason bash is
 * right and why the parser may still differ safely (an error where bash
 * accepts only makes the policy stricter).
 */
const KNOWN_SYNTAX_DIFFERENCES: Record<string, string> = {
  "[[ -n x ]":
    "bash -n accepts a [[ left open at the end of the input after a ] and then runs nothing (exit 0); the parser rejects it, which only makes the policy stricter",
};

test("parse() agrees with bash -n on syntax over the corpus", async () => {
  ok(CORPUS.length >= 500, `corpus has ${CORPUS.length} commands`);
  const verdicts = await bashVerdicts(CORPUS);
  const disagreements: string[] = [];
  CORPUS.forEach((c, i) => {
    if (ours(c) !== verdicts[i] && !(c in KNOWN_SYNTAX_DIFFERENCES)) {
      disagreements.push(
        `${JSON.stringify(c)}: bash ${verdicts[i] ? "accepts" : "rejects"}`,
      );
    }
  });
  deepStrictEqual(disagreements, []);
});

// deno-lint-ignore no-explicit-any
type ShNode = any;
// mvdan-sh (GopherJS) ships no types.
const sh: ShNode = mvdan;

const DECLS = new Set([
  "declare",
  "local",
  "export",
  "readonly",
  "typeset",
  "nameref",
  "let",
]);
const PLAIN = /^[A-Za-z0-9_./:+%,@-]+$/;

/** Command names (plain words only) that mvdan-sh finds, in order. */
function mvdanNames(command: string): string[] | null {
  let file: ShNode;
  try {
    file = sh.syntax.NewParser().Parse(command, "c");
  } catch {
    return null;
  }
  const names: string[] = [];
  sh.syntax.Walk(file, (node: ShNode) => {
    if (
      node && sh.syntax.NodeType(node) === "CallExpr" && node.Args.length > 0
    ) {
      const lit = node.Args[0].Lit();
      if (lit && PLAIN.test(lit)) names.push(lit);
    }
    return true;
  });
  return names;
}

function ourNames(script: Script): string[] {
  const names: string[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    const n = node as Record<string, unknown>;
    if (n.type === "Simple") {
      const words = n.words as { text: string }[];
      if (
        words.length > 0 && PLAIN.test(words[0].text) &&
        !DECLS.has(words[0].text)
      ) {
        names.push(words[0].text);
      }
    }
    for (const value of Object.values(n)) {
      if (Array.isArray(value)) value.forEach(visit);
      else visit(value);
    }
  };
  visit(script);
  return names;
}

/** Where mvdan-sh and bash disagree, bash is the ground truth; each with its reason. */
const KNOWN_NAME_DIFFERENCES: Record<string, string> = {
  "TZ=UTC\recho x":
    "mvdan-sh splits words on \\r; bash does not, so bash runs x with TZ set to 'UTC\\recho' (the checker bypass behind a CVE class)",
};

test("parse() finds the same command names as mvdan-sh", () => {
  const disagreements: string[] = [];
  let compared = 0;
  for (const c of CORPUS) {
    const theirs = mvdanNames(c);
    if (theirs === null || !ours(c) || c in KNOWN_NAME_DIFFERENCES) continue;
    compared++;
    const mine = ourNames(parse(c));
    const a = [...mine].sort().join(" ");
    const b = [...theirs].sort().join(" ");
    if (a !== b) {
      disagreements.push(`${JSON.stringify(c)}: ours [${a}] mvdan [${b}]`);
    }
  }
  ok(compared >= 400, `compared ${compared}`);
  deepStrictEqual(disagreements, []);
});

test("parse() tokenises as bash does: only space and tab are blanks", () => {
  const first = (src: string) => {
    const c = parse(src).body[0].command;
    if (c.type !== "Simple") throw new Error(c.type);
    return c;
  };
  // \r is a word character: this is one assignment and the command "x".
  const cr = first("TZ=UTC\recho x");
  equal(cr.assigns[0].value?.text, "UTC\recho");
  equal(literal(cr.words[0]), "x");
  equal(first("echo\u00a0x").words.length, 1);
  equal(first("echo\va").words.length, 1);
  equal(first("echo\ta").words.length, 2);
});

test("parse() removes quotes the way bash does", () => {
  const words = (src: string) => {
    const c = parse(src).body[0].command;
    if (c.type !== "Simple") throw new Error(c.type);
    return c.words.map(literal);
  };
  deepStrictEqual(words("r''m \\rm \"rm\" $'\\x72\\x6d' r\\\nm"), [
    "rm",
    "rm",
    "rm",
    "rm",
    "rm",
  ]);
  deepStrictEqual(words("{rm,-f} $x * ~/a"), [null, null, null, null]);
  deepStrictEqual(words("a[ b] [ ]"), ["a[", "b]", "[", "]"]);
});

test("parse() errors carry a position", () => {
  throws(() => parse("echo ok\nif true; then"), (e: ParseError) => {
    ok(e instanceof ParseError);
    equal(e.line, 2);
    ok(e.column >= 1);
    return true;
  });
  throws(() => parse("echo 'abc"), /unexpected EOF while looking for matching/);
});

test("parse() refuses oversize input with a limit error", () => {
  throws(
    () => parse("x".repeat(200_000)),
    (e: ParseError) => e.limit && /too long/.test(e.message),
  );
  throws(
    () => parse("$(".repeat(100) + ")".repeat(100)),
    (e: ParseError) => e.limit && /nests too deeply/.test(e.message),
  );
  throws(
    () => parse("true;".repeat(3000)),
    (e: ParseError) => e.limit && /too many/.test(e.message),
  );
  throws(
    () => parse(42 as unknown as string),
    /Expected the source to be a string/,
  );
});

test("parse() reads array assignments in the arguments of declaration builtins", () => {
  for (const builtin of ["declare", "typeset", "local", "export", "readonly"]) {
    for (const lead of ["", "builtin ", "command "]) {
      for (
        const [arg, inner] of [
          ["m=([k]=v)", null],
          ['a=(1 "two" $(echo three))', "echo"],
          ["a+=(\n4\n5\n)", null],
          ["a[2]=(x)", null],
          ["r=( `id` )", "id"],
        ] as const
      ) {
        const source = `${lead}${builtin} -a x=1 ${arg} y`;
        const command = parse(source).body[0].command;
        ok(command.type === "Simple", source);
        const words = command.words.map((w) => w.text);
        equal(words.at(-1), "y", source);
        ok(words.includes(arg), source);
        // What runs inside the elements is part of the word.
        const word = command.words.find((w) => w.text === arg)!;
        const substituted = word.parts.some((p) => p.type === "CmdSubst");
        equal(substituted, inner !== null, source);
      }
    }
  }
  // Other commands still refuse a bare `(`, as bash does.
  for (const source of ["echo a=(1)", "printf x=(1)", "env a=(1) true"]) {
    throws(() => parse(source), ParseError, source);
  }
});

test("parse() matches single quotes inside ${...} within double quotes, as bash's parser does", async () => {
  // A `}` between single quotes closes nothing, whatever the operator: bash
  // reads `"${x:-'}" '}"` as one word. A parser that did not would see a
  // different command than bash runs.
  const ops = ["", "/", "//", "#", "##", "%", "%%", ":-", "-", ":+", "+"];
  const more = ["=", ":=", ":?", "?", "^", "^^", ",", ",,", ":0:", "@"];
  for (const op of [...ops, ...more]) {
    const source = `echo "\${x${op}'}" '}" ; echo after`;
    const r = await exec(["bash", "-n"], { stdin: source });
    const script = parse(source);
    equal(r.exitCode === 0, true, `bash -n refused ${source}`);
    equal(script.body.length, 2, source);
    const first = script.body[0].command;
    ok(first.type === "Simple" && first.words.length === 2, source);
  }
  // The same text unbalanced is refused by both.
  throws(() => parse(`echo "\${x:-'}"`), ParseError);
});
