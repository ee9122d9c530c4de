/**
 * `SessionPool`: one persistent session per conversation, for services that
 * run many at once, with a bound on live shells, least-recently-used
 * eviction of idle sessions, and idle timeouts.
 *
 * @module
 */

import { BashSession, type RunOptions, type SessionResult } from "./session.ts";

/** Options of a {@linkcode SessionPool}. */
export interface SessionPoolOptions {
  /** Most live sessions (default 16). */
  max?: number;
  /** An idle session is closed after this many milliseconds (default 600000). */
  idleMs?: number;
  /** Makes the session of a conversation (default: `new BashSession()`). */
  factory?: (id: string) => BashSession;
}

interface Entry {
  id: string;
  session: BashSession;
  timer?: ReturnType<typeof setTimeout>;
}

function unref(timer: ReturnType<typeof setTimeout>): void {
  // deno-lint-ignore no-explicit-any
  const g = globalThis as any;
  if (typeof g.Deno?.unrefTimer === "function") g.Deno.unrefTimer(timer);
  else (timer as unknown as { unref?: () => void }).unref?.();
}

/**
 * Sessions by conversation id. `get(id)` returns the conversation's session,
 * creating it on demand; when `max` sessions are live, the least recently
 * used idle one is closed first, and when all are busy the caller waits for
 * one to become idle. A closed (evicted or idle-timed-out) conversation gets
 * a fresh session, and with it a fresh state, on its next `get`. `run(id,
 * command)` is `get` and `run` in one step, and keeps the session from being
 * evicted while the command waits.
 *
 * @example
 * ```ts
 * import { SessionPool } from "./mod.ts";
 *
 * await using pool = new SessionPool({ max: 4, idleMs: 60_000 });
 * await pool.run("conversation-1", "cd /tmp");
 * const r = await pool.run("conversation-1", "pwd");
 * console.assert(r.output.text === "/tmp\n");
 * console.assert(pool.size === 1);
 * ```
 */
export class SessionPool {
  readonly #max: number;
  readonly #idleMs: number;
  readonly #factory: (id: string) => BashSession;
  /** Insertion order is recency order: the first entry is the least recently used. */
  readonly #entries = new Map<string, Entry>();
  readonly #pinned = new Map<string, number>();
  #closed = false;
  #signal: Promise<void> | null = null;
  #resolveSignal: (() => void) | null = null;
  readonly #watched = new Set<BashSession>();

  /** Creates the pool; sessions start on demand. */
  constructor(options: SessionPoolOptions = {}) {
    const max = options.max ?? 16;
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(
        `Expected max to be a positive whole number, got ${max}`,
      );
    }
    const idleMs = options.idleMs ?? 600_000;
    if (typeof idleMs !== "number" || !(idleMs > 0)) {
      throw new RangeError(
        `Expected idleMs to be a positive number of milliseconds, got ${idleMs}`,
      );
    }
    this.#max = max;
    this.#idleMs = idleMs;
    this.#factory = options.factory ?? (() => new BashSession());
  }

  /** Live sessions. */
  get size(): number {
    return this.#entries.size;
  }

  /** The most sessions kept live. */
  get max(): number {
    return this.#max;
  }

  /**
   * The session of conversation `id`, created when it has none; waits while
   * `max` sessions are live and all are busy.
   */
  async get(id: string): Promise<BashSession> {
    if (typeof id !== "string" || id === "") {
      throw new TypeError(
        `Expected a non-empty conversation id, got ${JSON.stringify(id)}`,
      );
    }
    for (;;) {
      if (this.#closed) throw new TypeError("The pool is closed");
      const entry = this.#entries.get(id);
      if (entry && !entry.session.closed) {
        this.#touch(entry);
        return entry.session;
      }
      if (entry) this.#drop(entry);
      if (this.#entries.size < this.#max) break;
      const victim = this.#leastRecentlyUsedIdle();
      if (victim) {
        this.#drop(victim);
        await victim.session.close();
        continue;
      }
      await this.#someoneIdle();
    }
    const session = this.#factory(id);
    const created: Entry = { id, session };
    this.#entries.set(id, created);
    this.#touch(created);
    return session;
  }

  /**
   * Runs `command` in conversation `id`'s session.
   *
   * @example
   * ```ts
   * import { SessionPool } from "./mod.ts";
   *
   * await using pool = new SessionPool();
   * const r = await pool.run("c1", "echo hi");
   * console.assert(r.output.text === "hi\\n");
   * ```
   */
  async run(
    id: string,
    command: string,
    options?: RunOptions,
  ): Promise<SessionResult> {
    this.#pinned.set(id, (this.#pinned.get(id) ?? 0) + 1);
    try {
      const session = await this.get(id);
      return await session.run(command, options);
    } finally {
      const n = (this.#pinned.get(id) ?? 1) - 1;
      if (n === 0) this.#pinned.delete(id);
      else this.#pinned.set(id, n);
      const entry = this.#entries.get(id);
      if (entry) this.#touch(entry);
      this.#wake();
    }
  }

  /**
   * Closes conversation `id`'s session, if it has one.
   *
   * @example
   * ```ts
   * import { SessionPool } from "./mod.ts";
   *
   * await using pool = new SessionPool();
   * await pool.run("c1", "true");
   * await pool.release("c1");
   * console.assert(pool.size === 0);
   * ```
   */
  async release(id: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#drop(entry);
    await entry.session.close();
  }

  /** Closes every session (killing everything they started); later calls throw. */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    entries.forEach((e) => this.#drop(e));
    await Promise.all(entries.map((e) => e.session.close()));
    this.#wake();
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #touch(entry: Entry): void {
    this.#entries.delete(entry.id);
    this.#entries.set(entry.id, entry);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => this.#expire(entry), this.#idleMs);
    unref(entry.timer);
  }

  #expire(entry: Entry): void {
    if (this.#entries.get(entry.id) !== entry) return;
    if (entry.session.busy || this.#pinned.has(entry.id)) {
      this.#touch(entry);
      return;
    }
    this.#drop(entry);
    entry.session.close().finally(() => this.#wake());
  }

  #drop(entry: Entry): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (this.#entries.get(entry.id) === entry) this.#entries.delete(entry.id);
  }

  #leastRecentlyUsedIdle(): Entry | undefined {
    for (const entry of this.#entries.values()) {
      if (!entry.session.busy && !this.#pinned.has(entry.id)) return entry;
    }
    return undefined;
  }

  /** Resolves at the next moment a session may have become free. */
  #someoneIdle(): Promise<void> {
    this.#signal ??= new Promise((resolve) => this.#resolveSignal = resolve);
    for (const entry of this.#entries.values()) {
      const session = entry.session;
      if (this.#watched.has(session)) continue;
      this.#watched.add(session);
      session.idle().then(() => {
        this.#watched.delete(session);
        this.#wake();
      });
    }
    return this.#signal;
  }

  #wake(): void {
    const resolve = this.#resolveSignal;
    this.#signal = null;
    this.#resolveSignal = null;
    resolve?.();
  }
}
