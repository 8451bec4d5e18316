import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { defaultTransport, reportConversation, reportReady, smokeSession, TransportProvider, type UIReport } from "./backend";
import { startTheme } from "./features/shell/theme";
import "./styles.css";

startTheme();

const root = document.getElementById("root");
if (root === null) {
  throw new Error("index.html has no #root element");
}
// The desktop smoke test names a session to open (App.SmokeSession, ""
// outside smoke mode and in a browser); the shell opens what the address
// names, and the report then says what its conversation shows.
void smokeSession().then((open) => {
  if (open !== "") history.replaceState(null, "", `#session=${encodeURIComponent(open)}`);
  const onReady = open === "" ? reportReady : (r: UIReport) => reportConversation(open, r);
  createRoot(root).render(
    <StrictMode>
      <TransportProvider transport={defaultTransport()}>
        <App onReady={onReady} />
      </TransportProvider>
    </StrictMode>,
  );
});
