import { Circle, CircleCheck, CircleDot } from "lucide-react";
import type { Todo, TodoStatus } from "../../backend/gen/event";
import { useTasks } from "../session/hooks";
import "./tasks.css";

const statusLabel: Record<TodoStatus, string> = {
  pending: "Pending",
  in_progress: "In progress",
  completed: "Completed",
};

/** statusText names a task's status for people; an unknown one (a newer backend's) is shown as sent. */
export function statusText(s: string): string {
  return (statusLabel as Record<string, string>)[s] ?? s;
}

function StatusIcon(props: { status: string }) {
  switch (props.status) {
    case "completed":
      return <CircleCheck aria-hidden size={16} className="task-icon task-completed" />;
    case "in_progress":
      return <CircleDot aria-hidden size={16} className="task-icon task-in-progress" />;
  }
  return <Circle aria-hidden size={16} className="task-icon task-pending" />;
}

/**
 * TaskList shows the session's task list, which the agent keeps with its
 * todo_write tool: each task with its status as an icon and in words (the
 * item's accessible name says both), in the agent's order.
 */
export function TaskList() {
  const todos = useTasks();
  return (
    <section className="task-section" aria-labelledby="tasks-h">
      <h3 id="tasks-h">Tasks</h3>
      {todos.length === 0 ? (
        <p className="muted">No task list. The agent writes one with todo_write when its work has several steps.</p>
      ) : (
        <>
          <p className="muted" role="status">
            {summary(todos)}
          </p>
          <ol className="task-list" aria-label="Tasks of this session">
            {todos.map((t, i) => (
              <li key={i} className={`task task-${t.status}`} aria-label={`${t.content}: ${statusText(t.status)}`} aria-current={t.status === "in_progress" ? "step" : undefined}>
                <StatusIcon status={t.status} />
                <span className="task-content">{t.content}</span>
                <span className="task-status">{statusText(t.status)}</span>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function summary(todos: readonly Todo[]): string {
  const done = todos.filter((t) => t.status === "completed").length;
  return `${done} of ${todos.length} completed`;
}
