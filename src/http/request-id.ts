declare module 'express-serve-static-core' {
  interface Request {
    /** The request's id, as logged and echoed in `X-Request-Id`. */
    id?: string;
  }
}

export {};
