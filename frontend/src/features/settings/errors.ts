import { toApiError } from "../../backend";

/**
 * errorText is what a failed call shows: the kernel's own message, which
 * says what happened and what to do; a kernel that is not open says so.
 */
export function errorText(e: unknown): string {
  const err = toApiError(e);
  return err.message.trim() === "" ? `The call failed (${err.code}); try again.` : err.message;
}

/** ProfileField is a field of a provider profile's form. */
export type ProfileField = "name" | "baseUrl" | "model" | "headers" | "apiKey" | "toolCalls" | "contextWindow" | "maxOutput" | "inputPrice" | "outputPrice";

/**
 * profileErrorField says which field of a provider profile's form the
 * kernel's refusal (AddProvider, EditProvider) is about, from its code and
 * words, so that the form shows it there; null for one about none (a
 * locked keyring).
 */
export function profileErrorField(e: unknown): ProfileField | null {
  const err = toApiError(e);
  if (err.code === "conflict") return "name";
  if (err.code !== "invalid") return null;
  const m = err.message;
  if (/provider name/i.test(m)) return "name";
  if (/base url/i.test(m)) return "baseUrl";
  if (/header/i.test(m)) return "headers";
  if (/api key/i.test(m)) return "apiKey";
  if (/tool-call mode/i.test(m)) return "toolCalls";
  if (/input price/i.test(m)) return "inputPrice";
  if (/output price/i.test(m)) return "outputPrice";
  if (/output limit/i.test(m)) return "maxOutput";
  if (/context window/i.test(m)) return "contextWindow";
  if (/model/i.test(m)) return "model";
  return null;
}
