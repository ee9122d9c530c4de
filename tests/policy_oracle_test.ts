import { deepEqual, equal, ok } from "node:assert/strict";
import {
  effectsOf,
  oracleUnavailable,
  runOracle,
  tableCommands,
} from "../scripts/policy_oracle.ts";
import { test } from "./_harness.ts";
import { BENIGN } from "./corpus/benign.ts";
import { allVariants } from "./corpus/variants.ts";

const skip = (await oracleUnavailable()) ?? false;

test("effectsOf() reads writes, programs, connections, clock and host name from strace", () => {
  const allowed = new Set(["bash", "ls"]);
  const trace = [
    '5 execve("/usr/bin/bash", ["bash"], 0x0 /* 1 var */) = 0',
    '6 execve("/usr/bin/ls", ["ls"], 0x0 /* 1 var */) = 0',
    '7 execve("/tmp/pwnbin/pwn", ["pwn"], 0x0 /* 1 var */ <unfinished ...>',
    "7 <... execve resumed>) = 0",
    '8 execve("/usr/bin/pr", ["pr"], 0x0) = 0',
    '9 execve("/usr/bin/sh", ["sh"], 0x0) = -1 ENOENT (No such file or directory)',
    '5 openat(AT_FDCWD, "/dev/null", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3',
    '5 openat(AT_FDCWD, "out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3',
    '5 openat(AT_FDCWD, "f", O_RDONLY) = 3',
    '5 openat(AT_FDCWD, "/tmp/s/.git/index.lock", O_RDWR|O_CREAT|O_EXCL, 0666) = 3',
    "5 connect(3, {sa_family=AF_INET, sin_port=htons(80)}, 16) = -1 ENETUNREACH",
    '5 connect(3, {sa_family=AF_UNIX, sun_path="/run/nscd/socket"}, 110) = -1 ENOENT',
    "5 clock_settime(CLOCK_REALTIME, {tv_sec=0, tv_nsec=0}) = -1 EPERM",
    '5 sethostname("x", 1) = -1 EPERM',
    '5 unlinkat(AT_FDCWD, "f", 0) = 0',
  ].join("\n");
  deepEqual(
    effectsOf(trace, allowed).sort(),
    [
      "clock_settime",
      "connect AF_INET",
      "opened out.txt for writing",
      "ran /usr/bin/pr",
      "ran pwn",
      "ran the pwn marker",
      "sethostname",
      'unlinkat(AT_FDCWD, "f", 0) = 0',
    ].sort(),
  );
});

test(
  "runOracle() sees the effects of commands that write, run or connect",
  async () => {
    // runAll: these are run although the policy refuses them (caps dropped,
    // own network and UTS namespaces: nothing leaves the sandbox).
    const commands = [
      "sort -o out.txt f",
      "pwn",
      "echo x > /dev/tcp/127.0.0.1/9",
      "hostname bashbox-oracle-test",
      "diff -l f data.csv",
    ];
    const report = await runOracle(commands, { runAll: true });
    equal(report.allowed, 0);
    deepEqual(
      report.effects.map((e) => e.command).sort(),
      [...commands].sort(),
      JSON.stringify(report.effects),
    );
  },
  { skip, timeoutMs: 60_000 },
);

test(
  "runOracle() finds no effect in a sample of allowed commands",
  async () => {
    // A bounded, deterministic sample: every 12th benign command, every 80th
    // option-table command, every 150th generated variant (refused, not run).
    const every = <T>(list: T[], n: number): T[] =>
      list.filter((_, i) => i % n === 0);
    const commands = [
      ...every(BENIGN, 12),
      ...every(tableCommands(), 80),
      ...every(allVariants().map((v) => v.command), 150),
    ];
    const started = performance.now();
    const report = await runOracle(commands, { parallel: 2 });
    console.log(
      `policy oracle sample: ${report.total} commands, ${report.allowed} allowed and run, ${report.refused} refused, ${report.effects.length} with an effect, ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    );
    ok(report.allowed >= 40, `${report.allowed} allowed`);
    deepEqual(report.effects, []);
  },
  { skip, timeoutMs: 120_000 },
);
