// The one definition of loopback: each meaning pinned as it behaved where it was written before, and a scan that
// fails when lib/ or routes/ writes a list of loopback hosts of its own.
import assert from "node:assert/strict";
import {
  isLoopbackHostname,
  isLoopbackHttpPrefix,
  isLoopbackHttpUri,
  isLoopbackListenHost,
  LOOPBACK_HOSTNAMES,
  reachesLoopback,
} from "../../lib/net/loopback.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const HOME = "lib/net/loopback.ts";

Deno.test("isLoopbackHostname: exactly the RFC 8252 names as URL.hostname writes them", () => {
  assert.deepEqual([...LOOPBACK_HOSTNAMES], ["localhost", "127.0.0.1", "[::1]"]);
  for (const h of ["localhost", "127.0.0.1", "[::1]"]) assert.equal(isLoopbackHostname(h), true, h);
  for (const h of ["127.0.0.2", "::1", "LOCALHOST", "app.localhost", "[0:0:0:0:0:0:0:1]", "localhost.", ""]) {
    assert.equal(isLoopbackHostname(h), false, h);
  }
  // What a URL parser makes of other spellings is what redirect URIs, resources and Origins are matched on.
  assert.equal(isLoopbackHostname(new URL("http://LOCALHOST:9/").hostname), true);
  assert.equal(isLoopbackHostname(new URL("http://[0:0::1]/").hostname), true);
  assert.equal(isLoopbackHostname(new URL("http://127.1/").hostname), true);
  assert.equal(isLoopbackHostname(new URL("http://127.0.0.2/").hostname), false);
});

Deno.test("isLoopbackHttpUri: the text as written starts http:// + a loopback name + : or /", () => {
  for (
    const u of [
      "http://localhost/cb",
      "http://127.0.0.1:3000/x",
      "http://[::1]:1/",
      "http://localhost:x@evil/",
    ]
  ) {
    assert.equal(isLoopbackHttpUri(u), true, u);
  }
  for (
    const u of [
      "http://LOCALHOST/cb",
      "https://localhost/cb",
      "http://localhost",
      "http://localhost.evil.example/",
      "http://127.0.0.1.nip.io/",
      "http://127.0.0.2/",
      "com.example.app:/cb",
    ]
  ) {
    assert.equal(isLoopbackHttpUri(u), false, u);
  }
});

Deno.test("isLoopbackHttpPrefix: a loopback http origin, an optional port and a slash", () => {
  for (
    const p of ["http://localhost/", "http://localhost:8000/", "http://127.0.0.1:9/apps/", "http://[::1]:80/"]
  ) {
    assert.equal(isLoopbackHttpPrefix(p), true, p);
  }
  for (
    const p of ["http://localhost", "http://localhost:80a/", "http://app.localhost/", "https://localhost/"]
  ) {
    assert.equal(isLoopbackHttpPrefix(p), false, p);
  }
});

Deno.test("isLoopbackListenHost: 127.*, localhost, ::1 and [::1] as written", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"]) {
    assert.equal(isLoopbackListenHost(h), true, h);
  }
  for (const h of ["0.0.0.0", "::", "LOCALHOST", "app.localhost", "0:0:0:0:0:0:0:1", "10.0.0.1"]) {
    assert.equal(isLoopbackListenHost(h), false, h);
  }
});

Deno.test("reachesLoopback: localhost and subdomains, all of 127/8, ::1 in any spelling", () => {
  for (
    const h of ["localhost", "LOCALHOST", "a.localhost", "127.9.9.9", "127.0.0.1", "::1", "[::1]", "[0:0::1]"]
  ) {
    assert.equal(reachesLoopback(h), true, h);
  }
  for (
    const h of ["128.0.0.1", "localhost.evil.example", "::2", "10.0.0.1", "::ffff:127.0.0.1", "example.com"]
  ) {
    assert.equal(reachesLoopback(h), false, h);
  }
  // The exact names are a subset of what reaches loopback.
  for (const h of LOOPBACK_HOSTNAMES) assert.equal(reachesLoopback(h), true, h);
});

/** Lines of code (not comments) that name two or more loopback hosts within three lines: a loopback list. */
export function loopbackLists(path: string, text: string): string[] {
  const code = text.split("\n").map((line) =>
    /^\s*(\/\/|\*|\/\*)/.test(line) ? "" : line.replaceAll("\\", "")
  );
  const found: string[] = [];
  for (let i = 0; i < code.length; i++) {
    const window = code.slice(i, i + 3).join(" ");
    const names = ["localhost", "127.0.0.1", "::1"].filter((n) => window.includes(n));
    if (
      names.length >= 2 && code[i].trim() !== "" &&
      ["localhost", "127.0.0.1", "::1"].some((n) => code[i].includes(n))
    ) {
      found.push(`${path}:${i + 1}: ${code[i].trim()}`);
      i += 2;
    }
  }
  return found;
}

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* tsFiles(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

Deno.test("the scan finds a loopback list written inline, on one line or over several", () => {
  assert.equal(loopbackLists("x.ts", `const L = new Set(["localhost", "127.0.0.1", "[::1]"]);`).length, 1);
  assert.equal(loopbackLists("x.ts", `const L = [\n  "127.0.0.1",\n  "[::1]",\n];`).length, 1);
  assert.equal(loopbackLists("x.ts", String.raw`/^http:\/\/(localhost|127\.0\.0\.1|\[::1\])[:/]/`).length, 1);
  assert.equal(loopbackLists("x.ts", `// localhost, 127.0.0.1 and [::1] in a comment`).length, 0);
  assert.equal(loopbackLists("x.ts", `listen({ hostname: "127.0.0.1" })`).length, 0);
});

Deno.test("one loopback definition: no module in lib/ or routes/ but lib/net/loopback.ts lists loopback hosts", async () => {
  const found: string[] = [];
  for (const dir of ["lib", "routes"]) {
    for await (const path of tsFiles(dir)) {
      if (path !== HOME) found.push(...loopbackLists(path, await Deno.readTextFile(`${ROOT}${path}`)));
    }
  }
  assert.deepEqual(
    found,
    [],
    `loopback hosts listed outside ${HOME}; use isLoopbackHostname, isLoopbackHttpUri, isLoopbackHttpPrefix, ` +
      `isLoopbackListenHost or reachesLoopback from there (or add a named meaning to it):\n${
        found.join("\n")
      }`,
  );
});
