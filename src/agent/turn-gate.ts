// Whether a turn is running or still finishing, and a way to wait until none is.
// The panel goes idle at the runtime's turn_ended, while the controller still
// writes the end-of-turn checkpoint; a prompt sent then must wait for that work,
// which does I/O. So waiting is on a promise that stays pending until the turn's
// last line has run: looping on an already-settled promise (as the controller
// once did on the turn's own promise) never yields to I/O, and froze the host.

export class TurnGate {
  private finishing: Promise<void> | undefined;

  get busy(): boolean {
    return this.finishing !== undefined;
  }

  /** Marks a turn as started; call the returned function once its last line has run. */
  begin(): () => void {
    let done!: () => void;
    const finishing = new Promise<void>((resolve) => (done = resolve));
    this.finishing = finishing;
    return () => {
      if (this.finishing === finishing) this.finishing = undefined;
      done();
    };
  }

  /** Resolves once no turn is running or finishing (one begun meanwhile is waited for too). */
  async idle(): Promise<void> {
    while (this.finishing) await this.finishing;
  }
}
