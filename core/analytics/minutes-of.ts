/** Minutes as the analytics show them (DECISIONS.md "Analytics"): seconds / 60, to 2 decimals. */
export const minutesOf = (seconds: number): number => Math.round((seconds / 60) * 100) / 100;
