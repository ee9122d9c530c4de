/**
 * Which program's exit status a command returns, read with the project's
 * bash parser: what softens `is_error` for "no match" exit codes.
 *
 * @module
 */

import { type Command, literal, parse, type Statement } from "./parse.ts";

/**
 * The name of the program whose exit status a command returns, found with the
 * project's bash parser: the last command of the last pipeline, of the right
 * side of `&&`/`||`, of a group or subshell, of the body of a loop, and of
 * every branch of an `if`/`case` when they agree; `!` and `time` are looked
 * through, and so are wrappers that return the wrapped program's status
 * (`command`, `exec`, `env`, `nice`, `nohup`, `stdbuf`, `timeout`, `sudo`).
 * Quotes, redirections and comments are read as bash reads them. Undefined
 * when it cannot be told (a syntax error, a name that is not literal). Used
 * only to soften `is_error`, never for security.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lastProgram } from "./last_program.ts";
 *
 * assert.equal(lastProgram("cd src && grep -rn TODO ."), "grep");
 * assert.equal(lastProgram("LC_ALL=C sort x | diff - y"), "diff");
 * assert.equal(lastProgram(`grep -E "a|b" f`), "grep");
 * assert.equal(lastProgram("grep -rn 'a\\|b' dir 2>&1"), "grep");
 * ```
 */
export function lastProgram(command: string): string | undefined {
  let body: Statement[];
  try {
    body = parse(command).body;
  } catch {
    return undefined;
  }
  return ofStatements(body, 0);
}

/** The last program of a list of statements. */
function ofStatements(
  body: readonly Statement[],
  depth: number,
): string | undefined {
  const last = body.at(-1);
  // A background job as the last statement leaves the status 0.
  if (last === undefined || last.background) return undefined;
  return ofCommand(last.command, depth + 1);
}

/** One program if every branch ends with it, else undefined. */
function agree(names: (string | undefined)[]): string | undefined {
  const first = names[0];
  return names.every((n) => n === first) ? first : undefined;
}

function ofCommand(command: Command, depth: number): string | undefined {
  if (depth > 64) return undefined;
  switch (command.type) {
    case "Simple":
      return simpleProgram(command.words.map(literal));
    case "Pipeline":
      return ofCommand(
        command.commands[command.commands.length - 1],
        depth + 1,
      );
    case "Logical":
      return ofCommand(command.right, depth + 1);
    case "Subshell":
    case "Group":
    case "Loop":
    case "For":
    case "ArithFor":
      return ofStatements(command.body, depth);
    case "If":
      return agree([
        ...command.clauses.map((c) => ofStatements(c.body, depth)),
        ...(command.otherwise ? [ofStatements(command.otherwise, depth)] : []),
      ]);
    case "Case":
      return agree(command.items.map((i) => ofStatements(i.body, depth)));
    case "Test":
      return "[[";
    case "ArithCmd":
      return "((";
    default:
      return undefined;
  }
}

/** Wrappers that exit with the status of the program they run, and how many operands they take first. */
const WRAPPERS: Record<string, { operands: number; valued: string[] }> = {
  command: { operands: 0, valued: [] },
  exec: { operands: 0, valued: ["-a"] },
  builtin: { operands: 0, valued: [] },
  nohup: { operands: 0, valued: [] },
  nice: { operands: 0, valued: ["-n"] },
  env: { operands: 0, valued: ["-u", "-C", "-S"] },
  stdbuf: { operands: 0, valued: ["-i", "-o", "-e"] },
  timeout: { operands: 1, valued: ["-s", "-k", "--signal", "--kill-after"] },
  sudo: { operands: 0, valued: ["-u", "-g", "-C", "-D", "-h", "-p", "-U"] },
};

/** The program a simple command's words run, wrappers taken off. */
function simpleProgram(words: (string | null)[]): string | undefined {
  let i = 0;
  for (let n = 0; n < 8; n++) {
    const word = words[i];
    if (word === undefined || word === null) return undefined;
    const name = word.slice(word.lastIndexOf("/") + 1);
    const wrapper = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
    if (wrapper === undefined) return name === "" ? undefined : name;
    if (name === "command" && /^-[pvV]*[vV]/.test(words[i + 1] ?? "")) {
      return name;
    }
    i++;
    // Options (and their values), then assignments for env, then operands.
    while (i < words.length) {
      const w = words[i];
      if (w === null) return undefined;
      if (w === "--") {
        i++;
        break;
      }
      if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
      else if (name === "nice" && /^-[0-9]+$/.test(w)) i++;
      else if (w.startsWith("-") && w !== "-") {
        i += wrapper.valued.includes(w) ? 2 : 1;
      } else break;
    }
    i += wrapper.operands;
    if (i >= words.length) return name;
  }
  return undefined;
}
