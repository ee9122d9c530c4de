import { deepEqual, ok } from "node:assert/strict";
import { exec } from "../mod.ts";
import { READ_ONLY } from "../policy/programs/mod.ts";
import type { Program } from "../policy/program.ts";
import { test } from "./_harness.ts";

/** Words in --help output that look like options but are not (placeholders, ranges). */
const NOT_OPTIONS: Record<string, string[]> = {
  diff: ["--GTYPE-group-format", "--LTYPE-line-format"],
  cut: ["-M"],
  // rg's help mentions find's --print0.
  rg: ["--print0"],
};

/** Builtins and programs whose --help is not theirs (bash's `help`). */
const SKIP = new Set([
  "hash",
  "cd",
  "pwd",
  "type",
  "jobs",
  "dirs",
  "times",
  "help",
  "read",
  "mapfile",
  "set",
  "printf",
  "echo",
  "test",
]);

test("Program tables list every option the installed program's --help names", async () => {
  const seen = new Set<Program>();
  const missing: string[] = [];
  const notInstalled: string[] = [];
  let checked = 0;
  for (const [name, program] of READ_ONLY) {
    if (seen.has(program) || !program.options || SKIP.has(name)) continue;
    seen.add(program);
    const r = await exec(
      [
        "bash",
        "-c",
        'command -v "$1" >/dev/null || exit 9; "$1" --help 2>&1',
        "_",
        name,
      ],
      { timeoutMs: 10_000 },
    );
    if (r.exitCode === 9) {
      notInstalled.push(name);
      continue;
    }
    checked++;
    const text = r.stdout.text;
    const table = program.options;
    const longs = new Set(
      (table.long ?? []).map((l) => l.replace(/=\??$/, "")),
    );
    const skip = NOT_OPTIONS[name] ?? [];
    for (const m of text.matchAll(/(?<![\w-])--([a-zA-Z][-a-zA-Z0-9]*)/g)) {
      if (!longs.has(m[1]) && !skip.includes(`--${m[1]}`)) {
        missing.push(`${name} --${m[1]}`);
      }
    }
    for (const m of text.matchAll(/(?:^\s+|,\s+)-([a-zA-Z0-9])\b/gm)) {
      if (!(table.short ?? "").includes(m[1]) && !skip.includes(`-${m[1]}`)) {
        missing.push(`${name} -${m[1]}`);
      }
    }
  }
  if (notInstalled.length > 0) {
    console.log(
      `not installed here, tables not compared: ${notInstalled.join(", ")}`,
    );
  }
  ok(checked >= 20, `${checked} programs compared`);
  deepEqual([...new Set(missing)], []);
});
