import type { ButtonHTMLAttributes, Ref } from "react";

/** ButtonVariant is a button's weight: primary for the one main action of a place, danger for a destructive one. */
export type ButtonVariant = "default" | "primary" | "danger" | "ghost";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  ref?: Ref<HTMLButtonElement>;
}

/** Button is a plain button with the app's styling; type defaults to "button". */
export function Button(props: ButtonProps) {
  const { className, type, variant, ...rest } = props;
  const cls = ["button", variant !== undefined && variant !== "default" ? `button-${variant}` : "", className ?? ""]
    .filter((c) => c !== "")
    .join(" ");
  return <button type={type ?? "button"} className={cls} {...rest} />;
}
