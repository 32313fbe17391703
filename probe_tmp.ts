import { parseConfig } from "/work/wt/pages/lib/config.ts";
import { silentLogger } from "/work/wt/pages/lib/log.ts";
import { createApp } from "/work/wt/pages/routes/mod.ts";
import { freshDatabase } from "/work/wt/pages/tests/helpers/db.ts";
import { createClient } from "/work/wt/pages/lib/oauth/clients.ts";
const db = await freshDatabase();
const app = createApp({
  config: parseConfig({ ISSUER: "http://127.0.0.1:9", SECRET_KEY: "x".repeat(40) }),
  sql: db.sql,
  log: silentLogger,
  secretKey: "x".repeat(40),
});
const clientId = (await createClient(db.sql, {
  name: "Operator App",
  redirectUris: ["http://127.0.0.1:5/callback"],
  confidential: false,
  scopes: ["openid", "profile", "email", "offline_access", "workspace"],
  grantTypes: ["authorization_code", "refresh_token"],
  selfRegistered: false,
})).clientId;
const res = await app.request(
  `/oauth/authorize?` + new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: "http://127.0.0.1:5/callback",
    scope: "openid profile email offline_access workspace",
    state: "s",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  }),
);
console.log(res.status, res.headers.get("location"), (await res.text()).slice(0, 3000));
await db.close();
