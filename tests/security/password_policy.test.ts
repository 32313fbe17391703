// The password policy (lib/security/password_policy.ts): 12 to 128 characters, not common, not guessable, not
// made from the person's email address; and what a sign-in with an older password counts as falling short.
import assert from "node:assert/strict";
import {
  checkNewPassword,
  fallsShortAtSignIn,
  PASSWORD_MAX_CHARS,
  PASSWORD_MIN_CHARS,
} from "../../lib/security/password_policy.ts";

const DANA = { email: "dana.smith@example.com", name: "Dana Smith" };

Deno.test("password policy: 11 characters are refused as too short, 12 good ones pass", async () => {
  assert.equal(PASSWORD_MIN_CHARS, 12);
  const short = await checkNewPassword("Kx8-vQ2m-Pz", DANA);
  assert.equal(short.ok, false);
  assert.ok(!short.ok && short.reason === "too_short");
  assert.ok(!short.ok && short.message.includes("at least 12 characters"), !short.ok ? short.message : "");
  assert.deepEqual(await checkNewPassword("Kx8-vQ2m-PzL", DANA), { ok: true });
  // Code points, not UTF-16 units: 11 emoji are 22 units but 11 characters.
  const emoji = await checkNewPassword("🦊".repeat(11), DANA);
  assert.ok(!emoji.ok && emoji.reason === "too_short");
});

Deno.test("password policy: more than 128 characters are refused; 128 varied ones pass", async () => {
  assert.equal(PASSWORD_MAX_CHARS, 128);
  const words = "river candle orbit maple quartz velvet lantern pebble harbor tundra cobalt saffron ";
  const long = (words + words).slice(0, 129);
  const refused = await checkNewPassword(long, DANA);
  assert.ok(!refused.ok && refused.reason === "too_long");
  assert.ok(!refused.ok && refused.message.includes("at most 128 characters"));
  assert.deepEqual(await checkNewPassword(long.slice(0, 128), DANA), { ok: true });
});

Deno.test("password policy: common passwords are refused with the reason, whatever their length", async () => {
  for (const common of ["password1234", "qwertyuiop12", "123456789012", "iloveyou12345", "constitutional"]) {
    const r = await checkNewPassword(common, DANA);
    assert.ok(!r.ok, common);
    assert.equal(r.reason, "common", common);
    assert.match(r.message, /common passwords/, common);
  }
});

Deno.test("password policy: patterns easy to guess are refused, with zxcvbn's reason in the message", async () => {
  const r = await checkNewPassword("aaaaaaaaaaaaaaaa", DANA);
  assert.ok(!r.ok);
  assert.equal(r.reason, "guessable");
  assert.match(r.message, /too easy to guess\. Repeated characters/);
});

Deno.test("password policy: a password containing the email's name part or made of the name is refused", async () => {
  for (const personal of ["dana.smith.1980", "xyzDANA.SMITHxyz", "Dana Smith 1980"]) {
    const r = await checkNewPassword(personal, DANA);
    assert.ok(!r.ok, personal);
    assert.equal(r.reason, "personal", personal);
    assert.match(r.message, /email address or name/);
  }
  // The same words are fine for someone else.
  assert.deepEqual(await checkNewPassword("dana.smith.1980", { email: "olly@example.com" }), { ok: true });
});

Deno.test("password policy: no composition rules — lowercase words with spaces pass", async () => {
  for (const good of ["correct horse battery", "river candle orbit", "a brand new password"]) {
    assert.deepEqual(await checkNewPassword(good, DANA), { ok: true }, good);
  }
});

Deno.test("password policy at sign-in: short, common or personal fall short; a long old one does not", async () => {
  assert.equal(await fallsShortAtSignIn("12345678", DANA), "too_short");
  assert.equal(await fallsShortAtSignIn("password1234", DANA), "common");
  assert.equal(await fallsShortAtSignIn("dana.smith.1980", DANA), "personal");
  assert.equal(await fallsShortAtSignIn("correct horse battery", DANA), null);
  // Longer than today's maximum (sign-in accepts up to 1024): not a reason to change it by itself.
  const old = "river candle orbit maple quartz velvet lantern pebble harbor tundra ".repeat(4);
  assert.ok(old.length > PASSWORD_MAX_CHARS);
  assert.equal(await fallsShortAtSignIn(old, DANA), null);
});
