// The line of initScript() by which a remote shell reports its process group
// and session (BASHBOX_PGID=<pgid> <sid>, read by core/session.ts), on each
// path: /proc (Linux), procps's ps (no /proc), and a ps without session ids
// (macOS: "sid" is no keyword of its ps, which then prints the group alone
// and fails; its "sess" is 0 or a kernel pointer). Whatever ps prints, the
// line reports two decimal numbers, the group standing in for a session it
// cannot read: never a pointer or 0 that the remote sweep would take for a
// session leader's pid.
import { deepEqual, ok } from "node:assert/strict";
import { exec } from "../mod.ts";
import { initScript } from "../core/_protocol.ts";
import { test } from "./_harness.ts";

const line = initScript({
  separate: false,
  limits: "",
  remoteSetup: [],
  transport: true,
}).split("\n").find((l) => l.includes("BASHBOX_PGID="));

/** How core/session.ts reads the report. */
const REPORT = /BASHBOX_PGID=\s*(\d+)\s+(\d+)/;

/** The two numbers the line reports after `prelude` (shell functions). */
async function report(prelude: string): Promise<number[] | null> {
  ok(line, "initScript() has no BASHBOX_PGID line for a transport");
  const r = await exec(["bash", "-c", `${prelude}\n${line}`]);
  const m = REPORT.exec(r.stdout.text);
  return m && [Number(m[1]), Number(m[2])];
}

const onLinux = await exec(["bash", "-c", "[ -r /proc/$$/stat ]"])
  .then((r) => r.exitCode === 0, () => false);

// (exec() starts each bash in a session of its own: group = session = pid.)
test(
  "initScript() over a transport reports the shell's group and session from /proc",
  async () => {
    const [pgid, sid] = (await report(""))!;
    ok(pgid > 1 && pgid === sid, `${pgid} ${sid}`);
  },
  { skip: onLinux ? false : "no /proc here" },
);

test("initScript() over a transport reports the group and session from ps without /proc", async () => {
  const [pgid, sid] = (await report("cut() { return 1; }"))!;
  ok(pgid > 1 && pgid === sid, `${pgid} ${sid}`);
});

test("initScript() over a transport reports the group twice where ps has no session id (macOS)", async () => {
  const cases: [string, string][] = [
    // macOS: "ps: sid: keyword not found" on stderr, the group alone, status 1
    [
      "ps: sid: keyword not found",
      "echo '  4242'; echo 'ps: sid: keyword not found' >&2; return 1",
    ],
    ["a kernel pointer", "echo '  4242 ffffff8012ab34cd'"],
    ["a pointer starting with digits", "echo '  4242 7f0012ab34cd'"],
    ["0", "echo '  4242      0'"],
  ];
  for (const [name, body] of cases) {
    deepEqual(
      await report(`cut() { return 1; }\nps() { ${body}; }`),
      [4242, 4242],
      name,
    );
  }
});
