import type { ReactNode } from "react";

/**
 * Notice is a block of text that explains a state: "status" is announced
 * politely by screen readers, "alert" at once (errors).
 */
export function Notice(props: { kind: "status" | "alert"; title?: string; children: ReactNode }) {
  return (
    <div className={`notice notice-${props.kind}`} role={props.kind}>
      {props.title !== undefined && <p className="notice-title">{props.title}</p>}
      {props.children}
    </div>
  );
}
