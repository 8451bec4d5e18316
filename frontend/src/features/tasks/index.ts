export { TaskList } from "./TaskList";
