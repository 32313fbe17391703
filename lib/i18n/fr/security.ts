import type { SecurityMessages } from "../en/security.ts";

export const security: SecurityMessages = {};
