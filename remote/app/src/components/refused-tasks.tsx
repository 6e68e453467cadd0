/**
 * Tasks a host refused after this device kept them with their files (sent while the host
 * was not connected, or resumed after a reload): which task, on which host, which file and
 * the host's words, with the text kept so nothing typed is lost. "Edit as a new task" takes
 * the text into New task, "Edit the follow-up" into its conversation's composer; Dismiss
 * forgets it.
 */
import { useEffect, useState } from 'preact/hooks';
import { useAppView, useModel } from '../state/app-context.js';
import type { Run } from '#protocol';
import { navigate } from '../state/route-hook.js';
import type { Route } from '../logic/route.js';
import { dropRefused, type RefusedTask, refusedTasks } from '../state/upload-jobs.js';

/** `count`: how many the model knows of; the list is read again when it changes. */
export function RefusedTasks({ count }: { count: number }) {
  const model = useModel();
  const view = useAppView();
  const [tasks, setTasks] = useState<readonly RefusedTask[]>([]);
  useEffect(() => {
    let current = true;
    void refusedTasks().then((read) => current && setTasks(read));
    return () => {
      current = false;
    };
  }, [count]);
  return (
    <>
      {tasks.map((task) => {
        const host = view.hosts.find((candidate) => candidate.hostId === task.hostId);
        const what = task.sessionId === undefined ? 'task' : 'follow-up';
        return (
          <section
            key={task.commandId}
            class="notice host-warning"
            data-testid="task-refused"
            data-command-id={task.commandId}
            role="alert"
          >
            <p>
              {host?.label ?? 'The host'} refused this {what}
              {task.file === null ? '' : ` and its file ${task.file}`}: nothing of it was started.
            </p>
            <p data-testid="task-refused-reason">{task.message}</p>
            <blockquote class="refused-text" data-testid="task-refused-text">
              {task.text}
            </blockquote>
            <p class="muted small">
              {task.file === null
                ? 'Your words are kept here: edit the task and send it again.'
                : `Your words are kept here: send the task again without ${task.file}, or with a smaller or other file.`}
            </p>
            <div class="actions">
              <button
                type="button"
                class="button primary"
                data-testid="task-refused-edit"
                onClick={() =>
                  void dropRefused(task, model, { edit: true }).then(() =>
                    navigate(editRoute(task, host?.state.runs)),
                  )
                }
              >
                {task.sessionId === undefined ? 'Edit as a new task' : 'Edit the follow-up'}
              </button>
              <button
                type="button"
                class="button"
                data-testid="task-refused-dismiss"
                onClick={() => void dropRefused(task, model)}
              >
                Dismiss
              </button>
            </div>
          </section>
        );
      })}
    </>
  );
}

/**
 * Where a refused task is edited: New task, or the newest run of the follow-up's
 * conversation this device knows (its composer takes the text); the runs list when it
 * knows none yet (the text waits for that conversation's composer).
 */
function editRoute(task: RefusedTask, runs: Readonly<Record<string, Run>> | undefined): Route {
  if (task.sessionId === undefined) return { screen: 'submit' };
  const newest = Object.values(runs ?? {})
    .filter((run) => run.sessionId === task.sessionId)
    .sort((a, b) => b.createdAt - a.createdAt)[0];
  return newest === undefined
    ? { screen: 'runs' }
    : { screen: 'run', hostId: task.hostId, runId: newest.id };
}
