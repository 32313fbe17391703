// How a client learns what this server is: initialize (the 2025 revisions) and server/discover (2026-07-28), with
// the capabilities, identity and instructions both give.
import { withAppsCapability } from "./apps.ts";
import { RPC, RpcError } from "./errors.ts";
import { MODERN_PROTOCOL_VERSION, type ServerInfo } from "./modern.ts";

export const SERVER_NAME = "portico";
export const SERVER_VERSION = "0.1.0";
/** Newest first; initialize answers the client's version when listed here, else the newest. */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];
export function isSupportedVersion(v: string): boolean {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(v);
}

/** What a model should know to use the tools well (initialize and server/discover); not a copy of the tools'. */
export const INSTRUCTIONS =
  "Portico workspace tools. Every answer is scoped to the workspace (and companies) " +
  "of the credential: an API key, or the workspace chosen when the app was allowed. Dates are days, " +
  "YYYY-MM-DD, in UTC: get_context says today's date and who and where you are; list_members gives the " +
  "user ids of people. Ids are UUIDs; tasks also have a display id such as " +
  "WEB-42, which every task id parameter accepts and list_tasks' query finds. List rows are compact: get_ tools give a record in full, and " +
  "list_clients, list_invoices, list_contacts and list_activities take full: true instead. The tools offered " +
  "may be narrowed by the connection (/mcp?toolsets=tasks,time&readonly=1) or the credential. Errors start " +
  "with a code word: invalid_input, not_found, access_denied, unavailable, conflict.";

/** The capabilities both eras declare (initialize's, server/discover's). */
export const SERVER_CAPABILITIES: Record<string, unknown> = { tools: { listChanged: false }, resources: {} };

/** The capabilities of a connection with MCP Apps: the same plus the extension (lib/mcp/apps.ts). */
const APPS_CAPABILITIES = withAppsCapability(SERVER_CAPABILITIES);

/** serverInfo when the route gives none (tests building a context by hand). */
export const DEFAULT_SERVER_INFO: ServerInfo = Object.freeze({ name: SERVER_NAME, version: SERVER_VERSION });

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `apps`: the connection opted into MCP Apps (lib/mcp/apps.ts); the extension is declared only then. */
export function initialize(serverInfo: ServerInfo | undefined, params: unknown, apps = false) {
  if (!isObject(params) || typeof params.protocolVersion !== "string") {
    throw new RpcError(RPC.INVALID_PARAMS, "initialize needs params.protocolVersion");
  }
  const requested = params.protocolVersion;
  // Never 2026-07-28: a client of that revision does not initialize, and answering it would mix the eras.
  const version = isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
  const info = serverInfo ?? DEFAULT_SERVER_INFO;
  return {
    protocolVersion: version,
    capabilities: apps ? APPS_CAPABILITIES : SERVER_CAPABILITIES,
    // 2025-03-26's Implementation has a name and a version only.
    serverInfo: version === "2025-03-26" ? { name: info.name, version: info.version } : info,
    instructions: INSTRUCTIONS,
  };
}

const discoverAnswers = new WeakMap<ServerInfo, string>();
const appsDiscoverAnswers = new WeakMap<ServerInfo, string>();

/** server/discover's result (without the 2026 fields every result gets): the same for every caller. */
export function discoverJson(info: ServerInfo, apps = false): string {
  const answers = apps ? appsDiscoverAnswers : discoverAnswers;
  let json = answers.get(info);
  if (json === undefined) {
    json = JSON.stringify({
      supportedVersions: [MODERN_PROTOCOL_VERSION],
      capabilities: apps ? APPS_CAPABILITIES : SERVER_CAPABILITIES,
      instructions: INSTRUCTIONS,
    });
    answers.set(info, json);
  }
  return json;
}
