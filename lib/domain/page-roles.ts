import type { Role } from "./roles";

// The role each console section needs. Pages enforce it themselves; the console layout also
// checks it before anything streams, so a refused page answers HTTP 403 rather than a 200
// whose body says forbidden. The API enforces its own roles regardless.
const SECTIONS: [prefix: string, role: Role][] = [
  ["/settings", "admin"],
  ["/audit", "operator"],
  // Approving lets a cluster in: the queue is for those who may decide.
  ["/registration-requests", "operator"],
  // Planning a rollout starts it; watching rollouts (/rollouts, /rollouts/<id>) is for everyone.
  ["/rollouts/new", "operator"],
];

export function pageRole(pathname: string): Role {
  for (const [prefix, role] of SECTIONS) {
    if (pathname === prefix || pathname.startsWith(`${prefix}/`)) return role;
  }
  return "viewer";
}
