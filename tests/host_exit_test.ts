import { equal, match } from "node:assert/strict";
import { exec } from "../mod.ts";
import { runtime, test } from "./_harness.ts";
import { gone, marker } from "./_procs.ts";

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
const bin: string = g.Deno ? g.Deno.execPath() : g.process.execPath;
const fixture = new URL("./fixtures/host_exit.ts", import.meta.url).pathname;
const run = runtime === "deno"
  ? `"$BIN" run --allow-run=bash --allow-read --allow-env "$FIXTURE"`
  : `"$BIN" "$FIXTURE"`;

for (const signal of ["TERM", "INT", "HUP"]) {
  test(`spawnGroup() kills the session's group when the host gets SIG${signal}`, async () => {
    const mark = marker();
    // bash starts the host, waits for "ready", signals it, and reports how it ended.
    const r = await exec(
      `${run} "$MARK" wait > "$OUT" & host=$!
       for i in $(seq 200); do grep -q ready "$OUT" 2>/dev/null && break; sleep 0.05; done
       kill -${signal} $host; wait $host; echo "host exit $?"; rm -f "$OUT"`,
      {
        env: {
          BIN: bin,
          FIXTURE: fixture,
          MARK: mark,
          OUT: `/tmp/bashbox-host-${mark}`,
        },
        timeoutMs: 30_000,
      },
    );
    match(r.stdout.text, /host exit (129|130|143)/, r.stderr.text);
    equal((await gone(mark)).length, 0);
  });
}

for (const mode of ["own", "own-process"]) {
  test(`onHostSignal(): an application that handles SIGTERM itself (${mode}) shuts down first, then nothing is left`, async () => {
    const mark = marker();
    const r = await exec(
      `${run} "$MARK" ${mode} > "$OUT" & host=$!
       for i in $(seq 200); do grep -q ready "$OUT" 2>/dev/null && break; sleep 0.05; done
       kill -TERM $host; wait $host; echo "host exit $?"; cat "$OUT"; rm -f "$OUT"`,
      {
        env: {
          BIN: bin,
          FIXTURE: fixture,
          MARK: mark,
          OUT: `/tmp/bashbox-host-${mark}`,
        },
        timeoutMs: 30_000,
      },
    );
    match(r.stdout.text, /host exit 7\nready\napp shutdown\n/, r.stderr.text);
    equal((await gone(mark)).length, 0);
  });
}

test("spawnGroup() kills the session's group when the host exits without closing it", async () => {
  const mark = marker();
  const r = await exec(`${run} "$MARK" exit`, {
    env: { BIN: bin, FIXTURE: fixture, MARK: mark },
    timeoutMs: 30_000,
  });
  equal(r.stdout.text, "ready\n", r.stderr.text);
  equal((await gone(mark)).length, 0);
});
