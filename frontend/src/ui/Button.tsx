import type { ButtonHTMLAttributes } from "react";

/** Button is a plain button with the app's styling; type defaults to "button". */
export function Button(props: ButtonHTMLAttributes<HTMLButtonElement>) {
  const { className, type, ...rest } = props;
  return (
    <button type={type ?? "button"} className={className === undefined ? "button" : `button ${className}`} {...rest} />
  );
}
