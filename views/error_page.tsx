// A plain error page, for requests that cannot safely be sent back to the application.
import { Layout } from "./layout.tsx";

/** `code` is the OAuth error code, shown when the page stands in for an error redirect. */
export function ErrorPage({ title, message, code }: { title: string; message: string; code?: string }) {
  return (
    <Layout title={title}>
      <h1>{title}</h1>
      <p role="alert">{message}</p>
      {code && (
        <p>
          Error code: <code>{code}</code>
        </p>
      )}
    </Layout>
  );
}
