import { forwardRef, type ButtonHTMLAttributes, type ReactNode } from "react";

export interface IconButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, "aria-label"> {
  /** label is the button's accessible name, also shown as its tooltip. */
  label: string;
  /** icon is the picture (a lucide-react icon); it is hidden from screen readers. */
  icon: ReactNode;
  /** text, if given, is shown beside the icon. */
  text?: string;
}

/**
 * IconButton is a button shown as an icon (and optional text) whose
 * accessible name is label. It forwards its ref, so it can be a radix
 * trigger.
 */
export const IconButton = forwardRef<HTMLButtonElement, IconButtonProps>(function IconButton(props, ref) {
  const { label, icon, text, className, type, title, ...rest } = props;
  return (
    <button
      ref={ref}
      type={type ?? "button"}
      aria-label={label}
      title={title ?? label}
      className={`icon-button${text !== undefined ? " icon-button-text" : ""}${className !== undefined ? ` ${className}` : ""}`}
      {...rest}
    >
      <span aria-hidden="true" className="icon-button-icon">
        {icon}
      </span>
      {text !== undefined && <span aria-hidden="true">{text}</span>}
    </button>
  );
});
