// The toolset and read-only choice of a form (/account/keys, consent): collapsed unless something is limited,
// every toolset checked by default, so the common path (no limit) needs no click. Read by limitsFromForm.
//
// Exports: `ToolsetChoice(props)`; `limitsText(t, limits)`, a key's or an app's limits in the page's words.
import { type Messages, type Text, textOf } from "../lib/i18n/mod.ts";
import { isToolset, TOOLSETS } from "../lib/mcp/toolsets.ts";
import { useI18n } from "./page_context.ts";

export interface ToolsetChoiceProps {
  /** the summary line that opens the choice */
  summary: Text;
  /** checked toolsets; null = every one */
  toolsets: readonly string[] | null;
  readOnly: boolean;
}

/** A credential's limits in words, for pages: "every toolset", "only Tasks, Time tracking; read-only". */
export function limitsText(
  t: Messages,
  limits: { toolsets: readonly string[] | null; readOnly: boolean },
): string {
  const words = t.account.toolsets;
  const sets = limits.toolsets === null
    ? words.every
    : words.only(limits.toolsets.map((s) => isToolset(s) ? words.labels[s] : s).join(", "));
  return limits.readOnly ? words.readOnlySuffix(sets) : sets;
}

export function ToolsetChoice(props: ToolsetChoiceProps) {
  const { t } = useI18n();
  const words = t.account.toolsets;
  const limited = props.toolsets !== null || props.readOnly;
  return (
    <details class="limits" open={limited}>
      <summary>{textOf(t, props.summary)}</summary>
      {/* Tells the server this form offered the choice, so no box checked is refused, not read as "all". */}
      <input type="hidden" name="toolset_choice" value="1" />
      <fieldset class="choices">
        <legend>{words.legend}</legend>
        {TOOLSETS.map((s) => (
          <label key={s}>
            <input
              type="checkbox"
              name="toolset"
              value={s}
              checked={props.toolsets === null || props.toolsets.includes(s)}
            />{" "}
            {words.labels[s]}
          </label>
        ))}
      </fieldset>
      <label class="check">
        <input type="checkbox" name="read_only" value="1" checked={props.readOnly} /> {words.readOnly}
      </label>
    </details>
  );
}
