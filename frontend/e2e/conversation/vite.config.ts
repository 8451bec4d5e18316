// The conversation view alone, in a page of its own, for the Chromium
// checks of check.mjs (open 2,000 cards, scroll, stream, follow): built
// with `npx vite build --config e2e/conversation/vite.config.ts`, served
// with `npx vite preview` and the same config.
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root: here,
  base: "./",
  plugins: [react()],
  build: { outDir: fileURLToPath(new URL("../../node_modules/.cache/convo-bench", import.meta.url)), emptyOutDir: true, target: "es2022" },
  preview: { host: "127.0.0.1", strictPort: true },
});
