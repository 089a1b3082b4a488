import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));
// `npm run dev:web` proxies the API to a service on :8080 started with PUBLIC_URL=http://localhost:5173,
// so cookie-authenticated writes carry the origin the service expects.
const service = process.env.VOXSMITH_URL ?? 'http://localhost:8080';

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Never inline assets as data: URLs into scripts; the CSP allows data: only for images and media anyway.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
  server: {
    port: 5173,
    proxy: {
      '/api': service,
      '/verify': service,
      '/v1': { target: service, ws: true },
    },
  },
});
