/**
 * A throwaway OpenSSH server on loopback for the tests that need a real ssh
 * transport: its own host and user keys in a temporary directory, started
 * only when the tests run as root with `sshd`, `ssh` and `ssh-keygen`
 * installed; otherwise it says why not (the tests skip with that reason).
 *
 * @module
 */

import { createServer } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exec } from "../mod.ts";

/** A running server: the transport argv that reaches it, and how to stop it. */
export interface Sshd {
  /** `ssh … root@127.0.0.1`: a transport's argv. */
  argv: string[];
  /** Stops the server and removes its keys. */
  stop: () => Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts an OpenSSH server on loopback with its own keys, or says why it cannot run here. */
export async function startSshd(): Promise<Sshd | string> {
  const probe = await exec(
    '[ "$(id -u)" = 0 ] || { echo "not root"; exit; }; for t in /usr/sbin/sshd ssh ssh-keygen; do command -v $t >/dev/null || { echo "missing $t"; exit; }; done; echo ok',
  );
  if (probe.stdout.text !== "ok\n") {
    return `an OpenSSH server cannot run here (${probe.stdout.text.trim()})`;
  }
  const dir = mkdtempSync(join(tmpdir(), "bashbox-sshd-"));
  const port = await freePort();
  const config = [
    `Port ${port}`,
    "ListenAddress 127.0.0.1",
    `HostKey ${dir}/host_key`,
    `PidFile ${dir}/sshd.pid`,
    `AuthorizedKeysFile ${dir}/authorized_keys`,
    "PermitRootLogin prohibit-password",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "UsePAM no",
    "StrictModes no",
  ].join("\n");
  const setup = await exec(
    `set -e
     mkdir -p /run/sshd
     ssh-keygen -q -t ed25519 -N '' -f host_key
     ssh-keygen -q -t ed25519 -N '' -f user_key
     cp user_key.pub authorized_keys
     printf '%s\\n' "$CONFIG" > sshd_config
     /usr/sbin/sshd -f "$PWD/sshd_config" -E "$PWD/sshd.log"
     for i in $(seq 100); do [ -s sshd.pid ] && break; sleep 0.05; done
     [ -s sshd.pid ]`,
    { cwd: dir, env: { CONFIG: config }, timeoutMs: 30_000 },
  );
  if (setup.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `sshd did not start: ${
      setup.stderr.text.trim() || setup.stdout.text.trim()
    }`;
  }
  const argv = [
    "ssh",
    "-T",
    "-i",
    join(dir, "user_key"),
    "-p",
    String(port),
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "BatchMode=yes",
    "-o",
    "LogLevel=ERROR",
    "root@127.0.0.1",
  ];
  return {
    argv,
    stop: async () => {
      await exec(`kill $(cat "${dir}/sshd.pid") 2>/dev/null; true`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
