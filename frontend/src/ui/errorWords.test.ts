import { describe, expect, it } from "vitest";
import { ApiError } from "../backend/errors";
import { explain, host } from "./errorWords";

// The run's error text as the engine reports a model server that does not answer.
const refused =
  'model: provider: Post "http://127.0.0.1:39999/v1/chat/completions": dial tcp 127.0.0.1:39999: connect: connection refused (after 3 attempts)';

describe("explain", () => {
  it.each([
    [refused, "unreachable", "Foya could not reach the model server at 127.0.0.1:39999."],
    ['model: provider: Post "https://llm.example.test/v1/chat/completions": dial tcp: lookup llm.example.test: no such host', "unreachable", "Foya could not reach the model server at llm.example.test."],
    ["model: provider: dial tcp 10.0.0.9:8080: i/o timeout", "unreachable", "Foya could not reach the model server at 10.0.0.9:8080."],
    ['model: provider: Post "http://127.0.0.1:429/v1/chat/completions": dial tcp 127.0.0.1:429: connect: connection refused', "unreachable", "Foya could not reach the model server at 127.0.0.1:429."],
    ["model: provider: context deadline exceeded", "unreachable", "Foya could not reach the model server."],
    ["model: provider: 401 Unauthorized: invalid api key", "key", "The model server refused the key."],
    ["model: provider: 403 Forbidden: no access to this model", "key", "The model server refused the key."],
    ["model: provider: 429 Too Many Requests: slow down", "rate", "The model server is limiting requests: too many were sent in a short time."],
    [new ApiError("busy", "session s1 has a run going"), "busy", "This session already has a run going."],
    [new ApiError("not_found", "no session s9"), "not_found", "What this was about no longer exists: it may have been deleted."],
    [new ApiError("internal", "store: insert event: database is locked"), "database", "Foya could not read or write its database."],
    [new ApiError("internal", "sqlite: disk I/O error"), "database", "Foya could not read or write its database."],
    [new ApiError("unavailable", "provider scripted is not ready"), "unreachable", "The model server is not available."],
    [new ApiError("unauthorized", "missing or wrong token"), "access", "Foya refused this page's access token."],
    ["the model's server closed the stream", "unknown", "Something went wrong."],
    [new Error("boom"), "unknown", "Something went wrong."],
  ])("explain(%s) is %s: %s", (err, cause, sentence) => {
    const x = explain(err);
    expect(x.cause).toBe(cause);
    expect(x.sentence).toBe(sentence);
    expect(x.next).not.toBe("");
  });

  it("keeps the technical text as the detail", () => {
    expect(explain(refused).detail).toBe(refused);
    expect(explain(new ApiError("busy", "session s1 has a run going")).detail).toBe("session s1 has a run going");
  });

  it("offers what helps: retry and the provider's settings for a server not reached, the settings first for a refused key", () => {
    expect(explain(refused).actions).toEqual(["retry", "test", "settings"]);
    expect(explain("provider: 401 Unauthorized: bad key").actions[0]).toBe("settings");
    expect(explain(new ApiError("not_found", "gone")).actions).toEqual([]);
  });
});

describe("host", () => {
  it.each([
    ['Post "http://localhost:11434/v1/chat/completions": EOF', "localhost:11434"],
    ["dial tcp [::1]:8080: connect: connection refused", "[::1]:8080"],
    ["lookup nowhere.invalid: no such host", "nowhere.invalid"],
    ["nothing here", ""],
  ])("host(%s) = %s", (text, want) => expect(host(text)).toBe(want));
});
