import type { NextConfig } from "next";

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

export default nextConfig;
