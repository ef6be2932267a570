// The parser has no types of its own; its output follows prom2json's JSON shape.
declare module "parse-prometheus-text-format" {
  type Labels = Record<string, string>;
  export type PrometheusSample =
    | { value: string; labels?: Labels }
    | { buckets: Record<string, string>; count: string; sum: string; labels?: Labels }
    | { quantiles: Record<string, string>; count: string; sum: string; labels?: Labels };
  export type PrometheusFamily = {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: PrometheusSample[];
  };
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
