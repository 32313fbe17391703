// Portico's entry point: config → database → migrations → app → Deno.serve, and a graceful stop.
import { ConfigError, loadConfig } from "./lib/config.ts";
import { DatabaseInUseError, type OpenDatabase, openDatabase, StartupError } from "./lib/db/open.ts";
import { migrate, MigrationError } from "./lib/db/migrate.ts";
import { createLogger, errorFields } from "./lib/log.ts";
import { resolveSecretKey } from "./lib/secret.ts";
import { isEmpty, makeDemoOperator, seedDemo } from "./lib/demo.ts";
import { findDemoAccount } from "./lib/demo_account.ts";
import { createApp } from "./routes/mod.ts";
import { type AuditLog, createAuditLog } from "./lib/audit.ts";
import { createKeyStore, ensureSigningKey } from "./lib/oauth/keys.ts";
import { createSigner, signerCalibrationFields, SignerError } from "./lib/oauth/signer.ts";
import { frontEndWarning, type RunningServer, serve, serveOptions } from "./lib/http/serve.ts";
import { startSweeper, type Sweeper, sweepOptions } from "./lib/oauth/sweeper.ts";
import { OTEL_ON } from "./lib/telemetry/otel.ts";
import { startTelemetry } from "./lib/telemetry/setup.ts";
import { embeddedNeedsMoreReadAccess, START_NEEDS_DATABASE_URL, welcomeText } from "./lib/welcome.ts";

/** How long in-flight requests get to finish after SIGINT/SIGTERM. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Resolves with the first SIGINT or SIGTERM. SIGTERM is turned into a SIGINT to this same process, so that it
 * stops everything as Ctrl-C does: under `deno task dev` (`deno run --watch`) only SIGINT makes the watcher
 * end after the program, and a SIGTERM alone left the watcher (and the task) running.
 */
function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    let first: string | undefined;
    const onSignal = (sig: "SIGINT" | "SIGTERM") => {
      if (first) {
        // Our own SIGINT below, or a repeat (`deno task` may pass SIGTERM on more than once): shutdown is
        // already under way and bounded, so nothing more to do.
        resolve(first);
        return;
      }
      first = sig;
      if (sig === "SIGTERM") {
        try {
          Deno.kill(Deno.pid, "SIGINT");
        } catch {
          // cannot signal ourselves: stop all the same
        }
      }
      resolve(sig);
    };
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      try {
        Deno.addSignalListener(sig, () => onSignal(sig));
      } catch {
        // SIGTERM is not available on every platform
      }
    }
  });
}

/** Waits for `work` at most `ms`; shutdown steps must not hang on a database that no longer answers. */
async function atMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work.catch(() => {}), new Promise((resolve) => timer = setTimeout(resolve, ms))]);
  clearTimeout(timer);
}

/**
 * Under `deno task dev` a failed start leaves `deno run --watch` waiting for a file change, which cannot help
 * when another process owns the database: a SIGINT to ourselves ends the watcher too, as Ctrl-C would. Without
 * the watcher the listener takes the signal and the exit code stays 1.
 */
async function endWatcher(): Promise<void> {
  try {
    const seen = new Promise<void>((resolve) => Deno.addSignalListener("SIGINT", () => resolve()));
    Deno.kill(Deno.pid, "SIGINT");
    // the watcher acts on the signal only while this program still runs
    await Promise.race([seen, new Promise((r) => setTimeout(r, 2_000))]);
    await new Promise((r) => setTimeout(r, 200));
  } catch {
    // nothing more to do
  }
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
    // A second server on the same DATA_DIR refuses; `migrate` uses the running server's embedded database.
    db = await openDatabase(config, { whenInUse: command === "serve" ? "refuse" : "connect", log });
    const applied = await migrate(db.sql);
    log.info("migrations", { applied });
    if (command === "migrate") return 0;

    const secretKey = await resolveSecretKey(config);
    const key = await ensureSigningKey(db.sql, secretKey);
    if (key.created) log.info("signing key created", { kid: key.kid });
    const demo = db.embedded && await isEmpty(db.sql) ? await seedDemo(db.sql) : undefined;
    // A later start of `deno task dev` names the demo person again (the banner cannot show its password).
    const demoAccount = db.embedded && !demo ? await findDemoAccount(db.sql) : undefined;
    // The demo person is an operator (issue 23); a demo made before that becomes one. Never on DATABASE_URL.
    if (demoAccount && await makeDemoOperator(db.sql, demoAccount.userId)) {
      log.info("demo person made an operator", { user_id: demoAccount.userId, email: demoAccount.email });
    }
    audit = createAuditLog(db.sql, log);
    // OTEL_DENO=true: SQL spans and the pool and audit gauges (docs/operations.md "OpenTelemetry").
    startTelemetry({ sql: db.sql, audit });
    if (OTEL_ON) log.info("opentelemetry on");
    const signer = createSigner({
      choice: config.signer,
      libcryptoPath: config.libcryptoPath,
      onFallback: (reason) => log.warn("signer: a key falls back to webcrypto", { reason }),
      onCalibrated: (c) => log.info("signer calibrated", signerCalibrationFields(c)),
    });
    log.info("signer", { signer: signer.kind, reason: signer.reason });
    const keys = createKeyStore(db.sql, secretKey, { rotateAfterDays: config.keyRotationDays, signer });
    // The signing key is imported before the first request, so the signer measures this machine while nothing
    // else runs (docs/operations.md "Signer") and the first token request does not wait for the import.
    await keys.signing();
    const app = createApp({
      config,
      sql: db.sql,
      log,
      secretKey,
      audit,
      signer,
      keys,
      databaseProblem: db.problem,
    });
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
          // The embedded database means `deno task dev`: print what to paste next (the demo key only now), before
          // the "listening" line, so whatever waits for that line has the banner too (on a loaded host a reader
          // once saw "listening" alone and read the key a moment too early).
          if (db?.embedded) console.log(welcomeText({ issuer: config.issuer, demo, demoAccount }));
          log.info("listening", { url: `http://${hostname}:${port}` });
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
      if (err instanceof DatabaseInUseError) await endWatcher();
      return 1;
    }
    console.error(`portico: start-up failed: ${JSON.stringify(errorFields(err).error)}`);
    return 1;
  } finally {
    sweeper?.stop();
    if (audit) await atMost(audit.close(), 3_000);
    if (db) await atMost(db.close(), 10_000);
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
