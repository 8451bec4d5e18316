import { useCallback, useEffect, useRef, useState } from "react";
import { useApi, useTransport } from "../../backend";
import type { ServerLog } from "../../backend/gen/mcpconfig";
import { Button } from "../../ui/Button";
import { errorText } from "./errors";

type Load = { status: "loading" } | { status: "error"; message: string } | { status: "ready"; log: ServerLog };

/** levelClass groups a server's log level for its badge: error and worse, warning, the rest. */
export function levelClass(level: string): "error" | "warning" | "info" {
  if (["error", "critical", "alert", "emergency"].includes(level)) return "error";
  if (level === "warning") return "warning";
  return "info";
}

/** clock shows an entry's time as the local time of day, or the text as it came when it is no time. */
export function clock(rfc3339: string): string {
  const d = new Date(rfc3339);
  return Number.isNaN(d.getTime()) ? rfc3339 : d.toLocaleTimeString();
}

/**
 * MCPLog is a server's log: the messages it sent (notifications/message,
 * the last 200, newest last) with their level and logger, and the end of
 * its standard error. It is read when opened, with Refresh, and again
 * when an mcp.changed notice names the server (it started, failed,
 * restarted): no timer.
 */
export function MCPLog(props: { server: string; workdir: string }) {
  const api = useApi();
  const transport = useTransport();
  const [load, setLoad] = useState<Load>({ status: "loading" });
  const live = useRef(true);

  const read = useCallback(() => {
    return api.MCPServerLog(props.workdir, props.server).then(
      (log) => live.current && setLoad({ status: "ready", log }),
      (e: unknown) => live.current && setLoad({ status: "error", message: errorText(e) }),
    );
  }, [api, props.server, props.workdir]);

  useEffect(() => {
    live.current = true;
    void read();
    const off = transport.subscribeNotices(
      (n) => {
        if (n.type === "mcp.changed" && (n.data.server === undefined || n.data.server === "" || n.data.server === props.server)) void read();
      },
      () => void read(),
    );
    return () => {
      live.current = false;
      off();
    };
  }, [transport, read, props.server]);

  return (
    <section className="mcp-log" aria-label={`Log of ${props.server}`}>
      <div className="mcp-log-head">
        <h5>Log</h5>
        <Button onClick={() => void read()} aria-label={`Refresh the log of ${props.server}`}>
          Refresh
        </Button>
      </div>
      {load.status === "loading" && <p className="muted">Reading its log…</p>}
      {load.status === "error" && (
        <p role="alert" className="error-text">
          Could not read its log: {load.message}
        </p>
      )}
      {load.status === "ready" && (
        <>
          {load.log.entries.length === 0 ? (
            <p className="muted">
              No log messages. Foya asks servers that declare logging for level {load.log.level} and up; the last 200 are kept while Foya runs.
            </p>
          ) : (
            <ol className="mcp-log-entries" aria-label={`Log messages of ${props.server}, newest last`}>
              {load.log.entries.map((e, i) => (
                <li key={i} className={`mcp-log-entry mcp-log-${levelClass(e.level)}`}>
                  <time dateTime={e.time} className="muted">
                    {clock(e.time)}
                  </time>{" "}
                  <span className={`badge mcp-log-level mcp-log-level-${levelClass(e.level)}`}>{e.level}</span>
                  {e.logger !== undefined && e.logger !== "" && <span className="muted"> {e.logger}</span>}
                  <pre>{e.data}</pre>
                </li>
              ))}
            </ol>
          )}
          {load.log.stderr !== undefined && load.log.stderr !== "" && (
            <>
              <h6>End of its standard error</h6>
              <pre className="mcp-log-stderr" aria-label={`Standard error of ${props.server}`}>
                {load.log.stderr}
              </pre>
            </>
          )}
        </>
      )}
    </section>
  );
}
