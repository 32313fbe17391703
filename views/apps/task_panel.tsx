// The plan view's side panel: get_task's answer (or its refusal) beside the lanes.
import { useEffect, useRef } from "preact/hooks";
import { Alert, arr, num, obj, str } from "./shared.tsx";

export function TaskPanel(
  { task, error, onClose }: {
    task: Record<string, unknown> | null;
    error: string | null;
    onClose: () => void;
  },
) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), [task, error]);
  const t = task ?? {};
  const id = str(t.id);
  const assignees = arr(t.assignees).map((a) => str(obj(a).name)).filter((n): n is string => !!n);
  const rows: Array<[string, string | null]> = [
    ["Status", str(t.status)?.replace("_", " ") ?? null],
    ["Priority", str(t.priority)],
    ["Project", str(t.projectName)],
    ["Start", str(t.startDate)],
    ["Due", str(t.dueDate)],
    ["Estimate", num(t.estimatedHours) !== null ? `${num(t.estimatedHours)} h` : null],
    ["Logged", num(t.actualHours) !== null ? `${num(t.actualHours)} h` : null],
    ["Assignees", assignees.length ? assignees.join(", ") : null],
    ["Subtasks", Array.isArray(t.subtasks) ? String(t.subtasks.length) : null],
    ["Comments", Array.isArray(t.comments) ? String(t.comments.length) : null],
  ];
  return (
    <aside aria-labelledby="task-panel-title" data-task-panel data-task-id={id ?? ""} tabIndex={-1} ref={ref}>
      <h2 id="task-panel-title">
        {task ? (str(t.displayId) ? `${str(t.displayId)} ` : "") + (str(t.title) ?? "") : "Task"}
      </h2>
      <Alert text={error} />
      {task && (
        <dl>
          {rows.filter(([, v]) => v).map((
            [k, v],
          ) => [<dt key={`t${k}`}>{k}</dt>, <dd key={`d${k}`}>{v}</dd>])}
        </dl>
      )}
      {task && str(t.description) ? <p class="desc">{str(t.description)}</p> : null}
      <button type="button" class="secondary" onClick={onClose} data-close-panel>Close</button>
    </aside>
  );
}
