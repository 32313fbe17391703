// A confirmation page for an action that cannot be undone (disconnecting an app, revoking a key): a plain GET
// page whose form POSTs with CSRF, so the second step works without JavaScript.
//
// `ConfirmPage(props)` may be called as a function (the pages built on it do) or rendered: its words are read in
// `ConfirmFrame`, a component of its own, so the page's language is known wherever it is called from.
import type { ComponentChildren } from "preact";
import { type Text, textOf } from "../lib/i18n/mod.ts";
import { Layout } from "./layout.tsx";
import { useI18n } from "./page_context.ts";

export interface ConfirmPageProps {
  /** a catalogue text (`(t) => t.account.apps.confirmTitle(name)`) or a plain string */
  title: Text;
  csrf: string;
  /** where the confirming form posts */
  action: string;
  hidden: Record<string, string>;
  /** the confirming button's text, e.g. "Disconnect Claude" */
  confirmLabel: Text;
  cancelHref: string;
  children: ComponentChildren;
}

function ConfirmFrame(props: ConfirmPageProps) {
  const { t } = useI18n();
  const title = textOf(t, props.title);
  return (
    <Layout title={title}>
      <h1>{title}</h1>
      {props.children}
      <form method="post" action={props.action}>
        <input type="hidden" name="csrf" value={props.csrf} />
        {Object.entries(props.hidden).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <div class="actions">
          <button type="submit" class="danger">{textOf(t, props.confirmLabel)}</button>
          <a class="button secondary" href={props.cancelHref}>{t.account.confirm.cancel}</a>
        </div>
      </form>
    </Layout>
  );
}

export function ConfirmPage(props: ConfirmPageProps) {
  return <ConfirmFrame {...props} />;
}
