/**
 * The shell core: one-shot commands (`exec`), persistent sessions (`BashSession`), the session pool, background and terminal processes and sandboxes.
 *
 * @module
 */

export * from "./exec.ts";
export * from "./session.ts";
export * from "./pool.ts";
export * from "./sandbox.ts";
