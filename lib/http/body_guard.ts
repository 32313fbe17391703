// A request body that fails in the client's terms: a sender that stops mid-body (ClientAbortError, logged at info
// as 499, never a 500) or one too slow to finish within HTTP_REQUEST_TIMEOUT_MS (BodyTimeoutError, 408).

/** The client closed the connection before its body arrived; nobody is left to answer. */
export class ClientAbortError extends Error {
  override name = "ClientAbortError";
}

/** The body did not arrive in full within the request timeout. */
export class BodyTimeoutError extends Error {
  override name = "BodyTimeoutError";
}

/** nginx's code for "client closed request": the access log says what happened; nobody reads the answer. */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * True for a body read that failed because the client went away. Deno.serve reports it as BadResource ("Cannot
 * read body as underlying resource unavailable") or an Http error, with no other marker.
 */
export function isClientAbort(err: unknown): boolean {
  if (err instanceof ClientAbortError) return true;
  return (err instanceof Deno.errors.BadResource || err instanceof Deno.errors.Http ||
    err instanceof Deno.errors.ConnectionReset) && /body|message completed|connection/i.test(err.message);
}

/**
 * `req` with its body bounded in time: when the whole body has not arrived `timeoutMs` after the request began,
 * reading it fails with BodyTimeoutError (and the upload is dropped). A client that vanishes mid-body fails the
 * read with ClientAbortError. Requests without a body pass through untouched.
 */
export function guardBody(req: Request, timeoutMs: number): Request {
  const source = req.body;
  if (!source || timeoutMs <= 0) return req;
  const reader = source.getReader();
  const deadline = performance.now() + timeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const left = deadline - performance.now();
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new BodyTimeoutError(`the request body did not arrive within ${timeoutMs} ms`)),
          Math.max(0, left),
        );
      });
      try {
        const { done, value } = await Promise.race([reader.read(), late]);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        reader.cancel().catch(() => {});
        controller.error(
          err instanceof BodyTimeoutError || !isClientAbort(err)
            ? err
            : new ClientAbortError("the client closed the connection during the request body"),
        );
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
  // Built from its parts, not `new Request(req, …)`: copying the request would read its `signal`, which makes
  // Deno.serve print a deprecation warning on every server's first upload (and nothing here uses the signal).
  return new Request(
    req.url,
    { method: req.method, headers: req.headers, body, duplex: "half" } as RequestInit,
  );
}
