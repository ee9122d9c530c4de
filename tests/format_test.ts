import { equal, match, ok, throws } from "node:assert/strict";
import {
  type CaptureLike,
  describeStatus,
  errorToolResult,
  formatResult,
  isErrorResult,
  lastProgram,
  looksBinary,
  sanitize,
  toToolResult,
} from "../tools/result.ts";
import { CaptureBuffer } from "../core/_capture.ts";
import { test } from "./_harness.ts";
import { rng } from "./_random.ts";

const enc = new TextEncoder();

function capture(text: string, head = 1 << 20, tail = 1 << 20): CaptureLike {
  const c = new CaptureBuffer(head, tail);
  c.push(enc.encode(text));
  return c.finish();
}

function ok0(text: string) {
  return { output: capture(text), exitCode: 0, timedOut: false };
}

test("formatResult() puts the status first and the output after it", () => {
  equal(formatResult(ok0("hi\n")), "Exit code 0\nhi\n");
  equal(formatResult({ ...ok0(""), exitCode: 3 }), "Exit code 3\n(no output)");
});

test("formatResult() names a timeout with its limit, a signal and a restart", () => {
  const t = formatResult(
    { output: capture("partial\n"), exitCode: 130, timedOut: true },
    { timeoutMs: 120_000 },
  );
  match(
    t,
    /^TIMEOUT: the command ran longer than 120 s and was stopped \(exit code 130\)\npartial\n$/,
  );
  const k = formatResult({
    output: capture(""),
    exitCode: null,
    signal: "SIGKILL",
    timedOut: false,
    restarted: true,
  });
  match(k, /^Killed by SIGKILL/);
  match(k, /The shell was restarted: its state .* was lost/);
});

test("formatResult() names the cwd only when it changed", () => {
  const r = { ...ok0("x\n"), cwd: "/tmp" };
  equal(formatResult(r, { previousCwd: "/tmp" }), "Exit code 0\nx\n");
  equal(
    formatResult(r, { previousCwd: "/" }),
    "Exit code 0\nWorking directory: /tmp\nx\n",
  );
});

test("formatResult() shows stdout and stderr apart when they were kept apart", () => {
  const t = formatResult({
    output: capture("o\n"),
    stderr: capture("e\n"),
    exitCode: 1,
    timedOut: false,
  });
  equal(t, "Exit code 1\nstdout:\no\nstderr:\ne\n");
  const onlyErr = formatResult({
    output: capture(""),
    stderr: capture("e\n"),
    exitCode: 1,
    timedOut: false,
  });
  equal(onlyErr, "Exit code 1\nstderr:\ne\n");
});

test("formatResult() keeps head and tail within the budget and counts what it cut", () => {
  const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n") +
    "\n";
  const t = formatResult(ok0(lines), { maxChars: 1000 });
  const body = t.slice("Exit code 0\n".length);
  ok(body.startsWith("line 0\nline 1\n"), body.slice(0, 40));
  ok(body.endsWith("line 1999\n"));
  const m = body.match(
    /\[\.\.\. (\d+) characters \((\d+) lines\) omitted; the output was (\d+) bytes in all \.\.\.\]/,
  );
  ok(m, body);
  const [, chars, omittedLines, total] = m.map(Number);
  equal(total, lines.length);
  const shown = body.replace(m[0] + "\n", "");
  equal(shown.length + chars, lines.length);
  equal(shown.split("\n").length - 1 + omittedLines, 2000);
  ok(shown.length <= 1000);
  // Tail-weighted: more of the end than of the start.
  const headPart = shown.slice(0, shown.indexOf("\nline 1") + 1);
  ok(headPart.length < shown.length / 2);
});

test("formatResult() combines the capture's dropped bytes with its own cut", () => {
  const big = "a".repeat(5000) + "\n" + "z".repeat(5000) + "\nEND\n";
  const t = formatResult(
    { output: capture(big, 3000, 3000), exitCode: 0, timedOut: false },
    { maxChars: 1000, spillPath: "/tmp/spill.txt" },
  );
  match(
    t,
    /\[\.\.\. \d+ bytes and \d+ characters \(\d+ lines\) omitted; the output was 10006 bytes in all; the full output is in \/tmp\/spill.txt: read it with sed -n or grep \.\.\.\]/,
  );
  ok(t.endsWith("END\n"));
});

test("formatResult() never cuts inside a character", () => {
  const emoji = "😀".repeat(2000);
  const t = formatResult(ok0(emoji), { maxChars: 501 });
  ok(
    !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
      .test(t),
  );
});

test("formatResult() rejects a bad budget", () => {
  throws(() => formatResult(ok0("x"), { maxChars: 5 }), /maxChars/);
  throws(() => formatResult(ok0("x"), { headShare: 2 }), /headShare/);
});

test("sanitize() strips ANSI escapes of every kind", () => {
  equal(sanitize("\x1b[1;31mred\x1b[0m plain"), "red plain");
  equal(sanitize("\x1b]0;title\x07text"), "text");
  equal(sanitize("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
  equal(sanitize("a\x1b(Bb\x1b7c"), "abc");
  equal(sanitize("\x9b32mgreen"), "green");
});

test("sanitize() collapses carriage-return progress to each line's final state", () => {
  equal(sanitize("a\r\nb\r\n"), "a\nb\n");
  equal(sanitize("  0%\r 50%\r100%\ndone\n"), "100%\ndone\n");
  equal(sanitize("abcdef\rxy"), "xycdef");
  equal(sanitize("progress\r\n"), "progress\n");
  const tqdm = Array.from({ length: 10000 }, (_, i) => `${i}/9999`).join("\r") +
    "\n";
  equal(sanitize(tqdm), "9999/9999\n");
});

test("sanitize() shows other control characters escaped", () => {
  equal(sanitize("a\x07b\x00c\td"), "a\\x07b\\x00c\td");
});

test("formatResult() summarises binary output in one line", () => {
  const t = formatResult(
    ok0("\x7fELF\x02\x01\x01\x00\x00\x00" + "\x00".repeat(100)),
  );
  match(t, /^Exit code 0\n\[binary output: 110 bytes, not shown\]$/);
  ok(looksBinary("\ufffd\ufffd\ufffdab"));
  ok(!looksBinary("plain text\twith tab\n"));
});

test("describeStatus() translates limits and signals into words", () => {
  equal(
    describeStatus({ exitCode: 137, timedOut: false }),
    "Exit code 137 (SIGKILL: killed; out of memory or a limit is likely)",
  );
  equal(
    describeStatus({ exitCode: 153, timedOut: false }),
    "Exit code 153 (SIGXFSZ: file size limit exceeded)",
  );
  equal(
    describeStatus({ exitCode: null, signal: "SIGXCPU", timedOut: false }),
    "Killed by SIGXCPU (CPU time limit exceeded)",
  );
  equal(
    describeStatus({ exitCode: null, timedOut: false, aborted: true }),
    "ABORTED: the command was stopped",
  );
});

test("toToolResult() builds the wire block and sets is_error", () => {
  const good = toToolResult("toolu_1", ok0("x\n"));
  equal(good.type, "tool_result");
  equal(good.tool_use_id, "toolu_1");
  equal(good.content, "Exit code 0\nx\n");
  equal("is_error" in good, false);
  equal(toToolResult("t", { ...ok0(""), exitCode: 2 }).is_error, true);
  equal(
    toToolResult("t", { ...ok0(""), timedOut: true, exitCode: 130 }).is_error,
    true,
  );
  equal(
    toToolResult("t", { ...ok0(""), exitCode: null, signal: "SIGKILL" })
      .is_error,
    true,
  );
});

test("isErrorResult() treats 'no match' exit codes as success, configurably", () => {
  const one = { exitCode: 1, timedOut: false };
  for (
    const command of [
      "grep x f",
      "rg x",
      "diff a b",
      "cmp a b",
      "test -f x",
      "[ -f x ]",
      "cat f | grep -q y",
      "cd d && grep x f",
    ]
  ) {
    equal(isErrorResult(one, { command }), false, command);
  }
  equal(
    isErrorResult({ exitCode: 2, timedOut: false }, { command: "grep x f" }),
    true,
  );
  equal(isErrorResult(one, { command: "grep x | wc -l" }), true);
  equal(isErrorResult(one, { command: "grep x f", benignExitCodes: {} }), true);
  equal(
    isErrorResult(one, { command: "make", benignExitCodes: { make: [1] } }),
    false,
  );
});

test("lastProgram() finds the program whose status the command returns", () => {
  equal(lastProgram("FOO=1 grep x"), "grep");
  equal(lastProgram("/usr/bin/diff a b"), "diff");
  equal(lastProgram("echo a; ! grep b c"), "grep");
  equal(lastProgram("  "), undefined);
});

test("errorToolResult() marks the block as an error", () => {
  const b = errorToolResult("t1", "Expected a command");
  equal(b.is_error, true);
  equal(b.content, "Error: Expected a command");
});

test("sanitize() applies erase-line and cursor moves before dropping colours, as a terminal shows it", () => {
  equal(sanitize("Downloading 50%\r\x1b[KDone\n"), "Done\n");
  equal(sanitize("abcdef\x1b[3D\x1b[KX\n"), "abcX\n");
  equal(sanitize("abc\bd\n"), "abd\n");
  equal(sanitize("50%\x1b[2K\rok\n"), "ok\n");
  equal(sanitize("one\ntwo\n\x1b[2A\x1b[2Kuno\n"), "uno\ntwo\n");
  equal(sanitize("abcdef\x1b[4G\x1b[1KZ"), "   Zef");
  const rand = rng(5);
  const sgr = ["\x1b[0m", "\x1b[1;32m", "\x1b[38;5;208m", "\x1b[m", "\x9b31m"];
  const erase = ["\r\x1b[K", "\r\x1b[2K", "\x1b[2K\r", "\x1b[999D\x1b[K"];
  for (let n = 0; n < 300; n++) {
    const steps = 1 + Math.floor(rand() * 6);
    const parts = Array.from(
      { length: steps },
      (_, i) => `step ${i} ${"#".repeat(Math.floor(rand() * 40))}`,
    );
    const last = `final ${n}`;
    const tokens: [string, boolean][] = [];
    for (const p of parts) {
      tokens.push([p, true], [erase[Math.floor(rand() * erase.length)], false]);
    }
    tokens.push([last, true], ["\n", false]);
    const text = tokens.map(([t]) => t).join("");
    equal(sanitize(text), last + "\n", JSON.stringify(text));
    // Colour codes anywhere in the text (not inside other sequences) change nothing.
    let coloured = "";
    for (const [t, plain] of tokens) {
      if (!plain) {
        coloured += t;
        continue;
      }
      for (const ch of t) {
        if (rand() < 0.15) coloured += sgr[Math.floor(rand() * sgr.length)];
        coloured += ch;
      }
      if (rand() < 0.5) coloured += sgr[Math.floor(rand() * sgr.length)];
    }
    equal(sanitize(coloured), last + "\n", JSON.stringify(coloured));
  }
});

test("sanitize() shows stray control bytes escaped, wherever they are", () => {
  const rand = rng(9);
  for (const c of ["\x00", "\x07", "\x01", "\x7f", "\x1f"]) {
    for (let n = 0; n < 20; n++) {
      const before = "x".repeat(Math.floor(rand() * 50));
      const hex = c.charCodeAt(0).toString(16).padStart(2, "0");
      equal(sanitize(`${before}${c}y\n`), `${before}\\x${hex}y\n`);
    }
  }
});

test("looksBinary() judges by proportion: a NUL in a long log and Latin-1 prose are text", () => {
  const rand = rng(11);
  const log = Array.from({ length: 2000 }, (_, i) => `[info] step ${i} ok`)
    .join("\n") + "\n";
  for (let n = 0; n < 50; n++) {
    const at = Math.floor(rand() * log.length);
    const text = log.slice(0, at) + "\0" + log.slice(at);
    equal(looksBinary(text), false, `NUL at ${at}`);
    const shown = formatResult(ok0(text), { maxChars: 100_000 });
    ok(shown.includes("\\x00"), `NUL at ${at} shown escaped`);
    ok(shown.includes("[info] step 1999 ok"));
  }
  // Dense Latin-1 prose, decoded as UTF-8 as the capture does.
  const words = [
    "été",
    "très",
    "où",
    "château",
    "naïve",
    "Ärger",
    "größe",
    "façade",
    "año",
    "ça",
  ];
  for (let n = 0; n < 20; n++) {
    const prose = Array.from(
      { length: 400 },
      () => words[Math.floor(rand() * words.length)],
    ).join(" ");
    const latin1 = Uint8Array.from(prose, (ch) => ch.charCodeAt(0));
    const decoded = new TextDecoder().decode(latin1);
    ok(decoded.includes("\ufffd"));
    equal(looksBinary(decoded), false, decoded.slice(0, 80));
  }
  // Random bytes, UTF-16 text and executables are binary.
  for (let n = 0; n < 20; n++) {
    const bytes = Uint8Array.from(
      { length: 4000 },
      () => Math.floor(rand() * 256),
    );
    equal(looksBinary(new TextDecoder().decode(bytes)), true);
  }
  const utf16 = Array.from("hello world, plain text\n".repeat(50)).map((c) =>
    c + "\0"
  ).join("");
  equal(looksBinary(utf16), true);
});

test("looksBinary() takes NUL-separated records of text for text, and formatResult() shows them escaped", () => {
  const rand = rng(23);
  const word = () =>
    Array.from(
      { length: 2 + Math.floor(rand() * 12) },
      () => "abcdefghijklmnopqrstuvwxyz0123456789._-/"[Math.floor(rand() * 40)],
    ).join("");
  for (let n = 0; n < 40; n++) {
    const records = Array.from({ length: 1 + Math.floor(rand() * 30) }, word);
    // NUL-terminated (find -print0) or NUL-separated (/proc/PID/cmdline).
    const text = n % 2 === 0
      ? records.map((r) => r + "\0").join("")
      : records.join("\0");
    equal(looksBinary(text), false, JSON.stringify(text));
    const shown = formatResult(ok0(text), { maxChars: 100_000 });
    ok(shown.includes(records.join("\\x00")), shown);
  }
  // Runs of NULs and other controls are still binary.
  equal(looksBinary("ELF\0\x01\0\0\x02\0\0\0"), true);
  equal(looksBinary("ab\0\0\0\0\0\0\0\0cd\0\0\0\0\0\0"), true);
});

test("sanitize() bounds cursor moves of any size and stays linear under overwriting", () => {
  for (
    const n of [1, 80, 1023, 1024, 5000, 999_999_999, 2 ** 31 - 1, 2 ** 53]
  ) {
    // (Column 1 is the line's start: there, b overwrites a.)
    for (const seq of n > 1 ? [`\x1b[${n}G`, `\x1b[${n}C`] : [`\x1b[${n}C`]) {
      const shown = sanitize(`a${seq}b\n`);
      ok(shown.length <= 1030, `${JSON.stringify(seq)}: ${shown.length}`);
      ok(shown.startsWith("a") && shown.endsWith("b\n"), JSON.stringify(seq));
    }
    // Down and next-line stop at the last row, as at a screen's bottom.
    const down = sanitize(`one\n\x1b[${n}Btwo\x1b[${n}Ethree\n`);
    equal(down, "one\nthree\n", `down ${n}`);
  }
  // A moderate move still pads, as a terminal's column does.
  equal(sanitize("ok\x1b[10Gdone\n"), "ok       done\n");
  // Backspace edits on one long line: the result, whatever its length.
  const long = "abcdefghi\b".repeat(40_000);
  equal(sanitize(long + "\n"), "abcdefgh".repeat(40_000) + "i\n");
});

test("lastProgram() finds the program with the parser: quotes, redirections, groups, if, !, wrappers", () => {
  const programs = ["grep", "rg", "diff", "cmp", "egrep"];
  const args = [
    `-E "a|b" f`,
    `-rn 'a\\|b' dir`,
    `'x;y' f`,
    `"a && b" f`,
    `-e 'a&b' -- f`,
    `x "$(echo a | tr a b)" f`,
  ];
  const redirects = [
    "",
    " 2>&1",
    " 2>/dev/null",
    " >/dev/null 2>&1",
    " <in.txt",
  ];
  const forms: ((c: string) => string)[] = [
    (c) => c,
    (c) => `cd /tmp && ${c}`,
    (c) => `echo a | ${c}`,
    (c) => `LC_ALL=C ${c}`,
    (c) => `{ echo x; ${c}; }`,
    (c) => `( ${c} )`,
    (c) => `! ${c}`,
    (c) => `time ${c}`,
    (c) => `if true; then ${c}; fi`,
    (c) => `if test -f x; then ${c}; else ${c}; fi`,
    (c) => `command ${c}`,
    (c) => `env A=1 ${c}`,
    (c) => `timeout 5 ${c}`,
    (c) => `nice -n 5 ${c}`,
    (c) => `true; ${c} # a comment | wc`,
    (c) => `make || ${c}`,
  ];
  for (const p of programs) {
    for (const a of args) {
      for (const r of redirects) {
        for (const form of forms) {
          const command = form(`${p} ${a}${r}`);
          equal(lastProgram(command), p, command);
          equal(
            isErrorResult({ exitCode: 1, timedOut: false }, { command }),
            false,
            command,
          );
        }
      }
    }
  }
  equal(lastProgram(`grep -E "a|b" f | wc -l`), "wc");
  equal(lastProgram("grep x f; echo done"), "echo");
  equal(lastProgram("grep x f &"), undefined);
  equal(lastProgram("if a; then grep x f; else diff a b; fi"), undefined);
  equal(lastProgram(`$CMD x`), undefined);
  equal(lastProgram("echo 'open"), undefined);
  equal(lastProgram("command -v nope"), "command");
  equal(
    isErrorResult({ exitCode: 1, timedOut: false }, {
      command: `grep "a|make" f | make`,
    }),
    true,
  );
});
