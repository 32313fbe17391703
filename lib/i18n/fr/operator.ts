import type { OperatorMessages } from "../en/operator.ts";

export const operator: OperatorMessages = {};
