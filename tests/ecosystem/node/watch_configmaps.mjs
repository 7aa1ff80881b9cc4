// @kubernetes/client-node, unmodified, against whatever server its
// kubeconfig names (informerd's Kubernetes API port in
// tests/ecosystem/run.sh): its own informer (makeInformer: list, then
// watch, its ObjectCache) of one namespace's ConfigMaps.
//
// Usage: node watch_configmaps.mjs KUBECONFIG NAMESPACE CLIENT_NAME
// Prints "SYNCED" once the informer has listed and this client has written
// its own ConfigMap (the write passes through informerd to the apiserver);
// when the ConfigMap named "done" is in the informer's cache it prints
// "CACHE {name: resourceVersion}" and exits 0. The informer restarts after
// an error, as its README shows.
import * as k8s from '@kubernetes/client-node';

const [kubeconfig, namespace, name] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);
const informer = k8s.makeInformer(
  kc, `/api/v1/namespaces/${namespace}/configmaps`,
  () => core.listNamespacedConfigMap({ namespace }));

function finishIfDone() {
  const objects = informer.list(namespace);
  if (!objects.some((o) => o.metadata.name === 'done')) return;
  const cache = {};
  for (const o of objects) cache[o.metadata.name] = o.metadata.resourceVersion;
  const sorted = Object.fromEntries(Object.entries(cache).sort());
  process.stdout.write(`CACHE ${JSON.stringify(sorted)}\n`, () => process.exit(0));
}

for (const verb of [k8s.ADD, k8s.UPDATE, k8s.DELETE]) informer.on(verb, finishIfDone);
informer.on(k8s.ERROR, (err) => {
  console.error(`informer error: ${err}; restarting`);
  setTimeout(() => informer.start(), 1000);
});

await informer.start();
await core.createNamespacedConfigMap({
  namespace,
  body: { metadata: { name: `written-by-${name}` }, data: { client: name } },
});
console.log('SYNCED');
finishIfDone();
