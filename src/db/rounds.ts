import { log } from "../wire/log.js";

/**
 * A round of background work run at once and then every `intervalMs`, never two at a time (a round still under
 * way when the next is due makes that one a no-op). A failed round is logged and the next one tries again.
 */
export class Rounds {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly name: string,
    private readonly round: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    const tick = () => {
      this.running ??= this.round()
        .catch((err: Error) => log.error(`${this.name} failed; tried again next round`, { error: err.message }))
        .finally(() => (this.running = undefined));
    };
    tick();
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the rounds, after the one under way (if any) ends. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
