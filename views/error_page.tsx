// A plain error page, for requests that cannot safely be sent back to the application.
import { Layout } from "./layout.tsx";

export function ErrorPage({ title, message }: { title: string; message: string }) {
  return (
    <Layout title={title}>
      <h1>{title}</h1>
      <p role="alert">{message}</p>
    </Layout>
  );
}
