/**
 * `SessionPool`: one persistent session per conversation, for services that
 * run many at once, with a bound on live shells, least-recently-used
 * eviction of idle sessions, and idle timeouts. A session is handed out only
 * inside a lease, and the pool never closes a leased session.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SessionPool } from "./pool.ts";
 *
 * await using pool = new SessionPool({ max: 2 });
 * await pool.run("a", "export V=a");
 * assert.equal((await pool.run("a", "echo $V")).output.text, "a\n");
 * ```
 *
 * @module
 */

import { unrefTimer } from "../runtime/host.ts";
import {
  BashSession,
  type BashSessionOptions,
  type RunOptions,
  type SessionResult,
} from "./session.ts";
import {
  type Containment,
  type ContainmentStatus,
  type ContainMode,
  containSession,
  sessionContainment,
} from "./containment.ts";
import type { StateJournal } from "./_journal.ts";
export type {
  Containment,
  ContainmentStatus,
  ContainMode,
} from "./containment.ts";

/** Most bytes of state journals the pool keeps for closed conversations, in all (oldest dropped first). */
const POOL_JOURNAL_BYTES = 64 * 1024 * 1024;

export type * from "./_session_types.ts";

/** Options of a {@linkcode SessionPool}. */
export interface SessionPoolOptions {
  /**
   * Most live shells, counting those being closed.
   *
   * @default {16}
   */
  max?: number;
  /**
   * An idle, unleased session is closed after this many milliseconds.
   *
   * @default {600000}
   */
  idleMs?: number;
  /**
   * Makes the session of a conversation.
   *
   * @default {() => new BashSession()}
   */
  factory?: (id: string) => BashSession;
  /**
   * Options of the sessions the default factory creates.
   *
   * @default {{}}
   */
  sessionOptions?: BashSessionOptions;
  /**
   * The policy the pool's sessions answer to: when it promises
   * (`Policy.readOnly()` does), the default factory's sessions are
   * contained (see `contain`), and a factory's session that is not is
   * reported as such in {@linkcode SessionPool.containment}.
   */
  policy?: { readonly promise?: Containment | null };
  /**
   * Containment for a policy that promises: "auto" (default) where
   * bubblewrap works, "required" (the constructor throws, or a lease of a
   * factory's uncontained session fails, where it cannot be), false: never.
   */
  contain?: ContainMode;
}

/**
 * A conversation's session, held: the pool does not close it (by eviction or
 * idle timeout) until the lease is released. Release it with `await using`,
 * {@linkcode SessionLease.release}, or `[Symbol.asyncDispose]`.
 */
export interface SessionLease extends AsyncDisposable {
  /** The conversation id. */
  readonly id: string;
  /** The session; valid while the lease is held. */
  readonly session: BashSession;
  /**
   * True when the conversation had a shell before that the pool closed
   * (evicted or idle-timed-out) and no command has run since: its working
   * directory, variables and background jobs are gone. The next
   * {@linkcode SessionLease.run} result reports it as `restarted: true`.
   */
  readonly restarted: boolean;
  /**
   * Runs `command` in the session; the first result after the conversation
   * lost its shell has `restarted: true`.
   *
   * @throws {TypeError} When the lease was released.
   */
  run(command: string, options?: RunOptions): Promise<SessionResult>;
  /** Gives the session back to the pool, which may close it from now on. Safe to call twice. */
  release(): void;
}

interface Entry {
  id: string;
  session: BashSession;
  leases: number;
  /** The conversation lost a previous shell and has not been told yet. */
  pendingRestart: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * Sessions by conversation id. {@linkcode SessionPool.acquire} leases the
 * conversation's session, creating it on demand; when `max` shells are live,
 * the least recently used unleased idle one is closed first, and when every
 * one is leased or busy the caller waits. A conversation whose shell the
 * pool closed (eviction, idle timeout) gets a fresh shell next time, and its
 * next result says `restarted: true`, so the model knows its state is gone.
 * {@linkcode SessionPool.run} is a lease for one command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SessionPool } from "../mod.ts";
 *
 * await using pool = new SessionPool({ max: 4, idleMs: 60_000 });
 * {
 *   await using lease = await pool.acquire("conversation-1");
 *   await lease.run("cd /tmp");
 *   assert.equal((await lease.run("pwd")).output.text, "/tmp\n");
 * }
 * assert.equal(pool.size, 1);
 * ```
 */
export class SessionPool {
  readonly #max: number;
  readonly #idleMs: number;
  readonly #factory: (id: string) => BashSession;
  readonly #promise: Containment | null;
  readonly #contain: ContainMode;
  #containment: ContainmentStatus | null = null;
  /** Insertion order is recency order: the first entry is the least recently used. */
  readonly #entries = new Map<string, Entry>();
  /** Conversations whose shell the pool closed, oldest first (bounded). */
  readonly #lost = new Set<string>();
  /**
   * The state journals of those conversations (see `restoreState`), replayed
   * into their next shell: at most `JOURNAL_MAX_BYTES` (1 MiB) each, for as
   * many conversations as `#lost` holds, and {@linkcode POOL_JOURNAL_BYTES}
   * in all.
   */
  readonly #journals = new Map<string, StateJournal>();
  #journalBytes = 0;
  readonly #lostCap: number;
  /** Sessions created and not yet closed (held or being closed). */
  #live = 0;
  #closed = false;
  #waiters: (() => void)[] = [];
  readonly #watched = new Set<BashSession>();

  /**
   * Creates the pool; sessions start on demand.
   *
   * @throws {RangeError} When `max` is not a positive whole number or `idleMs` not a positive number.
   */
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
    if (
      options.factory !== undefined && typeof options.factory !== "function"
    ) {
      throw new TypeError(
        `Expected factory to be a function, got ${typeof options.factory}`,
      );
    }
    this.#max = max;
    this.#idleMs = idleMs;
    this.#lostCap = Math.max(4096, max * 64);
    if (
      options.sessionOptions !== undefined && options.factory !== undefined
    ) {
      throw new TypeError(
        "Expected either a factory or sessionOptions, got both",
      );
    }
    this.#promise = options.policy?.promise ?? null;
    this.#contain = options.contain ?? "auto";
    if (options.factory !== undefined) {
      this.#factory = options.factory;
    } else {
      const { options: sessionOptions, status } = containSession(
        this.#promise,
        options.sessionOptions ?? {},
        this.#contain,
      );
      this.#containment = status;
      this.#factory = () => new BashSession(sessionOptions);
    }
  }

  /**
   * Whether the pool's sessions keep the policy's promise (see
   * `BashTool.containment`); with a factory, as its latest session showed.
   * Null when the policy promises nothing and no sandbox was chosen.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Policy, SessionPool } from "../mod.ts";
   *
   * await using pool = new SessionPool({ policy: Policy.readOnly(), contain: false });
   * assert.equal(pool.containment?.contained, false);
   * ```
   */
  get containment(): ContainmentStatus | null {
    return this.#containment;
  }

  /** Makes a session, checking a factory's session against the promise. */
  #create(id: string): BashSession {
    const session = this.#factory(id);
    if (this.#promise !== null || session.sandbox !== undefined) {
      try {
        this.#containment = sessionContainment(
          this.#promise,
          session,
          this.#contain,
        );
      } catch (error) {
        void session.close().catch(() => {});
        throw error;
      }
    }
    return session;
  }

  /**
   * Conversations with a live session.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { SessionPool } from "../mod.ts";
   *
   * await using pool = new SessionPool();
   * await pool.run("a", "true");
   * assert.equal(pool.size, 1);
   * ```
   */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The most shells kept live.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { SessionPool } from "../mod.ts";
   *
   * await using pool = new SessionPool({ max: 3 });
   * assert.equal(pool.max, 3);
   * ```
   */
  get max(): number {
    return this.#max;
  }

  /**
   * Leases conversation `id`'s session, creating it when it has none; waits
   * while `max` shells are live and all are leased or busy. Several leases of
   * one conversation share its session (its commands queue in order).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { SessionPool } from "../mod.ts";
   *
   * await using pool = new SessionPool({ max: 1 });
   * {
   *   await using lease = await pool.acquire("a");
   *   await lease.run("export V=1");
   *   assert.equal(lease.restarted, false);
   * }
   * await pool.run("b", "true"); // evicts a: the lease was released
   * await using again = await pool.acquire("a");
   * assert.equal(again.restarted, true);
   * const r = await again.run("echo ${V:-gone}");
   * assert.equal(r.output.text, "1\n"); // the state journal brought V back
   * assert.equal(r.restarted, true);
   * ```
   *
   * @throws {TypeError} For an empty or non-string id, or when the pool is closed.
   */
  async acquire(id: string): Promise<SessionLease> {
    if (typeof id !== "string" || id === "") {
      throw new TypeError(
        `Expected a non-empty conversation id, got ${JSON.stringify(id)}`,
      );
    }
    for (;;) {
      if (this.#closed) throw new TypeError("The pool is closed");
      const entry = this.#entries.get(id);
      if (entry && !entry.session.closed) {
        entry.leases++;
        this.#touch(entry);
        return this.#lease(entry);
      }
      if (entry) {
        // Closed by its holder: the state is gone all the same.
        this.#drop(entry);
        this.#live--;
        this.#markLost(id, entry.session);
      }
      if (this.#live < this.#max) break;
      const victim = this.#leastRecentlyUsedIdle();
      if (victim) {
        // The victim's slot passes to this caller: nobody else can take it
        // while the victim's shell is being killed.
        this.#drop(victim);
        this.#markLost(victim.id, victim.session);
        await victim.session.close().catch(() => {});
        if (this.#closed) {
          this.#live--;
          this.#wake();
          throw new TypeError("The pool is closed");
        }
        if (this.#entries.has(id)) {
          // Someone created this conversation's session meanwhile.
          this.#live--;
          this.#wake();
          continue;
        }
        this.#live--;
        break;
      }
      await this.#someoneFree();
    }
    const session = this.#create(id);
    const pendingRestart = this.#lost.delete(id);
    const journal = this.#journals.get(id);
    this.#forgetJournal(id);
    if (journal !== undefined) session.resume(journal);
    const created: Entry = { id, session, leases: 1, pendingRestart };
    this.#live++;
    this.#entries.set(id, created);
    this.#touch(created);
    return this.#lease(created);
  }

  /**
   * Runs `command` in conversation `id`'s session (a lease for one command).
   * The first result after the pool closed the conversation's shell has
   * `restarted: true`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { SessionPool } from "../mod.ts";
   *
   * await using pool = new SessionPool();
   * const r = await pool.run("c1", "echo hi");
   * assert.equal(r.output.text, "hi\n");
   * ```
   *
   * @throws {TypeError} For an empty id, a bad command, or when the pool is closed.
   */
  async run(
    id: string,
    command: string,
    options?: RunOptions,
  ): Promise<SessionResult> {
    // try/finally rather than `await using`: transpiled for Node 20 it must parse.
    const lease = await this.acquire(id);
    try {
      return await lease.run(command, options);
    } finally {
      lease.release();
    }
  }

  /**
   * Ends conversation `id`: closes its session (even when leased) and forgets
   * it, so its next command starts a fresh shell without a restart note.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { SessionPool } from "../mod.ts";
   *
   * await using pool = new SessionPool();
   * await pool.run("c1", "true");
   * await pool.end("c1");
   * assert.equal(pool.size, 0);
   * assert.equal((await pool.run("c1", "true")).restarted, false);
   * ```
   */
  async end(id: string): Promise<void> {
    this.#lost.delete(id);
    this.#forgetJournal(id);
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#drop(entry);
    await this.#closeSession(entry.session);
  }

  /**
   * Closes every session (killing everything they started); later calls
   * throw, and waiting callers reject.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { SessionPool } from "../mod.ts";
   *
   * const pool = new SessionPool();
   * await pool.run("c1", "sleep 1000 &");
   * await pool.close();
   * await assert.rejects(pool.run("c1", "true"), /The pool is closed/);
   * ```
   */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    entries.forEach((e) => this.#drop(e));
    this.#wake();
    await Promise.all(entries.map((e) => this.#closeSession(e.session)));
    // Evictions in flight finish too.
    while (this.#live > 0) await this.#someoneFree();
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #lease(entry: Entry): SessionLease {
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      entry.leases--;
      if (this.#entries.get(entry.id) === entry) this.#touch(entry);
      this.#wake();
    };
    return {
      id: entry.id,
      session: entry.session,
      get restarted(): boolean {
        return entry.pendingRestart;
      },
      run: (command: string, options?: RunOptions): Promise<SessionResult> => {
        if (!held) {
          return Promise.reject(new TypeError("The lease was released"));
        }
        const restarted = entry.pendingRestart;
        const result = entry.session.run(command, options);
        if (!restarted) return result;
        entry.pendingRestart = false;
        return result.then((r) => ({ ...r, restarted: true }));
      },
      release,
      [Symbol.asyncDispose]: (): Promise<void> => {
        release();
        return Promise.resolve();
      },
    };
  }

  #markLost(id: string, session: BashSession): void {
    this.#lost.delete(id);
    this.#lost.add(id);
    this.#forgetJournal(id);
    const journal = session.journal;
    if (journal !== undefined) {
      this.#journals.set(id, journal);
      this.#journalBytes += journal.bytes;
    }
    if (this.#lost.size > this.#lostCap) {
      const oldest = this.#lost.values().next().value!;
      this.#lost.delete(oldest);
      this.#forgetJournal(oldest);
    }
    while (this.#journalBytes > POOL_JOURNAL_BYTES) {
      this.#forgetJournal(this.#journals.keys().next().value!);
    }
  }

  #forgetJournal(id: string): void {
    const journal = this.#journals.get(id);
    if (journal === undefined) return;
    this.#journals.delete(id);
    this.#journalBytes -= journal.bytes;
  }

  #evict(entry: Entry): void {
    this.#drop(entry);
    this.#markLost(entry.id, entry.session);
    this.#closeSession(entry.session);
  }

  /** Closes a session the pool counted as live; frees its slot when it is gone. */
  async #closeSession(session: BashSession): Promise<void> {
    try {
      await session.close();
    } finally {
      this.#live--;
      this.#wake();
    }
  }

  #touch(entry: Entry): void {
    this.#entries.delete(entry.id);
    this.#entries.set(entry.id, entry);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => this.#expire(entry), this.#idleMs);
    unrefTimer(entry.timer);
  }

  #expire(entry: Entry): void {
    if (this.#entries.get(entry.id) !== entry) return;
    if (entry.leases > 0 || entry.session.busy) {
      this.#touch(entry);
      return;
    }
    this.#evict(entry);
  }

  #drop(entry: Entry): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (this.#entries.get(entry.id) === entry) this.#entries.delete(entry.id);
  }

  #leastRecentlyUsedIdle(): Entry | undefined {
    for (const entry of this.#entries.values()) {
      if (entry.leases === 0 && !entry.session.busy) return entry;
    }
    return undefined;
  }

  /** Resolves at the next moment a slot may have become free. */
  #someoneFree(): Promise<void> {
    // A session run directly (not through a lease) turns idle without the
    // pool hearing of it: watch for that too.
    for (const entry of this.#entries.values()) {
      const session = entry.session;
      if (!session.busy || this.#watched.has(session)) continue;
      this.#watched.add(session);
      session.idle().then(() => {
        this.#watched.delete(session);
        this.#wake();
      });
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    waiters.forEach((w) => w());
  }
}
