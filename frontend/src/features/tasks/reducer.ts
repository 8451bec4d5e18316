// The session's task list, which the model keeps with todo_write: each
// todo.updated event holds the whole list and replaces the one before, so
// the list is the latest such event's, in seq order.
import type { Event, Todo } from "../../backend/gen/event";
import { inSeqOrder, initialSeq, typed, type Sequenced } from "../seq";

export interface TasksState extends Sequenced {
  /** The list, in the model's order; empty before any todo.updated or after one that cleared it. */
  todos: readonly Todo[];
  /** The seq of the todo.updated the list is from; 0 when none came. */
  updatedAt: number;
}

export const initialTasks: TasksState = { ...initialSeq, todos: [], updatedAt: 0 };

/** applyTasks applies one event, in seq order (see inSeqOrder). */
export function applyTasks(state: TasksState, ev: Event): TasksState {
  return inSeqOrder(state, ev, apply);
}

function apply(s: TasksState, raw: Event): TasksState {
  const ev = typed(raw);
  if (ev === null || ev.type !== "todo.updated") return s;
  const todos = ev.data.todos;
  if (!Array.isArray(todos)) return s;
  const valid = todos.filter(
    (t): t is Todo => typeof t === "object" && t !== null && typeof t.content === "string" && typeof t.status === "string",
  );
  return { ...s, todos: valid, updatedAt: ev.seq };
}
