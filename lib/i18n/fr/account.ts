import type { AccountMessages } from "../en/account.ts";

export const account: AccountMessages = {};
