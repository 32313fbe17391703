// The migrations, imported statically so `deno compile` and Deno Deploy embed them. Add new files here in order.
import m00001 from "./00001_init.sql" with { type: "text" };
import m00002 from "./00002_oauth.sql" with { type: "text" };
import m00003 from "./00003_projects.sql" with { type: "text" };
import m00004 from "./00004_tasks.sql" with { type: "text" };
import m00005 from "./00005_commercial.sql" with { type: "text" };
import m00006 from "./00006_crm.sql" with { type: "text" };
import m00007 from "./00007_personal.sql" with { type: "text" };
import m00008 from "./00008_audit.sql" with { type: "text" };
import m00009 from "./00009_mcp_oauth.sql" with { type: "text" };
import m00011 from "./00011_signin_registration.sql" with { type: "text" };
import m00013 from "./00013_oauth_lifecycle.sql" with { type: "text" };
import m00014 from "./00014_key_activation.sql" with { type: "text" };
import m00015 from "./00015_spent_tickets.sql" with { type: "text" };
import m00018 from "./00018_key_toolsets.sql" with { type: "text" };
import m00019 from "./00019_search_indexes.sql" with { type: "text" };
import m00020 from "./00020_grant_toolsets.sql" with { type: "text" };
import m00021 from "./00021_task_plan_index.sql" with { type: "text" };
import m00022 from "./00022_refresh_family_live.sql" with { type: "text" };
import m00023 from "./00023_search_no_pending_list.sql" with { type: "text" };
import m00024 from "./00024_approvals.sql" with { type: "text" };
import m00025 from "./00025_mcp_spent_request_states.sql" with { type: "text" };
import m00026 from "./00026_password_resets.sql" with { type: "text" };
import m00027 from "./00027_sign_in_security.sql" with { type: "text" };
import m00028 from "./00028_activity.sql" with { type: "text" };
import m00029 from "./00029_shared_limits.sql" with { type: "text" };
import m00030 from "./00030_person_locale.sql" with { type: "text" };
import m00031 from "./00031_refresh_in_place.sql" with { type: "text" };

export interface Migration {
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { name: "00001_init.sql", sql: m00001 },
  { name: "00002_oauth.sql", sql: m00002 },
  { name: "00003_projects.sql", sql: m00003 },
  { name: "00004_tasks.sql", sql: m00004 },
  { name: "00005_commercial.sql", sql: m00005 },
  { name: "00006_crm.sql", sql: m00006 },
  { name: "00007_personal.sql", sql: m00007 },
  { name: "00008_audit.sql", sql: m00008 },
  { name: "00009_mcp_oauth.sql", sql: m00009 },
  { name: "00011_signin_registration.sql", sql: m00011 },
  { name: "00013_oauth_lifecycle.sql", sql: m00013 },
  { name: "00014_key_activation.sql", sql: m00014 },
  { name: "00015_spent_tickets.sql", sql: m00015 },
  { name: "00018_key_toolsets.sql", sql: m00018 },
  { name: "00019_search_indexes.sql", sql: m00019 },
  { name: "00020_grant_toolsets.sql", sql: m00020 },
  { name: "00021_task_plan_index.sql", sql: m00021 },
  { name: "00022_refresh_family_live.sql", sql: m00022 },
  { name: "00023_search_no_pending_list.sql", sql: m00023 },
  { name: "00024_approvals.sql", sql: m00024 },
  { name: "00025_mcp_spent_request_states.sql", sql: m00025 },
  { name: "00026_password_resets.sql", sql: m00026 },
  { name: "00027_sign_in_security.sql", sql: m00027 },
  { name: "00028_activity.sql", sql: m00028 },
  { name: "00029_shared_limits.sql", sql: m00029 },
  { name: "00030_person_locale.sql", sql: m00030 },
  { name: "00031_refresh_in_place.sql", sql: m00031 },
];
