// The confirmation gate: before a listed tool call deletes data or moves money, the person confirms (MCP 2026-07-28
// Multi Round-Trip Requests), or the operator's policy decides for clients that cannot ask (docs/mcp.md
// "Confirmations"). The dispatcher calls `confirmationGate` after the arguments validated, before the tool runs.
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import { AppError } from "../errors.ts";
import type { Caller } from "./caller.ts";
import { type Choice, CHOICES, type Chooser } from "./confirm_choices.ts";
import { CONFIRMATIONS } from "./confirm_texts.ts";
import {
  type CallBinding,
  digest,
  mintState,
  spendState,
  type StateClaims,
  verifyState,
} from "./confirm_state.ts";
import { RPC, RpcError, toolFailure, type ToolResult } from "./errors.ts";

/** CONFIRM_WRITES: what a listed call gets from a client that cannot ask the person. */
export type ConfirmPolicy = Config["confirmWrites"];

/** The key of the one form in `inputRequests` (and of its answer in `inputResponses`). */
export const CONFIRM_KEY = "confirm";

export interface GateInput {
  db: Db;
  /** SECRET_KEY; without it no state can be minted, so the call is treated as from a client that cannot ask */
  secretKey: string | undefined;
  caller: Caller;
  era: "2025" | "2026";
  /** 2026: this request's declared client capabilities; 2025: null */
  clientCapabilities: Record<string, unknown> | null;
  tool: string;
  /** the arguments as sent (what the state binds) */
  args: Record<string, unknown>;
  /** the arguments as validated (what the tool would run with) */
  input: Record<string, unknown>;
  /** 2026 tools/call params.inputResponses and params.requestState, as sent */
  inputResponses: unknown;
  requestState: unknown;
  policy: ConfirmPolicy;
  /** the clock, in ms (tests make states expire with it) */
  now?: () => number;
}

/** An elicitation/create request without its JSON-RPC envelope, as InputRequests carry it. */
export interface ElicitInputRequest {
  method: "elicitation/create";
  params: {
    mode: "form";
    message: string;
    requestedSchema: {
      type: "object";
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
  };
}

export type GateAnswer =
  /** `confirmed`: the person said yes to this very call (the audit trail records it) */
  | { kind: "run"; confirmed?: true }
  | {
    kind: "input_required";
    result: { inputRequests: Record<string, ElicitInputRequest>; requestState: string };
  }
  | { kind: "done"; result: ToolResult };

const RUN: GateAnswer = { kind: "run" };
const CONFIRMED: GateAnswer = { kind: "run", confirmed: true };

/** The person's answer: ticked and accepted, or one of the ways of not doing it. */
type Answer = "confirmed" | "declined" | "cancelled" | "unticked";

/** The one field of the confirmation form (flat primitives only: MCP form mode allows nothing else). */
export const CONFIRM_SCHEMA: ElicitInputRequest["params"]["requestedSchema"] = Object.freeze({
  type: "object" as const,
  properties: {
    [CONFIRM_KEY]: {
      type: "boolean",
      title: "Yes, do exactly this",
      description: "Tick and accept to go ahead. Declining, cancelling or leaving it unticked does nothing.",
    },
  },
  required: [CONFIRM_KEY],
});

/** What a refused requestState gets: a JSON-RPC -32602 error, like the SDK's server; nothing runs. */
export const STATE_REFUSALS = {
  malformed: "Invalid params: requestState was not minted by this server or was altered; nothing was done. " +
    "Call the tool again without requestState to be asked anew.",
  mismatch:
    "Invalid params: requestState was minted for another call (the tool, its arguments or the credential " +
    "differ); nothing was done.",
  used: "Invalid params: requestState was already used; nothing was done. Call the tool again without " +
    "requestState to be asked anew.",
  responses: `Invalid params: inputResponses.${CONFIRM_KEY} must be an elicitation result ` +
    '{"action": "accept" | "decline" | "cancel", "content"?: {…}}; nothing was done.',
} as const;

const NOT_DONE: Record<Exclude<Answer, "confirmed">, string> = {
  declined: "Nothing was done: the person declined",
  cancelled: "Nothing was done: the person dismissed the confirmation without answering",
  unticked: "Nothing was done: the person did not tick the confirmation",
};

/** Form mode is declared by `elicitation: {}` (form only, by the spec's rule) or `elicitation: {form: …}`. */
export function canElicitForm(capabilities: Record<string, unknown> | null): boolean {
  const e = capabilities?.elicitation;
  if (typeof e !== "object" || e === null || Array.isArray(e)) return false;
  return Object.keys(e).length === 0 || "form" in e;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The answer in `inputResponses`, null when there is none; a malformed one is refused (-32602). */
function readAnswer(responses: unknown): Answer | null {
  if (responses === undefined || responses === null) return null;
  if (!isObject(responses)) throw new RpcError(RPC.INVALID_PARAMS, STATE_REFUSALS.responses);
  let r = responses[CONFIRM_KEY];
  if (r === undefined) return null; // other keys: ignored, as the spec says
  // A `{method, result}` wrapper is tolerated (the v2 client sends the bare result).
  if (isObject(r) && !("action" in r) && isObject(r.result)) r = r.result;
  if (!isObject(r)) throw new RpcError(RPC.INVALID_PARAMS, STATE_REFUSALS.responses);
  switch (r.action) {
    case "decline":
      return "declined";
    case "cancel":
      return "cancelled";
    case "accept":
      return isObject(r.content) && r.content[CONFIRM_KEY] === true ? "confirmed" : "unticked";
    default:
      throw new RpcError(RPC.INVALID_PARAMS, STATE_REFUSALS.responses);
  }
}

function notDone(answer: Exclude<Answer, "confirmed">, tool: string): GateAnswer {
  return { kind: "done", result: { content: [{ type: "text", text: `${NOT_DONE[answer]} (${tool}).` }] } };
}

/** The policy's refusal: an error result naming the policy, what would have happened and how to confirm. */
export function policyRefusal(tool: string, message: string): ToolResult {
  return toolFailure(
    new AppError(
      "access_denied",
      `${tool} needs the person's confirmation (the operator's policy CONFIRM_WRITES=require) and this client ` +
        "cannot ask for it, so nothing was done. To go ahead, call it from a client that speaks MCP 2026-07-28 " +
        `and declares the elicitation capability (form mode); it will show the person: ${message}`,
    ),
  );
}

/**
 * Decides whether a validated call runs now. Nothing runs unless this answers `run`: a listed call runs when it
 * needs no confirmation (a draft invoice, a status other than invoiced, a record the caller cannot see), when
 * the retry carries a valid, unused state for exactly this call with the box ticked, or — for a client that
 * cannot ask — when the policy is off. A bad state throws RpcError(-32602).
 */
export async function confirmationGate(g: GateInput): Promise<GateAnswer> {
  const chooser = CHOICES[g.tool];
  if (chooser?.misses(g.input)) return await choiceGate(g, chooser);
  const confirmation = CONFIRMATIONS[g.tool];
  if (!confirmation) return RUN;
  const nowMs = g.now?.() ?? Date.now();
  const call: CallBinding = { tool: g.tool, args: g.args, caller: g.caller };

  // A 2026 retry: the state first (cheap, no database), then the answer, then spend it — once, whatever it says.
  let claims: StateClaims | null = null;
  let answer: Answer | null = null;
  if (g.era === "2026" && g.requestState !== undefined) {
    const check = g.secretKey ? verifyState(g.secretKey, g.requestState, call, nowMs) : null;
    if (check === null) throw new RpcError(RPC.INVALID_PARAMS, STATE_REFUSALS.malformed);
    if (!check.ok && check.reason !== "expired") {
      throw new RpcError(RPC.INVALID_PARAMS, STATE_REFUSALS[check.reason]);
    }
    if (check.ok) {
      answer = readAnswer(g.inputResponses);
      if (!(await spendState(g.db, check.claims))) {
        throw new RpcError(RPC.INVALID_PARAMS, STATE_REFUSALS.used);
      }
      claims = check.claims;
      if (answer !== null && answer !== "confirmed") return notDone(answer, g.tool);
    }
    // expired: asked again below, as for a first call
  }

  const message = await confirmation(g.db, g.caller, g.input);
  if (message === null) return RUN;
  // Run only what the person saw: if the record changed since, the text differs and they are asked again.
  if (claims !== null && answer === "confirmed" && claims.m === digest(message)) return CONFIRMED;

  if (g.era === "2026" && g.secretKey && canElicitForm(g.clientCapabilities)) {
    return {
      kind: "input_required",
      result: {
        inputRequests: {
          [CONFIRM_KEY]: {
            method: "elicitation/create",
            params: { mode: "form", message, requestedSchema: CONFIRM_SCHEMA },
          },
        },
        requestState: mintState(g.secretKey, call, message, nowMs),
      },
    };
  }
  if (g.policy === "off") return RUN;
  return { kind: "done", result: policyRefusal(g.tool, message) };
}

// ---------------------------------------------------------------------------------------------------------
// Choices (docs/mcp.md "Choices"): a call missing one value the server can list gets one form that chooses it and
// confirms what will happen. Same state rules as the confirmation: minted here, bound to the call as sent (the
// value still missing), spent once whatever the answer; the form's text and options are what the state's `m`
// digests, so a retry after the record changed is asked again.

/** The form of a choice: the titled enum and the confirmation box, both required. */
function choiceForm(field: string, c: Choice): ElicitInputRequest {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: c.message,
      requestedSchema: {
        type: "object",
        properties: {
          [field]: { type: "string", title: c.title, oneOf: c.options },
          [CONFIRM_KEY]: CONFIRM_SCHEMA.properties[CONFIRM_KEY],
        },
        required: [field, CONFIRM_KEY],
      },
    },
  };
}

/** What the state binds of a choice: the text and every option the person was shown. */
function choiceText(c: Choice): string {
  return [c.message, ...c.options.map((o) => `${o.const} ${o.title}`)].join("\n");
}

/** The answer to a choice form: confirmed with a chosen value, or one of the ways of not doing it. */
function readChoice(responses: unknown, field: string): { answer: Answer; value?: string } | null {
  const answer = readAnswer(responses); // checks the shape; throws -32602 on a malformed one
  if (answer !== "confirmed") return answer === null ? null : { answer };
  let r = (responses as Record<string, unknown>)[CONFIRM_KEY] as Record<string, unknown>;
  if (!("action" in r)) r = r.result as Record<string, unknown>;
  const value = (r.content as Record<string, unknown>)[field];
  return typeof value === "string" ? { answer, value } : { answer: "unticked" };
}

/** The refusal of a chosen value the form did not offer (a client that ignores the form's enum). */
export const CHOICE_REFUSAL =
  "Invalid params: the value chosen in inputResponses.confirm is not one the form " +
  "offered; nothing was done. Call the tool again without requestState to be asked anew.";

/**
 * The gate for a call that misses the chooser's value. Nothing runs unless it answers `run`; when the person chose
 * and confirmed, the chosen value is written into `g.input` (the validated input the dispatcher runs the tool
 * with) and the call runs without a second confirmation: the form showed what will happen for each option. A
 * client that cannot ask, or a call with nothing to choose, runs as it is: the tool then answers invalid_input with
 * the choices (or its own error), and nothing moves.
 */
async function choiceGate(g: GateInput, chooser: Chooser): Promise<GateAnswer> {
  const nowMs = g.now?.() ?? Date.now();
  const call: CallBinding = { tool: g.tool, args: g.args, caller: g.caller };
  let claims: StateClaims | null = null;
  let answer: { answer: Answer; value?: string } | null = null;
  if (g.era === "2026" && g.requestState !== undefined) {
    const check = g.secretKey ? verifyState(g.secretKey, g.requestState, call, nowMs) : null;
    if (check === null) throw new RpcError(RPC.INVALID_PARAMS, STATE_REFUSALS.malformed);
    if (!check.ok && check.reason !== "expired") {
      throw new RpcError(RPC.INVALID_PARAMS, STATE_REFUSALS[check.reason]);
    }
    if (check.ok) {
      answer = readChoice(g.inputResponses, chooser.field);
      if (!(await spendState(g.db, check.claims))) {
        throw new RpcError(RPC.INVALID_PARAMS, STATE_REFUSALS.used);
      }
      claims = check.claims;
      if (answer !== null && answer.answer !== "confirmed") return notDone(answer.answer, g.tool);
    }
  }

  const choice = await chooser.ask(g.db, g.caller, g.input);
  if (choice === null) return RUN;
  const text = choiceText(choice);
  if (claims !== null && answer?.value !== undefined && claims.m === digest(text)) {
    if (!choice.options.some((o) => o.const === answer.value)) {
      throw new RpcError(RPC.INVALID_PARAMS, CHOICE_REFUSAL);
    }
    g.input[chooser.field] = answer.value;
    return CONFIRMED;
  }
  if (g.era === "2026" && g.secretKey && canElicitForm(g.clientCapabilities)) {
    return {
      kind: "input_required",
      result: {
        inputRequests: { [CONFIRM_KEY]: choiceForm(chooser.field, choice) },
        requestState: mintState(g.secretKey, call, text, nowMs),
      },
    };
  }
  return RUN;
}
