// The name under which the worker thread hands the main thread's compiled flite over (FliteProgram.use): the
// resident library (library.ts) took the place of the program that ran once per sentence.
export { FliteLibrary as FliteProgram } from './library.ts';
