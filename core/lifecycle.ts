/**
 * Where a running instance stands in its life, for the readiness check: whether it drains (a
 * SIGTERM came: it still serves, but tells the load balancer to stop sending) and whether its
 * job processor runs. `startService` owns it; the health routes read it.
 */
export class Lifecycle {
  #draining = false;
  #jobs: { processing: boolean; running: boolean } = { processing: false, running: false };

  get draining(): boolean {
    return this.#draining;
  }

  /** From now on the instance reports not ready; it still answers what it is sent. */
  drain(): void {
    this.#draining = true;
  }

  /** The job processor's state: on this instance or not (SITEVOICE_JOBS), and running. */
  get jobs(): { processing: boolean; running: boolean } {
    return this.#jobs;
  }

  jobsStarted(processing: boolean): void {
    this.#jobs = { processing, running: true };
  }

  jobsStopped(): void {
    this.#jobs = { ...this.#jobs, running: false };
  }
}
