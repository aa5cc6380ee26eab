import { defineConfig } from "vite";

// base "./": the built app works from any path of any origin.
export default defineConfig({ base: "./", build: { outDir: "dist", emptyOutDir: true } });
