import { deepEqual, equal, ok } from "node:assert/strict";
import { sandboxUnavailable } from "../core/containment.ts";
import {
  adversarialCases,
  probeCases,
  runAdversarial,
  runBenign,
  selfTest,
} from "../scripts/containment_oracle.ts";
import { runtime, test } from "./_harness.ts";
import { ADVERSARIAL } from "./corpus/adversarial.ts";
import { BENIGN } from "./corpus/benign.ts";
import { allVariants, denyRuleVariants } from "./corpus/variants.ts";

const skip = sandboxUnavailable() ?? false;

test("adversarialCases() holds every adversarial case of the corpora, once", () => {
  const cases = adversarialCases();
  equal(new Set(cases).size, cases.length);
  const all = new Set(cases);
  for (
    const c of [
      ...Object.values(ADVERSARIAL).flat(),
      ...allVariants().map((v) => v.command),
      ...denyRuleVariants().map((v) => v.command),
    ]
  ) ok(all.has(c), c);
});

test(
  "selfTest() sees every probe's effect uncontained and none contained",
  async () => {
    const report = await selfTest();
    deepEqual(
      report.uncontained.filter((p) => !p.seen),
      [],
      "probes whose effect the oracle did not see",
    );
    equal(report.uncontained.length, probeCases().length);
    deepEqual(report.contained, []);
  },
  { skip, timeoutMs: 120_000 },
);

test(
  "runAdversarial() finds no effect outside the allowed paths",
  async () => {
    // Deno runs every case; Bun and Node a deterministic tenth (the same
    // sessions, framing and sandbox: the runtime changes only the host side).
    const all = adversarialCases();
    const cases = runtime === "deno" ? all : all.filter((_, i) => i % 10 === 0);
    const report = await runAdversarial(cases);
    console.log(
      `containment oracle (${runtime}): ${report.cases} adversarial cases run contained (${report.allowedByPolicy} allowed by the policy), ${report.batches} sessions, ${report.timedOut.length} timed out, ${report.shellDeaths} ended the shell, ${report.stateRestarts} state restarts, ${report.effects.length} with an effect, ${report.unconfirmed.length} unconfirmed host signals, listened on 127.0.0.1:${
        report.listened.join(",")
      }, ${(report.ms / 1000).toFixed(0)} s`,
    );
    for (const u of report.unconfirmed) {
      console.log(`unconfirmed: ${u.command}: ${u.effects.join("; ")}`);
    }
    equal(report.cases, cases.length);
    deepEqual(report.effects, []);
  },
  { skip, timeoutMs: 600_000 },
);

test(
  "runBenign() refuses at most 2% of the benign corpus and containment breaks none",
  async () => {
    const report = await runBenign();
    console.log(
      `containment oracle (${runtime}): ${report.total} benign commands, ${report.refused.length} refused, ${report.run} run both ways, ${report.failedBoth.length} fail both ways, ${report.broken.length} broken by containment, ${
        (report.ms / 1000).toFixed(0)
      } s`,
    );
    equal(report.total, BENIGN.length);
    ok(
      report.refused.length <= 0.02 * report.total,
      JSON.stringify(report.refused),
    );
    deepEqual(report.broken, []);
  },
  { skip, timeoutMs: 300_000 },
);
