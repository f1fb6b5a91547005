/** Minutes as the analytics show them (the API reference, "Analytics"): seconds / 60, to 2 decimals. */
export const minutesOf = (seconds: number): number => Math.round((seconds / 60) * 100) / 100;
