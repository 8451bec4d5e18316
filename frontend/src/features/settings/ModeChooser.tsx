import { useId, useState } from "react";
import { AlertDialog, RadioGroup } from "radix-ui";
import { Button } from "../../ui/Button";
import { ModeFullAccess } from "../../backend/gen/event";
import { fullAccessWarning, isMode, modes, type ModeName } from "./modes";

/**
 * ModeChooser is a radio group of the three approval modes, each with its
 * sentence. Choosing Full Access asks first: cancelling keeps the mode.
 */
export function ModeChooser(props: {
  label: string;
  value: string;
  disabled?: boolean;
  /** What the confirmation says Full Access would apply to ("this session", "new sessions"). */
  target: string;
  onChange(m: ModeName): void;
}) {
  const id = useId();
  const [asking, setAsking] = useState(false);
  const choose = (v: string) => {
    if (!isMode(v) || v === props.value) return;
    if (v === ModeFullAccess) setAsking(true);
    else props.onChange(v);
  };
  return (
    <>
      <RadioGroup.Root
        className="mode-choices"
        aria-label={props.label}
        value={props.value}
        onValueChange={choose}
        disabled={props.disabled}
      >
        {modes.map((m) => (
          <div className="mode-choice" key={m.value}>
            <RadioGroup.Item
              className="radio"
              value={m.value}
              id={`${id}-${m.value}`}
              aria-describedby={`${id}-${m.value}-why`}
            >
              <RadioGroup.Indicator className="radio-dot" />
            </RadioGroup.Item>
            <div>
              <label htmlFor={`${id}-${m.value}`} className="mode-label">
                {m.label}
              </label>
              <p className="muted mode-sentence" id={`${id}-${m.value}-why`}>
                {m.sentence}
              </p>
            </div>
          </div>
        ))}
      </RadioGroup.Root>
      <AlertDialog.Root open={asking} onOpenChange={setAsking}>
        <AlertDialog.Portal>
          <AlertDialog.Overlay className="settings-overlay" />
          <AlertDialog.Content className="settings-confirm">
            <AlertDialog.Title>Switch {props.target} to Full Access?</AlertDialog.Title>
            <AlertDialog.Description>{fullAccessWarning}</AlertDialog.Description>
            <div className="confirm-actions">
              <AlertDialog.Cancel asChild>
                <Button>Cancel</Button>
              </AlertDialog.Cancel>
              <AlertDialog.Action asChild>
                <Button className="danger" onClick={() => props.onChange(ModeFullAccess)}>
                  Switch to Full Access
                </Button>
              </AlertDialog.Action>
            </div>
          </AlertDialog.Content>
        </AlertDialog.Portal>
      </AlertDialog.Root>
    </>
  );
}
