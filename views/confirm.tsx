// A confirmation page for an action that cannot be undone (disconnecting an app, revoking a key): a plain GET
// page whose form POSTs with CSRF, so the second step works without JavaScript.
import type { ComponentChildren } from "preact";
import { Layout } from "./layout.tsx";

export interface ConfirmPageProps {
  title: string;
  csrf: string;
  /** where the confirming form posts */
  action: string;
  hidden: Record<string, string>;
  /** the confirming button's text, e.g. "Disconnect Claude" */
  confirmLabel: string;
  cancelHref: string;
  children: ComponentChildren;
}

export function ConfirmPage(props: ConfirmPageProps) {
  return (
    <Layout title={props.title}>
      <h1>{props.title}</h1>
      {props.children}
      <form method="post" action={props.action}>
        <input type="hidden" name="csrf" value={props.csrf} />
        {Object.entries(props.hidden).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <div class="actions">
          <button type="submit" class="danger">{props.confirmLabel}</button>
          <a class="button secondary" href={props.cancelHref}>Cancel</a>
        </div>
      </form>
    </Layout>
  );
}
