/**
 * One test suite, three runtimes: `test()` maps onto `Deno.test` (with Deno's
 * resource and op sanitizers on, so a leaked process fails), onto `bun:test`,
 * or onto Node's own `node:test` (run with `node --test`).
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
const onDeno = typeof g.Deno?.test === "function";
const onBun = !onDeno && typeof g.Bun?.spawn === "function";
// Specifiers built at run time, so Deno neither resolves nor type-checks them.
const bunSpecifier = "bun:" + "test";
const nodeSpecifier = "node:" + "test";
const bunTest = onBun ? (await import(bunSpecifier)).test : undefined;
const nodeTest = onDeno || onBun
  ? undefined
  : (await import(nodeSpecifier)).test;

/** Options of one test. */
export interface TestOptions {
  /** Bun's and Node's per-test limit (Deno has none); default 60 s. */
  timeoutMs?: number;
  /** Skip, with the reason printed. */
  skip?: string | false;
}

/** Registers a test on whichever runtime runs the file. */
export function test(
  name: string,
  fn: () => Promise<void> | void,
  options: TestOptions = {},
): void {
  if (options.skip) {
    console.log(`skipped: ${name}: ${options.skip}`);
  }
  if (onDeno) {
    g.Deno.test({ name, fn, ignore: Boolean(options.skip) });
  } else if (onBun) {
    if (options.skip) bunTest.skip(name, fn);
    else bunTest(name, fn, options.timeoutMs ?? 60_000);
  } else if (options.skip) {
    nodeTest(name, { skip: options.skip }, () => {});
  } else {
    nodeTest(name, { timeout: options.timeoutMs ?? 60_000 }, () => fn());
  }
}

/** Name of the runtime running the tests. */
export const runtime: "deno" | "bun" | "node" = onDeno
  ? "deno"
  : onBun
  ? "bun"
  : "node";

/** Path of the running runtime's executable. */
export function execPath(): string {
  return onDeno ? g.Deno.execPath() : g.process.execPath;
}

/** The value of environment variable `name`, or undefined. */
export function envGet(name: string): string | undefined {
  return onDeno ? g.Deno.env.get(name) : g.process.env[name];
}
