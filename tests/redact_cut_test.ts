/**
 * No secret is ever partly shown: generated secrets of every kind that
 * `redactSecrets` knows, placed at every offset around every cut (the
 * model's head/tail cut, the capture's dropped middle, stream chunk
 * boundaries, a quoted message cut short). Secrets are glued to the text
 * around them, except OpenAI's `sk-` keys and JWTs, which need a word boundary.
 */
import { equal, ok } from "node:assert/strict";
import { CaptureBuffer } from "../core/_capture.ts";
import { type CaptureLike, formatResult } from "../egress/format.ts";
import {
  redactor,
  redactQuoted,
  redactSecrets,
  redactStream,
} from "../egress/redact.ts";
import { test } from "./_harness.ts";
import { ALNUM, rng } from "./_random.ts";

/** A seeded generator, so every run tests the same cases. */

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const B64 = ALNUM + "+/";

function pick(rand: () => number, alphabet: string, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) {
    s += alphabet[Math.floor(rand() * alphabet.length)];
  }
  return s;
}

/** A secret: its full text and the random part that must never be shown. */
interface Secret {
  kind: string;
  text: string;
  body: string;
}

const ENV_NAME = "SERVICE_PASSWORD";

function secrets(rand: () => number, envValue: string): Secret[] {
  const list: Secret[] = [];
  const add = (kind: string, prefix: string, body: string, suffix = "") =>
    list.push({ kind, text: prefix + body + suffix, body });
  add("aws-access-key", "AKIA", pick(rand, UPPER, 16));
  add("github-token", "ghp_", pick(rand, ALNUM, 36));
  add("github-token", "github_pat_", pick(rand, ALNUM, 40));
  add("anthropic-key", "sk-ant-api03-", pick(rand, ALNUM, 60));
  add("openai-key", "sk-proj-", pick(rand, ALNUM, 40));
  add("slack-token", "xoxb-", pick(rand, ALNUM, 30));
  add("google-api-key", "AIza", pick(rand, ALNUM, 35));
  add(
    "jwt",
    "eyJ",
    `${pick(rand, ALNUM, 20)}.eyJ${pick(rand, ALNUM, 30)}.${
      pick(rand, ALNUM, 30)
    }`,
  );
  add(
    "url-credentials",
    "https://deploy:",
    pick(rand, ALNUM, 20),
    "@example.com/x",
  );
  add("env", "", envValue);
  const pem = Array.from({ length: 6 }, () => pick(rand, B64, 64)).join("\n");
  add(
    "private-key",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    pem,
    "\n-----END RSA PRIVATE KEY-----",
  );
  return list;
}

/** Pieces of the secret's random part that must not appear: every run of 6 characters (lines of a key apart). */
function fragments(secret: Secret): string[] {
  const out: string[] = [];
  for (const part of secret.body.split(/[\n.]/)) {
    for (let i = 0; i + 6 <= part.length; i += 3) {
      out.push(part.slice(i, i + 6));
    }
  }
  return out;
}

/** The secret as placed in text: glued, or apart for the kinds that need a boundary. */
function placed(secret: Secret): string {
  return secret.kind === "openai-key" || secret.kind === "jwt"
    ? ` ${secret.text} `
    : secret.text;
}

function assertHidden(shown: string, secret: Secret, where: string): void {
  for (const piece of fragments(secret)) {
    ok(
      !shown.includes(piece),
      `${secret.kind} ${where}: "${piece}" of the secret is shown:\n${shown}`,
    );
  }
}

const enc = new TextEncoder();

function capture(text: string, head = 1 << 20, tail = 1 << 20): CaptureLike {
  const c = new CaptureBuffer(head, tail);
  c.push(enc.encode(text));
  return c.finish();
}

/** Filler lines that share no 6-character run with a secret's random part. */
function filler(n: number, from = 0): string {
  let s = "";
  for (let i = from; i < from + n; i++) s += `~~ log ~~ ${i % 10} ~~\n`;
  return s;
}

const rand = rng(17);
const ENV_VALUE = pick(rand, ALNUM, 24);
const redact = redactor({ [ENV_NAME]: ENV_VALUE });
const SECRETS = secrets(rand, ENV_VALUE);

test("redactSecrets() hides every generated secret kind whole", () => {
  for (const s of SECRETS) {
    const out = redact(`before ${s.text} after\n`);
    assertHidden(out, s, "whole");
    ok(out.includes("before") && out.includes("after"), out);
  }
});

test("formatResult() redacts before its head/tail cut: a secret at every offset around both cuts", () => {
  const maxChars = 400;
  for (const s of SECRETS) {
    // The head keeps 80 characters, the tail 320: move the secret across both.
    const lines = filler(200);
    for (const around of [80, lines.length - 320]) {
      for (let d = -s.text.length - 24; d <= 24; d++) {
        const at = Math.max(0, around + d);
        const text = lines.slice(0, at) + placed(s) + lines.slice(at);
        const shown = formatResult(
          { output: capture(text), exitCode: 0, timedOut: false },
          { maxChars, redact },
        );
        ok(shown.includes("omitted"), shown);
        assertHidden(shown, s, `at ${at} of ${text.length}`);
      }
    }
  }
});

test("formatResult() shows no part of a secret that lies across the capture's dropped middle", () => {
  const headBytes = 600;
  const tailBytes = 600;
  for (const s of SECRETS) {
    const before = filler(40);
    const after = filler(40, 40);
    for (let d = -s.text.length - 30; d <= 30; d++) {
      // Across the head's end.
      const at = headBytes + d;
      const text1 = before.slice(0, Math.max(0, at)) + placed(s) +
        before.slice(Math.max(0, at)) + filler(200) + after;
      // Across the tail's start.
      const text2 = before + filler(200) + after;
      const tailStart = text2.length - tailBytes + d;
      const text3 = text2.slice(0, tailStart) + placed(s) +
        text2.slice(tailStart);
      for (const text of [text1, text3]) {
        const c = capture(text, headBytes, tailBytes);
        ok(c.truncated);
        const shown = formatResult(
          { output: c, exitCode: 0, timedOut: false },
          { maxChars: 100_000, redact },
        );
        assertHidden(shown, s, `at offset ${d}`);
      }
    }
  }
});

test("formatResult() hides a private key split by the capture's gap at any line", () => {
  const key = SECRETS.find((s) => s.kind === "private-key")!;
  const lines = key.text.split("\n");
  for (let cutAfter = 0; cutAfter < lines.length; cutAfter++) {
    for (const tailFrom of [cutAfter + 1, cutAfter + 2, lines.length - 1]) {
      // Build a capture whose head ends after line `cutAfter` and whose tail
      // starts at line `tailFrom` of the key: the middle is lost.
      const head = filler(3) + lines.slice(0, cutAfter + 1).join("\n") + "\n";
      const tail = lines.slice(tailFrom).join("\n") + "\n" + filler(3, 3);
      const omitted = 1000;
      const c: CaptureLike = {
        head,
        tail,
        text: head + `[... ${omitted} bytes omitted ...]\n` + tail,
        totalBytes: head.length + tail.length + omitted,
        omittedBytes: omitted,
        truncated: true,
      };
      const shown = formatResult(
        { output: c, exitCode: 0, timedOut: false },
        { redact },
      );
      assertHidden(
        shown,
        key,
        `head to line ${cutAfter}, tail from ${tailFrom}`,
      );
      ok(shown.includes("~~ log ~~ 5 ~~"), shown);
    }
  }
});

test("formatResult() redacts stderr kept apart before cutting it too", () => {
  for (const s of SECRETS) {
    const text = filler(30) + s.text + "\n" + filler(30);
    for (const maxChars of [150, 300, 600]) {
      const shown = formatResult({
        output: capture("out\n"),
        stderr: capture(text),
        exitCode: 1,
        timedOut: false,
      }, { maxChars, redact });
      assertHidden(shown, s, `stderr, ${maxChars} characters`);
    }
  }
});

test("redactStream() finds a secret split at every chunk boundary", () => {
  for (const s of SECRETS) {
    const text = filler(5) + `key: ${s.text}\n` + filler(5);
    const start = text.indexOf(s.text);
    for (let cut = start - 2; cut <= start + s.text.length + 2; cut++) {
      const stream = redactStream(redact);
      const out = stream.push(text.slice(0, cut)) +
        stream.push(text.slice(cut)) +
        stream.flush();
      assertHidden(out, s, `chunk cut at ${cut}`);
      equal(out, redact(text));
    }
    // One character at a time.
    const stream = redactStream(redact);
    let out = "";
    for (const ch of text) out += stream.push(ch);
    out += stream.flush();
    equal(out, redact(text), s.kind);
  }
});

test("redactSecrets() hides a private key cut short on either side", () => {
  const key = SECRETS.find((s) => s.kind === "private-key")!;
  const lines = key.text.split("\n");
  for (let n = 1; n < lines.length; n++) {
    const first = "listing\n" + lines.slice(0, n).join("\n") + "\n";
    const last = lines.slice(n).join("\n") + "\ndone\n";
    assertHidden(redactSecrets(first), key, `first ${n} lines`);
    assertHidden(redactSecrets(last), key, `from line ${n}`);
    ok(redactSecrets(last).endsWith("done\n"));
  }
});

test("redactQuoted() hides a secret that a message quotes cut short", () => {
  for (const s of SECRETS) {
    if (s.kind === "private-key") continue;
    const command = `deploy --token ${s.text} --now`;
    for (let n = 4; n < s.text.length; n += 3) {
      const reason = `"deploy" is denied: deploy --token ${
        s.text.slice(0, n)
      }…`;
      const out = redactQuoted(reason, [command], redact);
      assertHidden(out, s, `quoted to ${n}`);
      ok(out.startsWith('"deploy" is denied'), out);
    }
  }
});

test("redactSecrets() stays linear on adversarial input for every unanchored shape", () => {
  const inputs = [
    "-----BEGIN RSA PRIVATE KEY-----".repeat(30_000) +
    "\nAAAA\n".repeat(10_000) + "-----END RSA PRIVATE KEY-----".repeat(30_000),
    "-----END RSA PRIVATE KEY-----\n".repeat(30_000),
    "AKIA".repeat(250_000),
    "ghp_".repeat(250_000),
    "github_pat_".repeat(90_000),
    "xoxb-".repeat(200_000),
    "AIza".repeat(250_000),
    "sk-ant-".repeat(140_000),
    "a://".repeat(250_000),
    "abc://u:".repeat(120_000),
  ];
  for (const input of inputs) {
    const started = performance.now();
    redactSecrets(input);
    const ms = performance.now() - started;
    ok(ms < 5000, `${input.slice(0, 12)}… took ${ms} ms`);
  }
});
