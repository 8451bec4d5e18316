export { DiffView, type DiffViewProps, type DiffMode } from "./DiffView";
export { languageOf, loadLanguage } from "./languages";
export { hunkRange, withGitHeader } from "./model";
