/**
 * Preset is a model provider the first run offers by name: its
 * OpenAI-compatible base URL (as the provider documents it) and whether it
 * wants an API key. "Other" has no URL: the person types one.
 */
export interface Preset {
  id: string;
  name: string;
  baseUrl: string;
  /** key: "required" for a hosted provider, "none" for a local server, "optional" when it depends. */
  key: "required" | "none" | "optional";
  /** where: where the key (or the server) comes from, in a few words. */
  where: string;
}

/** presets are the providers the first run's form offers, hosted ones first, "Other" last. */
export const presets: readonly Preset[] = [
  { id: "openai", name: "OpenAI", baseUrl: "https://api.openai.com/v1", key: "required", where: "the API keys page of your OpenAI account" },
  { id: "openrouter", name: "OpenRouter", baseUrl: "https://openrouter.ai/api/v1", key: "required", where: "the Keys page of your OpenRouter account" },
  { id: "groq", name: "Groq", baseUrl: "https://api.groq.com/openai/v1", key: "required", where: "the API Keys page of the Groq console" },
  { id: "together", name: "Together", baseUrl: "https://api.together.xyz/v1", key: "required", where: "the API keys of your Together account" },
  { id: "deepseek", name: "DeepSeek", baseUrl: "https://api.deepseek.com", key: "required", where: "the API keys page of the DeepSeek platform" },
  { id: "mistral", name: "Mistral", baseUrl: "https://api.mistral.ai/v1", key: "required", where: "the API keys page of the Mistral console" },
  { id: "ollama", name: "Ollama (local)", baseUrl: "http://localhost:11434/v1", key: "none", where: "start it with ollama serve" },
  { id: "lmstudio", name: "LM Studio (local)", baseUrl: "http://localhost:1234/v1", key: "none", where: "start its server in the Developer tab" },
  { id: "other", name: "Other (OpenAI-compatible)", baseUrl: "", key: "optional", where: "any server that speaks the OpenAI API" },
];

/** urlProblem says what is wrong with a typed base URL in a sentence, "" when it looks right (the kernel checks again). */
export function urlProblem(raw: string): string {
  const s = raw.trim();
  if (s === "") return "Give the server's base URL, such as http://127.0.0.1:8080/v1.";
  if (!s.includes("://")) {
    return `This is not a web address: give one that starts with http:// or https://, such as http://${s.replace(/^\/+/, "")}.`;
  }
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return "This is not a web address: give one that starts with http:// or https://, such as http://127.0.0.1:8080/v1.";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return `Foya talks to model servers over http:// or https://, not ${u.protocol}// : give an address such as https://api.openai.com/v1.`;
  }
  if (u.username !== "" || u.password !== "") return "Leave the user name and password out of the address: put the key in the API key field.";
  if (u.search !== "" || u.hash !== "") return "Leave the ?query or #part out of the base URL: it ends with the path, usually /v1.";
  return "";
}
