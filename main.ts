// Portico's entry point: config → database → migrations → app → Deno.serve, and a graceful stop.
import { ConfigError, loadConfig } from "./lib/config.ts";
import { type OpenDatabase, openDatabase, StartupError } from "./lib/db/open.ts";
import { migrate, MigrationError } from "./lib/db/migrate.ts";
import { createLogger, errorFields } from "./lib/log.ts";
import { resolveSecretKey } from "./lib/secret.ts";
import { isEmpty, seedDemo } from "./lib/demo.ts";
import { createApp } from "./routes/mod.ts";
import { type AuditLog, createAuditLog } from "./lib/audit.ts";
import { ensureSigningKey } from "./lib/oauth/keys.ts";
import { createSigner, SignerError } from "./lib/oauth/signer.ts";
import { frontEndWarning, type RunningServer, serve, serveOptions } from "./lib/http/serve.ts";
import { startSweeper, type Sweeper, sweepOptions } from "./lib/oauth/sweeper.ts";
import { embeddedNeedsMoreReadAccess, START_NEEDS_DATABASE_URL, welcomeText } from "./lib/welcome.ts";

/** How long in-flight requests get to finish after SIGINT/SIGTERM. */
const SHUTDOWN_GRACE_MS = 10_000;

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      try {
        Deno.addSignalListener(sig, () => resolve(sig));
      } catch {
        // SIGTERM is not available on every platform
      }
    }
  });
}

async function main(args: string[]): Promise<number> {
  const command = args[0] ?? "serve";
  if (command !== "serve" && command !== "migrate") {
    console.error(`portico: unknown command "${command}" (use serve or migrate)`);
    return 2;
  }
  let db: OpenDatabase | undefined;
  let audit: AuditLog | undefined;
  let sweeper: Sweeper | undefined;
  try {
    const config = loadConfig();
    const log = createLogger(config.logLevel);
    if (embeddedNeedsMoreReadAccess(config.databaseUrl)) throw new StartupError(START_NEEDS_DATABASE_URL);
    db = await openDatabase(config, { publishEmbedded: command === "serve" });
    const applied = await migrate(db.sql);
    log.info("migrations", { applied });
    if (command === "migrate") return 0;

    const secretKey = await resolveSecretKey(config);
    const key = await ensureSigningKey(db.sql, secretKey);
    if (key.created) log.info("signing key created", { kid: key.kid });
    const demo = db.embedded && await isEmpty(db.sql) ? await seedDemo(db.sql) : undefined;
    audit = createAuditLog(db.sql, log);
    const signer = createSigner({
      choice: config.signer,
      libcryptoPath: config.libcryptoPath,
      onFallback: (reason) => log.warn("signer: a key falls back to webcrypto", { reason }),
    });
    log.info("signer", { signer: signer.kind, reason: signer.reason });
    const app = createApp({ config, sql: db.sql, log, secretKey, audit, signer });
    let server: RunningServer;
    sweeper = startSweeper(db.sql, {
      ...sweepOptions(config),
      intervalSeconds: config.sweepIntervalSeconds,
      log,
    });

    try {
      server = await serve(
        app.fetch,
        serveOptions(config, ({ hostname, port }) => {
          log.info("listening", { url: `http://${hostname}:${port}` });
          // The embedded database means `deno task dev`: print what to paste next (the demo key only now).
          if (db?.embedded) console.log(welcomeText({ issuer: config.issuer, demo }));
        }),
      );
    } catch (err) {
      if (err instanceof Deno.errors.AddrInUse) {
        throw new StartupError(`port ${config.port} on ${config.host} is already in use`);
      }
      if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.AddrNotAvailable) {
        throw new StartupError(`cannot listen on ${config.host}:${config.port}: ${err.message}`);
      }
      throw err;
    }
    const warning = frontEndWarning(config);
    if (warning) log.warn(warning);
    const signal = await waitForSignal();
    log.info("shutting down", { signal });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      server.shutdown(),
      new Promise((resolve) => timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)),
    ]);
    clearTimeout(timer);
    return 0;
  } catch (err) {
    if (
      err instanceof ConfigError || err instanceof StartupError || err instanceof MigrationError ||
      err instanceof SignerError
    ) {
      console.error(`portico: ${err.message}`);
      return 1;
    }
    console.error(`portico: start-up failed: ${JSON.stringify(errorFields(err).error)}`);
    return 1;
  } finally {
    sweeper?.stop();
    await audit?.close().catch(() => {});
    await db?.close().catch(() => {});
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
