import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the API under /dashboard; `server.fs.allow` lets the dev server read the bundled templates in configs/.
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
  server: { fs: { allow: ['../..'] }, proxy: { '/v1': process.env.AGENTRY_API_URL ?? 'http://127.0.0.1:3000' } },
});
