export { Elicitations } from "./Elicitations";
export { ElicitForm } from "./ElicitForm";
