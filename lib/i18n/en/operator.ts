// English: the operator pages' words (filled in by the operator translation).
export const operator = {};

export type OperatorMessages = typeof operator;
