// The text protocol, checked against real bash: what the host writes is what
// bash reads, and what bash prints is what the host parses.
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  ansiC,
  callLines,
  initScript,
  needle,
  parseTrailer,
  plainWords,
  randomId,
  route,
} from "../core/_protocol.ts";
import { exec } from "../mod.ts";
import { test } from "./_harness.ts";

/** Random strings over the characters that quoting gets wrong. */
function variants(count: number, seed: number): string[] {
  const alphabet = [
    ..."\\'\"$`!*?[]{}()<>|&;# ~=%^",
    "\n",
    "\t",
    "\r",
    "\x01",
    "\x1b",
    "\x1e",
    "\x7f",
    "é",
    "日",
    "🦀",
    "a",
    "Z",
    "0",
    "x",
    "\\x41",
    "\\n",
    "$'",
    "'\\''",
  ];
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = "";
    const length = next() % 24;
    for (let j = 0; j < length; j++) s += alphabet[next() % alphabet.length];
    out.push(s);
  }
  return out;
}

test("plainWords() takes only commands bash's parser reads as the host's does", async () => {
  for (
    const command of [
      "ls -la /tmp",
      "npm test 2>&1 | tail -5",
      "cd src && make",
      "[ -f x ] && echo y",
      "echo hi; true",
      "sleep 1 &",
      "a=1 b=2 env",
    ]
  ) ok(plainWords(command), command);
  for (
    const command of [
      'echo "hi"',
      "echo $HOME",
      "if true; then :; fi",
      "time ls",
      "cat <<EOF\nx\nEOF",
      "a=(1)",
      "echo \\",
      "echo a#b",
      "ls\nls",
      "[[ -f x ]]",
      "ls a[1",
      "a[1]=x",
      ">f &>>a=b",
      "2>&1 &>>a=b",
      "true; >f &>>a+=c",
      "{ ls; }",
      "echo é",
      "",
    ]
  ) ok(!plainWords(command), command);
  // Generated: every command it takes (and the host's parser reads) is one
  // complete command to bash too, in the group the take step puts it in.
  const words = [
    "ls",
    "-la",
    "a=b",
    "x*",
    "[",
    "]",
    "2>&1",
    ">",
    ">>",
    "<",
    "|",
    "||",
    "&&",
    ";",
    "&",
    "|&",
    "&>",
    ">&-",
    "do",
    "done",
    "in",
    "then",
    "fi",
    "esac",
    "!",
    "{",
    "}",
    "%1",
    "~",
    "@",
    "^",
    ";;",
    "<&",
    "2",
    "1>&2",
    ">/dev/null",
    "2>>log",
    "<in",
    ">|",
    "&>>",
  ];
  let state = 17;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  const taken: string[] = [];
  for (let i = 0; i < 20000 && taken.length < 1500; i++) {
    const n = 1 + next() % 6;
    const command = Array.from(
      { length: n },
      () => words[next() % words.length],
    ).join(next() % 3 === 0 ? "" : " ");
    if (route(command).word === "" && plainWords(command)) {
      taken.push(command);
    }
  }
  ok(taken.length > 100, `${taken.length} generated commands taken`);
  const script = taken.map((c) =>
    `if builtin eval ${
      ansiC(`true||{\n${c}\n}`)
    } 2>/dev/null;then echo ok;else echo refused;fi`
  ).join("\n");
  const r = await exec(["bash", "--noprofile", "--norc", "-c", script]);
  const verdicts = r.stdout.text.trim().split("\n");
  equal(verdicts.length, taken.length, r.stderr.text);
  const refused = taken.filter((_, i) => verdicts[i] !== "ok");
  deepEqual(
    refused,
    [],
    `bash refused what plainWords took: ${JSON.stringify(refused)}`,
  );
});

test("ansiC() gives bash back every string as it was", async () => {
  const strings = ["", "plain", ...variants(300, 7)];
  const script = strings.map((s) => `printf '%s\\0' ${ansiC(s)}`).join("\n");
  for (const locale of ["C.UTF-8", "C"]) {
    const r = await exec(["bash", "--noprofile", "--norc", "-c", script], {
      env: { LC_ALL: locale },
    });
    equal(r.exitCode, 0, r.stderr.text);
    if (locale === "C.UTF-8") {
      deepEqual(r.stdout.text.split("\0").slice(0, -1), strings);
    } else {
      // Byte for byte in the C locale too.
      equal(
        r.stdout.totalBytes,
        new TextEncoder().encode(strings.join("\0") + "\0").length,
      );
    }
  }
});

test("callLines() hands the command over once, before the runner, and the id after the frame's line", () => {
  const id = randomId();
  for (const command of variants(200, 11)) {
    for (
      const [xtrace, status] of [[false, 0], [true, 0], [false, 3]] as const
    ) {
      const text = callLines(command, id, { xtrace, status });
      const { text: taken, word } = route(command);
      // The id comes last, after the frame's line, and nowhere before it.
      ok(text.endsWith(`\n${id}`), JSON.stringify(text));
      equal(text.indexOf(id), text.length - id.length, "the id comes once");
      const head = text.slice(0, -id.length);
      ok(/(?:_\+z|\{ _\+z;\} 2>&-)\n$/.test(head), JSON.stringify(head));
      // The status of the call before, where it is not 0 or a word follows.
      // A status other than 0 is handed on by the take step (`&&:`).
      const args = `${
        word ? ` ${status} ${word}` : status ? ` ${status}` : ""
      }${status ? "&&:" : ""}`;
      // The command once: as data after a line that gives its length, or
      // (not ASCII) as one ANSI-C quoted word on the take's line.
      const first = head.slice(0, head.indexOf("\n") + 1);
      // deno-lint-ignore no-control-regex
      if (/^[\x00-\x7f]*$/.test(taken)) {
        const m = /^_\+([pkw]) (\d+)(.*)\n$/.exec(first);
        ok(m, first);
        equal(Number(m![2]), taken.length);
        equal(m![3], args, first);
        // The common take step for the top level, the other for the rest.
        equal(m![1] === "k", word !== "", first);
        equal(m![1] === "w", word === "" && plainWords(taken), first);
        ok(head.slice(first.length).startsWith(taken), JSON.stringify(head));
        ok(!head.slice(first.length + taken.length).includes(taken) || !taken);
      } else {
        equal(
          first,
          `${word ? "_+K" : "_+P"} ${ansiC(taken)}${args}\n`,
          first,
        );
        equal(head.split(ansiC(taken)).length, 2, "the command is taken once");
      }
    }
  }
});

test("route() sends each command the way bash reads it", () => {
  const cases: [string, string][] = [
    ["echo hi", ""],
    ["for i in 1 2; do echo $i; done", ""],
    ["cat <<<'here string'", ""],
    ["cat <<EOF\nx\nEOF", "c"],
    ["cat <<-'EOF'\n\tx\n\tEOF", "c"],
    ["alias ll='ls -l'\nll", "e"],
    ["shopt -s extglob\nls !(x)", "e"],
    ["BASH_ALIASES[x]=y", "e"],
    ["echo 'open", "n"],
    ["fi", "n"],
    ["# a comment only", "n"],
  ];
  for (const [command, word] of cases) {
    equal(route(command).word, word, JSON.stringify(command));
    equal(route(command).text, command, JSON.stringify(command));
  }
  // A trailing backslash is doubled on the top level (an even run is not
  // a trailing backslash).
  equal(route("echo a\\").text, "echo a\\\\");
  equal(route("echo a\\\\").text, "echo a\\\\");
});

test("parseTrailer() reads what the init script's frame prints, and nothing else", async () => {
  const init = initScript({
    separate: false,
    limits: "",
    remoteSetup: [],
    transport: false,
  });
  const id = randomId();
  for (
    const [setup, status, flags] of [
      ["true", 0, ""],
      ["(exit 7)", 7, ""],
      ["(exit 255)", 255, ""],
      ["set -e; true", 0, "e"],
      ["set -ex; true", 0, "ex"],
      ["set -x; false", 1, "x"],
      ["exec > >(cat); true", 0, "r"],
      ["exec > >(tee /dev/null) 2>&1; set -e; true", 0, "er"],
      ["exec >/dev/null; true", 0, ""],
    ] as const
  ) {
    const r = await exec([
      "bash",
      "--noprofile",
      "--norc",
      "-c",
      `exec 3>&2; BASHBOX_CWD=/tmp; export BASHBOX_CWD; eval "$1"; cd /usr; ${setup}; __bbf "$?" 254<<<${id}`,
      "bash",
      init,
    ]);
    const text = r.stdout.text;
    const at = text.indexOf(new TextDecoder().decode(needle(id)));
    ok(
      at >= 0,
      `${setup}: no frame in ${
        JSON.stringify(text)
      } ${r.stderr.text} (exit ${r.exitCode})`,
    );
    const trailer = text.slice(at + id.length + 1, text.indexOf("\0", at));
    deepEqual(parseTrailer(trailer), {
      status,
      errexit: flags.includes("e"),
      xtrace: flags.includes("x"),
      relayed: flags.includes("r"),
      cwd: "/usr",
    });
  }
  for (const bad of ["", "x /", "1234 /", "7q /", "7", " 7 /", "-1 /"]) {
    equal(parseTrailer(bad), null, bad);
  }
  for (const bad of ["0 /a", "0 hB!! /", "0 h-B /", "07x hB /"]) {
    equal(parseTrailer(bad), null, bad);
  }
  equal(parseTrailer("0 hB /a b\nc")?.cwd, "/a b\nc");
  equal(parseTrailer("0  /a")?.cwd, "/a");
  deepEqual(parseTrailer("3 hBex! /x y"), {
    status: 3,
    errexit: true,
    xtrace: true,
    relayed: true,
    cwd: "/x y",
  });
});

test("randomId() gives distinct ids of the needle's alphabet", () => {
  const ids = new Set(Array.from({ length: 5000 }, randomId));
  equal(ids.size, 5000);
  for (const id of ids) ok(/^[A-Za-z0-9_@]{11}$/.test(id), id);
  deepEqual([...needle("ab")], [97, 98, 0x1e]);
});
