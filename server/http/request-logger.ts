import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type LogArguments = Parameters<FastifyBaseLogger['info']>;

/** Makes the pino child lazily: pino serialises bindings eagerly, and at warn a successful request logs nothing. */
export class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  /** The child's level, read without making it: the route's own level, else the app's. */
  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: LogArguments): void {
    this.logger().fatal(...args);
  }

  error(...args: LogArguments): void {
    this.logger().error(...args);
  }

  warn(...args: LogArguments): void {
    this.logger().warn(...args);
  }

  info(...args: LogArguments): void {
    this.logger().info(...args);
  }

  debug(...args: LogArguments): void {
    this.logger().debug(...args);
  }

  trace(...args: LogArguments): void {
    this.logger().trace(...args);
  }

  silent(...args: LogArguments): void {
    this.logger().silent(...args);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  private logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }
}

export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildOptions): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}
