// Outgoing mail: SMTP through nodemailer (SMTP_URL), or, without SMTP_URL, a dev mailbox (embedded database:
// `deno task dev`) or nothing but a log line (production without mail). Sending never holds up a page: `post`
// starts the send in the background and bounds it; failures are logged without the message or the address.
import nodemailer from "nodemailer";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";

/** One plain-text mail. Its body may carry a credential (a reset link): it is never logged. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** what it does with mail, for the start-up log and the dev mailbox route: smtp, dev mailbox or none */
  readonly kind: "smtp" | "dev" | "none";
  /** Sends in the background: returns at once; the outcome is logged (ids only). */
  post(mail: Mail, fields?: Record<string, string>): void;
  /** Resolves when every send started so far has ended (tests, shutdown). */
  idle(): Promise<void>;
  /** the dev mailbox's messages, newest first (kind "dev" only; empty otherwise) */
  inbox(): readonly DevMail[];
}

export interface DevMail extends Mail {
  at: Date;
}

/** A send that takes longer than this is given up (connection, greeting and each socket wait). */
export const SMTP_TIMEOUT_MS = 10_000;
/** The dev mailbox keeps this many messages (in memory, per process). */
export const DEV_MAILBOX_MAX = 50;

/** The mailer the configuration asks for: SMTP_URL, else the dev mailbox with the embedded database, else none. */
export function createMailer(config: Config, log: Logger): Mailer {
  if (config.smtpUrl) return createSmtpMailer(config.smtpUrl, config.mailFrom, log);
  return config.databaseUrl ? createNoMailer(log) : createDevMailbox(config.issuer, log);
}

function tracker() {
  const pending = new Set<Promise<void>>();
  return {
    track(p: Promise<void>) {
      pending.add(p);
      p.finally(() => pending.delete(p));
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

interface Transport {
  sendMail(message: Record<string, unknown>): Promise<unknown>;
}

export function createSmtpMailer(url: string, from: string, log: Logger): Mailer {
  // nodemailer reads smtp:// (STARTTLS when offered) and smtps:// (implicit TLS) URLs with their credentials.
  const transport = (nodemailer as unknown as { createTransport(o: unknown): Transport }).createTransport({
    url,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  const t = tracker();
  return {
    kind: "smtp",
    post(mail, fields = {}) {
      t.track(
        transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text }).then(
          () => log.info("mail sent", fields),
          // The error's message names the server's answer, never the body or credentials; keep only its code.
          (err: unknown) => log.warn("mail not sent", { ...fields, error: errorCode(err) }),
        ),
      );
    },
    idle: t.idle,
    inbox: () => [],
  };
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; responseCode?: unknown };
  return [e?.code, e?.responseCode].filter((x) => typeof x === "string" || typeof x === "number").join(" ") ||
    "unknown";
}

/** No SMTP_URL with DATABASE_URL: production without mail. Logs that a mail was not sent, never its body. */
export function createNoMailer(log: Logger): Mailer {
  return {
    kind: "none",
    post(_mail, fields = {}) {
      log.warn("mail not sent: SMTP_URL is not set", fields);
    },
    idle: () => Promise.resolve(),
    inbox: () => [],
  };
}

/**
 * No SMTP_URL with the embedded database (`deno task dev` on a laptop): messages are kept in memory and shown at
 * /dev/mailbox, so a reset link can be followed; the log says where (not the link itself).
 */
export function createDevMailbox(issuer: string, log: Logger): Mailer {
  const box: DevMail[] = [];
  return {
    kind: "dev",
    post(mail, fields = {}) {
      box.unshift({ ...mail, at: new Date() });
      box.length = Math.min(box.length, DEV_MAILBOX_MAX);
      log.info("mail kept in the dev mailbox (no SMTP_URL)", { ...fields, open: `${issuer}/dev/mailbox` });
    },
    idle: () => Promise.resolve(),
    inbox: () => box,
  };
}
