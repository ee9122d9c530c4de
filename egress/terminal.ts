/**
 * The terminal model: what a terminal would show of program output, as plain
 * text. Every text that leaves bashbox for a model or an operator's terminal
 * goes through it ({@linkcode sanitize} for command output, which applies
 * line editing; {@linkcode sanitizeLine} for text that must keep its lines,
 * such as a file view or a transcript line). Linear in the input size
 * whatever the escape sequences: an erase or a cursor move costs at most a
 * bounded amount of work.
 *
 * Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

// One terminal control at a time: CSI (7-bit and 8-bit) with its parameters,
// OSC up to BEL or ST, DCS/SOS/PM/APC up to ST, other escapes, the line
// controls the model needs applied (CR, LF, BS), and every other control.
const CONTROLS =
  // deno-lint-ignore no-control-regex
  /(?:\x1b\[|\x9b)([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]|[\r\n\b]|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// deno-lint-ignore no-control-regex
const NEEDS_TERMINAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** A control byte shown as text: `\x00`, `\x07`, `\x7f`, `\x85`. */
function escapeControl(c: string): string {
  return `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
}

/**
 * Makes terminal output readable as plain text, as a terminal would show it:
 * `\r` returns to the start of the line and what follows overwrites, erase
 * (`ESC[K`, `ESC[J`) and cursor moves (`ESC[nA/B/C/D/G`, backspace) are
 * applied, then colours and every other escape sequence are dropped and stray
 * control bytes (NUL, BEL, ...) are shown escaped (`\x00`). CRLF becomes LF.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sanitize } from "./terminal.ts";
 *
 * assert.equal(sanitize("\x1b[31mred\x1b[0m"), "red");
 * assert.equal(sanitize("10%\r50%\r100%\n"), "100%\n");
 * assert.equal(sanitize("Downloading 50%\r\x1b[KDone\n"), "Done\n");
 * assert.equal(sanitize("a\0b"), "a\\x00b");
 * ```
 */
export function sanitize(text: string): string {
  if (!NEEDS_TERMINAL.test(text)) return text;
  if (MOVES_ROWS.test(text)) return wellFormed(emulate(text));
  if (!EDITS_LINE.test(text)) return strip(text);
  // Lines are independent: emulate only those that edit themselves.
  return wellFormed(
    text.split("\n").map((line) =>
      EDITS_LINE.test(line) ? emulate(line) : strip(line)
    )
      .join("\n"),
  );
}

/** Rewrites within a line: CR, backspace, cursor left/right/column, erase. */
const EDITS_LINE =
  // deno-lint-ignore no-control-regex
  /[\r\b]|(?:\x1b\[|\x9b)[0-?]*[ -/]*[CDGJK]/;
/** Moves to another row: cursor up/down, next/previous line. */
const MOVES_ROWS =
  // deno-lint-ignore no-control-regex
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[ABEF]/;

/** Escape sequences of every kind, for text with no line editing. */
const SEQUENCES =
  // deno-lint-ignore no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]/g;
// deno-lint-ignore no-control-regex
const STRAY = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** Text with no line editing: escape sequences dropped, stray controls escaped. */
function strip(text: string): string {
  const s = text.includes("\x1b") || text.includes("\x9b")
    ? text.replace(SEQUENCES, "")
    : text;
  return s.replace(STRAY, escapeControl);
}

function wellFormed(text: string): string {
  return typeof text.toWellFormed === "function" ? text.toWellFormed() : text;
}

/**
 * How far right the cursor may go past a line's text: a terminal stops at its
 * last column; this model has no fixed width, so it allows a wide one. A
 * cursor move of any size costs at most this much padding.
 */
const MAX_COLUMN = 1024;

/**
 * Plays text on a small terminal model (rows of text, a cursor) and returns
 * what it shows. Each row is an array of UTF-16 units, so overwriting is
 * linear in the input whatever the edits; the cursor stops at the last row
 * (as a terminal's does at the bottom of its screen) and at
 * {@linkcode MAX_COLUMN} past a row's text.
 */
function emulate(text: string): string {
  const rows: string[][] = [[]];
  // Per row, for erase-left (`ESC[1K`) in linear time: cells below
  // `blank[row]` are spaces, except cells written since, all at or above
  // `dirty[row]` (Infinity: none). An erase then fills only what changed.
  const blank: number[] = [0];
  const dirty: number[] = [Infinity];
  let row = 0;
  let col = 0;
  const put = (s: string) => {
    const line = rows[row];
    while (line.length < col) line.push(" ");
    if (col < dirty[row]) dirty[row] = col;
    for (let i = 0; i < s.length; i++) line[col++] = s[i];
  };
  const eraseLeft = (line: string[]) => {
    const end = Math.min(col + 1, line.length);
    if (dirty[row] < blank[row]) {
      if (end > dirty[row]) line.fill(" ", dirty[row], end);
      blank[row] = end;
    } else {
      if (end > blank[row]) line.fill(" ", blank[row], end);
      blank[row] = Math.max(blank[row], end);
    }
    dirty[row] = Infinity;
  };
  const truncate = (line: string[], length: number) => {
    line.length = Math.min(line.length, length);
    blank[row] = Math.min(blank[row], line.length);
  };
  const clampColumn = () => {
    col = Math.min(col, Math.max(MAX_COLUMN, rows[row].length));
  };
  let at = 0;
  CONTROLS.lastIndex = 0;
  for (let m = CONTROLS.exec(text); m !== null; m = CONTROLS.exec(text)) {
    if (m.index > at) put(text.slice(at, m.index));
    at = m.index + m[0].length;
    const c = m[0];
    if (c === "\n") {
      row++;
      col = 0;
      if (row === rows.length) {
        rows.push([]);
        blank.push(0);
        dirty.push(Infinity);
      }
    } else if (c === "\r") col = 0;
    else if (c === "\b") col = Math.max(0, col - 1);
    else if (m[2] !== undefined) {
      const arg = Math.min(Number.parseInt(m[1], 10) || 0, 1e9);
      const n = Math.max(1, arg);
      const line = rows[row];
      switch (m[2]) {
        case "K": // erase in line
          if (arg === 0) truncate(line, col);
          else if (arg === 1) eraseLeft(line);
          else truncate(line, 0);
          break;
        case "J": // erase in display: below the cursor only (a log keeps its past)
          if (arg === 0) {
            truncate(line, col);
            rows.length = blank.length = dirty.length = row + 1;
          }
          break;
        case "A": // cursor up
          row = Math.max(0, row - n);
          break;
        case "F": // to the start of a line above
          row = Math.max(0, row - n);
          col = 0;
          break;
        case "B": // cursor down, no further than the last row
        case "E":
          row = Math.min(rows.length - 1, row + n);
          if (m[2] === "E") col = 0;
          break;
        case "C": // a real terminal stops at its width: one move goes MAX_COLUMN at most
          col += Math.min(n, MAX_COLUMN);
          break;
        case "D":
          col = Math.max(0, col - n);
          break;
        case "G":
          col = Math.min(n - 1, col + MAX_COLUMN);
          break;
          // Colours (m) and every other CSI: nothing to show.
      }
      clampColumn();
    } else if (c.length === 1) put(escapeControl(c));
    // Other escape sequences (OSC titles, links, charset switches): dropped.
  }
  if (at < text.length) put(text.slice(at));
  return rows.map((line) => line.join("")).join("\n");
}

/**
 * Makes one line of text (or a text whose lines must stay as they are, such
 * as a numbered file view) safe to show: escape sequences are dropped and
 * every other control byte, CR included, is shown escaped (`\x0d`). Tabs and
 * newlines stay. No line editing is applied.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sanitizeLine } from "./terminal.ts";
 *
 * assert.equal(sanitizeLine("a\x1b]52;c;aGk=\x07b\rc"), "ab\\x0dc");
 * ```
 */
export function sanitizeLine(text: string): string {
  if (!NEEDS_TERMINAL.test(text)) return text;
  return wellFormed(strip(text));
}
