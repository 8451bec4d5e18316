// The review panel in the shell's layout, in a page of its own, for the
// screenshots of shots.mjs (light and dark, two window sizes): built
// with `npx vite build --config e2e/review/vite.config.ts`, served
// with `npx vite preview` and the same config.
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";

const here = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root: here,
  base: "./",
  plugins: [react()],
  build: { outDir: join(tmpdir(), "foya-review-shots"), emptyOutDir: true, target: "es2022" },
  preview: { host: "127.0.0.1", strictPort: true },
});
