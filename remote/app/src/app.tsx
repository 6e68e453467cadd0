/**
 * The app's frame: the connection banner, the hosts' warnings, the screen the hash names,
 * the tab bar. The pair screen takes over when no host is paired, when this device was
 * revoked, or while a pairing is in progress. On a wide window (an iPad or a laptop) the
 * runs list stays on the left and the screen the hash names opens beside it.
 */
import { useEffect, useState } from 'preact/hooks';
import { ConnectionBanner } from './components/connection-banner.js';
import { NavBar } from './components/nav-bar.js';
import { useWideLayout } from './device/use-wide-layout.js';
import { lazyScreen } from './screens/lazy-screen.js';
import { PairScreen } from './screens/pair-screen.js';
import { RunsScreen } from './screens/runs-screen.js';
import type { AppModel } from './state/app-model.js';
import { ModelContext, useAppView, useModel } from './state/app-context.js';
import { navigate, useRoute } from './state/route-hook.js';

// The first load pairs and lists runs; every other screen is its own chunk.
const RunScreen = lazyScreen(() => import('./screens/run-screen.js').then((m) => m.RunScreen));
const ChangesScreen = lazyScreen(() =>
  import('./screens/changes-screen.js').then((m) => m.ChangesScreen),
);
const SubmitScreen = lazyScreen(() =>
  import('./screens/submit-screen.js').then((m) => m.SubmitScreen),
);
const ApprovalsScreen = lazyScreen(() =>
  import('./screens/approvals-screen.js').then((m) => m.ApprovalsScreen),
);
// Shown only beside the runs list of a wide window.
const EmptyPane = lazyScreen(() => import('./components/empty-pane.js').then((m) => m.EmptyPane));
// Shown only while a host cannot save.
const PersistenceWarnings = lazyScreen(
  () => import('./components/persistence-warnings.js').then((m) => m.PersistenceWarnings),
  { part: true },
);
// Shown only while a host refused a task this device kept (state/upload-jobs.ts).
const RefusedTasks = lazyScreen(
  () => import('./components/refused-tasks.js').then((m) => m.RefusedTasks),
  { part: true },
);
// Shown only while a host's history went back in time (host.info.history.rewound).
const HistoryWarnings = lazyScreen(
  () => import('./components/history-warnings.js').then((m) => m.HistoryWarnings),
  { part: true },
);
const DevicesScreen = lazyScreen(() =>
  import('./screens/devices-screen.js').then((m) => m.DevicesScreen),
);
const RulesScreen = lazyScreen(() =>
  import('./screens/rules-screen.js').then((m) => m.RulesScreen),
);
const ToolsScreen = lazyScreen(() =>
  import('./screens/tools-screen.js').then((m) => m.ToolsScreen),
);

export interface AppProps {
  model: AppModel;
  /** The pairing link the app was opened with. */
  initialLink: string | undefined;
  /** Takes a pairing link from the location (after a `hashchange`), if there is one. */
  takePairLink: () => string | undefined;
}

export function App({ model, initialLink, takePairLink }: AppProps) {
  return (
    <ModelContext.Provider value={model}>
      <Shell initialLink={initialLink} takePairLink={takePairLink} />
    </ModelContext.Provider>
  );
}

function Shell({ initialLink, takePairLink }: Omit<AppProps, 'model'>) {
  const model = useModel();
  const view = useAppView();
  const route = useRoute();
  const [link, setLink] = useState(initialLink);
  const [pairing, setPairing] = useState(initialLink !== undefined);

  useEffect(() => {
    const opened = () => {
      const taken = takePairLink();
      if (taken === undefined) return;
      setPairing(true);
      setLink(taken);
    };
    window.addEventListener('hashchange', opened);
    return () => window.removeEventListener('hashchange', opened);
  }, [takePairLink]);

  if (!view.loaded && !pairing) {
    return (
      <div class="app">
        <main class="screen loading" aria-busy="true" />
      </div>
    );
  }

  const paired = view.hosts.length > 0;
  const showPair = pairing || !paired || route.screen === 'pair' || view.revokedFrom !== undefined;
  const done = () => {
    model.dismissRevoked();
    setPairing(false);
    setLink(undefined);
    navigate({ screen: 'runs' });
  };
  return (
    <div class="app">
      {paired && <ConnectionBanner />}
      {view.hosts.some((host) => host.health?.persistence === 'failed') && <PersistenceWarnings />}
      {view.hosts.some((host) => host.info?.history?.rewound !== undefined) && <HistoryWarnings />}
      {view.refusedTasks > 0 && <RefusedTasks count={view.refusedTasks} />}
      {showPair ? (
        <PairScreen
          link={link}
          onBusy={() => setPairing(true)}
          onDone={done}
          onCancel={paired && !pairing ? done : undefined}
        />
      ) : (
        <Screen route={route} />
      )}
      {paired && <NavBar route={route} />}
    </div>
  );
}

function Screen({ route }: { route: ReturnType<typeof useRoute> }) {
  const wide = useWideLayout();
  // A task sent from the form opens its run at once, maybe just as the host goes down:
  // the run screen's chunk is fetched while the form is filled in.
  useEffect(() => {
    if (route.screen === 'submit') RunScreen.preload();
  }, [route.screen]);
  if (!wide) return <RoutedScreen route={route} wide={false} />;
  return (
    <div class="panes" data-testid="two-panes">
      <RunsScreen
        pane
        openRunId={route.screen === 'run' || route.screen === 'changes' ? route.runId : undefined}
      />
      <RoutedScreen route={route} wide />
    </div>
  );
}

function RoutedScreen({ route, wide }: { route: ReturnType<typeof useRoute>; wide: boolean }) {
  switch (route.screen) {
    case 'runs':
    case 'pair':
      return wide ? <EmptyPane /> : <RunsScreen />;
    case 'run':
      return (
        <RunScreen
          key={`${route.hostId}/${route.runId}`}
          hostId={route.hostId}
          runId={route.runId}
        />
      );
    case 'changes':
      return (
        <ChangesScreen
          key={`${route.hostId}/${route.runId}/changes`}
          hostId={route.hostId}
          runId={route.runId}
        />
      );
    case 'submit':
      return <SubmitScreen />;
    case 'approvals':
      return <ApprovalsScreen />;
    case 'devices':
      return <DevicesScreen />;
    case 'rules':
      return <RulesScreen />;
    case 'tools':
      return <ToolsScreen />;
  }
}
