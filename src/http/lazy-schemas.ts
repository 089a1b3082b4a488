// Route schemas compiled when first needed, not while the app boots. Fastify compiles every route's validator
// (Ajv) and response serializer (fast-json-stringify) before it listens: ~0.4 s of the main thread on the way to
// ready, for routes most of which are not called in the first second. Here each compiles on its first use, or
// in the background once the server listens (compileWaitingSchemas), whichever comes first. The compilers and
// their options are Fastify's own defaults; only the moment changes.
import ajvCompiler from '@fastify/ajv-compiler';
import serializerCompiler from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SchemaControllerOptions = NonNullable<FastifyServerOptions['schemaController']>;
type Factories = NonNullable<SchemaControllerOptions['compilersFactory']>;
type ValidatorFactory = NonNullable<Factories['buildValidator']>;
type SerializerFactory = NonNullable<Factories['buildSerializer']>;

type Validate = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (...args: unknown[]) => string;

/** Compilations not yet done, oldest first. */
export class SchemaCompilations {
  private readonly waiting = new Set<() => void>();

  /**
   * Compiles `build()` on its first call, or when compileWaiting reaches it, and returns it from then on.
   * Until then it waits in `waiting`.
   */
  private onDemand<T>(build: () => T): () => T {
    let compiled: T | undefined;
    const compile = (): T => {
      if (compiled === undefined) {
        this.waiting.delete(compile);
        compiled = build();
      }
      return compiled;
    };
    this.waiting.add(compile);
    return compile;
  }

  /** A validator that compiles on its first call (or when compileWaiting reaches it). */
  lazyValidator(build: () => Validate): Validate {
    const compile = this.onDemand(build);
    const validate: Validate = (...args) => {
      const fn = compile();
      const result = fn(...args);
      // Fastify reads the failures off the function it called, as Ajv leaves them there.
      validate.errors = fn.errors;
      return result;
    };
    return validate;
  }

  lazySerializer(build: () => Serialize): Serialize {
    const compile = this.onDemand(build);
    return (...args) => compile()(...args);
  }

  get size(): number {
    return this.waiting.size;
  }

  /** Compiles what is still waiting, one schema per turn of the event loop, so requests go first. */
  compileWaiting(): void {
    const next = this.waiting.values().next();
    if (next.done) return;
    next.value();
    setImmediate(() => this.compileWaiting());
  }

  /** Fastify's schema controller option with these compilers. */
  controller(): SchemaControllerOptions {
    return {
      compilersFactory: {
        buildValidator: deferring<Validate>(ajvCompiler(), (build) => this.lazyValidator(build)) as unknown as ValidatorFactory,
        buildSerializer: deferring<Serialize>(serializerCompiler(), (build) => this.lazySerializer(build)) as unknown as SerializerFactory,
      },
    };
  }
}

/**
 * Fastify's compiler factory (ajv's or fast-json-stringify's) with each route's compilation handed to `defer`
 * instead of done at once. Fastify calls what it returns with the route definition ({ schema, method, url, ...
 * }), whatever the factories' typings say.
 */
function deferring<F>(factory: unknown, defer: (build: () => F) => F) {
  return (externalSchemas: unknown, options: unknown) => {
    const compile = (factory as (e: unknown, o: unknown) => (route: unknown) => F)(externalSchemas, options);
    return (route: unknown) => defer(() => compile(route));
  };
}
