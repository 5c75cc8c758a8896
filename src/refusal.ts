// A start the operator must fix before Loupe can run (its data folder or port is in use): the entry points
// print its message alone on stderr and exit with a non-zero status, instead of a stack trace.
export class Refusal extends Error {
  override name = 'Refusal';
}
