// The toolset and read-only choice of a form (/account/keys, consent): collapsed unless something is limited,
// every toolset checked by default, so the common path (no limit) needs no click. Read by limitsFromForm.
// Each toolset is named in the page's language (the catalogue's flow.toolsets.names, keyed like TOOLSETS).
import { TOOLSETS } from "../lib/mcp/toolsets.ts";
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { useI18n } from "./page_context.ts";

export interface ToolsetChoiceProps {
  /** the summary line that opens the choice */
  summary: Text;
  /** checked toolsets; null = every one */
  toolsets: readonly string[] | null;
  readOnly: boolean;
}

export function ToolsetChoice(props: ToolsetChoiceProps) {
  const { t } = useI18n();
  const limited = props.toolsets !== null || props.readOnly;
  return (
    <details class="limits" open={limited}>
      <summary>{textOf(t, props.summary)}</summary>
      {/* Tells the server this form offered the choice, so no box checked is refused, not read as "all". */}
      <input type="hidden" name="toolset_choice" value="1" />
      <fieldset class="choices">
        <legend>{t.flow.toolsets.legend}</legend>
        {TOOLSETS.map((name) => (
          <label key={name}>
            <input
              type="checkbox"
              name="toolset"
              value={name}
              checked={props.toolsets === null || props.toolsets.includes(name)}
            />{" "}
            {t.flow.toolsets.names[name]}
          </label>
        ))}
      </fieldset>
      <label class="check">
        <input type="checkbox" name="read_only" value="1" checked={props.readOnly} />{" "}
        {t.flow.toolsets.readOnly}
      </label>
    </details>
  );
}
