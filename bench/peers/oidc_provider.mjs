// Peer for bench/refresh_peer.ts: node-oidc-provider (pinned in package.json) on Node, configured like Portico:
// RS256 `at+jwt` access tokens and RS256 ID tokens, refresh token rotation, PKCE required, a public client;
// its data in the library's default in-memory adapter, or, given `databaseUrl`, in PostgreSQL (./pg_adapter.mjs).
// Prints one JSON line (its starting refresh tokens) when it listens; exits when its stdin closes.
//
// node bench/peers/oidc_provider.mjs '{"port":8123,"chains":64}'
// node bench/peers/oidc_provider.mjs '{"port":8123,"chains":64,"databaseUrl":"postgres://…"}'
import { generateKeyPairSync } from "node:crypto";
import Provider from "oidc-provider";
import { pgAdapter } from "./pg_adapter.mjs";

const { port, chains, databaseUrl } = JSON.parse(process.argv[2]);
const store = databaseUrl ? await pgAdapter(databaseUrl) : undefined;
const issuer = `http://127.0.0.1:${port}`;
const resource = `${issuer}/mcp`;
const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

const provider = new Provider(issuer, {
  ...(store ? { adapter: store.PgAdapter } : {}),
  clients: [{
    client_id: "bench-public",
    token_endpoint_auth_method: "none",
    redirect_uris: ["http://127.0.0.1:8976/callback"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  }],
  jwks: { keys: [{ ...key, kid: "bench", alg: "RS256", use: "sig" }] },
  scopes: ["openid", "profile", "offline_access"],
  pkce: { required: () => true },
  rotateRefreshToken: true,
  issueRefreshToken: () => true,
  ttl: { AccessToken: 3600, IdToken: 3600, RefreshToken: 30 * 24 * 3600, Grant: 30 * 24 * 3600 },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: "profile",
        audience: resource,
        accessTokenTTL: 3600,
        accessTokenFormat: "jwt",
        jwt: { sign: { alg: "RS256" } },
      }),
    },
  },
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, name: "Bench Owner" }) }),
});
provider.on("server_error", (_ctx, err) => console.error("peer server_error", err));

const client = await provider.Client.find("bench-public");
const tokens = [];
for (let i = 0; i < chains; i++) {
  // One grant per chain, as Portico's bench seeds one family per worker.
  const grant = new provider.Grant({ accountId: "owner", clientId: client.clientId });
  grant.addOIDCScope("openid profile offline_access");
  grant.addResourceScope(resource, "profile");
  const grantId = await grant.save();
  const rt = new provider.RefreshToken({
    accountId: "owner",
    client,
    grantId,
    gty: "authorization_code",
    scope: "openid profile offline_access",
    resource,
    authTime: Math.floor(Date.now() / 1000),
  });
  tokens.push(await rt.save());
}

const server = provider.listen(port, "127.0.0.1", () => {
  console.log(JSON.stringify({ clientId: client.clientId, refreshTokens: tokens }));
});
process.stdin.resume();
process.stdin.on("end", () => server.close(async () => {
  await store?.end();
  process.exit(0);
}));
process.stdin.on("close", () => process.exit(0));
