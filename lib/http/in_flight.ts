// How many HTTP requests this process is working on: a load signal for work that can run beside the event loop
// (lib/oauth/signer.ts hands its RSA operation to a thread when another request is waiting for this one).
// Counted by requestContext (lib/http/middleware.ts), the first middleware of the app, from before its handler
// runs until the handler has returned its answer (a streamed body is not counted while it streams). Process-wide:
// the event loop it describes is the process's one.
let inFlight = 0;

export function requestsInFlight(): number {
  return inFlight;
}

/** A request has reached the app; call `requestAnswered` once for it, in a `finally`. */
export function requestStarted(): void {
  inFlight++;
}

export function requestAnswered(): void {
  inFlight--;
}
