export { BackgroundPanel } from "./BackgroundPanel";
