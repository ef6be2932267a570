import { z } from "zod";

/** A DNS-1123 label: a cluster name, a namespace, a group; 1-63 lowercase letters, digits or '-'. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

// Kubernetes label syntax: an optional DNS-subdomain prefix and a name of at most 63
// characters; values are empty or a name of at most 63 characters.
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function labelKeyProblem(key: string): string | null {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== null && (prefix.length === 0 || prefix.length > 253 || !PREFIX.test(prefix))) {
    return "prefix must be a DNS subdomain (lowercase, at most 253 characters)";
  }
  if (name.length === 0 || name.length > 63) return "name must be 1-63 characters";
  if (!NAME.test(name)) return "name must start and end with a letter or digit and contain only letters, digits, '-', '_' or '.'";
  return null;
}

export function labelValueProblem(value: string): string | null {
  if (value === "") return null;
  if (value.length > 63) return "value must be at most 63 characters";
  if (!NAME.test(value))
    return "value must start and end with a letter or digit and contain only letters, digits, '-', '_' or '.'";
  return null;
}

export const labelKeySchema = z.string().superRefine((key, ctx) => {
  const problem = labelKeyProblem(key);
  if (problem) ctx.addIssue({ code: "custom", message: `label key "${key}": ${problem}` });
});

export const labelValueSchema = z.string().superRefine((value, ctx) => {
  const problem = labelValueProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: `label value "${value}": ${problem}` });
});

/**
 * A record keyed by user input, refusing a "__proto__" key: zod's record skips that key silently
 * (it cannot be assigned to a plain object), and a label that vanishes without a word is worse
 * than a 400. Other keys that name Object.prototype members ("constructor", "toString") are
 * ordinary label keys: code reading these records must use own-property lookups (`labelValue`).
 */
export function userKeyedRecord<T extends z.ZodType>(record: T, what: string) {
  return z.preprocess((input, ctx) => {
    if (input && typeof input === "object" && !Array.isArray(input) && Object.hasOwn(input, "__proto__")) {
      ctx.addIssue({ code: "custom", message: `${what} key "__proto__" is not allowed`, input });
    }
    return input;
  }, record);
}

export const labelsSchema = userKeyedRecord(
  z.record(labelKeySchema, labelValueSchema).refine((l) => Object.keys(l).length <= 64, {
    message: "at most 64 labels",
  }),
  "label",
);
export type Labels = Record<string, string>;

/**
 * The value of a label, own properties only: label keys come from users, and `labels.constructor`
 * on a plain object is a function, not a missing label.
 */
export function labelValue(labels: Labels, key: string): string | undefined {
  return Object.hasOwn(labels, key) ? labels[key] : undefined;
}

/** Required keys missing (or empty) in a label set. */
export function missingRequiredLabels(labels: Labels, required: readonly string[]): string[] {
  return required.filter((key) => !labelValue(labels, key));
}
