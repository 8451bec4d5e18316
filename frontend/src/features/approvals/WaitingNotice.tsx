// The composer's line while requests wait: that the run waits for the
// person, which request (and how many), and a button, Alt+A from anywhere,
// that scrolls to the oldest request and focuses it.
import { useState } from "react";
import { permission, requestPermission, type Permission } from "../../backend/attention";
import { useApprovals } from "./context";
import { title } from "./words";

/** goToKey is the shortcut that goes to the oldest waiting request (aria-keyshortcuts). */
export const goToKey = "Alt+A";

/** WaitingNotice says that requests wait; nothing when none does. */
export function WaitingNotice() {
  const ap = useApprovals();
  if (ap === null) return null;
  const head = ap.waiting[0];
  if (head === undefined) return null;
  const count = ap.waiting.length;
  return (
    <div className="approval-waiting">
      <p role="status">
        {count === 1 ? "Waiting for your approval" : `Waiting for your approval (${count} requests)`}: {title(head.request.action)}
        {ap.deferred && " It did not take focus while you were typing."}
      </p>
      <button type="button" className="button button-primary approval-goto" aria-keyshortcuts={goToKey} onClick={() => ap.reveal(head.id)}>
        Go to the request <kbd aria-hidden="true">(Alt+A)</kbd>
      </button>
      {ap.alertError !== "" && <p className="approval-note">No notification was shown: {ap.alertError}.</p>}
      <NotifyOffer />
    </div>
  );
}

/** NotifyOffer asks, in a browser that has not been asked yet, to notify when an approval waits. */
function NotifyOffer() {
  const [p, setP] = useState<Permission>(() => permission());
  if (p !== "default") return null;
  return (
    <p className="approval-note">
      <button type="button" className="convo-link approval-link" onClick={() => void requestPermission().then(setP)}>
        Notify me when an approval waits
      </button>{" "}
      (when this page is in the background)
    </p>
  );
}

