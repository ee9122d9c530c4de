/**
 * The MCP server: bashbox's tools served over MCP (stdio and Streamable HTTP).
 *
 * @module
 */

export type {
  Containment,
  ContainmentStatus,
  ContainMode,
} from "../core/containment.ts";
export * from "./server.ts";
