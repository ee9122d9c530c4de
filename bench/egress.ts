/**
 * Bench rows for the egress: formatting and redaction throughput (MB/s,
 * redaction on vs off) at 1, 10 and 100 MB, the stream redactor on one long
 * line pushed in 64 KiB chunks, and the worst cases of the terminal model
 * (`ESC[1K`-heavy output, cursor jumps). `bench/main.ts` runs it as the step
 * `egress`.
 *
 * @module
 */

import { formatResult } from "../egress/format.ts";
import { redactor, redactStream } from "../egress/redact.ts";
import { sanitize } from "../egress/terminal.ts";

/** One measurement, as bench/main.ts prints it. */
export interface EgressRow {
  name: string;
  impl: string;
  unit: string;
  p50: number;
  note?: string;
}

/** Text of `mb` megabytes: log lines with a token now and then. */
function logText(mb: number): string {
  const line =
    "2026-12-04T10:00:00Z INFO request handled path=/api/v1/items status=200 ms=12\n";
  const tokenLine = `auth ghp_${"aB3".repeat(12)} used\n`;
  const n = Math.ceil(mb * 1e6 / line.length);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(i % 997 === 0 ? tokenLine : line);
  return parts.join("");
}

function capture(text: string) {
  return {
    text,
    head: "",
    tail: "",
    totalBytes: text.length,
    omittedBytes: 0,
    truncated: false,
  };
}

function timed(fn: () => void, runs: number): number {
  fn(); // warm: the first run compiles the regular expressions
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Runs the egress rows; `quick` shrinks the sizes. */
export function egressBench(quick: boolean): EgressRow[] {
  const rows: EgressRow[] = [];
  const redact = redactor({ SERVICE_TOKEN: "s3cr3t-service-token-value" });
  const sizes = quick ? [1, 2] : [1, 10, 100];
  for (const mb of sizes) {
    const text = logText(mb);
    const result = { output: capture(text), exitCode: 0, timedOut: false };
    const runs = mb >= 100 ? 1 : 3;
    for (
      const [impl, options] of [["redaction off", {}], [
        "redaction on",
        { redact },
      ]] as const
    ) {
      const ms = timed(
        () => formatResult(result, { maxChars: 30_000, ...options }),
        runs,
      );
      rows.push({
        name: `format ${mb} MB`,
        impl,
        unit: "MB/s",
        p50: Math.round(mb / (ms / 1000)),
      });
    }
  }
  // The stream redactor (spill files, process logs) on one long line.
  const longMb = quick ? 3 : 30;
  const line = "QUJD".repeat(Math.ceil(longMb * 1e6 / 4));
  const chunk = 64 * 1024;
  const streamMs = timed(() => {
    const stream = redactStream(redact);
    for (let i = 0; i < line.length; i += chunk) {
      stream.push(line.slice(i, i + chunk));
    }
    stream.flush();
  }, 1);
  rows.push({
    name: `stream redaction, one ${longMb} MB line in 64 KiB chunks`,
    impl: "redactStream",
    unit: "MB/s",
    p50: Math.round(longMb / (streamMs / 1000)),
  });
  // The terminal model's worst cases, 1 MB each.
  const worst: [string, string][] = [
    ["ESC[1K after each word", "word ok \x1b[1K".repeat(80_000)],
    ["cursor jumps then erase", "\rx\x1b[999999C\x1b[1K".repeat(60_000)],
    ["CR progress", ("\r\x1b[1K" + "50% ".repeat(5)).repeat(40_000)],
  ];
  for (const [name, text] of worst) {
    const ms = timed(() => sanitize(text), 3);
    rows.push({
      name: `terminal model, ${(text.length / 1e6).toFixed(1)} MB ${name}`,
      impl: "sanitize",
      unit: "ms",
      p50: Math.round(ms),
    });
  }
  return rows;
}
