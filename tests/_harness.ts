/**
 * One test suite, two runtimes: `test()` maps onto `Deno.test` (with Deno's
 * resource and op sanitizers on, so a leaked process fails) or onto `bun:test`.
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
const g = globalThis as any;
const onDeno = typeof g.Deno?.test === "function";
const bunSpecifier = "bun:" + "test";
const bunTest = onDeno ? undefined : (await import(bunSpecifier)).test;

/** Options of one test. */
export interface TestOptions {
  /** Bun's per-test limit (Deno has none); default 60 s. */
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
  } else if (options.skip) {
    bunTest.skip(name, fn);
  } else {
    bunTest(name, fn, options.timeoutMs ?? 60_000);
  }
}

/** Name of the runtime running the tests. */
export const runtime: "deno" | "bun" = onDeno ? "deno" : "bun";
