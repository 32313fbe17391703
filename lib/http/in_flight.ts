// How many HTTP requests this process is working on: a load signal for work that can run beside the event loop
// (lib/oauth/signer.ts hands its RSA operation to a thread when another request is waiting for this one).
// Counted by requestContext (lib/http/middleware.ts), the first middleware of the app. Process-wide: the event
// loop it describes is the process's one.
let inFlight = 0;

export function requestsInFlight(): number {
  return inFlight;
}

/** Counts one request as started; the returned function counts it as answered (call it once). */
export function requestStarted(): () => void {
  inFlight++;
  let done = false;
  return () => {
    if (!done) {
      done = true;
      inFlight--;
    }
  };
}
