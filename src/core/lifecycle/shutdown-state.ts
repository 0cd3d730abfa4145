import { Injectable } from '@nestjs/common';

/** Whether the process is draining: readiness answers 503 from the first moment of a shutdown. */
@Injectable()
export class ShutdownState {
  private draining = false;

  get isShuttingDown(): boolean {
    return this.draining;
  }

  begin(): void {
    this.draining = true;
  }
}
