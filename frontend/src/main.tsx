import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { defaultTransport, reportReady, TransportProvider } from "./backend";
import { startTheme } from "./features/shell/theme";
import "./styles.css";

startTheme();

const root = document.getElementById("root");
if (root === null) {
  throw new Error("index.html has no #root element");
}
createRoot(root).render(
  <StrictMode>
    <TransportProvider transport={defaultTransport()}>
      <App onReady={reportReady} />
    </TransportProvider>
  </StrictMode>,
);
