/**
 * Containment (issue 26): a policy that promises has its sessions run in
 * bubblewrap, and under containment the parser lets through what it cannot
 * prove while rules, reserved names and known writes stay refused. The
 * policy classes are tested with generated variants; the kernel's side with
 * real sessions (writes, sockets, network, processes) on every runtime.
 *
 * @module
 */

import {
  deepEqual,
  equal,
  match,
  notEqual,
  ok,
  throws,
} from "node:assert/strict";
import { createServer } from "node:net";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BashSession,
  BashTool,
  checkContainment,
  containmentSandbox,
  containSession,
  describeContainment,
  memoryAudit,
  Policy,
  sandboxUnavailable,
  seccompFilter,
  sessionContainment,
  SessionPool,
} from "../mod.ts";
import { BashMcp } from "../mcp/server.ts";
import { test } from "./_harness.ts";
import { marker } from "./_procs.ts";

const unavailable = sandboxUnavailable();
const skip = unavailable === null ? false : unavailable;
const hasPython = existsSync("/usr/bin/python3") ||
  existsSync("/usr/local/bin/python3") ||
  (process.env.PATH ?? "").split(":").some((d) =>
    d !== "" && existsSync(join(d, "python3"))
  );

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "bashbox-contain-"));
  writeFileSync(join(dir, "f"), "hello\n");
  return dir;
}

// ---------------------------------------------------------------------------
// The policy: what containment lets through, and what stays firm.

/** Commands whose words the parser cannot prove, by class, generated. */
function unknownVariants(): { kind: string; command: string }[] {
  const out: { kind: string; command: string }[] = [];
  const programs = [
    "git log -1",
    "sort",
    "sed -n p",
    "tar -tf",
    "find",
    "rg x",
    "git show",
    "git diff",
  ];
  for (const tilde of ["~-", "~+", "~-0", "~+1", "~-/x"]) {
    for (const p of programs) {
      out.push({ kind: "tilde", command: `${p} ${tilde}` });
    }
  }
  const contexts = [
    "echo $((N))",
    "((N))",
    "echo $[N]",
    "x=$((N + 1))",
    "echo ${arr[N]}",
    "echo ${s:N}",
    'echo "${z[@]:N}"',
    "[[ N -eq 1 ]]",
    "let N",
    "for ((i = N; i < 1; i++)); do :; done",
  ];
  for (const c of contexts) {
    for (const name of ["a", "d", "f", "x", "ab", "_1", "e0"]) {
      out.push({ kind: "arithmetic", command: c.replaceAll("N", name) });
    }
  }
  for (
    const p of ["git show", "sed -n", "sort", "rg x", "git log", "git diff"]
  ) {
    for (
      const w of ["$x", '"$x"', "${x}", "$(echo y)", "`echo y`", '"${a},${b}p"']
    ) {
      out.push({ kind: "runtime word", command: `${p} ${w}` });
    }
  }
  for (
    const c of [
      "make",
      "npm test",
      "python3 x.py",
      "cargo build",
      "./run.sh",
      "node -e 1",
      "$cmd arg",
      'bash -c "$x"',
      'eval "$x"',
      "source ./env.sh",
      String.raw`sh -c "echo \$'\\'; touch x #'"`,
      "echo x > ~/x",
      "echo x > $out",
    ]
  ) out.push({ kind: "unproven program", command: c });
  return out;
}

/** Commands refused with or without containment, by class, generated. */
function firmVariants(): { kind: string; command: string }[] {
  const out: { kind: string; command: string }[] = [];
  for (const name of ["__bbJ", "__bbM", "__bbU", "__bbX9"]) {
    for (
      const c of [
        "N=1",
        "unset N",
        "export N=1",
        "declare N=1",
        "read N",
        "printf -v N x",
        "for N in 1; do :; done",
        ": ${N:=1}",
        "N() { :; }",
      ]
    ) out.push({ kind: "reserved", command: c.replaceAll("N", name) });
  }
  for (
    const target of [
      "out",
      ".git/hooks/post-commit",
      "/etc/x",
      "/tmp/../etc/x",
      "../x",
    ]
  ) {
    for (const op of [">", ">>", "&>", ">|"]) {
      out.push({ kind: "write", command: `echo x ${op} ${target}` });
    }
  }
  for (const name of ["PATH", "BASH_ENV", "LD_PRELOAD", "PROMPT_COMMAND"]) {
    out.push({ kind: "variable", command: `${name}=/x ls` });
    out.push({ kind: "variable", command: `export ${name}=/x` });
  }
  out.push({ kind: "network", command: "echo x > /dev/tcp/127.0.0.1/9" });
  for (const c of ["sudo ls", "exec ls", "exec 3>&1", "sed -i s/a/b/ f"]) {
    out.push({ kind: "known effect", command: c });
  }
  return out;
}

test("Policy.check({ contained }) allows what the parser cannot prove, in every generated variant", () => {
  const ro = Policy.readOnly();
  const variants = unknownVariants();
  ok(variants.length > 150, `only ${variants.length} variants`);
  for (const { kind, command } of variants) {
    const bare = ro.check(command);
    const contained = ro.check(command, { contained: true });
    notEqual(bare.decision, "allow", `${kind}: ${command} allowed uncontained`);
    equal(
      contained.decision,
      "allow",
      `${kind}: ${command} refused contained: ${contained.reason}`,
    );
    match(contained.reason, /contained: /, `${kind}: ${command}`);
  }
});

test("Policy.check({ contained }) keeps reserved names, known writes, variables and rules firm", () => {
  const ro = Policy.readOnly({ deny: ["git push"] });
  const variants = [
    ...firmVariants(),
    { kind: "rule", command: "git push origin main" },
    { kind: "rule", command: "ls; git push" },
  ];
  for (const { kind, command } of variants) {
    const bare = ro.check(command);
    const contained = ro.check(command, { contained: true });
    notEqual(bare.decision, "allow", `${kind}: ${command} allowed uncontained`);
    equal(
      contained.decision,
      bare.decision,
      `${kind}: ${command}: ${contained.reason}`,
    );
  }
});

test("Policy contain: writes to the scratch /tmp and to promised paths are the kernel's to keep", () => {
  const ro = Policy.readOnly();
  equal(
    ro.check("sort f > /tmp/sorted", { contained: true }).decision,
    "allow",
  );
  equal(ro.check("sort f > /tmp/sorted").decision, "deny");
  const custom = new Policy({
    allow: ["cat", "sort"],
    contain: { writable: ["."], network: false },
  });
  deepEqual(custom.promise, { writable: ["."], network: false });
  equal(custom.check("cat f > out", { contained: true }).decision, "allow");
  equal(custom.check("cat f > sub/out", { contained: true }).decision, "allow");
  equal(custom.check("cat f > out").decision, "ask");
  equal(custom.check("cat f > /etc/x", { contained: true }).decision, "ask");
  equal(custom.check("cat f > ../x", { contained: true }).decision, "ask");
  // A custom policy's default still decides unlisted programs.
  equal(custom.check("make", { contained: true }).decision, "ask");
  equal(new Policy({ allow: ["ls"] }).promise, null);
  equal(Policy.allowAll().promise, null);
});

test("Policy contain option and checkContainment() name what was expected", () => {
  throws(
    () => new Policy({ contain: { writable: "." } as never }),
    /array of paths/,
  );
  throws(
    () => new Policy({ contain: { network: "no" } as never }),
    /true or false/,
  );
  throws(
    () => new Policy({ contain: { writeable: [] } as never }),
    /Unknown contain option "writeable"/,
  );
  throws(() => checkContainment(null), /Expected contain to be/);
  deepEqual(checkContainment({}), { writable: [], network: false });
});

test("containmentSandbox() binds the workdir read-only unless promised, other paths writable", () => {
  const s = containmentSandbox({ writable: [], network: false }, "/w/p");
  deepEqual(
    { ...s },
    {
      kind: "bwrap",
      workdir: "/w/p",
      readOnlyWorkdir: true,
      writable: [],
      network: false,
    },
  );
  const t = containmentSandbox(
    { writable: [".", "out", "/var/cache/x/"], network: true },
    "/w/p",
  );
  equal(t.readOnlyWorkdir, false);
  deepEqual(t.writable, ["/w/p/out", "/var/cache/x"]);
  equal(t.network, true);
});

test("seccompFilter() is a whole classic BPF program on the known architectures", () => {
  for (const arch of ["x64", "arm64"]) {
    const f = seccompFilter(arch)!;
    equal(f.length % 8, 0);
    const view = new DataView(f.buffer);
    // It ends in three returns: allow, EPERM, ENOSYS.
    deepEqual(
      [0, 1, 2].map((i) => view.getUint32(f.length - 24 + i * 8 + 4, true)),
      [0x7fff0000, 0x00050001, 0x00050026],
    );
  }
  equal(seccompFilter("riscv64"), null);
});

test("containSession() and sessionContainment() report, fall back, or refuse", () => {
  const promise = { writable: [], network: false };
  equal(containSession(null, {}).status, null);
  const off = containSession(promise, {}, false);
  equal(off.status?.contained, false);
  equal(off.options.sandbox, undefined);
  const remote = { transport: { argv: ["ssh", "host"] } };
  equal(containSession(promise, remote).status?.contained, false);
  throws(
    () => containSession(promise, remote, "required"),
    /Containment is required, and the shell runs over a transport/,
  );
  throws(
    () => containSession(promise, {}, "yes" as never),
    /"auto", "required" or false/,
  );
  equal(sessionContainment(null, {}), null);
  match(
    describeContainment(sessionContainment(promise, {})!),
    /^not contained: the session was handed in without a sandbox.*best effort/,
  );
  throws(
    () => sessionContainment(promise, {}, "required"),
    /Containment is required/,
  );
  if (unavailable === null) {
    const { status, options } = containSession(promise, { cwd: "/tmp" });
    equal(status?.contained, true);
    equal(options.sandbox?.readOnlyWorkdir, true);
    match(
      describeContainment(status!),
      /^contained \(bubblewrap\): writes only to a private \/tmp, no network/,
    );
  }
});

// ---------------------------------------------------------------------------
// The kernel's side.

test(
  "BashTool with Policy.readOnly() runs contained: writes fail, the scratch /tmp is private, audit says so",
  async () => {
    const dir = workspace();
    const hostTmp = `bashbox-contain-${marker()}`;
    const audit = memoryAudit();
    try {
      await using tool = new BashTool({
        policy: Policy.readOnly(),
        sessionOptions: { cwd: dir },
        audit,
      });
      equal(tool.containment?.contained, true);
      const run = async (command: string) =>
        await tool.handle({ id: "t", name: "bash", input: { command } });
      // Allowed under containment (unlisted program, unknown word), kept by the kernel.
      const rm = await run("rm -f f");
      match(rm.content, /Read-only file system/);
      const x = "f";
      const cat = await run(`x=${x}; cat "$x"`);
      equal(cat.content, "Exit code 0\nhello\n");
      const scratch = await run(
        `echo data > /tmp/${hostTmp} && cat /tmp/${hostTmp}`,
      );
      equal(scratch.content, "Exit code 0\ndata\n");
      equal(existsSync(join(tmpdir(), hostTmp)), false);
      const refused = await run("echo x > out");
      match(refused.content, /refused by policy: Output redirection to out/);
      equal(readFileSync(join(dir, "f"), "utf8"), "hello\n");
      ok(audit.records.length > 0);
      ok(audit.records.every((r) => r.contained === true));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip },
);

test(
  "A contained session reaches no Unix socket, no vsock, no network, no io_uring, no keyring and keeps no capability",
  async () => {
    const server = createServer((socket) => socket.end("hi"));
    await new Promise<void>((resolve) =>
      server.listen(0, "127.0.0.1", resolve)
    );
    const port = (server.address() as { port: number }).port;
    const dir = workspace();
    try {
      await using tool = new BashTool({
        policy: Policy.readOnly(),
        sessionOptions: { cwd: dir },
      });
      const run = async (command: string) =>
        (await tool.handle({ id: "t", name: "bash", input: { command } }))
          .content;
      const caps = await run("grep CapEff /proc/self/status");
      match(caps, /CapEff:\s+0+\n/);
      equal(await run("ls /run | wc -l"), "Exit code 0\n0\n");
      const py = [
        "import socket, ctypes, os",
        "for name, f in [('unix', lambda: socket.socket(socket.AF_UNIX)), ('inet', lambda: socket.create_connection(('127.0.0.1', PORT), 2))]:",
        "    try: f(); print(name, 'ok')",
        "    except OSError as e: print(name, e.errno)",
        "libc = ctypes.CDLL(None, use_errno=True)",
        "print('uring', libc.syscall(425, 8, ctypes.create_string_buffer(120)), ctypes.get_errno())",
        "try: socket.socket(40, socket.SOCK_STREAM); print('vsock ok')",
        "except OSError as e: print('vsock', e.errno)",
        // add_key into the user keyring (-4): keys belong to the uid, not to
        // the sandbox (the x86-64 number; elsewhere the line is skipped).
        "import platform",
        "if platform.machine() == 'x86_64': print('add_key', libc.syscall(248, b'user', b'bashbox-probe', b'v', 1, -4), ctypes.get_errno())",
        "else: print('add_key -1 1')",
      ].join("\n").replace("PORT", String(port));
      writeFileSync(join(dir, "probe.py"), py);
      const out = await run("python3 probe.py");
      // EPERM for AF_UNIX; the empty network namespace has no route (ENETUNREACH
      // 101, or ECONNREFUSED 111 on its loopback); ENOSYS (38) for io_uring.
      // EPERM for vsock (the hypervisor's sockets) and the uid's keyring.
      match(
        out,
        /^Exit code 0\nunix 1\ninet (101|111)\nuring -1 38\nvsock 1\nadd_key -1 1\n$/,
      );
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip: skip || (hasPython ? false : "python3 is not installed") },
);

test("BashTool contain: handed-in and remote sessions are reported, 'required' refuses them", async () => {
  const policy = Policy.readOnly();
  await using handed = new BashSession();
  await using tool = new BashTool({ policy, session: handed });
  equal(tool.containment?.contained, false);
  throws(
    () => new BashTool({ policy, session: handed, contain: "required" }),
    /Containment is required, and the session was handed in without a sandbox/,
  );
  throws(
    () =>
      new BashTool({
        policy,
        sessionOptions: { transport: { argv: ["ssh", "nowhere"] } },
        contain: "required",
      }),
    /runs over a transport/,
  );
  await using plain = new BashTool({ policy: new Policy({ allow: ["ls"] }) });
  equal(plain.containment, null);
  await using off = new BashTool({ policy, contain: false });
  equal(off.containment?.contained, false);
  equal(off.session.sandbox, undefined);
});

test("SessionPool with a promising policy contains its sessions", async () => {
  const dir = workspace();
  try {
    await using pool = new SessionPool({
      policy: Policy.readOnly(),
      sessionOptions: { cwd: dir },
    });
    equal(pool.containment?.contained, true);
    const r = await pool.run("a", "touch new 2>&1; echo $?");
    match(r.output.text, /Read-only file system\n1\n/);
    equal(existsSync(join(dir, "new")), false);
    throws(
      () =>
        new SessionPool({
          factory: () => new BashSession(),
          sessionOptions: {},
        }),
      /either a factory or sessionOptions/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, { skip });

test(
  "BashMcp says in every result's _meta and in the tool description whether shells are contained",
  async () => {
    const { Client, StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/client"
    );
    const dir = workspace();
    const mcp = new BashMcp({
      policy: Policy.readOnly(),
      sessionOptions: { cwd: dir },
      timeoutMs: 20_000,
    });
    try {
      equal(mcp.containment?.contained, true);
      const http = await mcp.serveHttp({ port: 0 });
      const client = new Client({ name: "t", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(http.url)),
      );
      try {
        const tools = await client.listTools();
        const bash = tools.tools.find((t) => t.name === "bash");
        match(
          String(bash?.description),
          /The shell is contained \(bubblewrap\)/,
        );
        const r = await client.callTool({
          name: "bash",
          arguments: { command: "make -v >/dev/null 2>&1; touch g 2>&1" },
        });
        equal(r._meta?.["bashbox/contained"], true);
        match(String(r._meta?.["bashbox/containment"]), /^contained/);
        const text = (r.content as { text: string }[])[0].text;
        match(text, /Read-only file system/);
      } finally {
        await client.close();
      }
    } finally {
      await mcp.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip },
);

test(
  "A contained session still runs programs its PATH finds under the host's /tmp (read-only)",
  async () => {
    const bin = mkdtempSync(join(tmpdir(), "bashbox-contain-bin-"));
    const dir = workspace();
    try {
      // A link into its own tree, as node_modules/.bin has.
      mkdirSync(join(bin, "lib"));
      mkdirSync(join(bin, "bin"));
      writeFileSync(
        join(bin, "lib", "bb-tool"),
        "#!/bin/sh\necho tool ran\n",
        { mode: 0o755 },
      );
      symlinkSync("../lib/bb-tool", join(bin, "bin", "bb-tool"));
      const path = `${bin}/bin:${process.env.PATH ?? "/usr/bin:/bin"}`;
      await using tool = new BashTool({
        policy: Policy.readOnly(),
        sessionOptions: { cwd: dir, env: { PATH: path } },
      });
      // (With the suite's own PATH entries under /tmp, as a CI clone has.)
      ok(
        tool.containment?.contained &&
          tool.containment.sandbox.readable?.includes(bin),
        JSON.stringify(tool.containment),
      );
      const r = await tool.handle({
        id: "t",
        name: "bash",
        input: {
          command: `bb-tool; touch ${bin}/bin/x 2>&1`,
        },
      });
      match(
        r.content,
        /^Exit code 1\ntool ran\ntouch: .*Read-only file system\n$/,
      );
      equal(existsSync(join(bin, "bin", "x")), false);
    } finally {
      rmSync(bin, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  },
  { skip },
);
