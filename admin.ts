// Entry point of `deno task admin …`: opens the configured database and runs one operator command.
import { ConfigError, loadConfig } from "./lib/config.ts";
import { openDatabase, StartupError } from "./lib/db/open.ts";
import { migrate, MigrationError } from "./lib/db/migrate.ts";
import { resolveSecretKey } from "./lib/secret.ts";
import { adminHelp, runAdmin } from "./lib/admin/cli.ts";

async function main(args: string[]): Promise<number> {
  // Help needs no database: it answers even where none is configured yet.
  const help = adminHelp(args, { out: (l) => console.log(l), err: (l) => console.error(l) });
  if (help !== undefined) return help;
  let db;
  try {
    const config = loadConfig();
    // While a server owns the embedded database, admin works on that same database through its port.
    db = await openDatabase(config, { whenInUse: "connect" });
    await migrate(db.sql);
    const secretKey = await resolveSecretKey(config);
    return await runAdmin(args, {
      sql: db.sql,
      secretKey,
      config,
      out: (l) => console.log(l),
      err: (l) => console.error(l),
      readStdin: () => new Response(Deno.stdin.readable).text(),
    });
  } catch (err) {
    if (err instanceof ConfigError || err instanceof StartupError || err instanceof MigrationError) {
      console.error(`admin: ${err.message}`);
    } else {
      console.error(`admin: unexpected failure: ${err instanceof Error ? err.message : err}`);
    }
    return 1;
  } finally {
    await db?.close();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
