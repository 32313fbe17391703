// What every page knows without being told by its route: the operator's branding and the request id.
//
// lib/http/render.ts provides it from the request; Layout and ErrorPage read it with useContext.
import { createContext } from "preact";
import { type Branding, DEFAULT_BRANDING } from "../lib/branding.ts";

export interface PageContextValue {
  branding: Branding;
  requestId: string | undefined;
}

export const PageContext = createContext<PageContextValue>({
  branding: DEFAULT_BRANDING,
  requestId: undefined,
});
