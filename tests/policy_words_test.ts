import { deepEqual, equal } from "node:assert/strict";
import { exec } from "../mod.ts";
import { parse } from "../shell/parse.ts";
import { wordArgs } from "../policy/words.ts";
import { test } from "./_harness.ts";

function argsOf(source: string): (string | null)[] {
  const cmd = parse(`printf %s ${source}`).body[0].command;
  if (cmd.type !== "Simple") {
    throw new Error(`Expected a simple command: ${source}`);
  }
  return cmd.words.slice(2).flatMap(wordArgs).map((a) => a.value);
}

/** Brace words generated from pieces: quoting, nesting, sequences, empty alternatives. */
function braceWords(): string[] {
  const atoms = [
    "a",
    "'b c'",
    '"-d"',
    "\\,",
    "",
    "-exec",
    "{x,y}",
    "{1..3}",
    "'{'",
    "e{f,g}h",
  ];
  const out = new Set<string>();
  for (const a of atoms) {
    for (const b of atoms) {
      out.add(`{${a},${b}}`);
      out.add(`p{${a},${b}}s`);
      out.add(`{${a},${b},z}{1..2}`);
    }
  }
  for (
    const w of [
      "{a..e..2}",
      "{5..1}",
      "{-2..2}",
      "{01..03}",
      "{a}",
      "{a,b",
      "a,b}",
      "{,}",
      "x{,}y",
      "{a,b}{c,d}{e,f}",
      "{{a,b},c}",
      "{x{a,b}}",
      "'{a,b}'",
      "\\{a,b}",
      "{a,b\\}",
      "{'a,b'}",
      '{"a",b}c',
      "{-o,out}",
      "-{o,u}",
      "{rm,-f,x}",
    ]
  ) out.add(w);
  return [...out];
}

test("wordArgs() makes the words bash makes by brace expansion", async () => {
  const words = braceWords();
  const script = words
    .map((w) => `for a in ${w}; do printf '%s\\0' "$a"; done; printf '\\1\\n'`)
    .join("\n");
  const r = await exec(["bash", "-c", script]);
  equal(r.exitCode, 0, r.stderr.text);
  const expected = r.stdout.text.split("\x01\n").slice(0, -1).map((chunk) =>
    chunk.split("\0").slice(0, -1)
  );
  const mismatches: string[] = [];
  words.forEach((w, i) => {
    const got = argsOf(w);
    if (JSON.stringify(got) !== JSON.stringify(expected[i])) {
      mismatches.push(
        `${w}: bash ${JSON.stringify(expected[i])}, policy ${
          JSON.stringify(got)
        }`,
      );
    }
  });
  deepEqual(mismatches, []);
});

test("wordArgs() describes words of unknown value", () => {
  const one = (s: string) => {
    const cmd = parse(`x ${s}`).body[0].command;
    if (cmd.type !== "Simple") throw new Error("expected a simple command");
    return wordArgs(cmd.words[1]);
  };
  deepEqual(one('"$x"').map((a) => [a.dash, a.many]), [[true, false]]);
  deepEqual(one("$x").map((a) => [a.dash, a.many]), [[true, true]]);
  deepEqual(one('"./$x"').map((a) => [a.dash, a.many, a.prefix]), [[
    false,
    false,
    "./",
  ]]);
  deepEqual(one('"$@"').map((a) => a.many), [true]);
  deepEqual(one("*.ts").map((a) => [a.dash, a.many]), [[true, true]]);
  deepEqual(one("src/*.ts").map((a) => [a.dash, a.many]), [[false, true]]);
  deepEqual(one("~/x").map((a) => [a.value, a.dash]), [[null, false]]);
  deepEqual(one("[").map((a) => a.value), ["["]);
  deepEqual(one("{$x,-o}").map((a) => a.value), [null, "-o"]);
  // Too many words to judge: one word that may be anything.
  const huge = one("x{a,b}".repeat(40));
  deepEqual(huge.map((a) => [a.value, a.dash, a.many]), [[null, true, true]]);
});
