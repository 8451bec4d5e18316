/**
 * Spinner is a small turning ring with a text for screen readers and, when
 * visible is set, for everyone. It is a status, so its text is announced.
 */
export function Spinner(props: { label: string; visible?: boolean }) {
  return (
    <span className="spinner-wrap" role="status">
      <span className="spinner" aria-hidden="true" />
      <span className={props.visible === true ? "" : "visually-hidden"}>{props.label}</span>
    </span>
  );
}
