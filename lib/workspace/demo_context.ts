// What the demo seeder hands each domain's demo data: the workspace, its companies and its people.

export interface DemoContext {
  workspaceId: string;
  companyIds: [string, string];
  /** by role: owner (the demo user), admin, accounting, member (limited to the first company) */
  users: { owner: string; admin: string; accounting: string; member: string };
  agentIds: string[];
}
