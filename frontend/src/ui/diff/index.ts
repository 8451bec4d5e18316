export { DiffView, type DiffViewProps, type DiffMode } from "./DiffView";
export { languageOf, loadLanguage } from "./languages";
export { withGitHeader } from "./model";
