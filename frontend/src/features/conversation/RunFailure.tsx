// RunFailure: a failed run's notice, with "Test connection" for a failure
// to reach the model server (or a refused key): it checks the turn's
// provider profile as Settings does (TestProvider) and says the outcome in
// words inside the notice.
import { useState } from "react";
import { useApi } from "../../backend/context";
import { toApiError } from "../../backend";
import type { ProviderCheck } from "../../backend/gen/profiles";
import { ErrorNotice } from "../../ui/ErrorNotice";
import type { Turn } from "./reducer";

type Test = { status: "idle" } | { status: "testing" } | { status: "done"; ok: boolean; text: string };

export function RunFailure(props: { turn: Turn; onRetry: ((prompt: string) => void) | null }) {
  const { turn, onRetry } = props;
  const api = useApi();
  const [test, setTest] = useState<Test>({ status: "idle" });
  const profile = turn.provider;
  const run = async () => {
    setTest({ status: "testing" });
    try {
      setTest({ status: "done", ...checkWords(await api.TestProvider(profile)) });
    } catch (e) {
      setTest({ status: "done", ok: false, text: `The connection could not be tested: ${toApiError(e).message}` });
    }
  };
  return (
    <ErrorNotice
      className="convo-failed"
      title="The run failed"
      error={turn.error || "no reason was given"}
      {...(onRetry !== null ? { onRetry: () => onRetry(turn.prompt) } : {})}
      // A run on a server given by flags has no profile to test.
      {...(profile !== "" ? { onTest: () => void run() } : {})}
    >
      {test.status !== "idle" && (
        <p role="status" className={`convo-test${test.status === "done" && !test.ok ? " convo-test-bad" : ""}`}>
          {test.status === "testing" ? `Testing the connection to ${profile}…` : test.text}
        </p>
      )}
    </ErrorNotice>
  );
}

/** checkWords says what a profile's check found, in one or two sentences. */
export function checkWords(c: ProviderCheck): { ok: boolean; text: string } {
  const at = c.baseUrl;
  switch (c.models.status) {
    case "down":
      return { ok: false, text: `Foya cannot connect to the model server at ${at}: ${c.models.message}` };
    case "unauthorized":
      return { ok: false, text: `Foya connects to the model server at ${at}, but it refused the key: ${c.models.message}` };
  }
  const stream = c.stream.status === "ok" ? ` Model ${c.model} answered.` : ` But a request to model ${c.model} failed: ${c.stream.message}`;
  const listed = c.models.status === "ok" ? "" : ` (${c.models.message})`;
  return { ok: c.stream.status === "ok", text: `Foya connects to the model server at ${at}${listed}.${stream}` };
}
