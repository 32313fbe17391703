// The site's only stylesheet, embedded as a string so `deno compile` needs no files; served at /assets/style.css.
export const STYLESHEET_PATH = "/assets/style.css";

export const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1d2125; --muted: #5b636b; --bg: #f5f6f8; --card: #fff;
  --line: #d6dade; --accent: #2557d6; --accent-fg: #fff; --link: #2557d6; --danger: #b3261e; --ok: #1e7a3c; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e7e9ec; --muted: #a3abb3; --bg: #15181b; --card: #1f2327; --line: #3a4047;
    --accent: #7aa2ff; --accent-fg: #0d1117; --link: #7aa2ff; --danger: #ff8a80; --ok: #7bd88f; }
}
* { box-sizing: border-box; }
/* button's display below would otherwise show elements the markup hides (copy buttons without JS). */
[hidden] { display: none !important; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
body { margin: 0; background: var(--bg); color: var(--fg); }
main { max-width: 32rem; margin: 2rem auto; padding: 0 1rem; }
main.wide { max-width: 48rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 12px; padding: 1.5rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
p, ul { margin: 0 0 1rem; }
a { color: var(--link); }
.muted { color: var(--muted); font-size: .9rem; }
.brand { display: flex; align-items: center; gap: .5rem; font-weight: 600; margin-bottom: 1rem; color: var(--muted); }
.brand img { height: 2rem; width: auto; max-width: 10rem; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input:not([type]), input[type=email], input[type=password], input[type=text], input[type=url], input[type=date], select,
textarea { width: 100%; padding: .6rem .7rem;
  font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 8px; }
select { appearance: none; padding-right: 2.2rem; cursor: pointer;
  background-image: url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='12' height='8'%3E%3Cpath d='M1 1l5 5 5-5' fill='none' stroke='%235b636b' stroke-width='2'/%3E%3C/svg%3E");
  background-repeat: no-repeat; background-position: right .8rem center; }
input:focus-visible, button:focus-visible, a:focus-visible, select:focus-visible, summary:focus-visible,
textarea:focus-visible {
  outline: 3px solid var(--link); outline-offset: 2px; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: .6rem 1.1rem;
  border-radius: 8px; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg);
  cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: transparent; color: var(--link); }
button.link { background: none; border: none; padding: 0; color: var(--link); font-weight: 400;
  text-decoration: underline; }
button.danger { border-color: var(--danger); background: transparent; color: var(--danger); }
.actions { display: flex; gap: .75rem; flex-wrap: wrap; margin-top: 1.25rem; }
.error { border: 1px solid var(--danger); color: var(--danger); border-radius: 8px; padding: .6rem .8rem; }
.notice { border: 1px solid var(--ok); color: var(--ok); border-radius: 8px; padding: .6rem .8rem; }
ul.accounts, ul.scopes, ul.apps { list-style: none; padding: 0; }
ul.accounts li { margin: 0 0 .5rem; }
ul.accounts button { width: 100%; text-align: left; background: var(--bg); color: var(--fg);
  border: 1px solid var(--line); font-weight: 400; }
ul.accounts .name { display: block; font-weight: 600; }
ul.scopes li { padding: .5rem 0; border-bottom: 1px solid var(--line); }
ul.apps li { padding: .75rem 0; border-bottom: 1px solid var(--line); }
fieldset.places, fieldset.choices { border: 1px solid var(--line); border-radius: 8px; padding: .5rem .9rem;
  margin: 0 0 1rem; }
fieldset.places legend, fieldset.choices legend { font-weight: 600; padding: 0 .25rem; }
fieldset.places label, fieldset.choices label, label.check { font-weight: 400; margin: .35rem 0; }
details.limits { margin: .75rem 0 1rem; }
code { font-size: .9em; word-break: break-all; }
/* A URL shown as text (views/consent.tsx UrlText): scheme://host stays on one line when it fits one — an
   inline block moves to the next line whole — and never breaks inside the scheme; the path may break anywhere. */
code.url { word-break: normal; overflow-wrap: anywhere; }
code.url .url-origin { display: inline-block; max-width: 100%; }
code.url .url-scheme { white-space: nowrap; }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: .6rem .7rem;
  overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: 0 0 .75rem; }
pre code { font-size: .85rem; }
.secret { display: block; user-select: all; padding: .6rem .7rem; background: var(--bg);
  border: 1px solid var(--line); border-radius: 8px; }
details { margin: 0 0 .5rem; }
summary { cursor: pointer; font-weight: 600; padding: .25rem 0; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem .75rem; margin: .25rem 0 .75rem;
  font-size: .9rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.badge { display: inline-block; font-size: .8rem; font-weight: 600; padding: 0 .4rem; border-radius: 6px;
  border: 1px solid var(--line); color: var(--muted); vertical-align: middle; }
.whoami { display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem .75rem; }
.whoami form { display: inline; }
/* Consent: Allow and Deny stay at the bottom of the screen while the form scrolls past, so a phone shows
   them without scrolling however long the scope or workspace list is. */
.sticky-actions { position: sticky; bottom: 0; background: var(--card); margin: 1rem -1.5rem -1.5rem;
  padding: .75rem 1.5rem 1rem; border-top: 1px solid var(--line); border-radius: 0 0 12px 12px; }
.sticky-actions .actions { margin-top: 0; }
.sticky-actions button { flex: 1 1 8rem; }
dl.uris dd { margin: 0 0 .25rem; }
@media (max-width: 40rem) {
  main { margin: .75rem auto; padding: 0 .5rem; }
  .card { padding: 1rem; }
  .sticky-actions { margin: 1rem -1rem -1rem; padding: .75rem 1rem 1rem; }
}
.operator-nav, .account-nav { display: flex; gap: .25rem 1rem; flex-wrap: wrap; margin: 0 0 1rem;
  font-size: .95rem; }
.operator-nav a[aria-current=page], .account-nav a[aria-current=page] { color: var(--fg); font-weight: 600;
  text-decoration: none; }
ul.events { list-style: none; padding: 0; font-size: .9rem; }
ul.events li { padding: .4rem 0; border-bottom: 1px solid var(--line); }
ul.summary { list-style: none; padding: 0; }
ul.summary li { padding: .35rem 0; border-bottom: 1px solid var(--line); }
.qr { width: 13rem; max-width: 100%; margin: 0 0 1rem; }
.qr svg { display: block; width: 100%; height: auto; border-radius: 8px; }
code.key { word-break: normal; }
ol.codes { columns: 2; padding-left: 1.5rem; color: var(--fg); }
ol.codes code { font-size: 1rem; word-break: normal; }
.dates { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: 0 1rem; }
footer { margin: 1rem 0; font-size: .85rem; color: var(--muted); display: flex; gap: 1rem; flex-wrap: wrap; }
`;
