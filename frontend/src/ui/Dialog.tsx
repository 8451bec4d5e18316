import { Dialog as D } from "radix-ui";
import type { ReactNode } from "react";
import { useReturnFocus } from "./returnFocus";

export interface DialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** title names the dialog (its accessible name). */
  title: string;
  /** description, if given, is read with the title. */
  description?: ReactNode;
  children: ReactNode;
  /** role "alertdialog" for a confirmation of something that cannot be undone. */
  role?: "dialog" | "alertdialog";
  /** onOpenAutoFocus lets a dialog choose what takes focus when it opens. */
  onOpenAutoFocus?: (e: Event) => void;
  className?: string;
  /** onOpenerGone puts the focus somewhere when what had it before the dialog opened is gone on close (useReturnFocus). */
  onOpenerGone?: () => void;
}

/**
 * Dialog is a modal dialog (radix-ui): focus is trapped inside and comes
 * back to what had it when the dialog opened, however it was opened
 * (useReturnFocus); Escape and a click outside close it.
 */
export function Dialog(props: DialogProps) {
  const returnFocus = useReturnFocus(props.open, props.onOpenerGone);
  return (
    <D.Root open={props.open} onOpenChange={props.onOpenChange}>
      <D.Portal>
        <D.Overlay className="dialog-overlay" />
        <D.Content
          className={`dialog${props.className !== undefined ? ` ${props.className}` : ""}`}
          role={props.role ?? "dialog"}
          onCloseAutoFocus={returnFocus}
          {...(props.description === undefined ? { "aria-describedby": undefined } : {})}
          {...(props.onOpenAutoFocus !== undefined ? { onOpenAutoFocus: props.onOpenAutoFocus } : {})}
        >
          <D.Title className="dialog-title">{props.title}</D.Title>
          {props.description !== undefined && <D.Description className="dialog-description">{props.description}</D.Description>}
          {props.children}
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}

/** DialogClose wraps a button that closes the nearest Dialog. */
export const DialogClose = D.Close;
