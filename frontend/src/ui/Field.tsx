import { useId, type ReactNode } from "react";

/** FieldControl is what a field's control carries: its id and the ARIA that ties it to the field's hint and error. */
export interface FieldControl {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
}

/**
 * Field is a labelled form control with its error and hint beneath it. The
 * error is a sentence at the field it is about (never a line at the
 * bottom of the form): the control gets aria-invalid and is described by
 * the error, then the hint, so a screen reader reads why when focus
 * reaches it. children renders the control with the props it is given.
 */
export function Field(props: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
  className?: string;
  children: (control: FieldControl) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const bad = props.error !== undefined && props.error !== "";
  const described = [bad ? errorId : "", props.hint !== undefined ? hintId : ""].filter((x) => x !== "").join(" ");
  return (
    <div className={props.className === undefined ? "field" : `field ${props.className}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({
        id,
        ...(described !== "" ? { "aria-describedby": described } : {}),
        ...(bad ? { "aria-invalid": true as const } : {}),
      })}
      {bad && (
        <p id={errorId} className="field-error">
          {props.error}
        </p>
      )}
      {props.hint !== undefined && (
        <p id={hintId} className="muted hint">
          {props.hint}
        </p>
      )}
    </div>
  );
}
