import type { Server } from 'node:http';

import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

import { httpConfig, type HttpConfig } from '../config/http.config.js';
import { PortListeners } from './port-listeners.js';

/**
 * `HTTP_LISTENERS` sockets on one port (see `PortListeners`). `listen()` stands for `app.listen()`
 * after `app.init()`; `close()` stops them at once when draining starts.
 */
@Injectable()
export class HttpListeners {
  private listeners?: PortListeners;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(httpConfig.KEY) private readonly config: HttpConfig,
  ) {}

  listen(port: number, host?: string): Promise<void> {
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    this.listeners = new PortListeners(server, this.config.listeners);
    return new Promise((resolve, reject) => {
      this.listeners!.listen(port, host, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Stops the sockets but the server's own accepting; Nest's adapter closes that one. */
  close(): Promise<void> {
    return this.listeners?.close() ?? Promise.resolve();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.close();
  }
}
