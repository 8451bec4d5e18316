import type { ReactNode } from "react";

/** Fact is one labelled value of a Facts list. */
export interface Fact {
  label: string;
  value: ReactNode;
}

/** Facts shows labelled values as a description list. */
export function Facts(props: { facts: Fact[]; label: string }) {
  return (
    <dl className="facts" aria-label={props.label}>
      {props.facts.map((f) => (
        <div className="fact" key={f.label}>
          <dt>{f.label}</dt>
          <dd>{f.value}</dd>
        </div>
      ))}
    </dl>
  );
}
