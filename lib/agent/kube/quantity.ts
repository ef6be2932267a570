// Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity): a decimal number with an
// optional binary (Ki..Ei), decimal (n, u, m, k, M..E) or exponent (e3, E-2) suffix.

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** The quantity in base units (cores, bytes); null when it is not a quantity. */
export function parseQuantity(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  const match = QUANTITY.exec(value.trim());
  if (!match) return null;
  const number = Number(match[1]);
  const suffix = match[2] ?? "";
  if (suffix in BINARY) return number * BINARY[suffix]!;
  if (suffix in DECIMAL) return number * DECIMAL[suffix]!;
  return number * 10 ** Number(suffix.slice(1));
}
