/**
 * The MCP server: bashbox's tools served over MCP (stdio and Streamable HTTP).
 *
 * @module
 */

export * from "./server.ts";
