import type { ActivityMessages } from "../en/activity.ts";

export const activity: ActivityMessages = {};
