import type { NextConfig } from "next";
import { PHASE_PRODUCTION_BUILD } from "next/constants";

const nextConfig: NextConfig = {
  // Lets a second checkout of the work share a machine without sharing a build (tests only).
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  reactStrictMode: true,
  // forbidden() renders app/forbidden.tsx with HTTP 403 for pages a role may not see.
  experimental: { authInterrupts: true },
  // The document is served at the conventional /api/openapi.json; a route folder named with a
  // dot trips Next's typed-route check, so the file lives at app/api/openapi.
  async rewrites() {
    return [{ source: "/api/openapi.json", destination: "/api/openapi" }];
  },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

// No source maps in the production build (Next's own default for server code before Turbopack):
// the custom server runs under tsx, which turns Node's source-map support on for the whole process,
// and Node then read and kept every chunk's map as the chunk loaded: 60 MB of the console's heap
// and ~80 MB of its resident memory at start (docs/capacity.md). `next dev` keeps them.
export default function config(phase: string): NextConfig {
  if (phase !== PHASE_PRODUCTION_BUILD) return nextConfig;
  return { ...nextConfig, experimental: { ...nextConfig.experimental, turbopackSourceMaps: false } };
}
