// The text protocol, checked against real bash: what the host writes is what
// bash reads, and what bash prints is what the host parses.
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  ansiC,
  callLines,
  initScript,
  mayTouchTraps,
  needle,
  parseTrailer,
  randomId,
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

test("callLines() keeps the command in one quoted word on the first line and the id on the last", () => {
  const id = randomId();
  for (const command of variants(200, 11)) {
    for (const careful of [false, true]) {
      for (const xtrace of [false, true]) {
        const text = callLines(command, id, { careful, xtrace });
        const lines = text.split("\n");
        equal(lines.length, 5, JSON.stringify(command));
        equal(lines[2], "");
        equal(lines[4], "");
        ok(!lines[0].includes(id), "the id is not in the command's line");
        ok(!lines[1].includes(id), "the id is not in the runner's line");
        ok(lines[3].includes(id));
        ok(lines[0].includes(ansiC(command)));
        ok(!lines[1].includes(ansiC(command)), "the command is taken once");
      }
    }
  }
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
      `exec 3>&2; BASHBOX_CWD=/tmp; export BASHBOX_CWD; eval "$1"; cd /usr; ${setup}; __bbf "$?" "" ${id}`,
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
  equal(parseTrailer("0 /a b\nc")?.cwd, "/a b\nc");
});

test("randomId() gives distinct ids of the needle's alphabet", () => {
  const ids = new Set(Array.from({ length: 5000 }, randomId));
  equal(ids.size, 5000);
  for (const id of ids) ok(/^[A-Za-z0-9_@]{11}$/.test(id), id);
  deepEqual([...needle("ab")], [97, 98, 0x1e]);
});

test("mayTouchTraps() sees the commands that may set traps or options, not dots or words that contain them", () => {
  const touching = [
    "trap 'echo x' ERR",
    "set -e",
    "set -o errexit",
    "shopt -s extdebug",
    "source ./env.sh",
    ". ./env.sh",
    ". venv/bin/activate",
    'eval "$(direnv hook bash)"',
    "echo $SHELLOPTS",
    "echo $BASHOPTS",
    "set -euo pipefail",
    "f(){ trap 'rm -f x' EXIT; }",
    "(set +e)",
    "x=1;set -x",
    "`eval echo`",
    "\"trap\" 'x' ERR",
    "t=trap; $t 'x' ERR",
  ];
  const plain = [
    "cat /etc/os-release",
    "python3 setup.py install",
    "./configure && make",
    "echo reset offset dataset settings",
    "ls ../a.b.c",
    "git commit -m 'v1.2.3'",
    "node ./dist/index.js",
    "evaluate --strap",
    "git remote set-url origin x",
    "kubectl config set-context dev",
    "ls ./set/trap.d/source.txt",
    "npm i settings-store",
  ];
  for (const lead of ["", "cd /tmp && ", "x=1; ", "(", "{ "]) {
    for (const command of touching) {
      equal(mayTouchTraps(`${lead}${command}`), true, `${lead}${command}`);
    }
    for (const command of plain) {
      equal(mayTouchTraps(`${lead}${command}`), false, `${lead}${command}`);
    }
  }
});
