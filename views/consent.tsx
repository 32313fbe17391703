// The consent page: who is asking (name, redirect host, self-registered or not), what each scope means, Allow/Deny.
import { Layout } from "./layout.tsx";

export interface ConsentProps {
  csrf: string;
  ticket: string;
  clientName: string;
  clientUri: string | null;
  redirectHost: string;
  selfRegistered: boolean;
  account: { email: string; name: string };
  scopes: Array<{ scope: string; text: string }>;
}

export function ConsentPage(props: ConsentProps) {
  return (
    <Layout title={`Allow ${props.clientName}?`}>
      <h1>
        Allow <strong>{props.clientName}</strong> to use your account?
      </h1>
      <p class="muted">
        Signed in as{" "}
        {props.account.name ? `${props.account.name} (${props.account.email})` : props.account.email}
      </p>
      <p>
        {props.clientName} will be sent back to <strong>{props.redirectHost}</strong>. {props.selfRegistered
          ? "This application registered itself; Portico has not reviewed it. Only allow it if you trust it."
          : "This application was registered by the operator of this service."}
        {props.clientUri && (
          <>
            {" "}Its website: <code>{props.clientUri}</code>
          </>
        )}
      </p>
      <h2>It will be able to:</h2>
      <ul class="scopes">
        {props.scopes.map((s) => <li key={s.scope} data-scope={s.scope}>{s.text}</li>)}
      </ul>
      <p class="muted">You can disconnect it at any time under Connected apps.</p>
      <form method="post" action="/oauth/authorize/consent">
        <input type="hidden" name="csrf" value={props.csrf} />
        <input type="hidden" name="ticket" value={props.ticket} />
        <div class="actions">
          <button type="submit" name="decision" value="allow">Allow</button>
          <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
        </div>
      </form>
    </Layout>
  );
}
