import type { FlowMessages } from "../en/flow.ts";

export const flow: FlowMessages = {};
