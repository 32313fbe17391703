// A catalogue text with slots ("Allow {app} to use your account?") filled with parts of a page — a name in bold,
// the operator's brand, a URL — so each language puts them where its sentence needs them. The text comes from the
// catalogue, never from a person; the parts are nodes, so a name that looks like "{app}" stays a name.
//
// Export: `Fill({ text, ...slots })`.
import type { ComponentChildren } from "preact";

const SLOT = /(\{[a-z]+\})/;

export function Fill(props: { text: string; [slot: string]: ComponentChildren }) {
  const parts = props.text.split(SLOT).filter((p) => p !== "").map((part) => {
    const name = part.startsWith("{") && part.endsWith("}") ? part.slice(1, -1) : undefined;
    return name !== undefined && name !== "text" && name in props ? props[name] : part;
  });
  return <>{parts}</>;
}
