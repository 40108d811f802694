// Which adapter runs the page: the server session when the module has one and the person did
// not ask for ?offline or a ?scenario, the local stand-in otherwise. It chooses the mode from
// the URL and what the module offers; it never looks inside a message.
import { LocalAdapter } from './local.mjs';
import { SessionAdapter } from './session.mjs';

/**
 * @param {object} tandem the loaded ES module
 * @param {ReturnType<typeof import('../options.mjs').parseOptions>} options
 */
export function chooseAdapter(tandem, options) {
  const local = (reason) => new LocalAdapter(tandem, { scenario: options.scenario, watch: options.watch, seed: options.seed, pellets: options.pellets, reason });
  if (options.scenario !== null) return local('?scenario: no server involved');
  if (options.offline) return local('?offline');
  if (typeof tandem.ClientSession !== 'function') return local('this build of the module has no client session yet');
  return new SessionAdapter(tandem, options);
}
