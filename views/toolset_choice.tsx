// The toolset and read-only choice of a form (/account/keys, consent): collapsed unless something is limited,
// every toolset checked by default, so the common path (no limit) needs no click. Read by limitsFromForm.
import { TOOLSET_LABELS, TOOLSETS } from "../lib/mcp/toolsets.ts";

export interface ToolsetChoiceProps {
  /** the summary line that opens the choice */
  summary: string;
  /** checked toolsets; null = every one */
  toolsets: readonly string[] | null;
  readOnly: boolean;
}

export function ToolsetChoice(props: ToolsetChoiceProps) {
  const limited = props.toolsets !== null || props.readOnly;
  return (
    <details class="limits" open={limited}>
      <summary>{props.summary}</summary>
      {/* Tells the server this form offered the choice, so no box checked is refused, not read as "all". */}
      <input type="hidden" name="toolset_choice" value="1" />
      <fieldset class="choices">
        <legend>Toolsets it may use</legend>
        {TOOLSETS.map((t) => (
          <label key={t}>
            <input
              type="checkbox"
              name="toolset"
              value={t}
              checked={props.toolsets === null || props.toolsets.includes(t)}
            />{" "}
            {TOOLSET_LABELS[t]}
          </label>
        ))}
      </fieldset>
      <label class="check">
        <input type="checkbox" name="read_only" value="1" checked={props.readOnly} />{" "}
        Read-only: it may look things up, but not create, change or delete anything
      </label>
    </details>
  );
}
