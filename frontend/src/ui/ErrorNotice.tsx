import { createContext, useContext, useId, type ReactNode } from "react";
import { Button } from "./Button";
import "./feedback.css";
import { explain, type ErrorAction } from "./errorWords";

/** ErrorHandlers are what the app can do about an error wherever it shows: open the settings, test the provider's connection. */
export interface ErrorHandlers {
  onSettings?: () => void;
  onTest?: () => void;
}

/** ErrorActions gives every ErrorNotice below it the app's handlers (the shell provides Open settings). */
export const ErrorActions = createContext<ErrorHandlers>({});

export interface ErrorNoticeProps {
  /** error is an ApiError (a refused call) or the text of a failure the kernel reported. */
  error: unknown;
  /** title, if given, names what failed ("The run failed"); the sentence follows it. */
  title?: string;
  onRetry?: () => void;
  retryLabel?: string;
  onSettings?: () => void;
  onTest?: () => void;
  /** children go between the words and the actions (a note of the caller's). */
  children?: ReactNode;
  className?: string;
}

/**
 * ErrorNotice shows an error as a person reads it: a sentence that says
 * what happened and what to do, the technical text folded under "Details",
 * and the actions that help (Retry, Open settings, Test connection) among
 * those the caller or the app (ErrorActions) can do. It is an alert: a
 * screen reader says the sentence at once.
 */
export function ErrorNotice(props: ErrorNoticeProps) {
  const app = useContext(ErrorActions);
  const id = useId();
  const x = explain(props.error);
  const handlers: Record<ErrorAction, (() => void) | undefined> = {
    retry: props.onRetry,
    settings: props.onSettings ?? app.onSettings,
    test: props.onTest ?? app.onTest,
  };
  const labels: Record<ErrorAction, string> = { retry: props.retryLabel ?? "Retry", settings: "Open settings", test: "Test connection" };
  const actions = x.actions.filter((a) => handlers[a] !== undefined);
  // Retry is offered whenever the caller can retry, even for a cause that rarely goes away by itself.
  if (props.onRetry !== undefined && !actions.includes("retry")) actions.push("retry");
  return (
    <div className={`notice notice-alert error-notice${props.className !== undefined ? ` ${props.className}` : ""}`} role="alert" aria-labelledby={`${id}-s`}>
      <p className="error-notice-sentence" id={`${id}-s`}>
        {props.title !== undefined && <strong>{props.title}: </strong>}
        {x.sentence} {x.next}
      </p>
      {props.children}
      {x.detail !== "" && (
        <details className="error-notice-details">
          <summary>Details</summary>
          <pre className="error-notice-detail">{x.detail}</pre>
        </details>
      )}
      {actions.length > 0 && (
        <div className="error-notice-actions">
          {actions.map((a, i) => (
            <Button key={a} variant={i === 0 ? "primary" : "default"} onClick={handlers[a]}>
              {labels[a]}
            </Button>
          ))}
        </div>
      )}
    </div>
  );
}
