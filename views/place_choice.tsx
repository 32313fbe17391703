// The workspace (and company) radio buttons of the consent and approval pages.
import { roleName } from "./account_text.tsx";
import { useI18n } from "./page_context.ts";

export interface PlaceChoice {
  value: string;
  workspaceName: string;
  companyName: string | null;
  role: string;
}

/** One radio button per place; `checked` is the value to check (the first when absent). */
export function PlaceFieldset(props: { places: PlaceChoice[]; checked: string | undefined; legend: string }) {
  const { t } = useI18n();
  const checked = props.places.some((p) => p.value === props.checked)
    ? props.checked
    : props.places[0]?.value;
  return (
    <fieldset class="places">
      <legend>{props.legend}</legend>
      {props.places.map((p) => (
        <label key={p.value}>
          <input type="radio" name="place" value={p.value} checked={p.value === checked} required />{" "}
          {p.companyName === null
            ? t.flow.places.allCompanies(p.workspaceName, roleName(t, p.role))
            : t.flow.places.oneCompany(p.workspaceName, p.companyName)}
        </label>
      ))}
    </fieldset>
  );
}
