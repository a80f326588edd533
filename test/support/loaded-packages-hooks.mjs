// ES module loader hooks (node:module register) for loaded-packages.cjs: tells it the URL of
// every module the ES module loader loads (ES modules never reach require.cache).
let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  port.postMessage(url);
  return nextLoad(url, context);
}
