/**
 * The tools beside bash: the text editor tool, run through the same shell.
 *
 * @module
 */

export * from "./editor.ts";
