/**
 * What the terminal `repl` streams of an ordinary command's output: the
 * text, its colours and its edits within a line, and nothing that takes the
 * screen. Pure: no Deno, Bun or `node:` APIs.
 *
 * @module
 */

/** Escape sequences kept: SGR (colours), erase in line, moves within the line. */
const KEPT_CSI = /^[0-9;:]*m$|^[0-2]?K$|^[0-9]*[CDG]$/;
/** Longest escape sequence held back between chunks; a longer one is dropped. */
const MAX_SEQUENCE = 4096;

type State = "text" | "escape" | "csi" | "string" | "string-escape" | "charset";

/**
 * A streaming filter between a command's output and the person's terminal,
 * for the `repl`: the output streams as it comes, with its colours (SGR), its
 * line edits (`\r`, backspace, tab, erase in line, cursor left/right/column)
 * and its text, while every control that would reach beyond the line is
 * dropped: cursor moves up and down, screen clears, scroll regions, modes
 * (the alternate screen, hidden cursor, mouse reporting, bracketed paste),
 * window titles and other OSC, DCS, PM and APC strings, charset switches
 * (`ESC ( 0`, SI/SO), resets (`ESC c`). Other control bytes are shown
 * escaped, as the model sees them (`\x07`). A sequence split between chunks
 * is held until it completes. {@linkcode flush} resets the colours a command
 * left on, so the prompt is never painted by it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ScreenGuard } from "./_screen_guard.ts";
 *
 * const guard = new ScreenGuard();
 * assert.equal(guard.push("\x1b[?1049h\x1b[2J\x1b[31mred"), "\x1b[31mred");
 * assert.equal(guard.push("\x1b]0;title\x07 50%\r100%\x1b["), " 50%\r100%");
 * assert.equal(guard.push("K\n"), "\x1b[K\n");
 * assert.equal(guard.flush(), "\x1b[0m");
 * ```
 */
export class ScreenGuard {
  #state: State = "text";
  #held = "";
  #painted = false;

  /** Takes the next text; returns what may be shown of it now. */
  push(text: string): string {
    let out = "";
    let run = 0; // start of a stretch of plain text
    const plain = (end: number) => {
      if (end > run) out += text.slice(run, end);
    };
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      const code = c.charCodeAt(0);
      switch (this.#state) {
        case "text": {
          if (code >= 0x20 && code !== 0x7f && (code < 0x80 || code > 0x9f)) {
            continue;
          }
          if (c === "\n" || c === "\r" || c === "\t" || c === "\b") continue;
          plain(i);
          run = i + 1;
          if (c === "\x1b") {
            this.#state = "escape";
            this.#held = c;
          } else if (code === 0x9b) {
            this.#state = "csi";
            this.#held = "\x1b[";
          } else if ([0x90, 0x98, 0x9d, 0x9e, 0x9f].includes(code)) {
            this.#state = "string";
            this.#held = "";
          } else {
            out += `\\x${code.toString(16).padStart(2, "0")}`;
          }
          continue;
        }
        case "escape":
          run = i + 1;
          if (c === "[") {
            this.#state = "csi";
            this.#held += c;
          } else if ("]PX^_".includes(c)) {
            this.#state = "string";
            this.#held = "";
          } else if (code >= 0x20 && code <= 0x2f) {
            // An intermediate byte (`ESC ( 0`, `ESC # 8`): one more follows.
            this.#state = "charset";
          } else {
            // A two-byte escape (`ESC c`, `ESC 7`, `ESC =`): dropped.
            this.#state = "text";
            this.#held = "";
          }
          continue;
        case "charset":
          run = i + 1;
          if (code < 0x20 || code > 0x2f) {
            this.#state = "text";
            this.#held = "";
          }
          continue;
        case "csi":
          run = i + 1;
          this.#held += c;
          if (code >= 0x40 && code <= 0x7e) {
            if (KEPT_CSI.test(this.#held.slice(2))) {
              out += this.#held;
              if (c === "m") {
                this.#painted = !/^0*m$/.test(this.#held.slice(2));
              }
            }
            this.#state = "text";
            this.#held = "";
          } else if (
            code < 0x20 || code > 0x7e || this.#held.length > MAX_SEQUENCE
          ) {
            // Not a sequence after all, or too long: dropped.
            this.#state = "text";
            this.#held = "";
          }
          continue;
        case "string":
          run = i + 1;
          if (c === "\x07" || code === 0x9c) this.#state = "text";
          else if (c === "\x1b") this.#state = "string-escape";
          continue;
        case "string-escape":
          run = i + 1;
          this.#state = c === "\\" ? "text" : "string";
          continue;
      }
    }
    if (this.#state === "text") plain(text.length);
    return out;
  }

  /**
   * Ends the output: drops a sequence that never completed and resets the
   * colours when the output left some on.
   */
  flush(): string {
    this.#state = "text";
    this.#held = "";
    const reset = this.#painted ? "\x1b[0m" : "";
    this.#painted = false;
    return reset;
  }
}
