import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  // Wails serves the built files from its own asset server; relative URLs
  // keep them working there and under `foya serve` alike.
  base: "./",
  build: {
    outDir: "dist",
    // Emptied on each build; the postbuild script puts back dist/.gitkeep,
    // which is committed so that `go vet` works on a fresh clone.
    emptyOutDir: true,
    target: "es2022",
  },
  test: {
    environment: "happy-dom",
    include: ["src/**/*.test.{ts,tsx}"],
    restoreMocks: true,
    setupFiles: ["src/test-setup.ts"],
    testTimeout: 30000,
  },
});
