// English: the account pages' words (filled in by the account translation).
export const account = {};

export type AccountMessages = typeof account;
