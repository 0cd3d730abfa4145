'use strict';

const { spawnSync } = require('node:child_process');

/**
 * Once a resource is written, `npm run openapi`: the committed `openapi.yaml`
 * and the client's types gain its operations, as `npm run lint` requires.
 * It builds the service to do so; a build that fails is left for the
 * developer to see, and the command to run again named.
 */
function openapi() {
  return (tree, context) => {
    context.logger.info('Regenerating openapi.yaml and the client types (npm run openapi)…');
    const { status } = spawnSync('npm', ['run', 'openapi', '--silent'], { stdio: 'inherit' });
    if (status !== 0) {
      context.logger.warn('npm run openapi failed: fix what it names, then run it again.');
    }
    return tree;
  };
}

module.exports = { openapi };
