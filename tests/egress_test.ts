/**
 * One way out: secrets planted in commands, outputs, files viewed and edited,
 * policy reasons and errors are found nowhere the process writes — whole or
 * in part — on every channel of `CHANNELS`, at generated cut positions, chunk
 * and line splits, and with stdout and stderr interleaved.
 */
import { deepStrictEqual, equal, ok } from "node:assert/strict";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AuditRecord,
  BashSession,
  BashTool,
  EditorTool,
  memoryAudit,
} from "../mod.ts";
import { describeEvent } from "../cli/main.ts";
import { CHANNELS, Egress } from "../egress/egress.ts";
import { redactor } from "../egress/redact.ts";
import { BashMcp } from "../mcp/server.ts";
import { test } from "./_harness.ts";
import { ALNUM, rng } from "./_random.ts";

/** A small seeded generator, so a failure names a case that repeats. */

function randomText(next: () => number, n: number, alphabet: string): string {
  let s = "";
  for (let i = 0; i < n; i++) {
    s += alphabet[Math.floor(next() * alphabet.length)];
  }
  return s;
}

/** One planted secret: its text, and the part that must never show (8+ characters of it). */
interface Secret {
  kind: string;
  text: string;
  body: string;
}

/** Secrets of every kind the redactor knows, with random bodies. */
function secrets(
  seed: number,
): { list: Secret[]; env: Record<string, string> } {
  const next = rng(seed);
  const gh = randomText(next, 36, ALNUM);
  const aws = randomText(next, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
  const ant = randomText(next, 40, ALNUM);
  const envOne = randomText(next, 24, ALNUM);
  const envMulti = `${randomText(next, 20, ALNUM)}\n${
    randomText(next, 20, ALNUM)
  }`;
  const pem = Array.from({ length: 6 }, () => randomText(next, 64, ALNUM))
    .join("\n");
  const pw = randomText(next, 18, ALNUM);
  return {
    env: { SERVICE_TOKEN: envOne, MULTI_SECRET: envMulti },
    list: [
      { kind: "github", text: `ghp_${gh}`, body: gh },
      { kind: "aws", text: `AKIA${aws}`, body: aws },
      { kind: "anthropic", text: `sk-ant-api03-${ant}`, body: ant },
      { kind: "env", text: envOne, body: envOne },
      { kind: "env-multiline", text: envMulti, body: envMulti },
      {
        kind: "pem",
        text:
          `-----BEGIN RSA PRIVATE KEY-----\n${pem}\n-----END RSA PRIVATE KEY-----`,
        body: pem,
      },
      { kind: "url", text: `postgres://app:${pw}@db.internal/x`, body: pw },
    ],
  };
}

/** Every 8-character piece of a secret's body (per line: a cut keeps lines whole or part of one). */
function pieces(secret: Secret): string[] {
  const out = new Set<string>();
  for (const line of secret.body.split("\n")) {
    for (let i = 0; i + 8 <= line.length; i++) out.add(line.slice(i, i + 8));
  }
  return [...out];
}

/** Fails naming the channel, the secret and the piece that leaked. */
function assertClean(
  channel: string,
  texts: readonly string[],
  planted: readonly Secret[],
): void {
  for (const text of texts) {
    for (const secret of planted) {
      for (const piece of pieces(secret)) {
        ok(
          !text.includes(piece),
          `${channel} shows part of the ${secret.kind} secret (${
            JSON.stringify(piece)
          }) in ${JSON.stringify(text.slice(0, 400))}`,
        );
      }
    }
  }
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "bashbox-egress-"));
}

/** What each channel wrote, by channel; every channel of CHANNELS has a collector. */
type Collected = Record<(typeof CHANNELS)[number], string[]>;

function collected(): Collected {
  return Object.fromEntries(
    CHANNELS.map((c) => [c, []]),
  ) as unknown as Collected;
}

test("CHANNELS: every channel has a collector in this file (a new channel fails until it is checked here)", () => {
  const collectors = [
    "tool_result",
    "mcp_content",
    "spill",
    "process_log",
    "audit",
    "error_echo",
    "cli_transcript",
  ];
  deepStrictEqual([...CHANNELS].sort(), collectors.sort());
});

test(
  "Egress: secrets planted in every channel are found in none, whole or in part",
  async () => {
    const seed = 0x5eed + Math.floor(Math.random() * 1000);
    const { list, env } = secrets(seed);
    const redact = redactor(env);
    const dir = tempDir();
    const spillDir = join(dir, "spill");
    const out = collected();
    const audit = memoryAudit();
    const before = Egress.counts();
    try {
      // Files with every secret at generated positions: a line of its own,
      // glued into a long line, split across lines, near the budget's cut.
      const next = rng(seed);
      const filler = (n: number) => randomText(next, n, "abcdefgh ijk\n");
      const file = join(dir, "secrets.txt");
      let body = "";
      for (const s of list) {
        body += `${filler(200 + Math.floor(next() * 400))}\n${s.text}\n`;
        body += `x${"y".repeat(Math.floor(next() * 3000))}${s.text}tail\n`;
      }
      writeFileSync(file, body);

      await using tool = new BashTool({
        redact,
        audit,
        spillDir,
        maxOutputChars: 400 + Math.floor(next() * 200),
        sessionOptions: { env, stderr: "separate" },
        policy: {
          check: (command) =>
            command.includes("DENYME")
              ? { decision: "deny", reason: `refused: ${command}` }
              : { decision: "allow", reason: "ok" },
        },
      });
      const results: string[] = [];
      const run = async (command: string) => {
        const block = await tool.handle({
          id: `t${results.length}`,
          input: { command },
        });
        results.push(String(block.content));
      };
      // Output cut at many positions, on both streams, interleaved, in chunks.
      await run(`cat ${file}`);
      await run(`cat ${file} >&2; cat ${file}`);
      await run(
        `while IFS= read -r l; do printf '%s\\n' "$l"; printf '%s\\n' "$l" >&2; done < ${file}`,
      );
      for (const s of list) {
        // The secret printed a byte at a time (every chunk split) and between
        // two newlines, on stdout and stderr.
        const hex = [...new TextEncoder().encode(`\n${s.text}\n`)]
          .map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("");
        await run(
          `head -c 3000 /dev/zero | tr '\\0' a; for b in ${
            hex.replace(/\\x/g, " ").trim()
          }; do printf "\\x$b"; printf "\\x$b" >&2; sleep 0; done; head -c 3000 /dev/zero | tr '\\0' b`,
        );
        // In the command itself, its refusal reason, and a bad input.
        await run(`echo DENYME ${JSON.stringify(s.text)}`);
        const bad = await tool.handle({
          id: "bad",
          input: { command: 42, note: "x".repeat(150) + s.text },
        });
        out.error_echo.push(String(bad.content));
      }
      // The environment's values, printed as a .env dump would.
      await run("env | grep -E 'SERVICE_TOKEN|MULTI_SECRET'");
      out.tool_result.push(...results);

      // Process tools: output read live, cut at maxBytes, and its log.
      const start = await tool.handle({
        id: "p",
        name: "process_start",
        input: {
          command:
            `for i in 1 2 3; do cat ${file}; sleep 0.05; done; echo PROC-DONE`,
          until: "PROC-DONE",
          wait_ms: 10_000,
        },
      });
      out.tool_result.push(String(start.content));
      for (const p of tool.session.processes()) {
        for (let i = 0; i < 5 && p.running; i++) {
          const r = await tool.handle({
            id: `r${i}`,
            name: "process_read",
            input: { id: p.id, wait_ms: 200 },
          });
          out.tool_result.push(String(r.content));
        }
        await p.stop();
        out.process_log.push(readFileSync(p.logPath, "utf8"));
      }

      // The editor: whole views, ranges inside the key, cuts through tokens,
      // snippets after edits near secrets, errors quoting old_str.
      await using editor = new EditorTool({
        session: tool.session,
        redact,
        audit,
        maxCharacters: 300 + Math.floor(next() * 300),
        policy: {
          check: (command) => ({
            decision: "allow",
            reason: `allowed ${command} ${list[0].text}`,
          }),
        },
      });
      const lines = body.split("\n").length;
      const edits: unknown[] = [{ command: "view", path: file }];
      for (let i = 0; i < 12; i++) {
        const a = 1 + Math.floor(next() * (lines - 2));
        edits.push({ command: "view", path: file, view_range: [a, a + 3] });
      }
      for (const s of list) {
        edits.push({
          command: "str_replace",
          path: file,
          old_str: `missing ${"z".repeat(290)}${s.text}`,
          new_str: "x",
        });
      }
      edits.push({
        command: "str_replace",
        path: file,
        old_str: "tail\n",
        new_str: "TAIL\n",
      });
      edits.push({
        command: "insert",
        path: file,
        insert_line: 3,
        insert_text: "new\n",
      });
      for (const [i, input] of edits.entries()) {
        const block = await editor.handle({ id: `e${i}`, input });
        out.tool_result.push(String(block.content));
      }

      // Spill files: every file the tool kept.
      for (const name of readdirSync(spillDir)) {
        out.spill.push(readFileSync(join(spillDir, name), "utf8"));
      }
      ok(out.spill.length > 0, "a cut result kept a spill file");

      // Audit records, every field.
      out.audit.push(
        ...audit.records.map((r: AuditRecord) => JSON.stringify(r)),
      );

      // The CLI's transcript of model text, commands and results.
      for (const s of list) {
        const events = [
          { type: "text", text: `here: ${s.text}\x1b]52;c;${btoa("x")}\x07` },
          {
            type: "tool_use",
            id: "a",
            name: "bash",
            input: { command: `echo ${s.text}` },
          },
          {
            type: "tool_result",
            block: { type: "tool_result", tool_use_id: "a", content: s.text },
          },
        ] as const;
        for (const e of events) {
          const line = describeEvent(e as never, { redact });
          ok(
            !line.includes("\x1b"),
            `the transcript shows an escape: ${JSON.stringify(line)}`,
          );
          out.cli_transcript.push(line);
        }
      }

      // MCP: content and the running command's last line.
      const mcp = new BashMcp({
        redact,
        returnAfterMs: 600,
        timeoutMs: 20_000,
      });
      const { Client } = await import("@modelcontextprotocol/client");
      const { StreamableHTTPClientTransport } = await import(
        "@modelcontextprotocol/client"
      );
      const http = await mcp.serveHttp({ port: 0 });
      const client = new Client({ name: "egress-test", version: "1" });
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(http.url)),
        );
        for (const s of list.slice(0, 4)) {
          const r = await client.callTool({
            name: "bash",
            arguments: {
              command: `echo ${JSON.stringify(s.text)}; sleep 1; echo done`,
            },
          });
          const text = (r.content as { text?: string }[]).map((c) =>
            c.text ?? ""
          )
            .join("");
          out.mcp_content.push(text);
          // Results carry bashbox's _meta (containment) too.
          out.mcp_content.push(JSON.stringify(r._meta ?? {}));
          const id = /command (c\d+)/.exec(text)?.[1];
          if (id) {
            const w = await client.callTool({
              name: "bash_wait",
              arguments: { id },
            });
            out.mcp_content.push(
              (w.content as { text?: string }[]).map((c) => c.text ?? "").join(
                "",
              ),
            );
          }
        }
      } finally {
        await client.close();
        await http.close();
        await mcp.close();
      }

      for (const channel of CHANNELS) {
        ok(out[channel].length > 0, `nothing was collected from ${channel}`);
        assertClean(channel, out[channel], list);
      }
      const after = Egress.counts();
      for (const channel of CHANNELS) {
        if (channel === "spill" || channel === "process_log") continue;
        ok(
          after[channel] > before[channel],
          `${channel} was written without going through Egress`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { timeoutMs: 180_000 },
);

test("Egress.lines() keeps line numbers and hides every line of a multi-line secret", () => {
  const egress = new Egress(redactor());
  const lines = [
    "a",
    "-----BEGIN EC PRIVATE KEY-----",
    "MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49",
    "AwEHoUQDQgAEPR3tU2Fta9ktY+6P9G0cWO+0kETA6SOs38hG+tvh9PJAm5Cp+FrG",
    "-----END EC PRIVATE KEY-----",
    "b",
  ];
  const shown = egress.lines(lines, "tool_result");
  equal(shown.length, lines.length);
  equal(shown[0], "a");
  equal(shown[5], "b");
  for (const l of shown.slice(1, 5)) ok(l.startsWith("[REDACTED"), l);
});

test("Egress.echo() redacts before it cuts: a cut through a token shows none of it", () => {
  const egress = new Egress(redactor());
  const token = `ghp_${"Ab1".repeat(12)}`;
  for (let max = 5; max < 60; max++) {
    const shown = egress.echo({ command: token }, max);
    ok(!shown.includes("Ab1Ab1"), `max ${max}: ${shown}`);
  }
});

test("BashSession does not pass the host's provider credentials to the shell unless given", async () => {
  const key = `sk-ant-api03-${"Qx7".repeat(14)}`;
  const env = (globalThis as {
    Deno?: {
      env: { set(k: string, v: string): void; delete(k: string): void };
    };
  }).Deno?.env;
  const proc =
    (globalThis as { process?: { env: Record<string, string | undefined> } })
      .process;
  const set = (name: string, value: string | undefined) => {
    if (env) value === undefined ? env.delete(name) : env.set(name, value);
    else if (proc) {
      if (value === undefined) delete proc.env[name];
      else proc.env[name] = value;
    }
  };
  set("ANTHROPIC_API_KEY", key);
  set("GROQ_API_KEY", "gsk-test-value-12345678");
  try {
    await using s = new BashSession();
    const r = await s.run(
      'printenv ANTHROPIC_API_KEY GROQ_API_KEY | base64; env | grep -c "^ANTHROPIC_" || true',
    );
    equal(r.output.text.trim(), "0");
    const p = await s.spawn('echo "[${ANTHROPIC_API_KEY-unset}]"');
    await p.wait();
    const out = await p.read();
    equal(out.text, "[unset]\n");
    await using given = new BashSession({
      env: { ANTHROPIC_API_KEY: "on-purpose" },
    });
    equal(
      (await given.run("echo $ANTHROPIC_API_KEY ${GROQ_API_KEY-none}")).output
        .text,
      "on-purpose none\n",
    );
    await using inherit = new BashSession({ inheritCredentials: true });
    equal(
      (await inherit.run("echo ${GROQ_API_KEY-none}")).output.text,
      "gsk-test-value-12345678\n",
    );
  } finally {
    set("ANTHROPIC_API_KEY", undefined);
    set("GROQ_API_KEY", undefined);
  }
});

test("EditorTool view shows no terminal control of the file (an OSC 52 clipboard write, a clear screen)", async () => {
  const dir = tempDir();
  try {
    const file = join(dir, "evil.txt");
    writeFileSync(
      file,
      `title\x1b]52;c;${
        btoa("rm -rf ~")
      }\x07\nclear\x1b[2J\x1b[H\nbell\x07 and \x9b31m\n`,
    );
    await using editor = new EditorTool();
    const block = await editor.handle({
      id: "v",
      input: { command: "view", path: file },
    });
    const text = String(block.content);
    // deno-lint-ignore no-control-regex
    ok(!/[\x1b\x07\x9b]/.test(text), JSON.stringify(text));
    ok(
      text.includes("title") && text.includes("clear") && text.includes("bell"),
      text,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
