import { useId } from "react";
import { RadioGroup } from "radix-ui";
import { useTheme, type Theme } from "../shell/theme";

const themes: { value: Theme; label: string; sentence: string }[] = [
  { value: "light", label: "Light", sentence: "Dark text on a light background." },
  { value: "dark", label: "Dark", sentence: "Light text on a dark background." },
  { value: "system", label: "System", sentence: "Follows your system's light or dark setting, also when it changes." },
];

/** ThemeSettings chooses the theme: light, dark, or as the system says. */
export function ThemeSettings() {
  const { theme, setTheme } = useTheme();
  const id = useId();
  return (
    <div className="settings-section">
      <RadioGroup.Root
        className="mode-choices"
        aria-label="Theme"
        value={theme}
        onValueChange={(v) => setTheme(v as Theme)}
      >
        {themes.map((t) => (
          <div className="mode-choice" key={t.value}>
            <RadioGroup.Item className="radio" value={t.value} id={`${id}-${t.value}`} aria-describedby={`${id}-${t.value}-why`}>
              <RadioGroup.Indicator className="radio-dot" />
            </RadioGroup.Item>
            <div>
              <label htmlFor={`${id}-${t.value}`} className="mode-label">
                {t.label}
              </label>
              <p className="muted mode-sentence" id={`${id}-${t.value}-why`}>
                {t.sentence}
              </p>
            </div>
          </div>
        ))}
      </RadioGroup.Root>
    </div>
  );
}
