/**
 * The rule engine: walks every simple command a bash string would run (in
 * lists, pipelines, subshells, control flow, every substitution, `bash -c`
 * and `eval` strings, wrapped commands, `find -exec`), makes its words as
 * bash would (braces expanded), and decides allow / ask / deny. The
 * read-only preset allows a command only when every word is understood.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

import {
  type Assignment,
  type Command,
  literal,
  parse,
  ParseError,
  type Redirect,
  type Statement,
  type Word,
  type WordPart,
} from "../shell/parse.ts";
import { dangerousName, harmlessName } from "./env.ts";
import { posixShProblem } from "./posix_sh.ts";
import type { Arg } from "./options.ts";
import { judgeProgram } from "./program.ts";
import { READ_ONLY } from "./programs/mod.ts";
import { reservedName, reservedReason, reservedWord } from "./reserved.ts";
import { basename, matches, parseRule, type Rule } from "./rules.ts";
import type { Containment } from "../core/containment.ts";
import { checkContainment } from "./contain.ts";
import { wordsArgs } from "./words.ts";
import { UNSEEN, WRAPPERS } from "./wrappers.ts";
export type { Containment } from "../core/containment.ts";

/** What to do with a command. */
export type Decision = "allow" | "ask" | "deny";

/** The verdict on one command string. */
export interface PolicyResult {
  /** The strictest decision over every simple command found. */
  decision: Decision;
  /** Why, naming the command or construct that decided. */
  reason: string;
  /** The argv of each simple command found (non-literal words as their source text). */
  commands: string[][];
}

/** Options of a {@linkcode Policy}. */
export interface PolicyOptions {
  /** Rules that allow: a command name or a word prefix (`git status`, `npm run test:*`). */
  allow?: readonly string[];
  /** Rules that ask a person first. */
  ask?: readonly string[];
  /** Rules that refuse. Deny wins over ask, ask over allow. */
  deny?: readonly string[];
  /** The decision for a command no rule matches (default "ask"). */
  default?: Decision;
  /**
   * What the policy promises about effects, for the kernel to keep: paths
   * commands may write (`"."`: the working directory) and whether they may
   * reach the network. A policy with a promise has its sessions contained
   * (`BashTool`, `SessionPool`, MCP, CLI); `Policy.readOnly()` promises no
   * writes and no network. Default: no promise (the rules alone judge).
   */
  contain?: { writable?: readonly string[]; network?: boolean };
}

/** Options of {@linkcode Policy.check}. */
export interface CheckOptions {
  /**
   * The command runs in a session that keeps the policy's promise: what the
   * parser cannot prove (a variable, a substitution, an unlisted program
   * under the preset, a string run by `bash -c`) is allowed and contained.
   * Rules, reserved names, known writes and changes to how later commands
   * run are judged as without it.
   */
  contained?: boolean;
}

/** "The x" -> "the x", leaving names and quoted words alone. */
function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text)
    ? text[0].toLowerCase() + text.slice(1)
    : text;
}

const SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

const OPTION_KEYS = ["allow", "ask", "deny", "default", "contain"];

/**
 * Refuses options with a key the policy does not know (a misspelt `deni`
 * would otherwise be ignored and `rm` would run) or a rule list that is not
 * an array of strings, naming the key and what was expected.
 */
function checkOptions(options: PolicyOptions): void {
  if (
    options === null || typeof options !== "object" || Array.isArray(options)
  ) {
    throw new TypeError(
      `Expected the policy options to be an object, got ${
        Array.isArray(options) ? "an array" : JSON.stringify(options)
      }`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      throw new TypeError(
        `Unknown policy option "${key}": expected one of ${
          OPTION_KEYS.join(", ")
        }`,
      );
    }
  }
  for (const key of ["allow", "ask", "deny"] as const) {
    const list: unknown = options[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      throw new TypeError(
        `Expected ${key} to be an array of rules (strings), got ${
          JSON.stringify(list)
        }`,
      );
    }
    list.forEach((rule, i) => {
      if (typeof rule !== "string") {
        throw new TypeError(
          `Expected ${key}[${i}] to be a rule (a string), got ${
            JSON.stringify(rule)
          }`,
        );
      }
    });
  }
}

const SHELLS = new Set([
  "bash",
  "sh",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "ash",
  "busybox",
  "fish",
  "csh",
  "tcsh",
]);

/** Builtins that read words into variables: IFS before them splits only that. */
const READS = new Set(["read", "mapfile", "readarray"]);

/** Shells that read POSIX sh (dash, or bash as sh where sh is bash). */
const POSIX_SHELLS = new Set(["sh", "dash", "ash"]);

/** Options through which a program an allow rule names runs another program. */
const RUNS_PROGRAM =
  /^--?(script-shell|shell|node-options|userconfig|globalconfig|init-module|editor|browser|viewer|call|eval|require|import|loader|experimental-loader|exec-path|config-env|upload-pack|receive-pack|pre|ext-diff|textconv|output)(=|$)/;

/** Programs with options that run another program (package managers, build tools, git). */
const RUNNERS = new Set([
  "npm",
  "npx",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "node",
  "make",
  "cargo",
  "go",
  "git",
  "python",
  "python3",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "mvn",
  "gradle",
  "docker",
]);

type Mode = "rules" | "readOnly" | "allowAll";

interface Finding {
  decision: Decision;
  reason: string;
  /** Stands under containment (see {@linkcode Walker.add}). */
  firm: boolean;
}

/**
 * Judges bash commands before they run. Every simple command counts,
 * wherever it stands; deny wins over ask, ask over allow; anything the policy
 * cannot read for certain (a parse error, a non-literal command name, a
 * path-qualified name no rule names, code-running expansions) is never
 * allowed.
 *
 * @example Rules
 * ```ts
 * import assert from "node:assert/strict";
 * import { Policy } from "./engine.ts";
 *
 * const policy = new Policy({ allow: ["git status", "npm run test:*"], deny: ["rm"] });
 * assert.equal(policy.check("git status --short").decision, "allow");
 * assert.equal(policy.check("npm run test:unit").decision, "allow");
 * assert.equal(policy.check("git status; r''m -rf /").decision, "deny");
 * assert.equal(policy.check("make").decision, "ask");
 * ```
 *
 * @example The read-only preset
 * ```ts
 * import assert from "node:assert/strict";
 * import { Policy } from "./engine.ts";
 *
 * const ro = Policy.readOnly();
 * assert.equal(ro.check("git log --oneline -5 | head").decision, "allow");
 * assert.notEqual(ro.check("find . -name '*.ts' -delete").decision, "allow");
 * assert.notEqual(ro.check("echo x > out.txt").decision, "allow");
 * ```
 */
export class Policy {
  readonly #allow: Rule[];
  readonly #ask: Rule[];
  readonly #deny: Rule[];
  readonly #default: Decision;
  #promise: Containment | null;
  #mode: Mode = "rules";

  /** Creates a policy from rules; commands no rule matches get `default` ("ask"). */
  constructor(options: PolicyOptions = {}) {
    checkOptions(options);
    this.#allow = (options.allow ?? []).map(parseRule);
    this.#ask = (options.ask ?? []).map(parseRule);
    this.#deny = (options.deny ?? []).map(parseRule);
    const d = options.default ?? "ask";
    if (!(d in SEVERITY)) {
      throw new TypeError(
        `Expected default to be "allow", "ask" or "deny", got ${
          JSON.stringify(d)
        }`,
      );
    }
    this.#default = d;
    this.#promise = options.contain === undefined
      ? null
      : checkContainment(options.contain);
  }

  /**
   * What the policy promises about effects (null: none), which a contained
   * session keeps.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Policy } from "./engine.ts";
   *
   * assert.deepEqual(Policy.readOnly().promise, { writable: [], network: false });
   * assert.equal(new Policy({ allow: ["ls"] }).promise, null);
   * ```
   */
  get promise(): Containment | null {
    return this.#promise;
  }

  /**
   * The read-only preset: the usual inspection tools, each with its full
   * option table; a command is allowed only when every word is understood.
   * No writes through redirections, no session-changing builtins. Extra
   * rules may be added.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Policy } from "./engine.ts";
   *
   * assert.equal(Policy.readOnly().check("sed -n 1,5p README.md").decision, "allow");
   * assert.notEqual(Policy.readOnly().check("sed --in s/a/b/ f").decision, "allow");
   * ```
   */
  static readOnly(extra: Omit<PolicyOptions, "default"> = {}): Policy {
    const p = new Policy({ ...extra, default: "ask" });
    p.#mode = "readOnly";
    p.#promise ??= { writable: [], network: false };
    return p;
  }

  /**
   * Allows everything except what deny (or ask) rules name; the rules match
   * through wrappers (`env rm`, `xargs rm`), paths (`/bin/rm`), braces
   * (`{rm,x}`) and `bash -c` / `eval` strings, and a command whose name
   * cannot be known before it runs is asked about when rules exist.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Policy } from "./engine.ts";
   *
   * const p = Policy.allowAll({ deny: ["rm"] });
   * assert.equal(p.check("make && ./run").decision, "allow");
   * assert.equal(p.check("bash -c 'command /bin/rm -rf x'").decision, "deny");
   * ```
   */
  static allowAll(extra: Pick<PolicyOptions, "ask" | "deny"> = {}): Policy {
    const p = new Policy({ ...extra, default: "allow" });
    p.#mode = "allowAll";
    return p;
  }

  /**
   * Judges one command string.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Policy } from "./engine.ts";
   *
   * const r = Policy.readOnly().check("cat a | grep -c b");
   * assert.equal(r.decision, "allow");
   * assert.deepEqual(r.commands, [["cat", "a"], ["grep", "-c", "b"]]);
   * ```
   */
  check(command: string, options: CheckOptions = {}): PolicyResult {
    if (typeof command !== "string") {
      return {
        decision: "deny",
        reason: `Expected the command to be a string, got ${typeof command}`,
        commands: [],
      };
    }
    let script;
    try {
      script = parse(command);
    } catch (error) {
      if (error instanceof ParseError) {
        return {
          decision: "deny",
          reason: error.limit
            ? error.message
            : `The command does not parse: ${error.message}`,
          commands: [],
        };
      }
      throw error;
    }
    const walker = new Walker(this.#view());
    walker.statements(script.body, 0);
    if (walker.findings.length === 0) {
      return {
        decision: "allow",
        reason: "The command runs nothing",
        commands: walker.argvs,
      };
    }
    const contained = options?.contained === true;
    const findings = walker.findings.map((f): Finding =>
      contained && !f.firm && f.decision !== "allow"
        ? {
          decision: "allow",
          reason: `contained: ${lowerFirst(f.reason)}`,
          firm: false,
        }
        : f
    );
    let worst = findings[0];
    for (const f of findings) {
      if (SEVERITY[f.decision] > SEVERITY[worst.decision]) worst = f;
    }
    if (worst.decision === "allow") {
      // What allowed it, in the policy's words: "ls is read-only; wc is
      // read-only" (three at most).
      // (What containment allowed comes first: it is what the reader needs.)
      const reasons = [
        ...new Set(
          findings.map((f) => f.reason).sort((x, y) =>
            Number(!x.startsWith("contained: ")) -
            Number(!y.startsWith("contained: "))
          ),
        ),
      ];
      worst = {
        firm: false,
        decision: "allow",
        reason: reasons.length > 3
          ? `${reasons.slice(0, 3).join("; ")}; and ${
            reasons.length - 3
          } more allowed`
          : reasons.join("; "),
      };
    }
    return {
      decision: worst.decision,
      reason: worst.reason,
      commands: walker.argvs,
    };
  }

  #view(): View {
    return {
      mode: this.#mode,
      promise: this.promise,
      allow: this.#allow,
      ask: this.#ask,
      deny: this.#deny,
      default: this.#default,
    };
  }
}

/** What the walker needs of a policy. */
interface View {
  mode: Mode;
  promise: Containment | null;
  allow: Rule[];
  ask: Rule[];
  deny: Rule[];
  default: Decision;
}

const MAX_DEPTH = 8;

/** Walks the AST and collects a finding for everything that runs or changes state. */
class Walker {
  readonly findings: Finding[] = [];
  readonly argvs: string[][] = [];
  readonly #p: View;

  constructor(view: View) {
    this.#p = view;
  }

  get strict(): boolean {
    return this.#p.mode !== "allowAll";
  }

  get readOnly(): boolean {
    return this.#p.mode === "readOnly";
  }

  /** Rules exist that a hidden command could evade. */
  get guarded(): boolean {
    return this.strict || this.#p.deny.length > 0 || this.#p.ask.length > 0;
  }

  /**
   * Records a finding. A firm one (a rule, a reserved name, a known write,
   * a change to how later commands run) stands under containment too; any
   * other is something the parser cannot prove, which a contained session
   * may run because the kernel keeps the promise.
   */
  add(decision: Decision, reason: string, firm = false): void {
    this.findings.push({ decision, reason, firm });
  }

  /** Whether a literal write target is the scratch /tmp or a path the policy promises writable. */
  writable(target: string): boolean {
    if (/(^|\/)\.\.(\/|$)/.test(target)) return false;
    if (/^\/tmp\/./.test(target)) return true;
    const promise = this.#p.promise;
    if (promise === null || target.startsWith("~")) return false;
    return promise.writable.some((w) => {
      if (w === "." || w === "./") return !target.startsWith("/");
      const base = w.replace(/\/+$/, "");
      return target === base || target.startsWith(`${base}/`);
    });
  }

  /**
   * Arithmetic, subscripts and indirection evaluate a value an earlier call
   * may have set, which can run any command: refused wherever rules guard
   * (deny and ask rules included), like a command name from an expansion.
   */
  evaluated(decision: Decision, reason: string): void {
    if (this.guarded) this.add(decision, reason);
  }

  /** A structural problem: refused unless the policy allows everything. */
  refuse(decision: Decision, reason: string, firm = false): void {
    if (this.strict) this.add(decision, reason, firm);
  }

  statements(list: Statement[], depth: number): void {
    for (const s of list) this.command(s.command, depth);
  }

  command(c: Command, depth: number): void {
    switch (c.type) {
      case "Simple":
        return this.simple(c.assigns, c.words, c.redirects, depth);
      case "Pipeline":
        c.commands.forEach((x) => this.command(x, depth));
        return;
      case "Logical":
        this.command(c.left, depth);
        this.command(c.right, depth);
        return;
      case "Subshell":
      case "Group":
        this.statements(c.body, depth);
        return this.redirects(c.redirects, depth);
      case "If":
        for (const cl of c.clauses) {
          this.statements(cl.cond, depth);
          this.statements(cl.body, depth);
        }
        if (c.otherwise) this.statements(c.otherwise, depth);
        return this.redirects(c.redirects, depth);
      case "Loop":
        this.statements(c.cond, depth);
        this.statements(c.body, depth);
        return this.redirects(c.redirects, depth);
      case "For":
        if (reservedName(c.name)) {
          this.add("deny", reservedReason(c.name), true);
        }
        if (dangerousName(c.name)) {
          this.refuse(
            "deny",
            `The loop sets ${c.name}, which changes how commands run`,
            true,
          );
        }
        c.items?.forEach((w) => this.word(w, depth));
        this.statements(c.body, depth);
        return this.redirects(c.redirects, depth);
      case "ArithFor":
        this.arith(c.exprs.join(";"), c.inner, depth);
        this.statements(c.body, depth);
        return this.redirects(c.redirects, depth);
      case "Case":
        this.word(c.word, depth);
        for (const item of c.items) {
          item.patterns.forEach((w) => this.word(w, depth));
          this.statements(item.body, depth);
        }
        return this.redirects(c.redirects, depth);
      case "Function":
        if (reservedName(c.name)) {
          this.add("deny", reservedReason(`The function ${c.name}`), true);
        }
        this.refuse(
          this.readOnly ? "deny" : "ask",
          `Defining the function "${c.name}" changes later commands`,
        );
        this.command(c.body, depth);
        return this.redirects(c.redirects, depth);
      case "ArithCmd":
        this.arith(c.expr, c.inner, depth);
        return this.redirects(c.redirects, depth);
      case "Test":
        this.testWords(c.words, depth);
        return this.redirects(c.redirects, depth);
      case "Coproc":
        this.refuse("ask", "coproc is not supported by the policy");
        this.command(c.body, depth);
        return;
    }
  }

  testWords(words: Word[], depth: number): void {
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      this.word(w, depth);
      const text = literal(w);
      if (text === "-v" || text === "-R") {
        this.evaluated("deny", `[[ ${text} ]] evaluates array subscripts`);
      }
      if (text !== null && /^-(eq|ne|lt|le|gt|ge)$/.test(text)) {
        for (const side of [words[i - 1], words[i + 1]]) {
          const v = side ? literal(side) : null;
          if (v === null || !/^\s*[+-]?\d+\s*$/.test(v)) {
            this.evaluated(
              "deny",
              `[[ ${text} ]] evaluates its operands as arithmetic`,
            );
          }
        }
      }
    }
  }

  /**
   * Arithmetic evaluates the value of every variable it names as an
   * expression of its own, recursively: a value set by an earlier call
   * (`a='x[$(cmd)]'`) runs the substitution in its subscript. So any name
   * (whatever its letters: `a` looks like a hex digit but is a variable)
   * or expansion in arithmetic is a value the policy cannot know.
   */
  arith(expr: string, inner: Word[], depth: number): void {
    inner.forEach((w) => this.word(w, depth));
    const reserved = /__bb|_\+/.exec(expr);
    if (reserved) {
      this.add("deny", reservedReason(expr.trim()), true);
      return;
    }
    const plain = expr.replace(
      /\b(0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+)/g,
      "0",
    );
    if (!/^[\s0-9+\-*/%()<>=!&|^~?:,]*$/.test(plain)) {
      const name = /\$?\{?[A-Za-z_][A-Za-z0-9_]*|\$\S?/.exec(plain)?.[0] ??
        expr.trim();
      // Any command may run through it: deny and ask rules are evaded too.
      if (this.guarded) {
        this.add(
          "ask",
          `Arithmetic on ${name} evaluates its value as an expression, which can run a command (a value such as 'a[$(cmd)]' set by an earlier call)`,
        );
      }
    }
  }

  /**
   * Under the read-only preset, an environment variable bashbox does not
   * know is a value it cannot judge: programs load code, configuration or
   * toolchains from such variables (RUSTUP_TOOLCHAIN, OPENSSL_CONF, ...).
   * Before a command the assignment is exported to it; on its own it changes
   * the variable for later commands when it is already exported, which a
   * name of capitals, digits and underscores may be. A name with a
   * lowercase letter on its own line is a shell variable.
   */
  environment(name: string, exported: boolean): void {
    if (harmlessName(name) || dangerousName(name) || reservedName(name)) {
      return;
    }
    if (exported) {
      this.add(
        "ask",
        `${name}=… sets an environment variable bashbox does not know for the command: a program may load or run code from it`,
      );
    } else if (/^[A-Z_][A-Z0-9_]*$/.test(name)) {
      this.add(
        "ask",
        `${name}=… may change an exported environment variable bashbox does not know for later commands: a program may load or run code from it`,
      );
    }
  }

  assignment(a: Assignment, depth: number, split = false): void {
    if (reservedName(a.name)) this.add("deny", reservedReason(a.name), true);
    if (dangerousName(a.name) && !split) {
      this.refuse("deny", `Setting ${a.name} changes how commands run`, true);
    }
    if (a.index !== undefined && !/^\s*\d+\s*$/.test(a.index)) {
      this.evaluated(
        "ask",
        `The subscript of ${a.name}[${a.index}] is evaluated as arithmetic`,
      );
    }
    if (a.value) this.word(a.value, depth);
    for (const w of a.array ?? []) {
      this.word(w, depth);
      const sub = /^\[(.*?)\]\+?=/s.exec(w.text);
      if (w.text.startsWith("[") && !(sub && /^\s*\d+\s*$/.test(sub[1]))) {
        this.evaluated(
          "ask",
          `The subscript in ${a.name}=(${w.text}) is evaluated when assigned`,
        );
      }
    }
  }

  redirects(list: Redirect[], depth: number): void {
    for (const r of list) {
      this.word(r.target, depth);
      if (r.heredoc) {
        this.word(r.heredoc.body, depth);
        continue;
      }
      if (r.op === "<<" || r.op === "<<-" || r.op === "<<<") continue;
      const target = literal(r.target);
      if (target !== null && /^\/dev\/(tcp|udp)\//.test(target)) {
        this.refuse(
          "deny",
          `Redirection to ${target} opens a network connection`,
          true,
        );
        continue;
      }
      if (
        target !== null &&
        /^\/(dev\/fd|proc\/(self|\d+)\/fd)\/(\d*[3-9]|\d{2,})/.test(target)
      ) {
        this.refuse(
          "ask",
          `Redirection to ${target} uses a descriptor the command did not open`,
        );
        continue;
      }
      if (r.fd?.startsWith("{") && reservedName(r.fd.slice(1, -1))) {
        this.add("deny", reservedReason(r.fd), true);
      }
      if (r.fd?.startsWith("{")) {
        this.refuse(
          "ask",
          "Redirections that allocate a descriptor ({var}>) change the session",
        );
      }
      if (r.op === ">&" || r.op === "<&") {
        if (target !== null && /^(\d+-?|-)$/.test(target)) {
          if (!/^[012]-?$|^-$/.test(target)) {
            this.refuse(
              "ask",
              `${r.op}${target} uses a descriptor the command did not open`,
            );
          }
          continue;
        }
        if (r.op === "<&") {
          this.refuse(
            "ask",
            `<&${r.target.text} duplicates an unknown descriptor`,
          );
          continue;
        }
      }
      if (target === null) {
        // The file is named at run time: it may be /dev/tcp/... or anything.
        this.refuse(
          this.readOnly && r.op !== "<" ? "deny" : "ask",
          `The redirection target ${r.target.text} is known only at run time`,
        );
        continue;
      }
      if (!this.strict) continue;
      if (r.op === "<") continue;
      if (
        target === "/dev/null" || target === "/dev/stdout" ||
        target === "/dev/stderr"
      ) continue;
      // A write: refused by the preset; a custom policy has no rule for
      // writes, so it gets the decision for what no rule matches.
      const decision = this.readOnly ? "deny" : this.#p.default;
      // Under containment a write to the scratch /tmp or to a path the
      // policy promises writable is the kernel's to keep.
      const firm = !this.writable(target);
      if (r.op === "<>") {
        this.add(decision, "<> opens a file for writing", firm);
        continue;
      }
      this.add(decision, `Output redirection to ${target} writes a file`, firm);
    }
  }

  word(w: Word, depth: number): void {
    for (const part of w.parts) this.part(part, depth);
  }

  part(part: WordPart, depth: number): void {
    switch (part.type) {
      case "Lit":
        return;
      case "Param": {
        part.inner.forEach((w) => this.word(w, depth));
        const op = part.op;
        if (/@P/.test(op)) {
          this.refuse(
            "deny",
            `\${${part.name}${op}} expands prompt escapes, which run commands`,
          );
        }
        if (op.startsWith("!")) {
          this.evaluated("ask", `\${!${part.name}} is an indirect expansion`);
        }
        if (/^(\[[^\]]*\])?:?=/.test(op) && reservedName(part.name)) {
          this.add("deny", reservedReason(`\${${part.name}${op}}`), true);
        }
        if (/^(\[[^\]]*\])?:?=/.test(op) && dangerousName(part.name)) {
          this.refuse(
            "deny",
            `\${${part.name}${op}} assigns ${part.name}, which changes how commands run`,
            true,
          );
        }
        const sub = /^\[([^\]]*)\]/.exec(op.replace(/^[!#]/, ""));
        if (sub && !/^(\s*\d+\s*|@|\*)$/.test(sub[1])) {
          this.evaluated(
            "ask",
            `The subscript [${sub[1]}] is evaluated as arithmetic`,
          );
        }
        // ${x:offset:length}, ${a[@]:offset}: offsets are arithmetic.
        const slice = op.replace(/^!?\[[^\]]*\]/, "");
        if (
          /^:?[-=?+]/.test(slice) === false && /^\s*:\s*[^-=?+]/.test(slice)
        ) {
          if (!/^:\s*-?\d+(\s*:\s*-?\d+)?$/.test(slice)) {
            this.evaluated(
              "ask",
              `The offset in \${${part.name}${op}} is arithmetic`,
            );
          }
        }
        return;
      }
      case "CmdSubst":
      case "ProcSubst":
        return this.statements(part.body, depth);
      case "Arith":
        return this.arith(part.expr, part.inner, depth);
    }
  }

  simple(
    assigns: Assignment[],
    words: Word[],
    redirects: Redirect[],
    depth: number,
  ): void {
    const first = words.length > 0 ? literal(words[0]) : null;
    for (const a of assigns) {
      // IFS before read, mapfile or readarray splits what they read, only.
      const split = a.name === "IFS" && a.index === undefined &&
        first !== null && READS.has(first);
      this.assignment(a, depth, split);
      if (this.readOnly && !split) this.environment(a.name, words.length > 0);
    }
    words.forEach((w) => this.word(w, depth));
    this.redirects(redirects, depth);
    if (words.length === 0) return;
    const argv = wordsArgs(words);
    this.argvs.push(argv.map((a) => a.value ?? a.text));
    this.argv(argv, depth);
  }

  /** Parses a string bash will run (`bash -c`, `eval`) and walks it. */
  nested(source: string, what: string, depth: number): void {
    let script;
    try {
      script = parse(source);
    } catch (error) {
      if (error instanceof ParseError) {
        this.add("ask", `The string ${what} runs does not parse`);
        return;
      }
      throw error;
    }
    this.statements(script.body, depth + 1);
  }

  argv(argv: Arg[], depth: number): void {
    if (argv.length === 0) return;
    if (depth > MAX_DEPTH) {
      this.add("ask", "Too many nested wrappers or shells");
      return;
    }
    const p = this.#p;
    for (const rule of p.deny) {
      if (matches(rule, argv, true)) {
        this.add("deny", `"${rule.text}" is denied`, true);
        return;
      }
    }
    for (const rule of p.ask) {
      if (matches(rule, argv, true)) {
        this.add("ask", `"${rule.text}" needs approval`, true);
        return;
      }
    }
    this.hidden(argv);
    const name = argv[0].value;
    if (name === null) {
      if (this.guarded) {
        this.add(
          "ask",
          "The command name is not literal (it comes from an expansion)",
        );
      }
      return;
    }
    const base = basename(name);
    const args = argv.slice(1);
    // let's words are arithmetic, whatever rule allows let.
    if (base === "let") {
      for (const a of args) this.arith(a.value ?? a.text, [], depth);
    }
    const reserved = reservedWord(base, args);
    if (reserved && !reserved.unknown) {
      this.add("deny", reservedReason(`${base} ${reserved.text}`), true);
      return;
    }
    if (reserved?.unknown && this.guarded) {
      this.add(
        "ask",
        `${base} ${reserved.text}: a name known only at run time may be one reserved for bashbox's framing (__bb*, _+*)`,
        true,
      );
      return;
    }
    // Words that run other commands: check what they run.
    if (this.unwrap(base, name, args, depth)) return;
    const explicit = p.allow.find((rule) => matches(rule, argv, false));
    if (explicit) {
      const bad = args.find((a) =>
        a.value !== null && (RUNS_PROGRAM.test(a.value) ||
          (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a.value) &&
            dangerousName(a.value.slice(0, a.value.indexOf("=")))))
      );
      // A word of unknown value after the rule's words could be such an
      // option too (unless it follows a literal --).
      const end = args.findIndex((a) => a.value === "--");
      const unknown = RUNNERS.has(base) &&
        args.find((a, i) =>
          i >= explicit.words.length - 1 && (end < 0 || i < end) &&
          a.value === null && (a.dash || a.many)
        );
      if (unknown && !bad) {
        this.add(
          "ask",
          `${base} ${unknown.text} is known only at run time and could be an option that runs another program`,
        );
        return;
      }
      if (bad) {
        this.add(
          "ask",
          `${base} ${bad.text} can make the program run another program`,
        );
        return;
      }
      this.add("allow", `"${explicit.text}" is allowed`);
      return;
    }
    if (p.mode === "allowAll") {
      this.add("allow", "Everything is allowed");
      return;
    }
    if (name.includes("/")) {
      this.add(
        "ask",
        `The path-qualified command "${name}" is not allowed by any rule`,
      );
      return;
    }
    const state = stateChange(base, args);
    if (state) {
      // A value evaluated as arithmetic is unknown, not a known change.
      if (typeof state === "string") this.add("deny", state, true);
      else this.add("deny", state.unknown);
      return;
    }
    if (p.mode === "readOnly") {
      const program = READ_ONLY.get(name);
      if (program !== undefined) {
        let judged = args;
        if (name === "find") {
          const rest = this.findExec(args, depth);
          if (rest === null) return;
          judged = rest;
        }
        const problem = judgeProgram(program, name, judged);
        if (problem) {
          this.add(
            problem.decision,
            problem.reason,
            problem.decision === "deny",
          );
        } else this.add("allow", `${name} is read-only`);
        return;
      }
    }
    this.add(p.default, noRule(name, p.mode), p.mode !== "readOnly");
  }

  /**
   * A program bashbox does not know may run its words as a command (`watch
   * 'rm x'`, `flock f rm`, `script -c`): a word naming what a deny or ask
   * rule names is asked about.
   */
  hidden(argv: Arg[]): void {
    const p = this.#p;
    if (p.deny.length === 0 && p.ask.length === 0) return;
    const names = new Set(
      [...p.deny, ...p.ask].map((r) => basename(r.words[0])),
    );
    for (const a of argv.slice(1)) {
      if (a.value === null) continue;
      for (const token of a.value.split(/[\s;&|()`$<>{},'"=]+/)) {
        if (token !== "" && names.has(basename(token))) {
          this.add(
            "ask",
            `The word ${JSON.stringify(a.value)} names "${
              basename(token)
            }", which a rule names: it may run it`,
            true,
          );
          return;
        }
      }
    }
  }

  /**
   * `find -exec CMD ... ;` and `-execdir` run CMD directly (no shell) with
   * `{}` replaced by a path that cannot begin with `-`: CMD is judged as a
   * command of its own (a `+` list may be several paths). Returns find's
   * words without those actions, or null when they cannot be read.
   */
  findExec(args: Arg[], depth: number): Arg[] | null {
    const rest: Arg[] = [];
    for (let i = 0; i < args.length; i++) {
      const v = args[i].value;
      if (v !== "-exec" && v !== "-execdir") {
        rest.push(args[i]);
        continue;
      }
      const inner: Arg[] = [];
      let end: string | null = null;
      for (i++; i < args.length; i++) {
        const w = args[i].value;
        if (w === ";" || (w === "+" && inner.at(-1)?.value === "{}")) {
          end = w;
          break;
        }
        inner.push(args[i]);
      }
      if (end === null || inner.length === 0) {
        this.add("ask", `find ${v} without its command and terminator`);
        return null;
      }
      this.argv(
        inner.map((a) => {
          if (a.value === null || !a.value.includes("{}")) return a;
          const prefix = a.value.slice(0, a.value.indexOf("{}"));
          return {
            value: null,
            text: a.text,
            dash: prefix.startsWith("-"),
            many: end === "+",
            prefix,
          };
        }),
        depth + 1,
      );
    }
    return rest;
  }

  /** Handles wrappers, shells, eval and find -exec; true when it decided. */
  unwrap(base: string, name: string, args: Arg[], depth: number): boolean {
    const wrapper = WRAPPERS[base];
    if (wrapper !== undefined) {
      const out = wrapper(args);
      if (typeof out === "string") {
        if (this.guarded) this.add("ask", out);
        else this.add("allow", "Everything is allowed");
        return true;
      }
      for (const a of out.assigns ?? []) {
        if (dangerousName(a)) {
          this.refuse("deny", `Setting ${a} changes how commands run`, true);
        } else if (this.readOnly) this.environment(a, true);
      }
      if (base === "sudo" || base === "doas") {
        this.refuse(
          this.readOnly ? "deny" : "ask",
          `${base} runs a command as another user`,
          true,
        );
      }
      if (base === "exec" && out.inner.length > 0) {
        this.refuse(
          this.readOnly ? "deny" : "ask",
          "exec replaces the shell",
          true,
        );
      }
      const self = this.#p.allow.some((rule) =>
        rule.words.length === 1 &&
        (rule.words[0] === name ||
          (!name.includes("/") && rule.words[0] === base))
      );
      if (name.includes("/") && this.strict && !self) {
        this.add(
          "ask",
          `The path-qualified command "${name}" is not allowed by any rule`,
        );
      }
      let inner = out.inner;
      if (out.replace !== undefined) {
        const r = out.replace;
        inner = inner.map((a) =>
          a.value?.includes(r) ? { ...UNSEEN, text: a.text } : a
        );
      } else if (out.addsWords) inner = [...inner, UNSEEN];
      if (inner.length === 0 && base === "exec") {
        this.refuse(
          this.readOnly ? "deny" : "ask",
          "exec without a command changes the shell's descriptors for later commands",
          true,
        );
        return true;
      }
      if (inner.length === 0) {
        if (this.#p.mode === "rules" && !self) {
          this.add(this.#p.default, noRule(base, this.#p.mode), true);
        } else this.add("allow", `${base} runs nothing`);
        return true;
      }
      if (
        this.#p.mode === "rules" && base !== "command" && base !== "builtin" &&
        !self
      ) {
        // A custom policy must allow the wrapper itself too.
        this.add(this.#p.default, noRule(base, this.#p.mode), true);
      }
      this.argv(inner, depth + 1);
      return true;
    }
    if (SHELLS.has(base)) {
      let i = 0;
      let command: Arg | undefined;
      let flags = "";
      for (; i < args.length; i++) {
        const v = args[i].value;
        if (v === null || !/^[-+][a-zA-Z]+$/.test(v)) break;
        flags += v.slice(1);
        if (v.startsWith("-") && v.includes("c")) {
          command = args[i + 1];
          break;
        }
      }
      if (command === undefined) {
        if (args.length === 1 && args[0].value === "--version") return false;
        if (this.guarded) {
          this.add("ask", `${base} runs a script or reads commands`);
        } else this.add("allow", "Everything is allowed");
        return true;
      }
      if (command.value === null) {
        if (this.guarded) {
          this.add("ask", `${base} -c runs a string known only at run time`);
        }
        return true;
      }
      if (this.strict && !/^[ceuxo]*$/.test(flags.replace(/^-/, ""))) {
        this.add("ask", `${base} -${flags} may read startup files`);
      }
      if (POSIX_SHELLS.has(base)) {
        // dash reads what bash reads only without bash-only syntax.
        const differs = posixShProblem(command.value);
        if (differs && this.guarded) this.add("ask", `${base} -c: ${differs}`);
      } else if (base !== "bash" && this.guarded) {
        this.add(
          "ask",
          `${base} -c reads its string with a grammar bashbox does not parse`,
        );
      }
      this.nested(command.value, `${base} -c`, depth);
      return true;
    }
    if (base === "eval") {
      if (args.some((a) => a.value === null)) {
        if (this.guarded) {
          this.add("ask", "eval runs text known only at run time");
        }
        return true;
      }
      this.nested(args.map((a) => a.value).join(" "), "eval", depth);
      return true;
    }
    if (base === "source" || base === ".") {
      if (this.guarded) this.add("ask", `${base} runs commands from a file`);
      return true;
    }
    if (base === "find" && !this.readOnly) {
      // find -exec COMMAND ... ; : the rules apply to COMMAND too.
      for (let i = 0; i < args.length; i++) {
        if (!/^-(exec|execdir|ok|okdir)$/.test(args[i].value ?? "")) continue;
        const inner: Arg[] = [];
        for (i++; i < args.length; i++) {
          const v = args[i].value;
          if (v === ";" || v === "+") break;
          inner.push(
            v !== null && v.includes("{}")
              ? { ...UNSEEN, text: args[i].text }
              : args[i],
          );
        }
        this.argv(inner, depth + 1);
      }
      return false;
    }
    return false;
  }
}

/**
 * Builtins that change how later commands behave, refused by every strict
 * policy: the reason, or `{ unknown }` where what decides is a value
 * evaluated as arithmetic (contained like any unknown value).
 */
function stateChange(
  name: string,
  argv: Arg[],
): string | { unknown: string } | null {
  const args = argv.map((a) => a.value);
  switch (name) {
    case "alias":
      return args.some((a) => a === null || a.includes("="))
        ? "alias changes what later commands run"
        : null;
    case "hash":
      return args.some((a) => a === null || /^-[a-z]*p/.test(a))
        ? "hash -p changes what later commands run"
        : null;
    case "trap":
      return args.length > 0 &&
          !(args.length === 1 && (args[0] === "-p" || args[0] === "-l"))
        ? "trap runs code on later events"
        : null;
    case "enable":
      return "enable changes the shell's builtins";
    case "shopt":
      return args.some((a) => a === null || a === "-s" || a === "-u")
        ? "shopt changes how later commands are read"
        : null;
    case "export":
    case "declare":
    case "typeset":
    case "readonly":
    case "local": {
      for (const a of args) {
        if (a === null) {
          return { unknown: `${name} with a non-literal argument` };
        }
        if (/^-[a-zA-Z]*[fn]/.test(a) && name !== "export") {
          return `${name} ${a} changes functions or references`;
        }
        if (/^[-+][a-zA-Z]*i/.test(a)) {
          return {
            unknown:
              `${name} ${a}: assignments to an integer variable are evaluated as arithmetic`,
          };
        }
        if (!a.startsWith("-") && /[[(]/.test(a)) {
          return {
            unknown: `${name} ${a}: subscripts and array values are evaluated`,
          };
        }
        const n = a.split("=")[0];
        if (!a.startsWith("-") && dangerousName(n)) {
          return `${name} ${n} changes how commands run`;
        }
      }
      return null;
    }
    case "let":
      return {
        unknown:
          "let evaluates arithmetic, which can run code through array subscripts",
      };
    case "ulimit":
      // Options alone report; a value (or a word of unknown value) sets.
      return args.some((a) => a === null || !a.startsWith("-"))
        ? "ulimit with a value changes the session's limits"
        : null;
    case "umask":
      return args.some((a) => a === null || !/^-[Sp]+$/.test(a))
        ? "umask with a mask changes the session"
        : null;
    case "complete":
    case "compgen":
    case "bind":
    case "fc":
      return args.length > 0 ? `${name} changes the session` : null;
  }
  return null;
}

/** Why a program no rule allows is not allowed, as a sentence. */
function noRule(name: string, mode: Mode): string {
  return mode === "readOnly"
    ? `${name} is not one of the read-only programs this policy allows`
    : `No rule of this policy allows "${name}"`;
}
