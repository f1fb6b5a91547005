/** Polls `done` every 10 ms until it holds (it may be async); fails naming `what` after `ms`. */
export async function waitUntil(
  what: string,
  done: () => boolean | Promise<boolean>,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
