import { Global, Module } from '@nestjs/common';

import { LoadShedder } from './load-shedder.js';
import { ShutdownState } from './shutdown-state.js';

/** What the process is in: draining (`ShutdownState`), overloaded (`LoadShedder`). */
@Global()
@Module({
  providers: [ShutdownState, LoadShedder],
  exports: [ShutdownState, LoadShedder],
})
export class LifecycleModule {}
