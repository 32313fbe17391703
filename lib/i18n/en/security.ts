// English: the security pages' words (filled in by the security translation).
export const security = {};

export type SecurityMessages = typeof security;
