export { ReviewPanel } from "./ReviewPanel";
