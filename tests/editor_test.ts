import { deepStrictEqual, equal, match, ok, rejects } from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { startFakeApi } from "../anthropic/fake_api.ts";
import { BashTool, runnableBashTool } from "../anthropic/mod.ts";
import { memoryAudit } from "../egress/audit.ts";
import {
  answerToolUses,
  EditorTool,
  type EditorToolOptions,
  runnableEditorTool,
  TEXT_EDITOR_TOOL,
} from "../tools/editor.ts";
import { exec } from "../core/exec.ts";
import { Policy } from "../policy/mod.ts";
import { redactSecrets } from "../egress/redact.ts";
import { BashSession } from "../core/session.ts";
import { test } from "./_harness.ts";
import { startSshd } from "./_sshd.ts";

const NAME = TEXT_EDITOR_TOOL.name;
const hasFlock = (await exec("command -v flock")).exitCode === 0;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "bashbox-editor-"));
}

/** Runs `fn` with an editor (its own session) and a fresh directory. */
async function withEditor(
  fn: (editor: EditorTool, dir: string) => Promise<void>,
  options: EditorToolOptions = {},
): Promise<void> {
  const dir = tempDir();
  try {
    await using editor = new EditorTool(options);
    await fn(editor, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let ids = 0;
async function call(
  editor: EditorTool,
  input: unknown,
): Promise<{ text: string; error: boolean }> {
  const block = await editor.handle({ id: `t${++ids}`, name: NAME, input });
  equal(block.type, "tool_result");
  return { text: block.content, error: block.is_error === true };
}

async function good(editor: EditorTool, input: unknown): Promise<string> {
  const r = await call(editor, input);
  equal(r.error, false, `${JSON.stringify(input)} -> ${r.text}`);
  return r.text;
}

async function bad(editor: EditorTool, input: unknown): Promise<string> {
  const r = await call(editor, input);
  equal(r.error, true, `${JSON.stringify(input)} -> ${r.text}`);
  ok(r.text.startsWith("Error: "), r.text);
  return r.text;
}

/** What `cat -n` style numbering of these lines looks like. */
function catN(lines: readonly string[], first = 1): string {
  return lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}\n`).join(
    "",
  );
}

function sha(bytes: Uint8Array | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A deterministic pseudo-random generator for generated cases. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// ---------------------------------------------------------------------------
// Definition and input shapes.

test("TEXT_EDITOR_TOOL and EditorTool.definition name the 20250728 tool", async () => {
  deepStrictEqual({ ...TEXT_EDITOR_TOOL }, {
    type: "text_editor_20250728",
    name: "str_replace_based_edit_tool",
  });
  await using editor = new EditorTool({ maxCharacters: 5000 });
  deepStrictEqual(editor.definition, {
    ...TEXT_EDITOR_TOOL,
    max_characters: 5000,
  });
  await using plain = new EditorTool();
  equal(plain.definition.max_characters, 30000);
});

test("EditorTool rejects bad options", () => {
  const cases: [unknown, RegExp][] = [
    [
      { maxCharacters: 10 },
      /maxCharacters to be a whole number of at least 100/,
    ],
    [{ maxCharacters: 1.5e3 + 0.5 }, /maxCharacters/],
    [{ maxFileBytes: 0 }, /maxFileBytes/],
    [{ roots: ["relative"] }, /roots to be an array of absolute paths/],
    [{ roots: "/tmp" }, /roots/],
    [{ session: {} }, /Expected session to be a BashSession/],
  ];
  for (const [options, message] of cases) {
    let error: Error | undefined;
    try {
      new EditorTool(options as EditorToolOptions);
    } catch (e) {
      error = e as Error;
    }
    ok(error, JSON.stringify(options));
    match(error.message, message);
  }
});

test("EditorTool.handle() answers every bad input shape with is_error", async () => {
  await withEditor(async (editor, dir) => {
    const file = join(dir, "f.txt");
    writeFileSync(file, "a\n");
    const cases: [unknown, RegExp][] = [
      [null, /Expected input \{"command": "view" \| "create"/],
      ["view", /got "view"/],
      [[], /Expected input/],
      [{}, /got \{\}/],
      [{ command: 3, path: file }, /Expected input/],
      [
        { command: "undo_edit", path: file },
        /Unrecognized command undo_edit\. The allowed commands for the str_replace_based_edit_tool tool are: view, create, str_replace, insert/,
      ],
      [{ command: "delete", path: file }, /Unrecognized command delete/],
      [{ command: "view" }, /Parameter `path` is required for command: view/],
      [{ command: "view", path: "" }, /Parameter `path` is required/],
      [{ command: "view", path: 7 }, /Expected `path` to be a string, got 7/],
      [{ command: "view", path: "/a\0b" }, /without NUL bytes/],
      [
        { command: "view", path: "f.txt" },
        /The path f\.txt is not an absolute path, it should start with `\/`\. Maybe you meant \/.*\/f\.txt\?/,
      ],
      [{ command: "view", path: "./x/../f.txt" }, /not an absolute path/],
      [
        { command: "view", path: file, view_range: [1] },
        /Invalid `view_range`\. It should be a list of two integers/,
      ],
      [
        { command: "view", path: file, view_range: [1, 2.5] },
        /list of two integers/,
      ],
      [
        { command: "view", path: file, view_range: "1,2" },
        /list of two integers/,
      ],
      [
        { command: "view", path: file, view_range: [1, "2"] },
        /list of two integers/,
      ],
      [
        { command: "create", path: join(dir, "n") },
        /Parameter `file_text` is required for command: create/,
      ],
      [
        { command: "create", path: join(dir, "n"), file_text: 5 },
        /Expected `file_text` to be a string/,
      ],
      [
        { command: "str_replace", path: file, new_str: "x" },
        /Parameter `old_str` is required for command: str_replace/,
      ],
      [
        { command: "str_replace", path: file, old_str: "a", new_str: 1 },
        /Expected `new_str` to be a string/,
      ],
      [
        { command: "insert", path: file, insert_text: "x" },
        /Parameter `insert_line` is required for command: insert/,
      ],
      [
        { command: "insert", path: file, insert_line: "1", insert_text: "x" },
        /Expected `insert_line` to be a whole number, got "1"/,
      ],
      [
        { command: "insert", path: file, insert_line: 0.5, insert_text: "x" },
        /whole number/,
      ],
      [
        { command: "insert", path: file, insert_line: 0 },
        /Parameter `insert_text` \(or `new_str`\) is required for command: insert/,
      ],
      [{
        command: "insert",
        path: file,
        insert_line: 0,
        insert_text: "x",
        new_str: "y",
      }, /different values/],
      [
        { command: "insert", path: file, insert_line: 0, insert_text: 3 },
        /Expected `insert_text` to be a string/,
      ],
    ];
    for (const [input, message] of cases) {
      match(await bad(editor, input), message, JSON.stringify(input));
    }
    const wrongTool = await editor.handle({
      id: "w",
      name: "bash",
      input: { command: "ls" },
    });
    equal(wrongTool.is_error, true);
    match(
      wrongTool.content,
      /Expected a call of the "str_replace_based_edit_tool" tool, got "bash"/,
    );
    await rejects(editor.handle({ id: "", input: {} }), TypeError);

    await rejects(
      editor.handle(null as unknown as { id: string; input: unknown }),
      /Expected a tool_use block with a string id/,
    );
    equal(readFileSync(file, "utf8"), "a\n");
  });
});

// ---------------------------------------------------------------------------
// view.

test("EditorTool view shows a file like cat -n, and every view_range as documented", async () => {
  await withEditor(async (editor, dir) => {
    for (const n of [1, 2, 7]) {
      const lines = Array.from({ length: n }, (_, i) => `line ${i + 1}\tx`);
      for (const trailing of [true, false]) {
        const file = join(dir, `f${n}${trailing}.txt`);
        writeFileSync(file, lines.join("\n") + (trailing ? "\n" : ""));
        equal(
          await good(editor, { command: "view", path: file }),
          `Here's the result of running \`cat -n\` on ${file}:\n${catN(lines)}`,
        );
        if (!trailing) continue; // The ranges are the same either way.
        for (let a = -1; a <= n + 1; a++) {
          for (let b = -2; b <= n + 1; b++) {
            const input = { command: "view", path: file, view_range: [a, b] };
            if (a < 1 || a > n) {
              equal(
                await bad(editor, input),
                `Error: Invalid \`view_range\`: [${a}, ${b}]. Its first element \`${a}\` should be within the range of lines of the file: [1, ${n}]`,
              );
            } else if (b > n) {
              equal(
                await bad(editor, input),
                `Error: Invalid \`view_range\`: [${a}, ${b}]. Its second element \`${b}\` should be smaller than the number of lines in the file: \`${n}\``,
              );
            } else if (b !== -1 && b < a) {
              equal(
                await bad(editor, input),
                `Error: Invalid \`view_range\`: [${a}, ${b}]. Its second element \`${b}\` should be larger or equal than its first \`${a}\``,
              );
            } else {
              const end = b === -1 ? n : b;
              equal(
                await good(editor, input),
                `Here's the result of running \`cat -n\` on ${file}:\n${
                  catN(lines.slice(a - 1, end), a)
                }`,
              );
            }
          }
        }
      }
    }
    const empty = join(dir, "empty.txt");
    writeFileSync(empty, "");
    equal(
      await good(editor, { command: "view", path: empty }),
      `The file ${empty} is empty.`,
    );
    match(
      await bad(editor, { command: "view", path: empty, view_range: [1, 1] }),
      /range of lines of the file: \[1, 0\]/,
    );
  });
});

test("EditorTool view lists a directory two levels deep without hidden entries", async () => {
  await withEditor(async (editor, dir) => {
    for (
      const d of [
        "src",
        "src/lib",
        "src/lib/deep",
        ".git",
        "src/.cache",
        "docs",
      ]
    ) mkdirSync(join(dir, d), { recursive: true });
    for (
      const f of [
        "README.md",
        ".env",
        "src/main.ts",
        "src/.hidden.ts",
        "src/lib/util.ts",
        "src/lib/deep/x.ts",
        ".git/config",
        "src/.cache/y",
        "docs/a b.md",
      ]
    ) writeFileSync(join(dir, f), "x");
    symlinkSync(join(dir, "src"), join(dir, "link"));
    const expected = [
      "README.md",
      "docs/",
      "docs/a b.md",
      "link",
      "src/",
      "src/lib/",
      "src/main.ts",
    ].map((e) => `${dir}/${e}`);
    for (const given of [dir, `${dir}/`, `${dir}//.`]) {
      equal(
        await good(editor, { command: "view", path: given }),
        `Here's the files and directories up to 2 levels deep in ${given}, excluding hidden items:\n${
          expected.map((e) => `${e}\n`).join("")
        }`,
      );
    }
    // A directory reached through a symlink is listed under the given name.
    const viaLink = await good(editor, {
      command: "view",
      path: join(dir, "link"),
    });
    match(viaLink, new RegExp(`^${dir}/link/lib/$`, "m"));
    match(viaLink, new RegExp(`^${dir}/link/lib/util.ts$`, "m"));
    // A hidden directory given explicitly is listed (its own name does not hide its contents).
    match(
      await good(editor, { command: "view", path: join(dir, ".git") }),
      /\.git\/config\n$/,
    );
    equal(
      await bad(editor, { command: "view", path: dir, view_range: [1, 2] }),
      "Error: The `view_range` parameter is not allowed when `path` points to a directory.",
    );
    for (const command of ["str_replace", "insert"]) {
      equal(
        await bad(editor, {
          command,
          path: dir,
          old_str: "a",
          insert_line: 0,
          insert_text: "x",
        }),
        `Error: The path ${dir} is a directory and only the \`view\` command can be used on directories`,
      );
    }
    match(
      await bad(editor, {
        command: "create",
        path: join(dir, "src"),
        file_text: "x",
      }),
      /File already exists at: .*src\. Cannot overwrite files using command `create`\./,
    );
  });
});

test("EditorTool view names missing, special, unreadable and binary files", async () => {
  await withEditor(async (editor, dir) => {
    const missing = join(dir, "nope.txt");
    for (const command of ["view", "str_replace", "insert"]) {
      equal(
        await bad(editor, {
          command,
          path: missing,
          old_str: "a",
          insert_line: 0,
          insert_text: "b",
        }),
        `Error: File not found: the path ${missing} does not exist. Please provide a valid path.`,
      );
    }
    match(
      await bad(editor, {
        command: "view",
        path: join(dir, "nope", "deeper", "x"),
      }),
      /File not found/,
    );
    writeFileSync(join(dir, "file"), "x");
    match(
      await bad(editor, { command: "view", path: join(dir, "file", "x") }),
      /one of its parents is a file, not a directory/,
    );
    match(
      await bad(editor, { command: "view", path: "/dev/null" }),
      /not a regular file or directory/,
    );
    symlinkSync(join(dir, "gone"), join(dir, "dangling"));
    match(
      await bad(editor, { command: "view", path: join(dir, "dangling") }),
      /symbolic link to something that does not exist/,
    );
    symlinkSync("loop2", join(dir, "loop1"));
    symlinkSync("loop1", join(dir, "loop2"));
    match(
      await bad(editor, { command: "view", path: join(dir, "loop1") }),
      /too many symbolic links/,
    );
    const bin = join(dir, "bin.dat");
    const binBytes = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 10]);
    writeFileSync(bin, binBytes);
    const latin1 = join(dir, "latin1.txt");
    writeFileSync(latin1, new Uint8Array([0x63, 0x61, 0x66, 0xe9, 10]));
    for (
      const input of [
        { command: "view" },
        { command: "str_replace", old_str: "c", new_str: "d" },
        { command: "insert", insert_line: 0, insert_text: "z" },
      ]
    ) {
      match(
        await bad(editor, { ...input, path: bin }),
        /looks binary \(it contains NUL bytes\)/,
      );
      match(
        await bad(editor, { ...input, path: latin1 }),
        /is not valid UTF-8 text/,
      );
    }
    deepStrictEqual(new Uint8Array(readFileSync(bin)), binBytes);
    deepStrictEqual([...readFileSync(latin1)], [0x63, 0x61, 0x66, 0xe9, 10]);
  });
});

test("EditorTool view cuts a long file in the middle to max_characters, naming the lines left out", async () => {
  await withEditor(async (editor, dir) => {
    const lines = Array.from(
      { length: 2000 },
      (_, i) => `row ${i + 1} ${"x".repeat(i % 37)}`,
    );
    const file = join(dir, "long.txt");
    writeFileSync(file, lines.join("\n") + "\n");
    const text = await good(editor, { command: "view", path: file });
    const body = text.slice(text.indexOf("\n") + 1);
    ok(body.length <= 1000 + 200, `${body.length}`);
    const notice =
      /\[\.\.\. (\d+) characters \((\d+) lines\) omitted; view_range \[(\d+), (\d+)\] shows them \.\.\.\]\n/
        .exec(body);
    ok(notice, body);
    const [from, to] = [Number(notice[3]), Number(notice[4])];
    equal(Number(notice[2]), to - from + 1);
    // Every line shown is whole and correctly numbered; the head and the tail meet the gap.
    const shown = body.replace(notice[0], "").split("\n").filter(Boolean);
    for (const row of shown) {
      const [n, content] = row.split("\t");
      equal(content, lines[Number(n) - 1]);
    }
    equal(Number(shown[0].split("\t")[0]), 1);
    equal(Number(shown.at(-1)!.split("\t")[0]), 2000);
    equal(
      Number(
        body.slice(0, body.indexOf(notice[0])).trimEnd().split("\n").at(-1)!
          .split("\t")[0],
      ),
      from - 1,
    );
    const omitted = catN(lines.slice(from - 1, to), from);
    equal(Number(notice[1]), omitted.length);
    // The range the notice names shows the rest.
    const rest = await good(editor, {
      command: "view",
      path: file,
      view_range: [from, from + 3],
    });
    ok(rest.endsWith(catN(lines.slice(from - 1, from + 3), from)));
    // One enormous line is cut within the line.
    const wide = join(dir, "wide.txt");
    writeFileSync(wide, "y".repeat(50_000));
    const w = await good(editor, { command: "view", path: wide });
    ok(w.length < 1200, `${w.length}`);
    match(w, /\[\.\.\. \d+ more characters on this line\]/);
  }, { maxCharacters: 1000 });
});

// ---------------------------------------------------------------------------
// create, str_replace, insert.

test("EditorTool create writes exactly the given text, makes parent directories, refuses to overwrite", async () => {
  await withEditor(async (editor, dir) => {
    const random = rng(7);
    const alphabet = [
      "a",
      "Z",
      " ",
      "\t",
      "\n",
      "\r\n",
      "\r",
      "'",
      '"',
      "`",
      "$(",
      "${x}",
      "\\",
      "!",
      "é",
      "日本",
      "🦀",
      "\u0301",
      "__BBX",
      "\n__BBX\n",
      "EOF",
      "%s",
      "\x1b[31m",
      "\ufeff",
    ];
    for (let i = 0; i < 40; i++) {
      let text = "";
      const parts = Math.floor(random() * 30);
      for (let k = 0; k < parts; k++) {
        text += alphabet[Math.floor(random() * alphabet.length)];
      }
      const path = join(dir, `gen-${i}.txt`);
      equal(
        await good(editor, { command: "create", path, file_text: text }),
        `File created successfully at: ${path}`,
      );
      equal(readFileSync(path, "utf8"), text, JSON.stringify(text));
      deepStrictEqual(
        new Uint8Array(readFileSync(path)),
        new TextEncoder().encode(text),
      );
    }
    const nested = join(dir, "new", "deeper", "x.py");
    await good(editor, {
      command: "create",
      path: nested,
      file_text: "print(1)\n",
    });
    equal(readFileSync(nested, "utf8"), "print(1)\n");
    const umask = parseInt((await exec("umask")).stdout.text.trim(), 8);
    equal(
      statSync(nested).mode & 0o777,
      0o666 & ~umask,
      "a new file gets the shell's umask",
    );
    writeFileSync(join(dir, "keep.txt"), "original");
    equal(
      await bad(editor, {
        command: "create",
        path: join(dir, "keep.txt"),
        file_text: "new",
      }),
      `Error: File already exists at: ${
        join(dir, "keep.txt")
      }. Cannot overwrite files using command \`create\`.`,
    );
    equal(readFileSync(join(dir, "keep.txt"), "utf8"), "original");
    match(
      await bad(editor, {
        command: "create",
        path: join(dir, "keep.txt", "x"),
        file_text: "",
      }),
      /parents is a file/,
    );
  });
});

test("EditorTool create with overwrite replaces a file and keeps its mode", async () => {
  await withEditor(async (editor, dir) => {
    const path = join(dir, "run.sh");
    writeFileSync(path, "old");
    chmodSync(path, 0o750);
    equal(
      await good(editor, {
        command: "create",
        path,
        file_text: "#!/bin/sh\necho new\n",
      }),
      `File overwritten successfully at: ${path}`,
    );
    equal(readFileSync(path, "utf8"), "#!/bin/sh\necho new\n");
    equal(statSync(path).mode & 0o777, 0o750);
    const fresh = join(dir, "fresh.txt");
    equal(
      await good(editor, { command: "create", path: fresh, file_text: "x" }),
      `File created successfully at: ${fresh}`,
    );
  }, { overwrite: true });
});

test("EditorTool str_replace replaces the one occurrence and shows a snippet; errors say how often and where", async () => {
  await withEditor(async (editor, dir) => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const path = join(dir, "f.txt");
    // Generated: every line of the file replaced in turn by a unique edit.
    for (let target = 1; target <= 20; target += 3) {
      writeFileSync(path, lines.join("\n") + "\n");
      const text = await good(editor, {
        command: "str_replace",
        path,
        old_str: `line ${target}\n`,
        new_str: `LINE ${target}\nadded\n`,
      });
      const after = [...lines];
      after.splice(target - 1, 1, `LINE ${target}`, "added");
      equal(readFileSync(path, "utf8"), after.join("\n") + "\n");
      const from = Math.max(1, target - 4);
      // The reference client's span: new_str's newlines after the line, plus 4.
      const to = Math.min(after.length, target + 2 + 4);
      equal(
        text,
        `The file ${path} has been edited. Here's the result of running \`cat -n\` on a snippet of ${path}:\n${
          catN(after.slice(from - 1, to), from)
        }Review the changes and make sure they are as expected. Edit the file again if necessary.`,
      );
    }
    writeFileSync(path, "alpha\nbeta\nalpha beta\n\nalpha\n");
    equal(
      await bad(editor, {
        command: "str_replace",
        path,
        old_str: "alpha",
        new_str: "x",
      }),
      `Error: No replacement was performed. Found 3 matches of old_str \`alpha\` in ${path}, starting on lines [1, 3, 5]. Please provide more context to make a unique match.`,
    );
    // Overlapping occurrences count: "aa" occurs twice in "aaa".
    const overlap = join(dir, "o.txt");
    writeFileSync(overlap, "aaa\n");
    match(
      await bad(editor, {
        command: "str_replace",
        path: overlap,
        old_str: "aa",
        new_str: "b",
      }),
      /Found 2 matches of old_str `aa`.*lines \[1, 1\]/,
    );
    // A multi-line old_str occurring twice names both starting lines.
    writeFileSync(path, "x\ny\nx\ny\n");
    match(
      await bad(editor, {
        command: "str_replace",
        path,
        old_str: "x\ny",
        new_str: "z",
      }),
      /Found 2 matches .* starting on lines \[1, 3\]/s,
    );
    equal(
      await bad(editor, {
        command: "str_replace",
        path,
        old_str: "missing",
        new_str: "z",
      }),
      `Error: No replacement was performed, old_str \`missing\` did not appear verbatim in ${path}.`,
    );
    equal(readFileSync(path, "utf8"), "x\ny\nx\ny\n");
    // A missing new_str deletes; an empty old_str is refused unless the file is empty.
    writeFileSync(path, "keep drop keep\n");
    await good(editor, { command: "str_replace", path, old_str: " drop" });
    equal(readFileSync(path, "utf8"), "keep keep\n");
    match(
      await bad(editor, {
        command: "str_replace",
        path,
        old_str: "",
        new_str: "x",
      }),
      /old_str is empty/,
    );
    const empty = join(dir, "empty.txt");
    writeFileSync(empty, "");
    await good(editor, {
      command: "str_replace",
      path: empty,
      old_str: "",
      new_str: "filled\n",
    });
    equal(readFileSync(empty, "utf8"), "filled\n");
    // Tabs are kept as tabs (the reference client expands them).
    writeFileSync(path, "all:\n\tmake build\n");
    await good(editor, {
      command: "str_replace",
      path,
      old_str: "\tmake build",
      new_str: "\tmake test",
    });
    equal(readFileSync(path, "utf8"), "all:\n\tmake test\n");
    // Replacement text with $ patterns is inserted literally.
    await good(editor, {
      command: "str_replace",
      path,
      old_str: "test",
      new_str: "$& $1 $$ $`",
    });
    equal(readFileSync(path, "utf8"), "all:\n\tmake $& $1 $$ $`\n");
  });
});

test("EditorTool insert puts text after insert_line (0 = the start), accepting insert_text or new_str", async () => {
  await withEditor(async (editor, dir) => {
    const path = join(dir, "f.txt");
    const base = ["a", "b", "c", "d", "e", "f", "g"];
    const texts = ["new", "new\n", "n1\nn2", "n1\nn2\n"];
    for (let at = 0; at <= base.length; at++) {
      // Every position with one spelling; every spelling at positions 0 and 4.
      const keys = at % 4 === 0
        ? ["insert_text", "new_str"]
        : [at % 2 ? "new_str" : "insert_text"];
      for (const key of keys) {
        for (const text of at % 4 === 0 ? texts : [texts[at % texts.length]]) {
          writeFileSync(path, base.join("\n") + "\n");
          const message = await good(editor, {
            command: "insert",
            path,
            insert_line: at,
            [key]: text,
          });
          const added = text.replace(/\n$/, "").split("\n");
          const after = [...base];
          after.splice(at, 0, ...added);
          equal(
            readFileSync(path, "utf8"),
            after.join("\n") + "\n",
            `${at} ${JSON.stringify(text)}`,
          );
          const from = Math.max(1, at - 3);
          const to = Math.min(after.length, at + added.length + 4);
          equal(
            message,
            `The file ${path} has been edited. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${
              catN(after.slice(from - 1, to), from)
            }Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
          );
        }
      }
    }
    writeFileSync(path, "a\nb\n");
    for (const line of [-1, 3, 100]) {
      equal(
        await bad(editor, {
          command: "insert",
          path,
          insert_line: line,
          insert_text: "x",
        }),
        `Error: Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, 2]`,
      );
    }
    const empty = join(dir, "empty.txt");
    writeFileSync(empty, "");
    await good(editor, {
      command: "insert",
      path: empty,
      insert_line: 0,
      insert_text: "first",
    });
    equal(readFileSync(empty, "utf8"), "first\n");
    await good(editor, {
      command: "insert",
      path: empty,
      insert_line: 1,
      insert_text: "",
    });
    equal(readFileSync(empty, "utf8"), "first\n\n");
  });
});

test("EditorTool keeps CRLF line endings, a missing final newline, a BOM and unicode", async () => {
  await withEditor(async (editor, dir) => {
    const crlf = join(dir, "win.txt");
    writeFileSync(crlf, "one\r\ntwo\r\nthree\r\n");
    equal(
      await good(editor, { command: "view", path: crlf }),
      `Here's the result of running \`cat -n\` on ${crlf}:\n${
        catN(["one", "two", "three"])
      }`,
    );
    await good(editor, {
      command: "str_replace",
      path: crlf,
      old_str: "one\ntwo",
      new_str: "1\n2\n2b",
    });
    equal(readFileSync(crlf, "utf8"), "1\r\n2\r\n2b\r\nthree\r\n");
    await good(editor, {
      command: "str_replace",
      path: crlf,
      old_str: "three",
      new_str: "3",
    });
    equal(readFileSync(crlf, "utf8"), "1\r\n2\r\n2b\r\n3\r\n");
    await good(editor, {
      command: "insert",
      path: crlf,
      insert_line: 1,
      insert_text: "x\ny",
    });
    equal(readFileSync(crlf, "utf8"), "1\r\nx\r\ny\r\n2\r\n2b\r\n3\r\n");
    // A mixed file is matched verbatim only.
    const mixed = join(dir, "mixed.txt");
    writeFileSync(mixed, "a\r\nb\nc\r\n");
    match(
      await bad(editor, {
        command: "str_replace",
        path: mixed,
        old_str: "a\nb",
        new_str: "z",
      }),
      /did not appear verbatim/,
    );
    await good(editor, {
      command: "str_replace",
      path: mixed,
      old_str: "a\r\nb",
      new_str: "z",
    });
    equal(readFileSync(mixed, "utf8"), "z\nc\r\n");

    const noEol = join(dir, "noeol.txt");
    writeFileSync(noEol, "first\nlast");
    equal(
      await good(editor, { command: "view", path: noEol }),
      `Here's the result of running \`cat -n\` on ${noEol}:\n${
        catN(["first", "last"])
      }`,
    );
    await good(editor, {
      command: "str_replace",
      path: noEol,
      old_str: "last",
      new_str: "LAST",
    });
    equal(readFileSync(noEol, "utf8"), "first\nLAST");
    await good(editor, {
      command: "insert",
      path: noEol,
      insert_line: 2,
      insert_text: "after\n",
    });
    equal(readFileSync(noEol, "utf8"), "first\nLAST\nafter");
    await good(editor, {
      command: "insert",
      path: noEol,
      insert_line: 1,
      insert_text: "mid",
    });
    equal(readFileSync(noEol, "utf8"), "first\nmid\nLAST\nafter");

    const uni = join(dir, "ünï cødé 🦀.txt");
    const bom = "\ufeff";
    writeFileSync(uni, `${bom}naïve café\n日本語\ne\u0301\n🦀 crab\n`);
    match(
      await good(editor, { command: "view", path: uni }),
      / {5}2\t日本語\n/,
    );
    await good(editor, {
      command: "str_replace",
      path: uni,
      old_str: "日本語",
      new_str: "中文 🐍",
    });
    await good(editor, {
      command: "insert",
      path: uni,
      insert_line: 0,
      insert_text: "ζ",
    });
    equal(
      readFileSync(uni, "utf8"),
      `ζ\n${bom}naïve café\n中文 🐍\ne\u0301\n🦀 crab\n`,
    );
    const direct = join(dir, "bom.txt");
    writeFileSync(direct, `${bom}x\n`);
    await good(editor, {
      command: "str_replace",
      path: direct,
      old_str: "x",
      new_str: "y",
    });
    deepStrictEqual([...readFileSync(direct)], [0xef, 0xbb, 0xbf, 0x79, 0x0a]);
  });
});

test("EditorTool edits keep the file's mode, hard links and symlinks", async () => {
  await withEditor(async (editor, dir) => {
    const script = join(dir, "run.sh");
    writeFileSync(script, "echo old\n");
    chmodSync(script, 0o754);
    await good(editor, {
      command: "str_replace",
      path: script,
      old_str: "old",
      new_str: "new",
    });
    equal(statSync(script).mode & 0o777, 0o754);
    equal(readFileSync(script, "utf8"), "echo new\n");
    const a = join(dir, "a.txt");
    const b = join(dir, "b.txt");
    writeFileSync(a, "shared\n");
    linkSync(a, b);
    await good(editor, {
      command: "insert",
      path: b,
      insert_line: 1,
      insert_text: "more",
    });
    equal(readFileSync(a, "utf8"), "shared\nmore\n");
    equal(statSync(a).ino, statSync(b).ino);
    const target = join(dir, "real.txt");
    const link = join(dir, "link.txt");
    writeFileSync(target, "via link\n");
    symlinkSync("real.txt", link);
    await good(editor, {
      command: "str_replace",
      path: link,
      old_str: "via",
      new_str: "through",
    });
    equal(readFileSync(target, "utf8"), "through link\n");
    ok(statSync(link).isFile() && existsSync(link));
    equal(
      (await exec(["bash", "-c", 'readlink "$1"', "_", link])).stdout.text,
      "real.txt\n",
    );
    // No temporary file is left behind.
    equal(
      (await exec([
        "bash",
        "-c",
        'ls -A "$1" | grep -c bbedit || true',
        "_",
        dir,
      ])).stdout.text,
      "0\n",
    );
  });
});

test("EditorTool write refusals: permission denied, read-only files", async () => {
  const root = (await exec("id -u")).stdout.text.trim() === "0";
  await withEditor(async (editor, dir) => {
    const ro = join(dir, "ro.txt");
    writeFileSync(ro, "x\n");
    chmodSync(ro, 0o444);
    if (!root) {
      equal(
        await bad(editor, {
          command: "str_replace",
          path: ro,
          old_str: "x",
          new_str: "y",
        }),
        `Error: Permission denied. Cannot write to file ${ro}.`,
      );
      equal(readFileSync(ro, "utf8"), "x\n");
    }
    // Writing where no one may create files: /proc exists everywhere.
    match(
      await bad(editor, {
        command: "create",
        path: "/proc/bashbox-editor-test.txt",
        file_text: "x",
      }),
      /Permission denied\. Cannot write to file|Writing .* failed/,
    );
  });
});

// ---------------------------------------------------------------------------
// Through the session.

test("EditorTool works with stderr kept apart, long names and files that start like a listing", async () => {
  await withEditor(async (editor, dir) => {
    const long = join(dir, "n".repeat(250));
    await good(editor, {
      command: "create",
      path: long,
      file_text: "long name\n",
    });
    await good(editor, {
      command: "str_replace",
      path: long,
      old_str: "long",
      new_str: "a long",
    });
    equal(readFileSync(long, "utf8"), "a long name\n");
    const tricky = join(dir, "d0.bin");
    writeFileSync(tricky, new Uint8Array([100, 0, 102, 0]));
    match(await bad(editor, { command: "view", path: tricky }), /looks binary/);
    const listing = join(dir, "listing.txt");
    writeFileSync(listing, "C::d\nK:3:dir\n");
    equal(
      await good(editor, { command: "view", path: listing }),
      `Here's the result of running \`cat -n\` on ${listing}:\n${
        catN(["C::d", "K:3:dir"])
      }`,
    );
  }, { sessionOptions: { stderr: "separate" } });
});

test("EditorTool works through the session and leaves the shell's state alone", async () => {
  const dir = tempDir();
  try {
    await using bash = new BashTool({ sessionOptions: { cwd: dir } });
    await using editor = new EditorTool({ session: bash.session });
    const run = async (command: string) =>
      (await bash.handle({ id: "b", name: "bash", input: { command } }))
        .content;
    // A hostile shell state: aliases and functions for the tools the editor
    // uses, errexit and nounset, odd IFS, a variable named like the helper's.
    await run(
      "set -eu; shopt -s expand_aliases; alias cat='echo ALIASED'; mv() { echo FUNC; }; base64() { return 1; }; export -f mv; IFS=:; R=keep; tmp=mine; umask 027",
    );
    await good(editor, {
      command: "create",
      path: join(dir, "a.txt"),
      file_text: "x = 1\n",
    });
    await good(editor, {
      command: "str_replace",
      path: join(dir, "a.txt"),
      old_str: "1",
      new_str: "2",
    });
    match(
      await good(editor, { command: "view", path: join(dir, "a.txt") }),
      /x = 2/,
    );
    equal(readFileSync(join(dir, "a.txt"), "utf8"), "x = 2\n");
    equal(
      statSync(join(dir, "a.txt")).mode & 0o777,
      0o640,
      "the session's umask applies",
    );
    equal(
      await run(
        'echo "$R $tmp"; type -t mv; alias cat; [[ $- == *e*u* ]] && echo errexit+nounset',
      ),
      "Exit code 0\nkeep mine\nfunction\nalias cat='echo ALIASED'\nerrexit+nounset\n",
    );
    // A relative path suggestion uses the session's cwd.
    await run("cd /usr");
    match(
      await bad(editor, { command: "view", path: "lib" }),
      /Maybe you meant \/usr\/lib\?/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("EditorTool serialises concurrent edits of one file; a change from elsewhere is never overwritten", async () => {
  await withEditor(async (editor, dir) => {
    const path = join(dir, "counter.txt");
    const n = 12;
    writeFileSync(
      path,
      Array.from({ length: n }, (_, i) => `slot ${i}`).join("\n") + "\n",
    );
    const results = await Promise.all(
      Array.from(
        { length: n },
        (_, i) =>
          i % 2 === 0
            ? call(editor, {
              command: "str_replace",
              path,
              old_str: `slot ${i}\n`,
              new_str: `done ${i}\n`,
            })
            : call(editor, {
              command: "insert",
              path,
              insert_line: 0,
              insert_text: `inserted ${i}`,
            }),
      ),
    );
    ok(
      results.every((r) => !r.error),
      JSON.stringify(results.filter((r) => r.error)),
    );
    const final = readFileSync(path, "utf8");
    for (let i = 0; i < n; i++) {
      ok(
        final.includes(i % 2 === 0 ? `done ${i}\n` : `inserted ${i}\n`),
        `${i}: ${final}`,
      );
    }
    // Two editors on two sessions race on one file: each edit either lands or
    // is refused as "changed"; none is lost silently.
    await using other = new EditorTool();
    writeFileSync(path, "");
    const racers = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) =>
          call(i % 2 ? editor : other, {
            command: "insert",
            path,
            insert_line: 0,
            insert_text: `r${i}`,
          }),
      ),
    );
    const landed = readFileSync(path, "utf8").split("\n").filter(Boolean);
    racers.forEach((r, i) => {
      if (r.error) {
        match(
          r.text,
          /was changed by something else|changed while it was read/,
        );
        ok(!landed.includes(`r${i}`));
      } else {ok(
          landed.includes(`r${i}`),
          `r${i} reported success but is missing`,
        );}
    });
    equal(new Set(landed).size, landed.length);
    // A multi-command write of a 3 MB file races an append from another
    // shell: the append is never lost, and no temporary file is left.
    const big = join(dir, "big.txt");
    for (let round = 0; round < 4; round++) {
      writeFileSync(big, "start\n" + "filler line\n".repeat(250_000));
      const [edit] = await Promise.all([
        call(editor, {
          command: "str_replace",
          path: big,
          old_str: "start",
          new_str: `edit ${round}`,
        }),
        // A writer that takes the file's lock as the editor does (one that
        // does not can lose its write in the moment between the editor's
        // check and its rename).
        exec(
          `sleep 0.${round * 2}; exec 9<${big}; ${
            hasFlock ? "flock 9;" : ""
          } echo appended >> ${big}`,
        ),
      ]);
      const after = readFileSync(big, "utf8");
      ok(after.endsWith("appended\n"), `round ${round}: the append was lost`);
      if (edit.error) match(edit.text, /was changed by something else/);
      else ok(after.startsWith(`edit ${round}\n`));
    }
    equal(
      (await exec([
        "bash",
        "-c",
        'ls -A "$1" | grep -c bbedit || true',
        "_",
        dir,
      ])).stdout.text,
      "0\n",
    );
  });
});

test("EditorTool handles a 10 MB file through the session", async () => {
  await withEditor(async (editor, dir) => {
    const path = join(dir, "big.txt");
    const line = "0123456789 abcdefghijklmnopqrstuvwxyz ÄÖÜ 🦀\n";
    const count = Math.ceil(10_000_000 / new TextEncoder().encode(line).length);
    const lines = Array.from({ length: count }, (_, i) => `${i}:${line}`);
    const text = lines.join("");
    let t = performance.now();
    await good(editor, { command: "create", path, file_text: text });
    const createMs = performance.now() - t;
    equal(sha(readFileSync(path)), sha(text));
    t = performance.now();
    const edited = await good(editor, {
      command: "str_replace",
      path,
      old_str: `${count - 1}:0123`,
      new_str: "THE END",
    });
    const replaceMs = performance.now() - t;
    match(edited, new RegExp(`${count}\tTHE END`));
    const after = text.slice(0, text.lastIndexOf(`${count - 1}:0123`)) +
      "THE END" +
      text.slice(
        text.lastIndexOf(`${count - 1}:0123`) + `${count - 1}:0123`.length,
      );
    equal(sha(readFileSync(path)), sha(after));
    t = performance.now();
    const view = await good(editor, { command: "view", path });
    const viewMs = performance.now() - t;
    ok(view.length < 31_000, `${view.length}`);
    match(view, /omitted; view_range/);
    console.log(
      `10 MB file (${count} lines): create ${
        createMs.toFixed(0)
      } ms, str_replace ${replaceMs.toFixed(0)} ms, view ${
        viewMs.toFixed(0)
      } ms`,
    );
  });
}, { timeoutMs: 120_000 });

test(
  "EditorTool: a deadline stops an edit, leaves no temporary file and keeps the session",
  async () => {
    await withEditor(async (editor, dir) => {
      const path = join(dir, "held.txt");
      for (const size of [10, 3_000_000]) {
        writeFileSync(path, "old\n");
        // Another process holds the file's lock, so the edit waits at its
        // commit, after its temporary file exists, until the deadline.
        const marker = join(dir, "locked");
        const holder = exec([
          "bash",
          "-c",
          'exec 9<"$1"; flock 9; : > "$2"; sleep 1.5',
          "_",
          path,
          marker,
        ]);
        while (!existsSync(marker)) {
          await new Promise((done) => setTimeout(done, 10));
        }
        const r = await call(editor, {
          command: "str_replace",
          path,
          old_str: "old",
          new_str: "x".repeat(size),
        });
        equal(r.error, true, r.text);
        match(r.text, /timed out after 400 ms; it was stopped/);
        await holder;
        rmSync(marker);
        equal(readFileSync(path, "utf8"), "old\n");
        equal(
          (await exec([
            "bash",
            "-c",
            'ls -A "$1" | grep -c bbedit || true',
            "_",
            dir,
          ])).stdout.text,
          "0\n",
        );
      }
      equal((await editor.session.run("echo alive")).output.text, "alive\n");
    }, { timeoutMs: 400 });
  },
  { skip: hasFlock ? false : "flock is not installed" },
);

test("EditorTool refuses files over maxFileBytes", async () => {
  await withEditor(async (editor, dir) => {
    const path = join(dir, "f.txt");
    writeFileSync(path, "x".repeat(2000));
    match(
      await bad(editor, { command: "view", path }),
      /is larger than the editor's limit of 1000 bytes; use bash/,
    );
    match(
      await bad(editor, {
        command: "create",
        path: join(dir, "g.txt"),
        file_text: "y".repeat(1001),
      }),
      /1001 bytes, more than the editor's limit of 1000 bytes/,
    );
    ok(!existsSync(join(dir, "g.txt")));
  }, { maxFileBytes: 1000 });
});

// ---------------------------------------------------------------------------
// Policy, roots, audit, redaction.

test("EditorTool under Policy.readOnly() views but refuses every write", async () => {
  await withEditor(async (editor, dir) => {
    const path = join(dir, "f.txt");
    writeFileSync(path, "a\n");
    match(await good(editor, { command: "view", path }), / {5}1\ta/);
    for (
      const input of [
        { command: "create", path: join(dir, "new.txt"), file_text: "x" },
        { command: "str_replace", path, old_str: "a", new_str: "b" },
        { command: "insert", path, insert_line: 0, insert_text: "x" },
      ]
    ) {
      // The reason is the policy's own (it names the write it refused).
      match(
        await bad(editor, input),
        new RegExp(
          `^Error: The ${input.command} command was refused by policy: .+`,
        ),
      );
    }
    equal(readFileSync(path, "utf8"), "a\n");
    ok(!existsSync(join(dir, "new.txt")));
  }, { policy: Policy.readOnly() });
});

test("EditorTool asks a policy about the equivalent command (cat / tee) and honours onAsk", async () => {
  const asked: string[] = [];
  await withEditor(async (editor, dir) => {
    const path = join(dir, "f.txt");
    writeFileSync(path, "a\n");
    await good(editor, { command: "view", path });
    match(
      await bad(editor, {
        command: "str_replace",
        path,
        old_str: "a",
        new_str: "b",
      }),
      /The str_replace command was refused by policy: .*tee/,
    );
    const secret = join(dir, "secret.txt");
    writeFileSync(secret, "s\n");
    match(
      await bad(editor, { command: "view", path: secret }),
      /refused by policy/,
    );
    deepStrictEqual(asked, [`cat '${secret}'`]);
  }, {
    policy: {
      check: (command: string) =>
        command.includes("secret.txt")
          ? { decision: "ask", reason: "a secret" }
          : new Policy({ allow: ["cat"], deny: ["tee"] }).check(command),
    },
    onAsk: (command) => {
      asked.push(command);
      return false;
    },
  });
});

test("EditorTool roots: paths and symlinks that resolve outside are refused", async () => {
  const outside = tempDir();
  try {
    writeFileSync(join(outside, "host.txt"), "outside\n");
    const inside = tempDir();
    const rootLink = `${inside}-link`;
    symlinkSync(inside, rootLink);
    try {
      await using editor = new EditorTool({ roots: [rootLink] });
      symlinkSync(outside, join(inside, "escape"));
      symlinkSync(join(outside, "host.txt"), join(inside, "file-escape"));
      writeFileSync(join(inside, "ok.txt"), "fine\n");
      symlinkSync("ok.txt", join(inside, "ok-link"));
      await good(editor, { command: "view", path: join(inside, "ok.txt") });
      await good(editor, { command: "view", path: join(rootLink, "ok-link") });
      await good(editor, {
        command: "create",
        path: join(inside, "sub", "n.txt"),
        file_text: "n",
      });
      await good(editor, { command: "view", path: inside });
      const refused: [string, Record<string, unknown>][] = [
        [join(inside, "escape", "host.txt"), { command: "view" }],
        [join(inside, "file-escape"), { command: "view" }],
        [join(inside, "file-escape"), {
          command: "str_replace",
          old_str: "outside",
          new_str: "pwned",
        }],
        [join(inside, "file-escape"), {
          command: "insert",
          insert_line: 0,
          insert_text: "pwned",
        }],
        [join(inside, "escape", "new.txt"), {
          command: "create",
          file_text: "pwned",
        }],
        [join(inside, "..", "x.txt"), {
          command: "create",
          file_text: "pwned",
        }],
        [join(outside, "host.txt"), { command: "view" }],
        ["/etc/passwd", { command: "view" }],
        [`${inside}x/a.txt`, {
          command: "create",
          file_text: "prefix is not a parent",
        }],
      ];
      for (const [path, input] of refused) {
        match(
          await bad(editor, { ...input, path }),
          /is outside the directories the editor may use/,
          path,
        );
      }
      match(
        await bad(editor, {
          command: "view",
          path: join(inside, "file-escape"),
        }),
        new RegExp(`which resolves to ${outside}/host\\.txt`),
      );
      equal(readFileSync(join(outside, "host.txt"), "utf8"), "outside\n");
      ok(!existsSync(join(outside, "new.txt")));
      ok(!existsSync(`${inside}x`));
      await using missing = new EditorTool({
        roots: ["/nonexistent/bashbox-root"],
      });
      match(
        await bad(missing, {
          command: "view",
          path: "/nonexistent/bashbox-root/x",
        }),
        /The allowed directory \/nonexistent\/bashbox-root does not exist/,
      );
    } finally {
      rmSync(inside, { recursive: true, force: true });
      rmSync(rootLink, { force: true });
    }
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

test("EditorTool audits every call before and after with hashes, not content; view output is redacted", async () => {
  const audit = memoryAudit();
  const token = "ghp_" + "A".repeat(36);
  await withEditor(async (editor, dir) => {
    const path = join(dir, "cfg.txt");
    await good(editor, {
      command: "create",
      path,
      file_text: `token=${token}\nname=x\n`,
    });
    const view = await good(editor, { command: "view", path });
    ok(!view.includes(token), view);
    match(view, /token=\[REDACTED:github-token\]/);
    await good(editor, {
      command: "str_replace",
      path,
      old_str: "name=x",
      new_str: "name=y",
    });
    await bad(editor, {
      command: "str_replace",
      path,
      old_str: "nothing",
      new_str: "z",
    });
    const records = audit.records as unknown as Record<string, unknown>[];
    deepStrictEqual(records.map((r) => `${r.event}:${r.editCommand}`), [
      "start:create",
      "end:create",
      "start:view",
      "end:view",
      "start:str_replace",
      "end:str_replace",
      "start:str_replace",
      "end:str_replace",
    ]);
    const before = `token=${token}\nname=x\n`;
    const after = `token=${token}\nname=y\n`;
    equal(records[1].afterSha256, sha(before));
    equal(records[1].beforeSha256, null);
    equal(records[3].beforeSha256, sha(before));
    equal(records[5].beforeSha256, sha(before));
    equal(records[5].afterSha256, sha(after));
    equal(records[5].bytesAfter, after.length);
    equal(records[7].isError, true);
    for (const r of records) {
      equal(r.tool, NAME);
      equal(r.path, path);
      ok(!JSON.stringify(r).includes(token), JSON.stringify(r));
      ok(
        !JSON.stringify(r).includes("name=y") || r.event === "end",
        JSON.stringify(r),
      );
    }
    equal(records[5].resolvedPath, path);
  }, { audit, redact: (t) => redactSecrets(t) });
});

// ---------------------------------------------------------------------------
// Sandbox and transport.

const probe = await exec(
  "command -v bwrap >/dev/null && bwrap --ro-bind / / --unshare-pid --unshare-net --die-with-parent -- true && echo ok",
).catch(() => null);
const noBwrap = probe?.stdout.text === "ok\n"
  ? false
  : "bubblewrap (bwrap) is not installed or cannot create namespaces here";

test(
  "EditorTool edits inside the bwrap sandbox: the next bash command sees them, the host does not",
  async () => {
    const dir = tempDir();
    const name = `bashbox-editor-${crypto.randomUUID()}.txt`;
    try {
      await using bash = new BashTool({
        sessionOptions: { sandbox: { kind: "bwrap", workdir: dir } },
      });
      await using editor = new EditorTool({
        session: bash.session,
        roots: [dir, "/tmp"],
      });
      const run = async (command: string) =>
        (await bash.handle({ id: "b", name: "bash", input: { command } }))
          .content;
      await good(editor, {
        command: "create",
        path: `/tmp/${name}`,
        file_text: "in the sandbox\n",
      });
      await good(editor, {
        command: "str_replace",
        path: `/tmp/${name}`,
        old_str: "the",
        new_str: "a private",
      });
      equal(
        await run(`cat /tmp/${name}`),
        "Exit code 0\nin a private sandbox\n",
      );
      ok(
        !existsSync(join(tmpdir(), name)),
        "the sandbox's /tmp is not the host's",
      );
      ok(!existsSync(`/tmp/${name}`));
      // The workdir is shared with the host.
      await good(editor, {
        command: "create",
        path: join(dir, "test.sh"),
        file_text: "echo pass\n",
      });
      equal(await run("bash test.sh"), "Exit code 0\npass\n");
      equal(readFileSync(join(dir, "test.sh"), "utf8"), "echo pass\n");
      // The read-only root: a write outside the workdir fails, saying so.
      const usr = new EditorTool({ session: bash.session });
      match(
        await bad(usr, {
          command: "create",
          path: "/usr/bashbox-editor-x.txt",
          file_text: "x",
        }),
        /Permission denied|Read-only|failed/i,
      );
      await usr.close();
      ok(!existsSync("/usr/bashbox-editor-x.txt"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: noBwrap },
);

const sshd = await startSshd();
const noSsh = typeof sshd === "string" ? sshd : false;

test(
  "EditorTool edits over the loopback ssh transport, binary-safe, in the session's place",
  async () => {
    if (typeof sshd === "string") return;
    const dir = tempDir();
    try {
      await using session = new BashSession({
        transport: { argv: sshd.argv },
        cwd: dir,
      });
      await using bash = new BashTool({ session });
      await using editor = new EditorTool({ session, roots: [dir] });
      const path = join(dir, "remote.py");
      const text =
        "print('héllo')\r\n\tx = \"$(rm -rf /)\" `id`\n__BBX\nEOF\n🦀";
      await good(editor, { command: "create", path, file_text: text });
      deepStrictEqual(
        new Uint8Array(readFileSync(path)),
        new TextEncoder().encode(text),
      );
      await good(editor, {
        command: "str_replace",
        path,
        old_str: "héllo",
        new_str: "wörld",
      });
      await good(editor, {
        command: "insert",
        path,
        insert_line: 0,
        insert_text: "# top",
      });
      match(
        await good(editor, { command: "view", path, view_range: [1, 2] }),
        / {5}1\t# top\n {5}2\tprint\('wörld'\)\n$/,
      );
      const r = await bash.handle({
        id: "b",
        name: "bash",
        input: {
          command:
            "head -c 5 remote.py; echo; echo $SSH_CONNECTION | cut -d' ' -f1",
        },
      });
      equal(r.content, "Exit code 0\n# top\n127.0.0.1\n");
      match(
        await bad(editor, { command: "view", path: "/etc/hostname" }),
        /outside the directories/,
      );
      // A 3 MB file goes in several commands.
      const big = join(dir, "big.txt");
      const bigText = "ssh line ✓\n".repeat(250_000);
      await good(editor, { command: "create", path: big, file_text: bigText });
      equal(sha(readFileSync(big)), sha(bigText));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: noSsh, timeoutMs: 120_000 },
);

// The server must not outlive the file's tests.
test("(editor tests: stop the OpenSSH server)", async () => {
  if (typeof sshd !== "string") await sshd.stop();
});

// ---------------------------------------------------------------------------
// Tool runner and several tools.

test("runnableEditorTool() and runnableBashTool() are driven together by the SDK's tool runner", async () => {
  const dir = tempDir();
  const path = join(dir, "calc.sh");
  const use = (id: string, name: string, input: unknown) => ({
    type: "tool_use" as const,
    id,
    name,
    input,
  });
  const api = await startFakeApi([
    {
      content: [
        use("e1", NAME, {
          command: "create",
          path,
          file_text: 'echo $((2 + 2 * 2))\n[ "$((2 + 2))" = 5 ] && echo ok\n',
        }),
      ],
      stop_reason: "tool_use",
    },
    {
      content: [use("b1", "bash", { command: `bash ${path}` })],
      stop_reason: "tool_use",
    },
    {
      content: [
        use("e2", NAME, {
          command: "str_replace",
          path,
          old_str: "= 5",
          new_str: "= 4",
        }),
        use("e3", NAME, {
          command: "str_replace",
          path,
          old_str: "nope",
          new_str: "x",
        }),
      ],
      stop_reason: "tool_use",
    },
    {
      content: [use("b2", "bash", { command: `bash ${path}` })],
      stop_reason: "tool_use",
    },
    { content: [{ type: "text", text: "fixed" }], stop_reason: "end_turn" },
  ]);
  try {
    await using bash = new BashTool();
    await using editor = new EditorTool({
      session: bash.session,
      maxCharacters: 8000,
    });
    const client = new Anthropic({
      apiKey: "test",
      baseURL: api.url,
      maxRetries: 0,
    });
    const final = await client.beta.messages.toolRunner({
      model: "m",
      max_tokens: 100,
      messages: [{ role: "user", content: "fix calc.sh" }],
      tools: [runnableBashTool(bash), runnableEditorTool(editor)],
    });
    equal(final.stop_reason, "end_turn");
    const tools = api.requests[0].tools as unknown[];
    deepStrictEqual(tools[1], {
      type: "text_editor_20250728",
      name: NAME,
      max_characters: 8000,
    });
    const resultsOf = (i: number) =>
      (api.requests[i].messages as Array<
        { content: Array<Record<string, unknown>> }
      >).at(-1)!.content;
    equal(resultsOf(1)[0].content, `File created successfully at: ${path}`);
    const text = (c: unknown) => typeof c === "string" ? c : JSON.stringify(c);
    equal(text(resultsOf(2)[0].content), "Exit code 1\n6\n");
    equal(resultsOf(2)[0].is_error, true);
    match(text(resultsOf(3)[0].content), /has been edited/);
    equal(resultsOf(3)[1].is_error, true);
    match(
      text(resultsOf(3)[1].content),
      /^Error: No replacement was performed, old_str `nope`/,
    );
    equal(text(resultsOf(4)[0].content), "Exit code 0\n6\nok\n");
  } finally {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("answerToolUses() answers both tools in order, unknown tools with is_error", async () => {
  await withEditor(async (editor, dir) => {
    await using bash = new BashTool({ session: editor.session });
    const path = join(dir, "x.txt");
    const results = await answerToolUses({
      content: [
        { type: "text", text: "plan" },
        {
          type: "tool_use",
          id: "1",
          name: NAME,
          input: { command: "create", path, file_text: "1\n" },
        },
        {
          type: "tool_use",
          id: "2",
          name: "bash",
          input: { command: `echo 2 >> ${path}` },
        },
        {
          type: "tool_use",
          id: "3",
          name: NAME,
          input: { command: "view", path },
        },
        { type: "tool_use", id: "4", name: "computer", input: {} },
      ],
    }, { bash, [NAME]: editor });
    deepStrictEqual(results.map((r) => r.tool_use_id), ["1", "2", "3", "4"]);
    equal(
      results[2].content,
      `Here's the result of running \`cat -n\` on ${path}:\n${
        catN(["1", "2"])
      }`,
    );
    equal(results[3].is_error, true);
    match(
      results[3].content,
      /Unknown tool "computer": the tools available are "bash", "str_replace_based_edit_tool"/,
    );
    await rejects(
      answerToolUses({} as { content: unknown[] }, {}),
      /content array/,
    );
    await rejects(
      runnableEditorTool(editor).run({ command: "view", path: "relative" }),
      (e: Error) =>
        e.message.startsWith("The path relative is not an absolute path"),
    );
    let error: Error | undefined;
    try {
      // deno-lint-ignore no-explicit-any
      runnableEditorTool({} as any);
    } catch (e) {
      error = e as Error;
    }
    match(error!.message, /Expected an EditorTool/);
  });
});
