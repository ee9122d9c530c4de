/**
 * A bash parser in pure TypeScript, made for checking commands before they
 * run: it tokenises as bash does (only space and tab are blanks; `\r`, `\v`,
 * `\f` and no-break space are word characters), understands every quoting
 * form, operator, redirection, heredoc, substitution and compound command,
 * and reports errors with a position.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

/** A part of a word. */
export type WordPart =
  | {
    type: "Lit";
    /** The text after quote removal. */
    value: string;
    /** Came from quotes or an escape (never special). */
    quoted: boolean;
    /** Unquoted glob (`*`, `?`, `[`), brace (`{a,b}`) or tilde (`~`) text. */
    special?: boolean;
  }
  | {
    type: "Param";
    /** The parameter name (`x`, `1`, `@`, `?`, ...). */
    name: string;
    /** Written as `${...}`. */
    braced: boolean;
    /** What follows the name inside the braces, raw (`:-`, `@P`, `[i]`, `#`, ...), and a prefix `!` or `#`. */
    op: string;
    /** Substitutions and words inside the operator's argument. */
    inner: Word[];
    quoted: boolean;
  }
  | {
    type: "CmdSubst";
    body: Statement[];
    backquoted: boolean;
    quoted: boolean;
  }
  | { type: "Arith"; expr: string; inner: Word[]; quoted: boolean }
  | { type: "ProcSubst"; dir: "<" | ">"; body: Statement[] };

/** A shell word: its parts and its source text. */
export interface Word {
  /** The parts, in order. */
  parts: WordPart[];
  /** The source text of the word. */
  text: string;
  /** Offset of the word in the source. */
  offset: number;
}

/** A redirection. */
export interface Redirect {
  /** `<`, `>`, `>>`, `>|`, `<>`, `<&`, `>&`, `&>`, `&>>`, `<<`, `<<-`, `<<<`. */
  op: string;
  /** An explicit fd number, or a `{var}` name, when given. */
  fd?: string;
  /** The target word (the delimiter for heredocs). */
  target: Word;
  /** Heredoc body: parsed as a word when the delimiter is unquoted. */
  heredoc?: { body: Word; quoted: boolean };
}

/** A variable assignment before a command or on its own. */
export interface Assignment {
  /** The variable name. */
  name: string;
  /** The subscript text of `a[i]=`, if any. */
  index?: string;
  /** Written `+=`. */
  append: boolean;
  /** The value; for `a=(...)` the elements. */
  value: Word | null;
  /** The elements of `a=(...)`. */
  array?: Word[];
}

/** A command of any kind. */
export type Command =
  | {
    type: "Simple";
    assigns: Assignment[];
    words: Word[];
    redirects: Redirect[];
  }
  | { type: "Pipeline"; commands: Command[]; negated: boolean; timed: boolean }
  | { type: "Logical"; op: "&&" | "||"; left: Command; right: Command }
  | { type: "Subshell"; body: Statement[]; redirects: Redirect[] }
  | { type: "Group"; body: Statement[]; redirects: Redirect[] }
  | {
    type: "If";
    clauses: { cond: Statement[]; body: Statement[] }[];
    otherwise?: Statement[];
    redirects: Redirect[];
  }
  | {
    type: "Loop";
    kind: "while" | "until";
    cond: Statement[];
    body: Statement[];
    redirects: Redirect[];
  }
  | {
    type: "For";
    kind: "for" | "select";
    name: string;
    items: Word[] | null;
    body: Statement[];
    redirects: Redirect[];
  }
  | {
    type: "ArithFor";
    exprs: string[];
    inner: Word[];
    body: Statement[];
    redirects: Redirect[];
  }
  | {
    type: "Case";
    word: Word;
    items: { patterns: Word[]; body: Statement[] }[];
    redirects: Redirect[];
  }
  | { type: "Function"; name: string; body: Command; redirects: Redirect[] }
  | { type: "ArithCmd"; expr: string; inner: Word[]; redirects: Redirect[] }
  | { type: "Test"; words: Word[]; redirects: Redirect[] }
  | { type: "Coproc"; body: Command };

/** A command with how it ends: `&` runs it in the background. */
export interface Statement {
  /** The command. */
  command: Command;
  /** Ended by `&`. */
  background: boolean;
}

/** The result of {@linkcode parse}. */
export interface Script {
  /** Always "Script". */
  type: "Script";
  /** The top-level statements. */
  body: Statement[];
}

/** Limits {@linkcode parse} enforces, so that oversize input fails fast. */
export interface ParseLimits {
  /** Longest source in characters (default 100000). */
  maxLength?: number;
  /** Deepest nesting of commands and substitutions (default 64). */
  maxDepth?: number;
  /** Most commands (default 2000). */
  maxCommands?: number;
}

/** Builtins whose arguments may assign arrays (`name=(...)`). */
const DECLARATION_BUILTINS = new Set([
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
]);

/** The simple command so far is a declaration builtin (maybe behind `builtin`/`command`). */
function declares(words: readonly Word[]): boolean {
  const name = words[0].text === "builtin" || words[0].text === "command"
    ? words[1]?.text
    : words[0].text;
  return name !== undefined && DECLARATION_BUILTINS.has(name);
}

/**
 * A syntax error (or a limit) with its position.
 *
 * @example
 * ```ts
 * import { parse, ParseError } from "./parse.ts";
 *
 * try {
 *   parse("echo 'open");
 * } catch (error) {
 *   console.assert(error instanceof ParseError && error.line === 1);
 * }
 * ```
 */
export class ParseError extends Error {
  /** Offset in the source. */
  readonly offset: number;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  /** True when a limit, not the syntax, stopped the parse. */
  readonly limit: boolean;

  /** Creates the error for `source` at `offset`. */
  constructor(message: string, source: string, offset: number, limit = false) {
    const before = source.slice(0, offset);
    const line = before.split("\n").length;
    const column = offset - before.lastIndexOf("\n");
    super(`${message} (line ${line}, column ${column})`);
    this.name = "ParseError";
    this.offset = offset;
    this.line = line;
    this.column = column;
    this.limit = limit;
  }
}

/**
 * bash's reserved words: in command position they open or close a compound
 * command instead of naming a program.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RESERVED_WORDS } from "./parse.ts";
 * assert.ok(RESERVED_WORDS.has("done"));
 * assert.ok(!RESERVED_WORDS.has("ls"));
 * ```
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  "if",
  "then",
  "elif",
  "else",
  "fi",
  "do",
  "done",
  "case",
  "esac",
  "while",
  "until",
  "for",
  "in",
  "select",
  "function",
  "time",
  "{",
  "}",
  "!",
  "[[",
  "]]",
  "coproc",
]);

const META = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")"]);
const REDIRECT =
  /^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(<<<|<<-|<<|<>|<&|>&|>>|>\||&>>|&>|<|>)/;

interface PendingHeredoc {
  redirect: Redirect;
  delimiter: string;
  strip: boolean;
}

/**
 * Parses bash source into a {@linkcode Script}. Throws a
 * {@linkcode ParseError} with a position on a syntax error or a limit.
 *
 * @example
 * ```ts
 * import { parse } from "./parse.ts";
 *
 * const script = parse("cd /tmp && ls -l | wc -l");
 * console.assert(script.body.length === 1);
 * ```
 */
export function parse(source: string, limits: ParseLimits = {}): Script {
  if (typeof source !== "string") {
    throw new TypeError(
      `Expected the source to be a string, got ${typeof source}`,
    );
  }
  const p = new Parser(source, limits);
  return p.script();
}

class Parser {
  readonly src: string;
  pos = 0;
  depth = 0;
  commands = 0;
  readonly maxDepth: number;
  readonly maxCommands: number;
  heredocs: PendingHeredoc[] = [];

  constructor(src: string, limits: ParseLimits) {
    const maxLength = limits.maxLength ?? 100_000;
    this.maxDepth = limits.maxDepth ?? 64;
    this.maxCommands = limits.maxCommands ?? 2000;
    this.src = src;
    if (src.length > maxLength) {
      throw new ParseError(
        `The command is too long: ${src.length} characters, at most ${maxLength}`,
        src,
        maxLength,
        true,
      );
    }
  }

  fail(message: string, at = this.pos): never {
    throw new ParseError(message, this.src, at);
  }

  enter(): void {
    if (++this.depth > this.maxDepth) {
      throw new ParseError(
        `The command nests too deeply: more than ${this.maxDepth} levels`,
        this.src,
        this.pos,
        true,
      );
    }
  }

  leave(): void {
    this.depth--;
  }

  // -- characters ----------------------------------------------------------

  peek(offset = 0): string {
    return this.src[this.pos + offset] ?? "";
  }

  startsWith(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }

  /** Skips blanks, line continuations and a comment (not the newline). */
  skipBlanks(): void {
    for (;;) {
      const c = this.peek();
      if (c === " " || c === "\t") this.pos++;
      else if (c === "\\" && this.peek(1) === "\n") this.pos += 2;
      else break;
    }
    if (this.peek() === "#") {
      while (this.pos < this.src.length && this.peek() !== "\n") this.pos++;
    }
  }

  /** Skips blanks, newlines and comments, reading heredoc bodies at each newline. */
  skipNewlines(): void {
    for (;;) {
      this.skipBlanks();
      if (this.peek() !== "\n") return;
      this.pos++;
      this.readHeredocs();
    }
  }

  eof(): boolean {
    return this.pos >= this.src.length;
  }

  /** The next operator at the cursor, if any. */
  operator(): string | null {
    for (
      const op of [";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")"]
    ) {
      if (this.startsWith(op)) return op;
    }
    return null;
  }

  /** The literal reserved word at the cursor, if one is there. */
  reserved(): string | null {
    const m = /^(?:[a-z]+|\{|\}|!|\[\[|\]\])/.exec(
      this.src.slice(this.pos, this.pos + 9),
    );
    if (!m) return null;
    const w = m[0];
    if (!RESERVED_WORDS.has(w)) return null;
    const next = this.src[this.pos + w.length] ?? "";
    if (next === "" || META.has(next)) return w;
    return null;
  }

  expectReserved(word: string): void {
    this.skipNewlines();
    if (this.reserved() !== word) {
      this.fail(`syntax error: expected "${word}"`);
    }
    this.pos += word.length;
  }

  // -- lists ---------------------------------------------------------------

  script(): Script {
    const body = this.list([]);
    this.skipNewlines();
    if (!this.eof()) {
      this.fail(`syntax error near unexpected token \`${this.tokenAt()}'`);
    }
    this.readHeredocs();
    return { type: "Script", body };
  }

  tokenAt(): string {
    return this.operator() ?? this.reserved() ?? this.peek();
  }

  /** Statements until one of `stops` (reserved words or `)`) or EOF. */
  list(stops: string[], allowEmpty = true): Statement[] {
    const out: Statement[] = [];
    for (;;) {
      this.skipNewlines();
      if (this.eof()) break;
      const word = this.reserved();
      if (word !== null && stops.includes(word)) break;
      const op = this.operator();
      if (op === ")" && stops.includes(")")) break;
      if (
        op !== null && (op.startsWith(";;") || op === ";&") &&
        stops.includes(";;")
      ) break;
      if (op !== null && op !== "(") {
        this.fail(`syntax error near unexpected token \`${op}'`);
      }
      const command = this.andOr();
      this.skipBlanks();
      const sep = this.operator();
      if (sep === "&") {
        this.pos++;
        out.push({ command, background: true });
        continue;
      }
      out.push({ command, background: false });
      if (sep === ";") {
        this.pos++;
        continue;
      }
      if (this.peek() === "\n") continue;
      break;
    }
    if (!allowEmpty && out.length === 0) {
      this.fail(
        `syntax error near unexpected token \`${
          this.tokenAt() || "end of file"
        }'`,
      );
    }
    return out;
  }

  andOr(): Command {
    let left = this.pipeline();
    for (;;) {
      this.skipBlanks();
      const op = this.operator();
      if (op !== "&&" && op !== "||") return left;
      this.pos += 2;
      this.skipNewlines();
      const right = this.pipeline();
      left = { type: "Logical", op, left, right };
    }
  }

  pipeline(): Command {
    this.skipBlanks();
    let timed = false;
    let negated = false;
    for (;;) {
      const w = this.reserved();
      if (w === "time") {
        timed = true;
        this.pos += 4;
        this.skipBlanks();
        if (
          this.startsWith("-p") &&
          (META.has(this.peek(2)) || this.peek(2) === "")
        ) this.pos += 2;
        this.skipBlanks();
      } else if (w === "!") {
        negated = !negated;
        this.pos++;
        this.skipBlanks();
      } else break;
    }
    if (timed || negated) {
      const c = this.peek();
      if (
        c === "" || c === "\n" || c === ";" ||
        (c === "&" && this.peek(1) !== ">")
      ) {
        return { type: "Pipeline", commands: [], negated, timed };
      }
    }
    const commands = [this.command()];
    for (;;) {
      this.skipBlanks();
      const op = this.operator();
      if (op !== "|" && op !== "|&") break;
      this.pos += op.length;
      this.skipNewlines();
      commands.push(this.command());
    }
    if (commands.length === 1 && !timed && !negated) return commands[0];
    return { type: "Pipeline", commands, negated, timed };
  }

  // -- commands ------------------------------------------------------------

  command(): Command {
    this.skipBlanks();
    if (++this.commands > this.maxCommands) {
      throw new ParseError(
        `The command has too many parts: more than ${this.maxCommands} commands`,
        this.src,
        this.pos,
        true,
      );
    }
    this.enter();
    try {
      const word = this.reserved();
      let command: Command | null = null;
      switch (word) {
        case "{": {
          this.pos++;
          const body = this.list(["}"], false);
          this.expectReserved("}");
          command = { type: "Group", body, redirects: [] };
          break;
        }
        case "if":
          command = this.ifCommand();
          break;
        case "while":
        case "until": {
          this.pos += word.length;
          const cond = this.list(["do"], false);
          this.expectReserved("do");
          const body = this.list(["done"], false);
          this.expectReserved("done");
          command = { type: "Loop", kind: word, cond, body, redirects: [] };
          break;
        }
        case "for":
        case "select":
          command = this.forCommand(word);
          break;
        case "case":
          command = this.caseCommand();
          break;
        case "function":
          command = this.functionCommand();
          break;
        case "[[":
          command = this.testCommand();
          break;
        case "coproc": {
          this.pos += 6;
          this.skipBlanks();
          // `coproc NAME compound`: a name, then a compound command.
          const named =
            /^[A-Za-z_][A-Za-z0-9_]*[ \t]+(?=\{[ \t\n]|\(|(if|while|until|for|case|select)[ \t\n]|\[\[[ \t])/
              .exec(
                this.src.slice(this.pos, this.pos + 300),
              );
          if (named) this.pos += named[0].length;
          command = { type: "Coproc", body: this.command() };
          return command;
        }
        case "!": // only at the start of a pipeline
        case "then":
        case "elif":
        case "else":
        case "fi":
        case "do":
        case "done":
        case "esac":
        case "}":
        case "]]":
        case "in":
          this.fail(`syntax error near unexpected token \`${word}'`);
      }
      if (command === null && this.peek() === "(") {
        if (this.peek(1) === "(") {
          const arith = this.tryArith(2);
          if (arith !== null) {
            command = {
              type: "ArithCmd",
              expr: arith.expr,
              inner: arith.inner,
              redirects: [],
            };
          }
        }
        if (command === null) {
          this.pos++;
          command = {
            type: "Subshell",
            body: this.closeParen(false),
            redirects: [],
          };
        }
      }
      if (command !== null) {
        const redirects = this.trailingRedirects();
        if ("redirects" in command) command.redirects.push(...redirects);
        return command;
      }
      return this.simple();
    } finally {
      this.leave();
    }
  }

  trailingRedirects(): Redirect[] {
    const out: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      const r = this.redirect();
      if (r === null) break;
      out.push(r);
    }
    this.skipBlanks();
    const c = this.peek();
    if (c !== "" && !META.has(c)) {
      this.fail(`syntax error near unexpected token \`${this.peekWordText()}'`);
    }
    if (c === "(") this.fail("syntax error near unexpected token `('");
    return out;
  }

  peekWordText(): string {
    const m = /^[^ \t\n;&|<>()]*/.exec(this.src.slice(this.pos));
    return m ? m[0] : this.peek();
  }

  /** The statements up to the `)` closing a `(` just read, and that `)`. */
  closeParen(allowEmpty: boolean): Statement[] {
    const body = this.list([")"], allowEmpty);
    this.skipNewlines();
    if (this.peek() !== ")") {
      this.fail(
        this.eof()
          ? "unexpected EOF while looking for matching `)'"
          : `syntax error near unexpected token \`${this.tokenAt()}'`,
      );
    }
    this.pos++;
    return body;
  }

  ifCommand(): Command {
    this.pos += 2;
    const clauses: { cond: Statement[]; body: Statement[] }[] = [];
    let otherwise: Statement[] | undefined;
    let cond = this.list(["then"], false);
    this.expectReserved("then");
    let body = this.list(["elif", "else", "fi"], false);
    clauses.push({ cond, body });
    for (;;) {
      this.skipNewlines();
      const w = this.reserved();
      if (w === "elif") {
        this.pos += 4;
        cond = this.list(["then"], false);
        this.expectReserved("then");
        body = this.list(["elif", "else", "fi"], false);
        clauses.push({ cond, body });
      } else if (w === "else") {
        this.pos += 4;
        otherwise = this.list(["fi"], false);
        this.expectReserved("fi");
        break;
      } else {
        this.expectReserved("fi");
        break;
      }
    }
    return { type: "If", clauses, otherwise, redirects: [] };
  }

  forCommand(kind: "for" | "select"): Command {
    this.pos += kind.length;
    this.skipBlanks();
    if (kind === "for" && this.startsWith("((")) {
      const arith = this.tryArith(2);
      if (arith === null) this.fail("syntax error: expected `))'");
      this.skipBlanks();
      if (this.peek() === ";") this.pos++;
      this.skipNewlines();
      const body = this.doGroup();
      const exprs = arith.expr.split(";");
      if (exprs.length !== 3) {
        this.fail("syntax error: expected three expressions in for (( ))");
      }
      return {
        type: "ArithFor",
        exprs,
        inner: arith.inner,
        body,
        redirects: [],
      };
    }
    const nameWord = this.word();
    // bash checks the name only when the loop runs (`for 1 in ...` parses).
    if (nameWord === null) {
      this.fail(
        `syntax error near unexpected token \`${this.tokenAt() || "newline"}'`,
      );
    }
    this.skipBlanks();
    let items: Word[] | null = null;
    const save = this.pos;
    this.skipNewlines();
    if (this.reserved() === "in") {
      this.pos += 2;
      items = [];
      for (;;) {
        this.skipBlanks();
        const c = this.peek();
        if (c === ";" || c === "\n" || c === "") break;
        const w = this.word();
        if (w === null) {
          this.fail(`syntax error near unexpected token \`${this.tokenAt()}'`);
        }
        items.push(w);
      }
      if (this.peek() === ";") this.pos++;
    } else {
      this.pos = save;
      this.skipBlanks();
      if (this.peek() === ";") this.pos++;
    }
    this.skipNewlines();
    const body = this.doGroup();
    return {
      type: "For",
      kind,
      name: nameWord.text,
      items,
      body,
      redirects: [],
    };
  }

  doGroup(): Statement[] {
    this.skipNewlines();
    const w = this.reserved();
    if (w === "{") {
      this.pos++;
      const body = this.list(["}"], false);
      this.expectReserved("}");
      return body;
    }
    this.expectReserved("do");
    const body = this.list(["done"], false);
    this.expectReserved("done");
    return body;
  }

  caseCommand(): Command {
    this.pos += 4;
    this.skipBlanks();
    const word = this.word();
    if (word === null) this.fail("syntax error: expected a word after `case'");
    this.skipNewlines();
    this.expectReserved("in");
    const items: { patterns: Word[]; body: Statement[] }[] = [];
    for (;;) {
      this.skipNewlines();
      if (this.reserved() === "esac") {
        this.pos += 4;
        break;
      }
      if (this.eof()) {
        this.fail("syntax error: unexpected end of file, expected `esac'");
      }
      if (this.peek() === "(") this.pos++;
      const patterns: Word[] = [];
      for (;;) {
        this.skipBlanks();
        const w = this.word(true);
        if (w === null) {
          this.fail(`syntax error near unexpected token \`${this.tokenAt()}'`);
        }
        patterns.push(w);
        this.skipBlanks();
        if (this.peek() === "|") {
          this.pos++;
          continue;
        }
        if (this.peek() === ")") {
          this.pos++;
          break;
        }
        this.fail(`syntax error near unexpected token \`${this.tokenAt()}'`);
      }
      const body = this.list(["esac", ";;"]);
      items.push({ patterns, body });
      this.skipNewlines();
      const op = this.operator();
      if (op === ";;" || op === ";&" || op === ";;&") {
        this.pos += op.length;
        continue;
      }
      this.skipNewlines();
      if (this.reserved() === "esac") {
        this.pos += 4;
        break;
      }
      this.fail(`syntax error near unexpected token \`${this.tokenAt()}'`);
    }
    return { type: "Case", word, items, redirects: [] };
  }

  functionCommand(): Command {
    this.pos += 8;
    this.skipBlanks();
    const start = this.pos;
    const m = /^[^ \t\n;&|<>()]+/.exec(this.src.slice(this.pos));
    if (!m) this.fail("syntax error: expected a function name", start);
    const name = m[0];
    this.pos += name.length;
    this.skipBlanks();
    if (this.startsWith("()")) this.pos += 2;
    else if (this.peek() === "(") {
      this.pos++;
      this.skipBlanks();
      if (this.peek() !== ")") {
        this.fail("syntax error near unexpected token `('");
      }
      this.pos++;
    }
    this.skipNewlines();
    return { type: "Function", name, body: this.functionBody(), redirects: [] };
  }

  functionBody(): Command {
    this.skipNewlines();
    const w = this.reserved();
    const compound = w === "{" || w === "if" || w === "while" ||
      w === "until" ||
      w === "for" || w === "case" || w === "select" || w === "[[" ||
      this.peek() === "(";
    if (!compound) {
      this.fail(`syntax error near unexpected token \`${this.tokenAt()}'`);
    }
    return this.command();
  }

  testCommand(): Command {
    this.pos += 2;
    const words: Word[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.peek() === "\n") {
        this.pos++;
        this.readHeredocs();
        continue;
      }
      if (this.eof()) {
        this.fail("syntax error: unexpected end of file, expected `]]'");
      }
      if (this.reserved() === "]]") {
        this.pos += 2;
        break;
      }
      const start = this.pos;
      for (const op of ["&&", "||", "(", ")", "!", "<", ">"]) {
        if (this.startsWith(op)) {
          this.pos += op.length;
          words.push({
            parts: [{ type: "Lit", value: op, quoted: false }],
            text: op,
            offset: start,
          });
          break;
        }
      }
      if (this.pos !== start) continue;
      if (this.peek() === ";" || this.peek() === "|" || this.peek() === "&") {
        this.fail(
          `syntax error in conditional expression: unexpected token \`${this.peek()}'`,
        );
      }
      const prev = words[words.length - 1]?.text;
      const w = prev === "=~" ? this.regexWord() : this.word();
      if (w === null) this.fail("syntax error in conditional expression");
      words.push(w);
    }
    return { type: "Test", words, redirects: [] };
  }

  /** The right side of `=~`: parentheses and `|` are part of the word. */
  regexWord(): Word {
    const start = this.pos;
    let depth = 0;
    const parts: WordPart[] = [];
    for (;;) {
      const c = this.peek();
      if (c === "") break;
      if (depth === 0 && (c === " " || c === "\t" || c === "\n")) break;
      if (c === "(") {
        depth++;
        this.pos++;
        parts.push({ type: "Lit", value: c, quoted: false });
        continue;
      }
      if (c === ")") {
        if (depth === 0) break;
        depth--;
        this.pos++;
        parts.push({ type: "Lit", value: c, quoted: false });
        continue;
      }
      if (c === "|" || c === "<" || c === ">" || c === "&" || c === ";") {
        if (depth === 0 && (c === ";" || c === "&" || this.startsWith("||"))) {
          break;
        }
        this.pos++;
        parts.push({ type: "Lit", value: c, quoted: false });
        continue;
      }
      const w = this.word();
      if (w === null) break;
      parts.push(...w.parts);
    }
    return { parts, text: this.src.slice(start, this.pos), offset: start };
  }

  simple(): Command {
    const assigns: Assignment[] = [];
    const words: Word[] = [];
    const redirects: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      const r = this.redirect();
      if (r !== null) {
        redirects.push(r);
        continue;
      }
      const c = this.peek();
      if (
        c === "" || c === "\n" || c === ";" || c === "&" || c === "|" ||
        c === ")"
      ) break;
      if (c === "(") {
        if (
          words.length === 1 && assigns.length === 0 && redirects.length === 0
        ) {
          // name() compound
          const save = this.pos;
          this.pos++;
          this.skipBlanks();
          if (this.peek() === ")") {
            this.pos++;
            const name = words[0].text;
            if (!/^[^ \t\n;&|<>()$`"'\\]+$/.test(name)) {
              this.fail(`\`${name}': not a valid identifier`, words[0].offset);
            }
            return {
              type: "Function",
              name,
              body: this.functionBody(),
              redirects: [],
            };
          }
          this.pos = save;
        }
        this.fail("syntax error near unexpected token `('");
      }
      if (words.length === 0) {
        const a = this.assignment();
        if (a !== null) {
          assigns.push(a);
          continue;
        }
      } else if (declares(words)) {
        const compound = this.compoundArgument();
        if (compound !== null) {
          words.push(compound);
          continue;
        }
      }
      const w = this.word();
      if (w === null) this.fail(`syntax error near unexpected token \`${c}'`);
      words.push(w);
    }
    if (words.length === 0 && assigns.length === 0 && redirects.length === 0) {
      this.fail(
        `syntax error near unexpected token \`${this.tokenAt() || "newline"}'`,
      );
    }
    return { type: "Simple", assigns, words, redirects };
  }

  /**
   * An argument of a declaration builtin that assigns an array
   * (\`declare -A m=([k]=v)\`, \`local -a a=(1 2)\`), as one word whose parts
   * are the elements' parts; null (nothing consumed) for any other word.
   */
  compoundArgument(): Word | null {
    if (
      !/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]\n]*\])?\+?=\(/.test(
        this.src.slice(this.pos, this.pos + 512),
      )
    ) return null;
    const start = this.pos;
    const a = this.assignment()!;
    const head = this.src.slice(start, this.src.indexOf("=", start) + 2);
    const parts: WordPart[] = [{ type: "Lit", value: head, quoted: false }];
    for (const element of a.array ?? []) parts.push(...element.parts);
    return { parts, text: this.src.slice(start, this.pos), offset: start };
  }

  assignment(): Assignment | null {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]\n]*\])?(\+?)=/.exec(
      this.src.slice(this.pos, this.pos + 512),
    );
    if (!m) return null;
    this.pos += m[0].length;
    const name = m[1];
    const index = m[2] ? m[2].slice(1, -1) : undefined;
    const append = m[3] === "+";
    if (this.peek() === "(") {
      this.pos++;
      const array: Word[] = [];
      for (;;) {
        this.skipNewlines();
        if (this.peek() === ")") {
          this.pos++;
          break;
        }
        if (this.eof()) {
          this.fail("syntax error: unexpected end of file, expected `)'");
        }
        const w = this.word();
        if (w === null) {
          this.fail(`syntax error near unexpected token \`${this.tokenAt()}'`);
        }
        array.push(w);
      }
      return { name, index, append, value: null, array };
    }
    const c = this.peek();
    const value = c === "" || META.has(c) ? null : this.word();
    return { name, index, append, value };
  }

  redirect(): Redirect | null {
    const m = REDIRECT.exec(this.src.slice(this.pos, this.pos + 64));
    if (!m) return null;
    // `<(` and `>(` are process substitutions, not redirections.
    if (!m[1] && (m[2] === "<" || m[2] === ">") && this.peek(1) === "(") {
      return null;
    }
    const start = this.pos;
    this.pos += m[0].length;
    const op = m[2];
    this.skipBlanks();
    const target = this.word();
    if (target === null) {
      this.fail(
        `syntax error near unexpected token \`${this.tokenAt() || "newline"}'`,
        start,
      );
    }
    const redirect: Redirect = { op, target, ...(m[1] ? { fd: m[1] } : {}) };
    if (op === "<<" || op === "<<-") {
      const quoted = target.parts.some((p) => p.type === "Lit" && p.quoted) ||
        /["'\\]/.test(target.text);
      const delimiter = target.parts.map((
        p,
      ) => (p.type === "Lit" ? p.value : "")).join("");
      redirect.heredoc = {
        body: { parts: [], text: "", offset: this.pos },
        quoted,
      };
      this.heredocs.push({
        redirect,
        delimiter: quoted ? delimiter : target.text,
        strip: op === "<<-",
      });
    }
    return redirect;
  }

  readHeredocs(): void {
    const pending = this.heredocs;
    this.heredocs = [];
    for (const h of pending) {
      const start = this.pos;
      let bodyEnd = this.src.length;
      let next = this.src.length;
      let lineStart = this.pos;
      while (lineStart < this.src.length) {
        let lineEnd = this.src.indexOf("\n", lineStart);
        if (lineEnd === -1) lineEnd = this.src.length;
        let line = this.src.slice(lineStart, lineEnd);
        if (h.strip) line = line.replace(/^\t+/, "");
        if (line === h.delimiter) {
          bodyEnd = lineStart;
          next = Math.min(this.src.length, lineEnd + 1);
          break;
        }
        lineStart = lineEnd + 1;
      }
      let text = this.src.slice(start, bodyEnd);
      if (h.strip) text = text.replace(/^\t+/gm, "");
      const body: Word = h.redirect.heredoc!.quoted
        ? {
          parts: [{ type: "Lit", value: text, quoted: true }],
          text,
          offset: start,
        }
        : this.subParse(text, start, (p) => p.heredocBody());
      h.redirect.heredoc!.body = body;
      this.pos = next;
    }
  }

  /** Parses `text` (a slice of the source at `offset`) with a fresh parser. */
  subParse<T>(text: string, offset: number, f: (p: Parser) => T): T {
    const p = new Parser(text, {
      maxLength: Infinity,
      maxDepth: this.maxDepth - this.depth,
      maxCommands: this.maxCommands - this.commands,
    });
    try {
      const out = f(p);
      this.commands += p.commands;
      return out;
    } catch (e) {
      if (e instanceof ParseError) {
        throw new ParseError(
          e.message.replace(/ \(line \d+, column \d+\)$/, ""),
          this.src,
          offset + e.offset,
          e.limit,
        );
      }
      throw e;
    }
  }

  heredocBody(): Word {
    const parts: WordPart[] = [];
    let lit = "";
    const flush = () => {
      if (lit) parts.push({ type: "Lit", value: lit, quoted: true });
      lit = "";
    };
    while (!this.eof()) {
      const c = this.peek();
      if (c === "\\") {
        const n = this.peek(1);
        if (n === "$" || n === "`" || n === "\\") {
          lit += n;
          this.pos += 2;
        } else if (n === "\n") this.pos += 2;
        else {
          lit += c;
          this.pos++;
        }
      } else if (c === "$" || c === "`") {
        const part = this.dollarOrBacktick(true);
        if (part === null) {
          lit += c;
          this.pos++;
        } else {
          flush();
          parts.push(part);
        }
      } else {
        lit += c;
        this.pos++;
      }
    }
    flush();
    return { parts, text: this.src, offset: 0 };
  }

  // -- words ---------------------------------------------------------------

  /**
   * Reads one word at the cursor, or returns null at a metacharacter. In a
   * case pattern, `|` and `)` end the word.
   */
  word(pattern = false): Word | null {
    const start = this.pos;
    const parts: WordPart[] = [];
    let lit = "";
    let special = false;
    const flush = () => {
      if (lit) {
        parts.push({
          type: "Lit",
          value: lit,
          quoted: false,
          ...(special ? { special: true } : {}),
        });
      }
      lit = "";
      special = false;
    };
    const push = (part: WordPart) => {
      flush();
      parts.push(part);
    };
    for (;;) {
      const c = this.peek();
      if (c === "") break;
      if ((c === "<" || c === ">") && this.peek(1) === "(") {
        const dir = c;
        this.pos += 2;
        this.enter();
        const body = this.closeParen(true);
        this.leave();
        push({ type: "ProcSubst", dir, body });
        continue;
      }
      if (META.has(c)) break;
      if (pattern && c === "|") break;
      if (c === "\\") {
        const n = this.peek(1);
        if (n === "\n") {
          this.pos += 2;
          continue;
        }
        flush();
        this.pos += 2;
        if (n !== "") parts.push({ type: "Lit", value: n, quoted: true });
        continue;
      }
      if (c === "'") {
        const end = this.src.indexOf("'", this.pos + 1);
        if (end === -1) {
          this.fail("unexpected EOF while looking for matching `''");
        }
        push({
          type: "Lit",
          value: this.src.slice(this.pos + 1, end),
          quoted: true,
        });
        this.pos = end + 1;
        continue;
      }
      if (c === '"') {
        flush();
        parts.push(...this.doubleQuoted());
        continue;
      }
      if (c === "$" && this.peek(1) === "'") {
        push({ type: "Lit", value: this.ansiC(), quoted: true });
        continue;
      }
      if (c === "$" && this.peek(1) === '"') {
        this.pos++;
        flush();
        parts.push(...this.doubleQuoted());
        continue;
      }
      if (c === "$" || c === "`") {
        const part = this.dollarOrBacktick(false);
        if (part !== null) {
          push(part);
          continue;
        }
        lit += c;
        this.pos++;
        continue;
      }
      if (
        c === "*" || c === "?" || c === "[" ||
        (c === "~" && this.pos === start) || c === "{"
      ) {
        if (
          (c === "{" && !this.braceExpansion()) ||
          (c === "[" && !this.bracketCloses())
        ) {
          lit += c;
          this.pos++;
          continue;
        }
        if (lit && !special) flush();
        special = true;
        lit += c;
        this.pos++;
        continue;
      }
      if (special) flush();
      lit += c;
      this.pos++;
    }
    flush();
    if (this.pos === start) return null;
    return { parts, text: this.src.slice(start, this.pos), offset: start };
  }

  /** True when a `[` at the cursor has a `]` later in the same word (a glob). */
  bracketCloses(): boolean {
    for (let i = this.pos + 1; i < this.src.length; i++) {
      const c = this.src[i];
      if (c === "]") return true;
      if (META.has(c)) return false;
    }
    return false;
  }

  /** True when a `{` at the cursor starts a brace expansion (`{a,b}` or `{1..3}`). */
  braceExpansion(): boolean {
    let depth = 0;
    for (let i = this.pos; i < this.src.length; i++) {
      const c = this.src[i];
      if (c === "\\") {
        i++;
        continue;
      }
      if (META.has(c) || c === "'" || c === '"' || c === "$") return false;
      if (c === "{") depth++;
      else if (c === "}") {
        depth--;
        if (depth === 0) {
          const inner = this.src.slice(this.pos + 1, i);
          return inner.includes(",") || /^[^.]+\.\.[^.]+/.test(inner);
        }
      }
    }
    return false;
  }

  doubleQuoted(): WordPart[] {
    const open = this.pos;
    this.pos++;
    const parts: WordPart[] = [];
    let lit = "";
    const flush = () => {
      if (lit) parts.push({ type: "Lit", value: lit, quoted: true });
      lit = "";
    };
    for (;;) {
      const c = this.peek();
      if (c === "") {
        this.fail("unexpected EOF while looking for matching `\"'", open);
      }
      if (c === '"') {
        this.pos++;
        break;
      }
      if (c === "\\") {
        const n = this.peek(1);
        if (n === "\n") this.pos += 2;
        else if (n === "$" || n === "`" || n === '"' || n === "\\") {
          lit += n;
          this.pos += 2;
        } else {
          lit += c;
          this.pos++;
        }
        continue;
      }
      if (c === "$" || c === "`") {
        const part = this.dollarOrBacktick(true);
        if (part !== null) {
          flush();
          parts.push(part);
          continue;
        }
      }
      lit += c;
      this.pos++;
    }
    flush();
    if (parts.length === 0) {
      parts.push({ type: "Lit", value: "", quoted: true });
    }
    return parts;
  }

  ansiC(): string {
    const open = this.pos;
    this.pos += 2;
    let out = "";
    for (;;) {
      const c = this.peek();
      if (c === "") {
        this.fail("unexpected EOF while looking for matching `''", open);
      }
      this.pos++;
      if (c === "'") return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const n = this.peek();
      this.pos++;
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        a: "\x07",
        b: "\b",
        e: "\x1b",
        E: "\x1b",
        f: "\f",
        v: "\v",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "?": "?",
      };
      if (n in simple) out += simple[n];
      else if (n === "x") {
        const m = /^[0-9a-fA-F]{1,2}/.exec(this.src.slice(this.pos));
        if (m) {
          out += String.fromCharCode(parseInt(m[0], 16));
          this.pos += m[0].length;
        } else out += "\\x";
      } else if (n === "u" || n === "U") {
        const m = new RegExp(`^[0-9a-fA-F]{1,${n === "u" ? 4 : 8}}`).exec(
          this.src.slice(this.pos),
        );
        if (m) {
          const cp = parseInt(m[0], 16);
          out += cp <= 0x10ffff ? String.fromCodePoint(cp) : "\ufffd";
          this.pos += m[0].length;
        } else out += "\\" + n;
      } else if (/[0-7]/.test(n)) {
        const m = /^[0-7]{1,3}/.exec(this.src.slice(this.pos - 1))!;
        out += String.fromCharCode(parseInt(m[0], 8) & 0xff);
        this.pos += m[0].length - 1;
      } else if (n === "c") {
        const k = this.peek();
        this.pos++;
        out += String.fromCharCode(k.toUpperCase().charCodeAt(0) ^ 0x40);
      } else out += "\\" + n;
    }
  }

  /** `$...` or a backquoted command at the cursor; null for a lone `$`. */
  dollarOrBacktick(quoted: boolean): WordPart | null {
    const start = this.pos;
    if (this.peek() === "`") {
      let i = this.pos + 1;
      let body = "";
      for (;;) {
        const c = this.src[i];
        if (c === undefined) {
          this.fail("unexpected EOF while looking for matching ``'", start);
        }
        if (c === "`") break;
        if (
          c === "\\" &&
          (this.src[i + 1] === "`" || this.src[i + 1] === "\\" ||
            this.src[i + 1] === "$")
        ) {
          body += this.src[i + 1];
          i += 2;
          continue;
        }
        body += c;
        i++;
      }
      this.pos = i + 1;
      this.enter();
      const script = this.subParse(body, start + 1, (p) => p.script());
      this.leave();
      return { type: "CmdSubst", body: script.body, backquoted: true, quoted };
    }
    const n = this.peek(1);
    if (n === "(") {
      if (this.peek(2) === "(") {
        this.pos++;
        const arith = this.tryArith(2);
        if (arith !== null) {
          return {
            type: "Arith",
            expr: arith.expr,
            inner: arith.inner,
            quoted,
          };
        }
        this.pos = start;
      }
      this.pos += 2;
      this.enter();
      const body = this.closeParen(true);
      this.leave();
      return { type: "CmdSubst", body, backquoted: false, quoted };
    }
    if (n === "[") {
      const end = this.matching("[", "]", this.pos + 1);
      const expr = this.src.slice(this.pos + 2, end);
      this.pos = end + 1;
      return {
        type: "Arith",
        expr,
        inner: this.innerSubsts(expr, start + 2),
        quoted,
      };
    }
    if (n === "{") return this.braced(quoted);
    const m = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]|[@*#?$!\-])/.exec(
      this.src.slice(this.pos + 1),
    );
    if (!m) return null;
    this.pos += 1 + m[0].length;
    return {
      type: "Param",
      name: m[0],
      braced: false,
      op: "",
      inner: [],
      quoted,
    };
  }

  /** Index of the bracket closing the one at `open`, skipping quotes and nesting. */
  matching(openCh: string, closeCh: string, open: number): number {
    let depth = 0;
    for (let i = open; i < this.src.length; i++) {
      const c = this.src[i];
      if (c === "\\") {
        i++;
        continue;
      }
      if (c === "'" && openCh !== "[") {
        const end = this.src.indexOf("'", i + 1);
        if (end === -1) break;
        i = end;
        continue;
      }
      if (c === openCh) depth++;
      else if (c === closeCh && --depth === 0) return i;
    }
    this.fail(`unexpected EOF while looking for matching \`${closeCh}'`, open);
  }

  /** `${...}`: the name, the operator text and the words inside it. */
  braced(quoted: boolean): WordPart {
    const start = this.pos;
    this.pos += 2;
    let prefix = "";
    if ((this.peek() === "!" || this.peek() === "#") && this.peek(1) !== "}") {
      prefix = this.peek();
      this.pos++;
    }
    const m = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!\-])/.exec(
      this.src.slice(this.pos),
    );
    if (!m) {
      if (prefix === "#" && this.peek() === "}") {
        this.pos++;
        return {
          type: "Param",
          name: "#",
          braced: true,
          op: "",
          inner: [],
          quoted,
        };
      }
      this.fail("bad substitution", start);
    }
    const name = m[0];
    this.pos += name.length;
    // The rest up to the matching brace, read as a word with nested expansions.
    const opStart = this.pos;
    const inner: Word[] = [];
    let depth = 0;
    for (;;) {
      const c = this.peek();
      if (c === "") {
        this.fail("unexpected EOF while looking for matching `}'", start);
      }
      if (c === "}" && depth === 0) break;
      if (c === "\\") {
        this.pos += 2;
        continue;
      }
      if (c === "'") {
        // bash's parser matches single quotes here inside double quotes too
        // (\`"\${x:-'}'}"\` is one word): a \`}\` between them closes nothing.
        const end = this.src.indexOf("'", this.pos + 1);
        if (end === -1) {
          this.fail("unexpected EOF while looking for matching `''", this.pos);
        }
        this.pos = end + 1;
        continue;
      }
      if (c === '"') {
        const before = this.pos;
        const parts = this.doubleQuoted();
        inner.push({
          parts,
          text: this.src.slice(before, this.pos),
          offset: before,
        });
        continue;
      }
      if (c === "$" || c === "`") {
        const before = this.pos;
        const part = this.dollarOrBacktick(quoted);
        if (part !== null) {
          inner.push({
            parts: [part],
            text: this.src.slice(before, this.pos),
            offset: before,
          });
          continue;
        }
      }
      if (c === "{") depth++;
      if (c === "}") depth--;
      this.pos++;
    }
    const op = prefix + this.src.slice(opStart, this.pos);
    this.pos++;
    return { type: "Param", name, braced: true, op, inner, quoted };
  }

  /**
   * Arithmetic `((...))` at the cursor (after `skip` characters of opening):
   * null (cursor unchanged) when the parentheses do not close as `))`.
   */
  tryArith(skip: number): { expr: string; inner: Word[] } | null {
    const start = this.pos;
    let depth = 0;
    let i = this.pos + skip;
    for (; i < this.src.length; i++) {
      const c = this.src[i];
      if (c === "\\") {
        i++;
        continue;
      }
      if (c === "'" || c === '"' || c === "`") {
        const end = this.src.indexOf(c, i + 1);
        if (end === -1) return null;
        i = end;
        continue;
      }
      if (c === "$" && this.src[i + 1] === "(") {
        // A nested substitution: skip it with a sub-parse.
        const save = this.pos;
        this.pos = i;
        try {
          this.dollarOrBacktick(false);
        } catch {
          this.pos = save;
          return null;
        }
        i = this.pos - 1;
        this.pos = save;
        continue;
      }
      if (c === "(") depth++;
      else if (c === ")") {
        if (depth > 0) {
          depth--;
          continue;
        }
        if (this.src[i + 1] === ")") break;
        return null;
      }
    }
    if (i >= this.src.length) return null;
    const expr = this.src.slice(start + skip, i);
    this.pos = i + 2;
    return { expr, inner: this.innerSubsts(expr, start + skip) };
  }

  /** The substitutions (`$(...)`, backquotes, `${...}`, `$x`) inside arithmetic text. */
  innerSubsts(expr: string, offset: number): Word[] {
    const out: Word[] = [];
    this.subParse(expr, offset, (p) => {
      while (!p.eof()) {
        const c = p.peek();
        if (c === "$" || c === "`") {
          const before = p.pos;
          const part = p.dollarOrBacktick(false);
          if (part !== null) {
            out.push({
              parts: [part],
              text: expr.slice(before, p.pos),
              offset: offset + before,
            });
            continue;
          }
        }
        p.pos++;
      }
    });
    return out;
  }
}

/**
 * The literal value of a word, or null when it depends on an expansion
 * (parameter, substitution, glob, brace, tilde).
 *
 * @example
 * ```ts
 * import { literal, parse } from "./parse.ts";
 *
 * const cmd = parse("r''m -rf x").body[0].command;
 * if (cmd.type === "Simple") console.assert(literal(cmd.words[0]) === "rm");
 * ```
 */
export function literal(word: Word): string | null {
  let out = "";
  for (const part of word.parts) {
    if (part.type !== "Lit" || part.special) return null;
    out += part.value;
  }
  return out;
}
