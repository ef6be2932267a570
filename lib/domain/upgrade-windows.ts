import { z } from "zod";

// Weekly upgrade windows in a named IANA time zone. Times are wall-clock times in that zone, so a
// window "Sat 02:00-06:00 Europe/Berlin" follows daylight saving time; a window whose start is
// after its end runs past midnight into the next day (the day named is the day it opens).

export const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "a time as HH:MM (00:00-23:59)");

export const upgradeWindowSchema = z
  .object({
    days: z.array(z.enum(WEEKDAYS)).min(1, "choose at least one day"),
    start: hhmm,
    end: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, "a time as HH:MM (00:00-24:00)"),
  })
  .strict()
  .refine((w) => w.start !== w.end, { message: "a window needs a start and a different end", path: ["end"] });
export type UpgradeWindow = z.infer<typeof upgradeWindowSchema>;

export const upgradeWindowsSchema = z.array(upgradeWindowSchema).max(20);

/** Whether the runtime knows this IANA zone name ("Europe/Berlin", "UTC"). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const timeZoneSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine(isTimeZone, "not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)");

/** A group's upgrade policy: the windows and the zone they are in (absent: always open). */
export type WindowPolicy = { windows: UpgradeWindow[] | null; timeZone: string | null };

const minutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));

/** The weekday and minute of the day on the wall clock of `timeZone` at `now`. */
export function wallClock(now: Date, timeZone: string): { day: Weekday; minute: number } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return { day: part("weekday") as Weekday, minute: Number(part("hour")) * 60 + Number(part("minute")) };
}

const previousDay = (day: Weekday): Weekday => WEEKDAYS[(WEEKDAYS.indexOf(day) + 6) % 7]!;

/** Is one of the windows open at `now`? No windows means always open; no zone means UTC. */
export function windowOpen(policy: WindowPolicy, now: Date): boolean {
  if (!policy.windows || policy.windows.length === 0) return true;
  const { day, minute } = wallClock(now, policy.timeZone ?? "UTC");
  return policy.windows.some((w) => {
    const start = minutes(w.start);
    const end = minutes(w.end);
    if (start < end) return w.days.includes(day) && minute >= start && minute < end;
    // Past midnight: open from start on the day named, and until end on the day after.
    return (w.days.includes(day) && minute >= start) || (w.days.includes(previousDay(day)) && minute < end);
  });
}

/** A cluster in several groups upgrades only when every one of its groups' windows is open. */
export function allWindowsOpen(policies: WindowPolicy[], now: Date): boolean {
  return policies.every((p) => windowOpen(p, now));
}

/** "Sat, Sun 02:00-06:00 (Europe/Berlin)" */
export function describeWindows(policy: WindowPolicy): string {
  if (!policy.windows?.length) return "any time";
  const zone = policy.timeZone ?? "UTC";
  return `${policy.windows.map((w) => `${w.days.join(", ")} ${w.start}-${w.end}`).join("; ")} (${zone})`;
}
