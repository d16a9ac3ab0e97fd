import { defineConfig } from 'vite';

// One classic script (IIFE) with everything inlined: `dist/widget.js`, served by the API at /widget.js.
export default defineConfig({
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    lib: { entry: 'src/main.ts', formats: ['iife'], name: 'AgentryWidget', fileName: () => 'widget.js' },
  },
});
