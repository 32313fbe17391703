// A catalogue text with slots ("Allow {app} to use your account?") filled with parts of a page — a name in bold,
// the operator's brand, a URL — so each language puts them where its sentence needs them. The text comes from the
// catalogue, never from a person; the parts are nodes, so a name that looks like "{app}" stays a name.
//
// Exports: `Fill({ text, ...slots })`; `fill(text, slots)`, the same as an array of children.
import type { ComponentChildren } from "preact";

const SLOT = /(\{\w+\})/;

/** The text's pieces with each `{slot}` it has a value for replaced by that value (others stay as written). */
export function fill(text: string, slots: Record<string, ComponentChildren>): ComponentChildren[] {
  return text.split(SLOT).filter((p) => p !== "").map((part) => {
    const name = part.startsWith("{") && part.endsWith("}") ? part.slice(1, -1) : undefined;
    return name !== undefined && Object.hasOwn(slots, name) ? slots[name] : part;
  });
}

export function Fill(props: { text: string; [slot: string]: ComponentChildren }) {
  const { text, ...slots } = props;
  return <>{fill(text, slots)}</>;
}
