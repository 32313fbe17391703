// English: the activity pages' words (filled in by the activity translation).
export const activity = {};

export type ActivityMessages = typeof activity;
