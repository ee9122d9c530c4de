/**
 * The framing ladder: what each property of the session's protocol costs a
 * round trip, measured from the floor up, in one interleaved run. Each rung
 * adds one thing the session promises to the rung below it, with the same
 * bare host (a write, and a read until the frame's NUL), so that the steps
 * between rungs are bash's cost alone:
 *
 * - `floor`: `echo` through a plain bash's stdin (the bench's floor).
 * - `prompt, one line`: the prompt-like shell (interactive, reading its
 *   script from the host's pipe) runs the command and a frame with the
 *   status and cwd on one line. A command with an open quote eats the frame.
 * - `+ command as data`: a take line reads the command as data into an
 *   alias, a runner line runs it, a frame line reads the call's id as data
 *   after it (three lines: no byte of the command is read as script, a
 *   line bash abandons is still framed, the id is in no variable while the
 *   command runs).
 * - `+ descriptors hidden`: the runner closes the framing's descriptor for
 *   the command (`19>&-`).
 * - `+ jobs, untraced frame`: the frame runs in a group whose stderr is
 *   closed (xtrace never shows it) and cleans the job table as a prompt
 *   would (`jobs -n >&-`).
 * - `framing, bare host`: bashbox's own init script and call lines, with the
 *   same bare host.
 * - `bashbox`: `BashSession.run`.
 *
 * Run alone: `deno run -A bench/framing.ts` (`bun`, `node` too).
 *
 * @module
 */

import process from "node:process";
import { BashSession } from "../mod.ts";
import { callLines, initFrame, initScript } from "../core/_protocol.ts";
import { openStdinFifo, RUNTIME, spawnGroup } from "../runtime/_runtime.ts";
import { Floor, pct, PipeRoundTrip, timeInterleaved } from "./_interleave.ts";

const enc = new TextEncoder();
const ID_ZERO = "0".repeat(11);

/** One rung's p50 and p99 in microseconds. */
export interface FramingRow {
  /** The rung's name (see the module's docs). */
  name: string;
  /** The runtime the row was measured on. */
  runtime: string;
  /** Median round trip in µs. */
  p50: number;
  /** 99th percentile in µs. */
  p99: number;
  /** p50 over the floor's p50. */
  ratioToFloor: number;
}

/** A rung: its init script and the lines of one call, given the call's id. */
type Rung = [name: string, init: string, line: (id: string) => string];

/**
 * Starts the prompt-like shell the way the session does (interactive,
 * reading its script from the host's pipe by path; through a relay where
 * stdin is a socket), runs the rung's init (it ends in a frame) and returns
 * a round trip of one call: each frame ends in a NUL.
 */
async function startRung(
  init: string,
  line: (id: string) => string,
): Promise<{ roundTrip(): Promise<void>; close(): Promise<void> }> {
  const launch =
    'exec 3>&2 2>/dev/null;cd /dev/fd||exit 96;if [ -p 0 ];then exec "$0" --noprofile --norc --noediting -i 0;fi;exec "$0" --noprofile --norc --noediting -i 0 0< <(exec cat)';
  const pipe = new PipeRoundTrip(
    spawnGroup(["bash", "-c", launch, "bash"], {
      stdin: true,
      fifo: await openStdinFifo(),
    }),
    0,
  );
  await pipe.roundTrip(enc.encode(init));
  let calls = 0;
  return {
    // A fresh id a call, of the session's length (11).
    roundTrip: () =>
      pipe.roundTrip(enc.encode(line(String(calls++).padStart(11, "0")))),
    close: () => pipe.close(),
  };
}

/** The rungs up to bashbox's own framing: init script and call lines. */
function rungs(command: string): Rung[] {
  const n = command.length;
  const start =
    "set +o history +H +m;unset MAILCHECK;shopt -s expand_aliases\nexec 19>&1 0</dev/null;q=0\n";
  const trailer = `'%s\\036%s %s\\0'`;
  const take =
    'T(){ builtin read -r -N "$1" -u 254 c;builtin alias "C=$c";builtin return $q; }\n';
  // The frame after the command, the call's id read as data, with `first`
  // run before it.
  const frame = (first: string) =>
    `F(){ q=$?;${first}builtin read -r -N 11 -u 254 h;builtin printf ${trailer} "$h" "$q" "$PWD"; }\n`;
  const threeLines = (aliases: string, first: string, frameLine: string) =>
    `${aliases}${start}${take}${frame(first)}${frameLine}\n${ID_ZERO}`;
  return [
    [
      "prompt, one line",
      `${start}P(){ builtin printf ${trailer} "$2" "$1" "$PWD"; }\nP 0 0\n`,
      (id) => `${command};P $? ${id}\n`,
    ],
    [
      "+ command as data",
      threeLines("", "", "F"),
      (id) => `T ${n}\n${command}C\nF\n${id}`,
    ],
    [
      "+ descriptors hidden",
      threeLines("alias R='C 19>&-'\n", "", "F"),
      (id) => `T ${n}\n${command}R\nF\n${id}`,
    ],
    [
      "+ jobs, untraced frame",
      threeLines(
        "alias R='C 19>&-' G='{ F;} 2>&-'\n",
        "builtin jobs -n >&-;",
        "G",
      ),
      (id) => `T ${n}\n${command}R\nG\n${id}`,
    ],
    [
      "framing, bare host",
      `${
        initScript({
          separate: false,
          limits: "",
          remoteSetup: [],
          transport: false,
        })
      }${initFrame(ID_ZERO)}`,
      (id) => callLines(command, id, { xtrace: false, status: 0 }),
    ],
  ];
}

/** Options for {@linkcode framingLadder}. */
export interface FramingOptions {
  /** Calls timed per rung (default 2000). */
  n?: number;
  /** The command each call runs (default `echo hi`: ASCII plain words). */
  command?: string;
}

/**
 * Times each rung of the ladder, interleaved in blocks.
 *
 * @example
 * ```ts ignore
 * import { framingLadder } from "./framing.ts";
 * for (const row of await framingLadder({ n: 300 })) console.log(row);
 * ```
 */
export async function framingLadder(
  options: FramingOptions = {},
): Promise<FramingRow[]> {
  const n = options.n ?? 2000;
  const command = options.command ?? "echo hi";
  // deno-lint-ignore no-control-regex
  if (!/^[\x00-\x7f]*$/.test(command)) {
    throw new TypeError(
      `Expected an ASCII command (the rungs read it by its length), got ${
        JSON.stringify(command)
      }`,
    );
  }
  const floor = new Floor();
  const hosts: { close(): Promise<void> }[] = [];
  const session = new BashSession();
  try {
    const calls: Record<string, () => Promise<unknown>> = {
      floor: () => floor.roundTrip(),
    };
    for (const [name, init, line] of rungs(command)) {
      const host = await startRung(init, line);
      hosts.push(host);
      calls[name] = () => host.roundTrip();
    }
    const check = await session.run(command);
    if (check.exitCode !== 0) {
      throw new Error(
        `Expected "${command}" to succeed, got ${JSON.stringify(check)}`,
      );
    }
    calls.bashbox = () => session.run(command);
    const times = await timeInterleaved(n, calls);
    const floorP50 = pct(times.floor, 50);
    return Object.keys(calls).map((name) => ({
      name,
      runtime: RUNTIME,
      p50: pct(times[name], 50),
      p99: pct(times[name], 99),
      ratioToFloor: pct(times[name], 50) / floorP50,
    }));
  } finally {
    await session.close();
    for (const host of hosts) await host.close();
    await floor.close();
  }
}

/** Prints the rows as a table. */
export function formatFraming(rows: readonly FramingRow[]): string {
  return [
    `framing ladder, echo hi (${rows[0]?.runtime})`,
    `${"rung".padEnd(24)} ${"p50 µs".padStart(8)} ${"p99 µs".padStart(8)} ${
      "x floor".padStart(8)
    }`,
    ...rows.map((r) =>
      `${r.name.padEnd(24)} ${r.p50.toFixed(0).padStart(8)} ${
        r.p99.toFixed(0).padStart(8)
      } ${r.ratioToFloor.toFixed(2).padStart(8)}`
    ),
  ].join("\n");
}

// deno-lint-ignore no-explicit-any
if ((import.meta as any).main) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--n");
  const rows = await framingLadder({
    n: at >= 0 ? Number(args[at + 1]) : 2000,
  });
  console.log(
    args.includes("--json") ? JSON.stringify(rows) : formatFraming(rows),
  );
}
