"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False while the server's HTML is shown, true once this component has hydrated. Forms mark
 * themselves with it (data-hydrated), so that the browser tests type only into live forms.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(subscribe, () => true, () => false);
}
