// What the authorization server's routes need from the app: a narrow interface, so they don't import routes/mod.ts.
import type { Config } from "../lib/config.ts";
import type { ScryptParams } from "../lib/crypto.ts";
import type { Sql } from "../lib/db/client.ts";
import type { Logger } from "../lib/log.ts";
import type { ClientDirectory, DocumentSource } from "../lib/oauth/client_directory.ts";
import type { KeyStore } from "../lib/oauth/keys.ts";

/** What the authorization server's routes need from the app (routes/mod.ts passes its AppDeps, a wider type). */
export interface OAuthDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  secretKey: string;
  keys: KeyStore;
  /** where Client ID Metadata Documents come from; by default fetched over the network (SSRF-guarded) */
  documents?: DocumentSource;
  /** Test-only: a cheaper scrypt cost for password hashes */
  scrypt?: ScryptParams;
}

export interface OAuthRouteDeps extends OAuthDeps {
  clients: ClientDirectory;
}
