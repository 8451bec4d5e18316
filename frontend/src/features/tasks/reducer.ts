// The session's task list, which the model keeps with todo_write: each
// todo.updated event holds the whole list and replaces the one before, so
// the list is the latest such event's, in seq order.
import type { Event, Todo } from "../../backend/gen/event";
import { typed } from "../seq";

export interface TasksState {
  /** The list, in the model's order; empty before any todo.updated or after one that cleared it. */
  todos: readonly Todo[];
  /** The seq of the todo.updated the list is from; 0 when none came. */
  updatedAt: number;
}

export const initialTasks: TasksState = { todos: [], updatedAt: 0 };

/**
 * applyTasks applies one event of the session, in seq order: the session store
 * orders them (../seq.ts), each seq once.
 */
export function applyTasks(s: TasksState, raw: Event): TasksState {
  const ev = typed(raw);
  if (ev === null || ev.type !== "todo.updated") return s;
  const todos = ev.data.todos;
  if (!Array.isArray(todos)) return s;
  const valid = todos.filter(
    (t): t is Todo => typeof t === "object" && t !== null && typeof t.content === "string" && typeof t.status === "string",
  );
  return { ...s, todos: valid, updatedAt: ev.seq };
}
