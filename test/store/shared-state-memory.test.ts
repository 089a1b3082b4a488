import { MemorySharedState } from '../../src/store/shared-state/memory.ts';
import { sharedStateSuite } from './shared-state.suite.ts';

sharedStateSuite('memory', async () => new MemorySharedState());
