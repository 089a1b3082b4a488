import { EmbeddedTaskQueue } from '../../src/jobs/queue/embedded.ts';
import { taskQueueSuite } from './task-queue.suite.ts';

taskQueueSuite('embedded', async (options) => new EmbeddedTaskQueue(options));
