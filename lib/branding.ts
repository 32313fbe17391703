// Operator branding (BRAND_NAME, BRAND_ACCENT, BRAND_LOGO): loaded once at start, served by Portico itself.
//
// Exports: `loadBranding(config)`, `brandingCss(accent)`, `faviconSvg(accent)`, `contrastRatio(a, b)`,
// `LOGO_PATH`, `BRAND_CSS_PATH`, `FAVICON_PATH`, `FAVICON_ICO_PATH`, `MAX_LOGO_BYTES`, `DEFAULT_ACCENT`,
// `DEFAULT_BRANDING`, type `Branding`.
//
// Why the logo is read at start and kept in memory: pages must never reference third-party content, a
// compiled binary or Deno Deploy has no source tree to read at request time, and a bad file should stop
// start-up with one clear line rather than show a broken image later.
import { createHash } from "node:crypto";
import { type Config, ConfigError } from "./config.ts";

/** Fixed paths; a `?v=` content hash in the pages' links lets these be cached for a year. */
export const LOGO_PATH = "/assets/logo";
export const BRAND_CSS_PATH = "/assets/brand.css";
export const FAVICON_PATH = "/assets/favicon.svg";
/** Where browsers look for an icon when a document links none (a JSON answer opened in a tab, Safari). */
export const FAVICON_ICO_PATH = "/favicon.ico";
export const MAX_LOGO_BYTES = 256 * 1024;
/** Portico's own accent (views/style.ts `--accent`, light scheme): the icon's colour without BRAND_ACCENT. */
export const DEFAULT_ACCENT = "#2557d6";

export interface Branding {
  name: string;
  /** the stylesheet that overrides the accent colour; null keeps Portico's own */
  css: { body: string; version: string } | null;
  logo: { body: Uint8Array; type: "image/png" | "image/svg+xml"; version: string } | null;
  /** the pages' icon, drawn in the accent colour */
  favicon: { body: string; version: string };
}

// The surfaces the accent is read on (views/style.ts): the page background, light and dark.
const LIGHT_SURFACE = "#f5f6f8";
const DARK_SURFACE = "#1f2327";
const DEFAULT_LINK = { light: "#2557d6", dark: "#7aa2ff" };
const TEXT_CONTRAST = 4.5; // WCAG 2.2 SC 1.4.3, normal text

function luminance(hex: string): number {
  const channel = (i: number) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG contrast ratio of two #rrggbb colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Black or white, whichever reads better on the accent (button text, the icon's drawing). */
function onAccent(accent: string): "#ffffff" | "#000000" {
  return contrastRatio(accent, "#ffffff") >= contrastRatio(accent, "#000000") ? "#ffffff" : "#000000";
}

/**
 * The accent override. Buttons take the accent as their background with black or white text, whichever reads
 * better; links and outlined buttons take it as text colour only where it keeps 4.5:1 on the page, otherwise
 * Portico's own link colour for that scheme — so an operator's pale or dark accent never fails WCAG contrast.
 */
export function brandingCss(accent: string): string {
  const fg = onAccent(accent);
  const link = (surface: string, fallback: string) =>
    contrastRatio(accent, surface) >= TEXT_CONTRAST ? accent : fallback;
  return `:root { --accent: ${accent}; --accent-fg: ${fg}; --link: ${
    link(LIGHT_SURFACE, DEFAULT_LINK.light)
  }; }
@media (prefers-color-scheme: dark) {
  :root { --accent: ${accent}; --accent-fg: ${fg}; --link: ${link(DARK_SURFACE, DEFAULT_LINK.dark)}; }
}
`;
}

/** The pages' icon: a portico (pediment, three columns, a step) on a rounded square of the accent colour. */
export function faviconSvg(accent: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
    `<rect width="32" height="32" rx="7" fill="${accent}"/>` +
    `<path fill="${
      onAccent(accent)
    }" d="M5 13 16 6l11 7zM8 15h3v9H8zm6.5 0h3v9h-3zM21 15h3v9h-3zM6 25h20v2H6z"/>` +
    `</svg>`;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function logoType(path: string, body: Uint8Array): "image/png" | "image/svg+xml" {
  if (path.toLowerCase().endsWith(".png")) {
    if (!PNG_SIGNATURE.every((b, i) => body[i] === b)) {
      throw new ConfigError(`config error: BRAND_LOGO ${path} is not a PNG file`);
    }
    return "image/png";
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw new ConfigError(`config error: BRAND_LOGO ${path} is not a UTF-8 SVG file`);
  }
  if (!/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE[^>]*>\s*)?<svg[\s>]/i.test(text)) {
    throw new ConfigError(`config error: BRAND_LOGO ${path} is not an SVG file (it must start with <svg)`);
  }
  return "image/svg+xml";
}

const version = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex").slice(0, 12);

function favicon(accent: string): Branding["favicon"] {
  const body = faviconSvg(accent);
  return { body, version: version(body) };
}

export const DEFAULT_BRANDING: Branding = {
  name: "Portico",
  css: null,
  logo: null,
  favicon: favicon(DEFAULT_ACCENT),
};

/** Reads BRAND_LOGO once (at most MAX_LOGO_BYTES) and prepares the accent stylesheet; ConfigError when unusable. */
export function loadBranding(config: Pick<Config, "brandName" | "brandAccent" | "brandLogo">): Branding {
  let logo: Branding["logo"] = null;
  if (config.brandLogo) {
    const path = config.brandLogo;
    let body: Uint8Array;
    try {
      const info = Deno.statSync(path);
      if (!info.isFile) throw new ConfigError(`config error: BRAND_LOGO ${path} is not a file`);
      if (info.size > MAX_LOGO_BYTES) {
        throw new ConfigError(`config error: BRAND_LOGO ${path} is larger than ${MAX_LOGO_BYTES / 1024} KiB`);
      }
      body = Deno.readFileSync(path);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      const why = err instanceof Deno.errors.NotFound
        ? "does not exist"
        : err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotCapable
        ? "cannot be read (check --allow-read)"
        : "cannot be read";
      throw new ConfigError(`config error: BRAND_LOGO ${path} ${why}`);
    }
    logo = { body, type: logoType(path, body), version: version(body) };
  }
  const css = config.brandAccent ? brandingCss(config.brandAccent) : null;
  return {
    name: config.brandName,
    css: css === null ? null : { body: css, version: version(css) },
    logo,
    favicon: favicon(config.brandAccent ?? DEFAULT_ACCENT),
  };
}
