import { themes, useTheme, type Theme } from "./theme";

const label: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

/** ThemeChoice is the theme radio group (light, dark, system), kept by useTheme. */
export function ThemeChoice() {
  const { theme, setTheme } = useTheme();
  return (
    <fieldset className="theme-choice">
      <legend>Theme</legend>
      {themes.map((t) => (
        <label key={t}>
          <input type="radio" name="theme" value={t} checked={theme === t} onChange={() => setTheme(t)} /> {label[t]}
        </label>
      ))}
    </fieldset>
  );
}
