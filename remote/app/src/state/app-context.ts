/**
 * The model and its view, handed to every component through Preact context.
 */
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import type { AppModel } from './app-model.js';
import type { AppView, HostView } from './app-view.js';

export const ModelContext = createContext<AppModel | undefined>(undefined);

/** The app's model; throws outside the app root (a wiring mistake). */
export function useModel(): AppModel {
  const model = useContext(ModelContext);
  if (model === undefined) throw new Error('useModel outside ModelContext');
  return model;
}

/** The current view, re-rendering on each change. */
export function useAppView(): AppView {
  const model = useModel();
  const [view, setView] = useState(model.view);
  useEffect(() => {
    setView(model.view);
    return model.subscribe(setView);
  }, [model]);
  return view;
}

/** One host of the view, by id. */
export function hostOf(view: AppView, hostId: string): HostView | undefined {
  return view.hosts.find((host) => host.hostId === hostId);
}

/** A clock that ticks every `ms`, for "5 min ago" texts. */
export function useNow(ms = 30_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
