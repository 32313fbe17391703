// SECRET_KEY: from the environment, or in embedded mode generated once into DATA_DIR/secret_key.
import { join } from "node:path";
import type { Config } from "./config.ts";
import { randomToken } from "./crypto.ts";

export async function resolveSecretKey(config: Config): Promise<string> {
  if (config.secretKey) return config.secretKey;
  const file = join(config.dataDir, "secret_key");
  try {
    const existing = (await Deno.readTextFile(file)).trim();
    if (existing.length >= 32) return existing;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  await Deno.mkdir(config.dataDir, { recursive: true });
  const key = randomToken("", 48);
  await Deno.writeTextFile(file, key + "\n", { mode: 0o600 });
  return key;
}
