import type { DestinationStream } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { prettyLogStream } from './http/log.ts';
import { startSpeechEngines } from './speech-engines.ts';
import { startupBanner, startupFacts } from './startup-banner.ts';

/** People at a terminal get readable lines; log collectors (stdout is a pipe or file) get JSON. */
async function logStreamFor(config: Readonly<Config>): Promise<DestinationStream | undefined> {
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true);
  return pretty ? prettyLogStream(process.stdout.isTTY === true) : undefined;
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`voxsmith: configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  // The synthesis workers first: their warm-up is the longest part of start-up, and it runs while this thread
  // loads the HTTP side (a dynamic import, so that loading comes after) and builds the app.
  const starting = startSpeechEngines(config);
  starting.catch(() => undefined); // reported where it is awaited, below, not as an unhandled rejection
  const { buildApp } = await import('./app.ts');
  const speechEngines = await starting;
  const logStream = await logStreamFor(config);
  const app = await buildApp(config, { logStream, speechEngines });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    await app.close();
    process.stderr.write(
      `voxsmith: port ${config.port} on ${config.host} is in use by another process (PORT): stop it, or start on another port, e.g. PORT=${config.port + 1} npm start\n`,
    );
    process.exit(1);
  }
  const address = app.server.address();
  const facts = {
    ...startupFacts(config, typeof address === 'object' && address ? address.port : config.port, app.services.wyoming?.status()),
    naturalVoices: app.services.voices.naturalCount(),
    voicesInstalling: config.voicesInstall,
  };
  if (logStream) process.stdout.write(startupBanner(facts));
  else app.log.info(facts, `Voxsmith is running: open ${facts.url}`);

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining open requests');
    // A second signal, or a drain that takes too long, ends the process anyway.
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`voxsmith: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
