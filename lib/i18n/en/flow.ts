// English: the flow pages' words (filled in by the flow translation).
export const flow = {};

export type FlowMessages = typeof flow;
