// The app shell: layout, header, keyboard, theme, and the slots where the
// areas' views are mounted.
export { Shell, type Panel } from "./Shell";
export { useTheme, setTheme, startTheme, themes, themeKey, type Theme } from "./theme";
export { ModeBadge, ModeIndicator } from "./ModeIndicator";
export { ModeMenu, modeMenuKeys } from "./ModeMenu";
export { shortcutOf, useShortcuts, type Shortcuts } from "./keyboard";
